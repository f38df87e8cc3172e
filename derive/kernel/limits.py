"""Hard, load-independent time limits for everything the kernel runs.

A limit is a number of seconds of **CPU time of this process** (``ITIMER_PROF``
counts user and system time of every thread): the same derivation gets the same
verdict on an idle and on a loaded machine. A wall-clock backstop on the
outermost limit only (``ITIMER_REAL``, :data:`WALL_FACTOR` × the CPU limit +
:data:`WALL_SLACK`) catches work that waits instead of computing.

Limits nest: an inner limit never outlasts the enclosing one. When a limit
expires, :class:`TimeLimit` is raised inside whatever is running (a sympy
strategy, ``doit()``, a quadrature). It derives from ``BaseException`` so the
``except Exception`` clauses of library code do not swallow it, and the timer
re-fires every ``REFIRE`` seconds until the limited block has exited, so
even a bare ``except:`` cannot keep a computation alive.

Limits need POSIX interval timers and the main thread (CPython delivers
signals only there). The signal handlers are installed when the outermost
limit starts and the previous ones are put back when it ends. Elsewhere :func:`limit` still enforces the CPU deadline
at every ``checkpoint()`` but cannot interrupt a computation;
:func:`available` says which case applies. A computation stuck inside one C
call (a single enormous integer power) is interrupted only when that call
returns: a known limit, documented in "What *proved* means".
"""

from __future__ import annotations

import contextlib
import gc
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

#: The wall-clock backstop is this many times the CPU limit ...
WALL_FACTOR = 10.0
#: ... plus this many seconds.
WALL_SLACK = 5.0
#: Once a limit has expired, the timer fires again this often until the block exits.
REFIRE = 0.05
#: CPU seconds a single sympy call inside the witness or a rule's side condition (a breakpoint or pole solve,
#: a premise solved for a symbol, sympy's limit at an exact point or of an atom) may take: a backstop against
#: a hang only. *Whether* such a call is made is decided before it by a size cap (an operation count, a
#: degree), never by a shorter time, so the same calls are made, and the same points evaluated, on every
#: machine; a call within its cap takes well under a tenth of this.
BACKSTOP = 5.0


class TimeLimit(BaseException):  # noqa: N818 - not an error of the caller: a limit reached
    """A time limit expired; ``label`` names what was running."""

    def __init__(self, label: str, seconds: float) -> None:
        super().__init__(f"{label} reached its limit of {seconds:.3g} s CPU")
        self.label = label
        self.seconds = seconds
        self.frame: _Frame | None = None


def cpu_time() -> float:
    """CPU seconds used by this process so far (all threads, user + system)."""
    return time.process_time()


@dataclass
class _Frame:
    label: str
    seconds: float
    cpu_deadline: float
    wall_deadline: float
    expired: bool = False


_stack: list[_Frame] = []


def available() -> bool:
    """True when limits can interrupt a running computation (POSIX timers, main thread)."""
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _arm() -> None:
    """Arm both timers for the innermost frame (the tightest deadline)."""
    if not available():
        return
    if not _stack:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        return
    top = _stack[-1]
    cpu_left = max(top.cpu_deadline - cpu_time(), 1e-4)
    wall_left = max(top.wall_deadline - time.monotonic(), 1e-4)
    signal.setitimer(signal.ITIMER_PROF, cpu_left)
    signal.setitimer(signal.ITIMER_REAL, wall_left)


#: True while the garbage collector runs: an exception raised in a finalizer is printed and lost
_IN_GC = [False]


def _gc_phase(phase: str, info: dict) -> None:
    _IN_GC[0] = phase == "start"


gc.callbacks.append(_gc_phase)


def _handler(signum: int, frame: Any) -> None:
    if not _stack:  # a late signal after the last limit ended: nothing to stop
        return
    if _IN_GC[0]:  # raise after the collection (the timer fires again in REFIRE seconds)
        if available():
            signal.setitimer(signal.ITIMER_PROF, REFIRE)
            signal.setitimer(signal.ITIMER_REAL, REFIRE)
        return
    now_cpu, now_wall = cpu_time(), time.monotonic()
    # the outermost expired frame wins: its whole block must stop
    for f in _stack:
        if f.expired or now_cpu >= f.cpu_deadline - 1e-4 or now_wall >= f.wall_deadline - 1e-4:
            f.expired = True
            if available():
                signal.setitimer(signal.ITIMER_PROF, REFIRE)
                signal.setitimer(signal.ITIMER_REAL, REFIRE)
            exc = TimeLimit(f.label, f.seconds)
            exc.frame = f
            raise exc
    _arm()  # fired early (rounding): wait for the rest


