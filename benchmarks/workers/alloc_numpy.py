"""Worker (baseline): allocate every weight of a model as a float32 numpy array, then sum .size.

Usage: alloc_numpy.py NAME. Prints one JSON line {seconds, count, peak_rss_mb}.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main() -> None:
    import numpy as np

    from benchmarks.models import shapes

    plan = shapes(sys.argv[1])
    t0 = time.perf_counter()
    arrays = [np.ones(shape, dtype=np.float32) for _, shape in plan]  # ones: pages really committed
    count = sum(a.size for a in arrays)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "count": int(count), "peak_rss_mb": peak}))


if __name__ == "__main__":
    main()
