"""Worker (baseline): instantiate a model's nn.Modules on PyTorch's meta device and count parameters.

Usage: torch_meta.py NAME. Prints one JSON line {seconds, count, torch} or {available: false}.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def build(torch, name: str):
    from torch import nn

    from benchmarks.models import CONFIGS

    kind, d, n_layers, _, d_ff, vocab, n_pos = CONFIGS[name]

    class GPTBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.c_attn, self.c_proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
            self.c_fc, self.mlp_proj = nn.Linear(d, d_ff), nn.Linear(d_ff, d)

    class LlamaBlock(nn.Module):
        def __init__(self):
            super().__init__()
            self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=False) for _ in range(4))
            self.gate, self.up = nn.Linear(d, d_ff, bias=False), nn.Linear(d, d_ff, bias=False)
            self.down = nn.Linear(d_ff, d, bias=False)
            self.norm_1, self.norm_2 = nn.RMSNorm(d), nn.RMSNorm(d)

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            if kind == "gpt":
                self.wpe = nn.Embedding(n_pos, d)
                self.blocks = nn.ModuleList(GPTBlock() for _ in range(n_layers))
                self.ln_f = nn.LayerNorm(d)
                self.lm_head = nn.Linear(d, vocab, bias=False)
                self.lm_head.weight = self.embed.weight  # tied
            else:
                self.blocks = nn.ModuleList(LlamaBlock() for _ in range(n_layers))
                self.norm = nn.RMSNorm(d)
                self.lm_head = nn.Linear(d, vocab, bias=False)

    with torch.device("meta"):
        return Model()


def main() -> None:
    try:
        import torch
    except ImportError:
        print(json.dumps({"available": False}))
        return
    t0 = time.perf_counter()
    model = build(torch, sys.argv[1])
    count = sum(p.numel() for p in model.parameters())  # shared (tied) weights counted once
    print(json.dumps({"available": True, "seconds": time.perf_counter() - t0, "count": int(count),
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
