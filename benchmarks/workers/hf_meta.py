"""Worker (baseline): build a config.json's class with transformers on PyTorch's meta device, count parameters.

Usage: hf_meta.py CONFIG_JSON. Prints one JSON line {seconds, count, transformers, torch} (seconds: best of
3 builds, the import of transformers excluded) or {available: false} without transformers or torch.
"""

from __future__ import annotations

import json
import sys
import time


def main(path: str) -> int:
    try:
        import torch
        import transformers
    except ImportError:
        print(json.dumps({"available": False}))
        return 0
    transformers.logging.set_verbosity_error()
    cfg = transformers.AutoConfig.from_pretrained(path)
    cls = getattr(transformers, cfg.architectures[0])
    best, n = float("inf"), 0
    for _ in range(3):
        t0 = time.perf_counter()
        with torch.device("meta"):
            model = cls(cfg)
        n = sum(p.numel() for p in model.parameters())
        best = min(best, time.perf_counter() - t0)
        del model
    print(json.dumps({"available": True, "seconds": best, "count": n, "transformers": transformers.__version__,
                      "torch": torch.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
