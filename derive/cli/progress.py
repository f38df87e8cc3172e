"""Progress of a long command: one line per finished derivation, with its verdict.

``derive check`` and ``derive export --all --check`` verify many derivations; a
user at a terminal sees each one as it finishes, with its verdict in colour and
a bar of how far along the run is (drawn by ``rich``, removed when the run
ends). When the stream is not a terminal, or ``NO_COLOR`` is set (any
non-empty value, https://no-color.org), the same lines are written plain, one
per derivation, and no bar. Example line::

    [  3/118] passed     softmax.max-trick (0.41 s)
"""

from __future__ import annotations

import os
import sys
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..report import Report

#: verdict word -> rich style (the word is shown in the active language: the labels of derivation pages)
_STYLES = {"passed": "bold green", "cached": "green", "refuted": "bold red", "undecided": "bold yellow",
           "failed": "bold red"}


def verdict_word(report: Report) -> str:
    """``passed``, ``refuted``, ``undecided`` or ``failed`` (every step proved but a cross-check failed)."""
    from ..report import Verdict

    if report.ok:
        return "passed"
    if report.verdict is Verdict.REFUTED:
        return "refuted"
    if not report.symbolic_ok:
        return "undecided"
    return "failed"


def wants_colour(stream: IO[str]) -> bool:
    """True when ``stream`` is a terminal and ``NO_COLOR`` is unset or empty."""
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or unusual stream
        return False


class Progress:
    """Report finished derivations on ``stream`` (default stdout); use as a context manager.

    Args:
        total: how many derivations the run has.
        stream: where the lines go.
        colour: colour and a live bar (default: :func:`wants_colour` of ``stream``).
    """

    def __init__(self, total: int, *, stream: IO[str] | None = None, colour: bool | None = None) -> None:
        self.total = total
        self.stream = sys.stdout if stream is None else stream
        self.colour = wants_colour(self.stream) if colour is None else colour
        self.done_count = 0
        self._bar = None
        self._task = None
        self._console = None

    def __enter__(self) -> Progress:
        if self.colour and self.total > 0:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bar

            self._console = Console(file=self.stream, highlight=False)
            # rich's default bar is pink, which a 16-colour terminal shows red: red is kept for failures
            bar = BarColumn(complete_style="cyan", finished_style="green")
            self._bar = Bar(TextColumn("checking"), bar, MofNCompleteColumn(), TimeElapsedColumn(),
                            console=self._console, transient=True)
            self._task = self._bar.add_task("", total=self.total)
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def done(self, report: Report, *, cached: bool = False) -> None:
        """One derivation finished: print its line (and advance the bar)."""
        self.done_count += 1
        from rich.cells import cell_len

        from ..i18n import gettext, translate

        word = verdict_word(report)
        shown = translate(word)  # in the active language, padded to 10 terminal cells
        shown += " " * max(0, 10 - cell_len(shown))
        width = len(str(self.total))
        where = f"[{self.done_count:>{width}}/{self.total}]"
        tail = "(" + gettext("cached") + ")" if cached else f"({report.seconds:.2f} s)"
        if self._bar is None or self._console is None:
            self.stream.write(f"{where} {shown} {report.name} {tail}\n")
            self.stream.flush()
            return
        from rich.text import Text

        line = Text()
        line.append(f"{where} ", style="dim")
        line.append(shown, style=_STYLES["cached" if cached and report.ok else word])
        line.append(f" {report.name} ")
        line.append(tail, style="dim")
        self._console.print(line)
        self._bar.update(self._task, advance=1)
