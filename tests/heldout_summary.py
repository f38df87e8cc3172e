"""Summary of the held-out batch 2 (``tests/test_heldout_batch2.py``), by category.

``summarize(outcomes)`` formats the figures the held-out suite reports: false steps refuted / total,
false steps proved (must be 0), true steps proved / total, true steps refuted (must be 0), undecided
counts, per category and overall. Run this file directly (``python tests/heldout_summary.py
[--json FILE] [ID_PREFIX ...]``) to check the cases without pytest and print a per-case table.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path


def _counts(rows: list[dict]) -> dict:
    c = defaultdict(int)
    for r in rows:
        e, v = r["expect"], r["verdict"]
        c[f"{e}_total"] += 1
        c[f"{e}_{v}"] += 1
        if e == "true" and "refuted" in r["steps"]:
            c["true_any_refuted"] += 1
    return c


def _line(label: str, c: dict) -> str:
    parts = []
    if c["false_total"]:
        parts.append(f"false: refuted {c['false_refuted']:>3}/{c['false_total']:<3} proved {c['false_proved']:>2} "
                     f"undecided {c['false_undecided']:>2} crash {c['false_crash']:>2}")
    if c["true_total"]:
        parts.append(f"true: proved {c['true_proved']:>3}/{c['true_total']:<3} refuted {c['true_any_refuted']:>2} "
                     f"undecided {c['true_undecided']:>2} crash {c['true_crash']:>2}")
    if c["vacuous_total"]:
        parts.append(f"vacuous: flagged {c['vacuous_flagged']}/{c['vacuous_total']}")
    return f"{label:<20} " + " | ".join(parts)


def summarize(outcomes: list[dict], extra: list[dict] = ()) -> str:
    """The summary table: one line per category and a total line; ``extra`` (hang, stale) listed after."""
    rows = []
    for r in outcomes:
        r = dict(r)
        if r["expect"] == "vacuous":
            r["verdict"] = "flagged" if r.get("flagged") and "refuted" not in r["steps"] else "unflagged"
        rows.append(r)
    by_cat: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_cat[r["category"]].append(r)
    lines = ["held-out batch 2: verdicts by category"]
    for cat in sorted(by_cat):
        lines.append(_line(cat, _counts(by_cat[cat])))
    lines.append(_line("TOTAL", _counts(rows)))
    for r in extra:
        lines.append(f"{r['id']:<20} " + ", ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}"
                                                   for k, v in r.items() if k not in ("id", "category")))
    return "\n".join(lines)


def table(outcomes: list[dict]) -> str:
    """One line per case: id, expectation, the counted verdict, whether the invariant holds, seconds."""
    from test_heldout_batch2 import invariant_holds

    out = []
    for r in outcomes:
        mark = "ok  " if invariant_holds(r) else "FAIL"
        out.append(f"{mark} {r['expect']:<7} {r['verdict']:<9} {r['wall']:6.2f}s {r['id']:<48} "
                   f"{'/'.join(r['steps'])} {r.get('strategy', '')[:60]}")
    return "\n".join(out)


def main(argv: list[str]) -> int:
    import json

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_heldout_batch2 import CASES, run_case

    json_path = None
    if argv[:1] == ["--json"]:
        json_path, argv = argv[1], argv[2:]
    chosen = [c for c in CASES if not argv or c.id.startswith(tuple(argv))]
    outcomes = []
    for c in chosen:
        r = run_case(c)
        outcomes.append(r)
        print(table([r]), flush=True)
    print(summarize(outcomes))
    if json_path:
        Path(json_path).write_text(json.dumps(outcomes, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
