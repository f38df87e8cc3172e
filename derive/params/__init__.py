"""Exact parameter counts: architecture → weight shapes → symbolic and integer counts.

* :mod:`derive.params.arch` — :class:`Architecture`, the description counted.
* :mod:`derive.params.shapes` — the weight shapes of every component (one table for both counts).
* :mod:`derive.params.summary` — rows, totals with/without embeddings, memory.
* :mod:`derive.params.allocate` — the numpy cross-check (allocate, sum ``.size``).
* :mod:`derive.params.presets` — named architectures with their sources.
* :mod:`derive.params.hf_config` — Hugging Face ``config.json`` files (JSON only, no network).
* :mod:`derive.params.flops` — FLOPs per token: exact from the shapes, and Kaplan et al. (2020)'s estimate.
* :mod:`derive.params.memory` — KV cache and training memory with mixed-precision Adam (estimates).
* :mod:`derive.params.budget` — FLOPs and memory of one architecture at a context, for every surface.
* :mod:`derive.params.reference` — a small numpy decoder whose matrix products are counted, decoded with and
  without a KV cache and trained for one step: the real computation the models above are checked against.
* :mod:`derive.params.reference_checks` — those checks, as cross-checks of the FLOPs, KV-cache and memory
  derivations.

None of these import sympy at import time; only symbolic formulas do.
"""

from __future__ import annotations

from .arch import Architecture, llama_ffn_hidden
from .presets import PRESETS, Preset, get_preset
from .shapes import components, count, symbolic_count
from .summary import DTYPE_BYTES, Row, Summary, breakdown, memory, summarize

__all__ = ["Architecture", "llama_ffn_hidden", "PRESETS", "Preset", "get_preset", "components", "count",
           "symbolic_count", "DTYPE_BYTES", "Row", "Summary", "breakdown", "memory", "summarize"]
