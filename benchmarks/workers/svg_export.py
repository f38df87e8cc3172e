"""Worker: export every (every STRIDE-th) catalog derivation as SVG in-process; then the slowest again with
ziamath's own row layout (every row laid out twice, the state before derive measured rows once). Prints one JSON line.

CPU seconds (``time.process_time``) per derivation, after one untimed export that loads the fonts.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent))

BASELINE = int(sys.argv[1]) if len(sys.argv) > 1 else 3  # how many of the slowest get the baseline run
STRIDE = int(sys.argv[2]) if len(sys.argv) > 2 else 1  # every STRIDE-th derivation by name (a quick run: 4)


def main() -> None:
    import derive.render.svg as svg
    from derive import registry

    registry.load_catalog()
    svg.derivation_svg(registry.get("softmax.shift-invariance"))  # fonts and lazy imports, untimed
    rows = []
    for name in registry.names()[::STRIDE]:
        d = registry.get(name)
        t0 = time.process_time()
        text = svg.derivation_svg(d)
        rows.append({"name": name, "cpu_s": time.process_time() - t0, "bytes": len(text)})
    rows.sort(key=lambda r: -r["cpu_s"])
    fast = svg._row_height
    svg._row_height = lambda measure: measure  # ziamath as it is: every row's pre-pass
    try:
        for row in rows[:BASELINE]:
            t0 = time.process_time()
            same = svg.derivation_svg(registry.get(row["name"]))
            row["baseline_cpu_s"] = time.process_time() - t0
            row["same_svg"] = len(same) == row["bytes"]
    finally:
        svg._row_height = fast
    print(json.dumps({"derivations": rows}))


if __name__ == "__main__":
    main()