_saved: list = []


def _install() -> None:
    """Install the handlers for the outermost limit (the previous ones come back when it ends)."""
    if not available():
        return
    _saved[:] = [signal.signal(signal.SIGPROF, _handler), signal.signal(signal.SIGALRM, _handler)]


def _uninstall() -> None:
    if not available() or not _saved:
        return
    signal.setitimer(signal.ITIMER_PROF, 0)
    signal.setitimer(signal.ITIMER_REAL, 0)
    if hasattr(signal, "sigtimedwait"):
        # a timer that fired while the signals were blocked must not reach the previous handler
        # (SIG_DFL for SIGALRM would end the process)
        pending = signal.sigpending() & {signal.SIGPROF, signal.SIGALRM}
        while pending:
            signal.sigtimedwait(pending, 0)
            pending = signal.sigpending() & {signal.SIGPROF, signal.SIGALRM}
    signal.signal(signal.SIGPROF, _saved[0])
    signal.signal(signal.SIGALRM, _saved[1])
    _saved.clear()


@contextlib.contextmanager
def limit(seconds: float, label: str) -> Iterator[_Frame]:
    """Run the body for at most ``seconds`` of CPU time (and never past an enclosing limit).

    Raises:
        TimeLimit: the body ran out of time (raised from inside the body; the
            frame that expired is ``exc.frame``, so callers can tell their own
            limit from an enclosing one).
    """
    with _masked():  # no signal while the stack and the timers are being changed
        if not _stack:
            _install()
        now_cpu, now_wall = cpu_time(), time.monotonic()
        seconds = max(float(seconds), 0.0)
        cpu_deadline = now_cpu + seconds
        # the wall-clock backstop belongs to the outermost limit only: an inner slice measured in wall
        # time would make verdicts depend on the machine's load
        wall_deadline = now_wall + WALL_FACTOR * seconds + WALL_SLACK
        if _stack:
            cpu_deadline = min(cpu_deadline, _stack[-1].cpu_deadline)
            wall_deadline = _stack[-1].wall_deadline
        frame = _Frame(label, seconds, cpu_deadline, wall_deadline)
        _stack.append(frame)
        _arm()
    try:
        if seconds <= 0:
            frame.expired = True
            exc = TimeLimit(label, seconds)
            exc.frame = frame
            raise exc
        yield frame
    finally:
        with _masked():
            for k in range(len(_stack) - 1, -1, -1):
                if _stack[k] is frame:
                    del _stack[k:]  # this frame and anything a failure left above it
                    break
            if not _stack:
                _uninstall()
            elif any(f.expired for f in _stack):
                # an enclosing limit is spent too: let it fire right away
                if available():
                    signal.setitimer(signal.ITIMER_PROF, 1e-4)
            else:
                _arm()


@contextlib.contextmanager
def _masked() -> Iterator[None]:
    """Block the timer signals for the body (POSIX only); pending ones arrive when it ends."""
    if not (available() and hasattr(signal, "pthread_sigmask")):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGPROF, signal.SIGALRM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def remaining() -> float:
    """CPU seconds left under the innermost limit (infinite outside any limit)."""
    if not _stack:
        return float("inf")
    return max(_stack[-1].cpu_deadline - cpu_time(), 0.0)


def checkpoint() -> None:
    """Raise :class:`TimeLimit` if the innermost limit is spent (for loops outside signal reach)."""
    if _stack and cpu_time() >= _stack[-1].cpu_deadline:
        f = _stack[-1]
        f.expired = True
        exc = TimeLimit(f.label, f.seconds)
        exc.frame = f
        raise exc


def run_limited(seconds: float, label: str, fn: Any, *args: Any) -> tuple[bool, Any]:
    """``(True, fn(*args))``, or ``(False, the TimeLimit)`` if ``fn`` ran out of its own time.

    An enclosing limit that expires meanwhile propagates: the caller's block must stop too.
    """
    try:
        with limit(seconds, label):
            return True, fn(*args)
    except TimeLimit as exc:
        if any(f is exc.frame for f in _stack):
            raise
        return False, exc
