"""Figure: proving power on the derivative corpus: derive against ``simplify`` and ``equals``.

Every case of :mod:`benchmarks.corpus_derivatives` (every 20th with ``--quick``) is decided by the
three methods of :mod:`benchmarks.power_methods`, in one worker process, one case after the other,
each from an empty sympy cache. derive is called through its public API only (``derive.check`` of a
one-step derivation ``Derivative(F, x) = f``, numeric cross-checks off); the sympy baselines are
capped at derive's default step budget and count as undecided when they hit it.
"""

from __future__ import annotations

import statistics

from .common import Figure, fmt_s, worker

METHODS = ("derive", "simplify", "equals")
VERDICTS = ("proved", "undecided", "refuted")


def _p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.9 * (len(xs) - 1))))] if xs else 0.0


def _count(rows: list[dict], method: str, truth: bool, verdict: str) -> int:
    return sum(1 for r in rows if r["truth"] is truth and r[method]["verdict"] == verdict)


def summarise(data: dict) -> dict:
    """Counts, times and the gaps between methods, from the worker's output."""
    rows = data["cases"]
    out: dict = {"n_true": sum(r["truth"] for r in rows), "n_false": sum(not r["truth"] for r in rows),
                 "methods": {}, "categories": {}}
    for m in METHODS:
        secs = [r[m]["seconds"] for r in rows]
        out["methods"][m] = {
            "true": {v: _count(rows, m, True, v) for v in VERDICTS},
            "false": {v: _count(rows, m, False, v) for v in VERDICTS},
            "median_s": statistics.median(secs) if secs else 0.0, "p90_s": _p90(secs),
            "median_true_s": statistics.median([r[m]["seconds"] for r in rows if r["truth"]] or [0.0]),
            "timeouts": sum(1 for r in rows if r[m].get("timed_out")),
        }
    for r in rows:
        if not r["truth"]:
            continue
        cat = out["categories"].setdefault(r["category"], {"n": 0, **{m: 0 for m in METHODS}})
        cat["n"] += 1
        for m in METHODS:
            cat[m] += r[m]["verdict"] == "proved"
    out["simplify_not_derive"] = [r["id"] for r in rows if r["truth"] and r["simplify"]["verdict"] == "proved"
                                  and r["derive"]["verdict"] != "proved"]
    out["derive_not_simplify"] = [r["id"] for r in rows if r["truth"] and r["derive"]["verdict"] == "proved"
                                  and r["simplify"]["verdict"] != "proved"]
    out["true_refuted_by_derive"] = [r["id"] for r in rows if r["truth"] and r["derive"]["verdict"] == "refuted"]
    out["false_proved_by_derive"] = [r["id"] for r in rows if not r["truth"] and r["derive"]["verdict"] == "proved"]
    return out


def _grouped(ids: list[str]) -> str:
    groups: dict[str, list[str]] = {}
    for i in ids:
        cat, rest = i.split(".", 1)
        groups.setdefault(cat, []).append(rest)
    return "; ".join(f"{cat}: {', '.join(v)}" for cat, v in groups.items()) or "none"


#: a quick run decides every QUICK_EVERY-th case of the corpus
QUICK_EVERY = 20


def run(quick: bool) -> Figure:
    every = QUICK_EVERY if quick else 1
    fig = Figure("power", "Proving power: derivatives of table antiderivatives",
                 columns=["method", "true: proved", "undecided", "refuted", "false: proved", "undecided",
                          "refuted", "median per case", "p90 per case"])
    _, data = worker("power", str(every))
    assert data is not None
    s = summarise(data)
    for m in METHODS:
        d = s["methods"][m]
        fig.rows.append([
            {"derive": "derive (`check`, numeric off)", "simplify": "`simplify(diff(F, x) - f) == 0`",
             "equals": "`diff(F, x).equals(f)`"}[m],
            *(d["true"][v] for v in VERDICTS), d["false"]["proved"], d["false"]["undecided"],
            d["false"]["refuted"], fmt_s(d["median_s"]), fmt_s(d["p90_s"])])
    der, sim = s["methods"]["derive"], s["methods"]["simplify"]
    fig.target("false cases proved by derive", der["false"]["proved"], 0, unit="cases")
    fig.target("true cases refuted by derive", der["true"]["refuted"], 0, unit="cases")
    fig.target("true cases simplify proves beyond derive's count", sim["true"]["proved"] - der["true"]["proved"],
               0, unit="cases")
    if sim["median_true_s"]:
        fig.target("derive's median time on true cases over simplify's", der["median_true_s"] / sim["median_true_s"],
                   1, unit="×")
    fig.notes.append(
        f"{s['n_true']} true and {s['n_false']} false cases"
        f"{f' (every {QUICK_EVERY}th case of the corpus: quick run)' if quick else ''} from "
        "`benchmarks/corpus_derivatives.py`: d/dx F = f for table antiderivatives (rational, roots, logs, exp, "
        "trig, inverse trig, hyperbolic, compositions), and one false variant of each (a coefficient, a sign "
        "or a function of f changed, checked false with mpmath).")
    fig.notes.append(
        "derive: `derive.check(Derivation(start=Derivative(F, x), steps=(Step(f, ...),), "
        "auto_identity_check=False), numeric=False)`, verdict of the step; its own 5 s budget. simplify and "
        f"equals capped at 5 s a case (timeouts: simplify {sim['timeouts']}, "
        f"equals {s['methods']['equals']['timeouts']}), counted undecided. Times are wall time of one "
        "process, each case from an empty sympy cache.")
    cats = sorted(s["categories"].items(), key=lambda kv: kv[1]["derive"] / kv[1]["n"])
    fig.notes.append("true cases proved per category (derive / simplify / equals of n), weakest for derive "
                     "first: " + "; ".join(f"{c} {v['derive']}/{v['simplify']}/{v['equals']} of {v['n']}"
                                           for c, v in cats))
    fig.notes.append(f"simplify proves, derive does not ({len(s['simplify_not_derive'])}): "
                     f"{_grouped(s['simplify_not_derive'])}")
    fig.notes.append(f"derive proves, simplify does not ({len(s['derive_not_simplify'])}): "
                     f"{_grouped(s['derive_not_simplify'])}")
    if s["true_refuted_by_derive"] or s["false_proved_by_derive"]:
        fig.notes.append(f"WRONG verdicts of derive: true refuted {s['true_refuted_by_derive']}, "
                         f"false proved {s['false_proved_by_derive']}")
    fig.data = {"summary": s, "cases": data["cases"], "every": every}
    return fig
