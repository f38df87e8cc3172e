"""Figure 5: start-up of ``derive --help`` and ``derive list`` vs a bare interpreter."""

from __future__ import annotations

import sys

from .common import Figure, best_time, derive_command, fmt_s, run_timed

TARGET_OVER = 0.2


def run(quick: bool) -> Figure:
    repeat = 5 if quick else 15
    fig = Figure("startup", "Start-up time",
                 columns=["command", "best wall", "over `python -c pass`", "ratio", "sympy imported?"])
    bare = best_time([sys.executable, "-c", "pass"], repeat)
    fig.rows.append(["`python -c pass`", fmt_s(bare), "—", "1.00×", "no"])
    probe = ("import sys, runpy; sys.argv = ['derive'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('derive', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print('SYMPY' if 'sympy' in sys.modules else 'NOSYMPY', file=sys.stderr)")
    for args in (["--help"], ["list"]):
        seconds = best_time([*derive_command(), *args], repeat)
        _, proc = run_timed([sys.executable, "-c", probe, *args])
        loaded = "yes" if proc is not None and "NOSYMPY" not in proc.stderr else "no"
        over = seconds - bare
        fig.rows.append([f"`derive {' '.join(args)}`", fmt_s(seconds), fmt_s(over), f"{seconds / bare:.2f}×", loaded])
        fig.target(f"`derive {' '.join(args)}` over the bare interpreter", over, TARGET_OVER)
        fig.data[" ".join(args)] = {"seconds": seconds, "over_s": over, "sympy": loaded}
    fig.data["bare_s"] = bare
    fig.notes.append(f"Best of {repeat} runs after a warm-up, through the installed console script.")
    return fig
