"""Memory estimates beyond the weights: the KV cache of generation and training with mixed-precision Adam.

Both are *estimates* with stated assumptions (:data:`KV_CACHE_ASSUMPTIONS`, :data:`TRAINING_ASSUMPTIONS`);
the closed forms are the derivations ``params.kv-cache-token``, ``params.kv-cache`` and
``params.adam-memory``. The weights alone at each dtype are :func:`derive.params.summary.memory`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exceptions import InputError
from .arch import Architecture

#: Bytes per parameter of mixed-precision training with Adam, by part (Rajbhandari et al. 2020, §3.1).
ADAM_PARTS: dict[str, int] = {"fp16 weights": 2, "fp16 gradients": 2, "fp32 master weights": 4,
                              "Adam first moment m (fp32)": 4, "Adam second moment v (fp32)": 4}
#: Their sum, 16.
ADAM_BYTES_PER_PARAMETER = sum(ADAM_PARTS.values())

#: What the KV-cache figures assume (printed beside them).
KV_CACHE_ASSUMPTIONS = (
    "K and V of every layer kept for every cached token (n_kv_heads·head_dim values each) at the given dtype; "
    "no paging or allocator overhead, no quantised cache, no sliding window (a model with sliding-window "
    "attention, e.g. Mistral or Gemma 2, could keep less). Encoder-decoder: the decoder's self-attention cache "
    "per target token plus the cross-attention K and V per source token; an encoder-only model keeps none."
)
#: What the training-memory figure assumes (printed beside it).
TRAINING_ASSUMPTIONS = (
    "mixed-precision Adam: fp16/bf16 weights (2 bytes) and gradients (2), fp32 master weights (4), Adam moments "
    "m and v in fp32 (4 + 4) = 16 bytes per parameter (Rajbhandari et al. 2020, §3.1); every parameter trained; "
    "activations, temporary buffers, communication buffers and fragmentation are not included"
)


def kv_cache_bytes_per_token(arch: Architecture, bytes_per_value: int) -> int:
    """Bytes of K and V cached for one token by every (decoder) layer: 2·n_layers·n_kv_heads·head_dim·bytes.

    For an encoder–decoder, the decoder's self-attention (n_decoder_layers); 0 for an encoder-only model.
    """
    layers = arch.n_decoder_layers if arch.encoder_decoder else (arch.n_layers if arch.causal else 0)
    return 2 * layers * arch.kv_heads * arch.d_head * bytes_per_value


def cross_cache_bytes_per_source_token(arch: Architecture, bytes_per_value: int) -> int:
    """Bytes of the cross-attention K and V kept per source token (encoder–decoder; 0 otherwise)."""
    return 2 * arch.n_decoder_layers * arch.kv_heads * arch.d_head * bytes_per_value


@dataclass(frozen=True)
class KVCache:
    """The KV cache at one batch size and context (bytes, exact ints).

    Attributes:
        dtype: storage type of the cache; bytes_per_value its size.
        per_token: bytes per cached (target) token.
        per_source_token: cross-attention bytes per source token (encoder–decoder).
        batch, context: sequences and tokens per sequence.
        total: batch·context·(per_token + per_source_token).
    """

    dtype: str
    bytes_per_value: int
    per_token: int
    per_source_token: int
    batch: int
    context: int
    total: int

    def as_json(self) -> dict:
        return {"dtype": self.dtype, "bytes_per_value": self.bytes_per_value, "bytes_per_token": self.per_token,
                "cross_attention_bytes_per_source_token": self.per_source_token, "batch": self.batch,
                "context": self.context, "bytes": self.total, "estimate": True,
                "assumptions": KV_CACHE_ASSUMPTIONS, "derivations": ["params.kv-cache-token", "params.kv-cache"]}


def kv_cache(arch: Architecture, dtype: str, batch: int, context: int) -> KVCache:
    """The KV cache of ``batch`` sequences of ``context`` tokens stored as ``dtype``.

    Raises:
        InputError: unknown dtype, or a batch or context that is not a positive integer.
    """
    from .arch import check_int
    from .summary import DTYPE_BYTES

    if dtype not in DTYPE_BYTES:
        raise InputError(f"unknown dtype {dtype!r}; one of {', '.join(DTYPE_BYTES)}")
    check_int("batch", batch)
    check_int("context", context)
    b = DTYPE_BYTES[dtype]
    per, cross = kv_cache_bytes_per_token(arch, b), cross_cache_bytes_per_source_token(arch, b)
    return KVCache(dtype, b, per, cross, batch, context, batch * context * (per + cross))


def training_memory(n_params: int) -> int:
    """Bytes of weights, gradients and optimizer state with mixed-precision Adam: 16·n_params."""
    return ADAM_BYTES_PER_PARAMETER * n_params


def training_json(n_params: int) -> dict:
    return {"bytes_per_parameter": ADAM_BYTES_PER_PARAMETER, "parts": dict(ADAM_PARTS),
            "bytes": training_memory(n_params), "estimate": True, "assumptions": TRAINING_ASSUMPTIONS,
            "derivations": ["params.adam-memory"]}
