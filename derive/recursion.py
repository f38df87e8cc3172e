"""Room for deep expressions: a recursion limit and a stack large enough for SymPy to walk them.

SymPy walks an expression tree recursively, several Python frames per level, so
a fraction nested 200 deep (``1/(1 + 1/(1 + …))``) or a long continued fraction
exceeds Python's default limit of 1000 frames in SymPy's own constructors,
printers and simplifiers. :func:`make_room` raises the limit to
:data:`RECURSION_LIMIT` frames, and the main thread's stack limit to
:data:`STACK_BYTES` so the deeper recursion cannot overflow the C stack (on
Linux the main thread's stack grows on demand up to that limit). It never
lowers either, and in a thread other than the main one (whose stack size was
fixed when it started) it changes nothing. The ``derive`` command calls it
before it loads any module; :func:`derive.verify.verify` calls it too.

An expression deeper still gives a step the verdict *undecided* ("expression too
deep"), a cross-check *not evaluated*, never a traceback.
"""

from __future__ import annotations

import sys
import threading

#: Python frames allowed once :func:`make_room` ran (the default is 1000).
RECURSION_LIMIT = 20_000
#: Bytes of main-thread stack asked for (the usual default is 8 MiB).
STACK_BYTES = 256 * 2**20


def make_room() -> bool:
    """Raise the recursion limit to :data:`RECURSION_LIMIT` where the stack allows it.

    Returns:
        Whether the limit is now at least :data:`RECURSION_LIMIT` (false in a thread other
        than the main one, or where the stack limit cannot be raised).
    """
    if sys.getrecursionlimit() >= RECURSION_LIMIT:
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    try:
        import resource
    except ImportError:  # not POSIX: the stack cannot be checked, leave the limit alone
        return False
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_STACK)
        if soft != resource.RLIM_INFINITY and soft < STACK_BYTES:
            target = STACK_BYTES if hard == resource.RLIM_INFINITY else min(hard, STACK_BYTES)
            resource.setrlimit(resource.RLIMIT_STACK, (target, hard))
            soft = target
    except (OSError, ValueError):
        return False
    if soft != resource.RLIM_INFINITY and soft < STACK_BYTES:
        return False
    sys.setrecursionlimit(RECURSION_LIMIT)
    return True
