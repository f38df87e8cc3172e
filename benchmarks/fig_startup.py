"""Figure 5: start-up of ``derive --help`` and ``derive list`` vs a bare interpreter."""

from __future__ import annotations

import sys

from .common import Figure, best_time, derive_command, fmt_s, run_timed

TARGET_OVER = 0.2


def run(quick: bool) -> Figure:
    repeat = 3 if quick else 15
    fig = Figure("startup", "Start-up time",
                 columns=["command", "best wall", "over `python -c pass`", "ratio", "CPU (user+sys)",
                          "CPU over bare", "sympy imported?"])
    bare, bare_cpu = best_time([sys.executable, "-c", "pass"], repeat)
    fig.rows.append(["`python -c pass`", fmt_s(bare), "—", "1.00×", fmt_s(bare_cpu), "—", "no"])
    numpy_s, numpy_cpu = best_time([sys.executable, "-c", "import numpy"], repeat)
    fig.rows.append(["`python -c 'import numpy'` (for scale)", fmt_s(numpy_s), fmt_s(numpy_s - bare),
                     f"{numpy_s / bare:.2f}×", fmt_s(numpy_cpu), fmt_s(numpy_cpu - bare_cpu), "no"])
    probe = ("import sys, runpy; sys.argv = ['derive'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('derive', run_name='__main__')\n"
             "except SystemExit:\n    pass\n"
             "print('SYMPY' if 'sympy' in sys.modules else 'NOSYMPY', file=sys.stderr)")
    for args in (["--help"], ["list"]):
        seconds, cpu = best_time([*derive_command(), *args], repeat)
        _, proc = run_timed([sys.executable, "-c", probe, *args])
        loaded = "yes" if proc is not None and "NOSYMPY" not in proc.stderr else "no"
        over = seconds - bare
        fig.rows.append([f"`derive {' '.join(args)}`", fmt_s(seconds), fmt_s(over), f"{seconds / bare:.2f}×",
                         fmt_s(cpu), fmt_s(cpu - bare_cpu), loaded])
        fig.target(f"`derive {' '.join(args)}` over the bare interpreter", over, TARGET_OVER)
        fig.data[" ".join(args)] = {"seconds": seconds, "over_s": over, "cpu_s": cpu, "sympy": loaded}
    fig.data["bare_s"], fig.data["bare_cpu_s"] = bare, bare_cpu
    fig.data["numpy_s"], fig.data["numpy_cpu_s"] = numpy_s, numpy_cpu
    fig.notes.append("`derive list` imports the catalog modules, which import numpy at module level (sympy only "
                     "inside the builders); numpy's own import is the row above. `derive --help` imports neither.")
    fig.notes.append(f"Best of {repeat} runs after a warm-up (which writes the bytecode cache, as any installed "
                     "copy has it), through the installed console script; the CPU "
                     "columns (from getrusage) are less disturbed by other work on a shared machine than wall time.")
    return fig
