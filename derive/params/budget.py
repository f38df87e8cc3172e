"""Compute and memory of one architecture at a context length: FLOPs, KV cache, training memory.

:func:`budget` gathers the estimates of :mod:`derive.params.flops` and :mod:`derive.params.memory`
for ``derive params``, the Sphinx tables and the slides, so that every surface shows the same numbers.
Exact integer arithmetic throughout; counting a config takes well under a millisecond.
"""

from __future__ import annotations

from dataclasses import dataclass

from .arch import Architecture, check_int
from .flops import Flops, flops, tally
from .memory import KVCache, kv_cache, training_json, training_memory

#: Context used when neither ``--context`` nor the model's ``max_position_embeddings`` gives one.
DEFAULT_CONTEXT = 2048
#: Storage type of the KV cache unless another is asked for.
DEFAULT_KV_DTYPE = "bf16"


@dataclass(frozen=True)
class Budget:
    """FLOPs and memory of ``arch`` (exact ints).

    Attributes:
        total: all parameters; active: those one token uses (less than ``total`` for a mixture of experts).
        flops: per-token FLOPs at ``flops.context``.
        context_source: where the context length comes from (``"--context"``, ``"max_position_embeddings"``
            or ``"default"``).
        kv: the KV cache at the batch and context.
        training_bytes: mixed-precision Adam, 16 bytes per parameter (all parameters).
    """

    total: int
    active: int
    flops: Flops
    context_source: str
    kv: KVCache
    training_bytes: int

    def as_json(self) -> dict:
        return {"active_parameters": self.active, "context": self.flops.context,
                "context_source": self.context_source, "flops_per_token": self.flops.as_json(),
                "kv_cache": self.kv.as_json(), "training_memory": training_json(self.total)}


def default_context(arch: Architecture) -> tuple[int, str]:
    """The model's ``max_position_embeddings`` if known, else :data:`DEFAULT_CONTEXT`, and which it was."""
    if arch.max_position_embeddings:
        return arch.max_position_embeddings, "max_position_embeddings"
    return DEFAULT_CONTEXT, "default"


def budget(arch: Architecture, context: int | None = None, batch: int = 1,
           kv_dtype: str = DEFAULT_KV_DTYPE) -> Budget:
    """FLOPs per token, KV cache and training memory of ``arch``.

    Args:
        arch: the architecture.
        context: tokens attended to (and cached per sequence); default :func:`default_context`.
        batch: sequences in the KV cache.
        kv_dtype: storage type of the cache (a key of :data:`derive.params.summary.DTYPE_BYTES`).

    Raises:
        InputError: context or batch not a positive integer, unknown dtype.
    """
    if context is None:
        context, source = default_context(arch)
    else:
        context, source = check_int("context", context), "--context"
    t = tally(arch)  # one walk over the components for every figure
    return Budget(t.total, t.active, flops(arch, context, t), source,
                  kv_cache(arch, kv_dtype, batch, context), training_memory(t.total))
