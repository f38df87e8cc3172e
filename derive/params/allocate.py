"""Numeric cross-check of the counts: build the weights as arrays and add up their sizes.

:func:`allocate` constructs the weights of a small model the way an
implementation's ``__init__`` would — layer by layer, with one query matrix
per head and one key/value matrix per key/value head as in the paper's
``W_i^Q, W_i^K, W_i^V`` (Vaswani et al. 2017, §3.2.2) — without reading the
shape table of :mod:`derive.params.shapes`. The sum of the arrays' ``.size``
must equal :func:`derive.params.shapes.count`: two independent routes to the
same number. Large configurations are refused, never allocated.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError
from .arch import Architecture

#: Largest model :func:`allocate` will build (parameters).
MAX_ALLOCATE = 5_000_000


def _norm(arch: Architecture, d: int) -> list[np.ndarray]:
    out = [np.ones(d, dtype=np.float32)]
    if arch.norm == "layernorm" and arch.norm_bias:
        out.append(np.zeros(d, dtype=np.float32))
    return out


def _linear(d_in: int, d_out: int, bias: bool) -> list[np.ndarray]:
    out = [np.zeros((d_in, d_out), dtype=np.float32)]
    if bias:
        out.append(np.zeros(d_out, dtype=np.float32))
    return out


def attention_arrays(arch: Architecture) -> list[np.ndarray]:
    """One attention block: W_i^Q per head, W_i^K and W_i^V per key/value head, W^O (and biases)."""
    d, dh = arch.d_model, arch.d_head
    out: list[np.ndarray] = []
    for _ in range(arch.n_heads):  # W_i^Q, one per query head
        out += _linear(d, dh, arch.attention_bias)
    for _ in range(arch.kv_heads):  # W_i^K and W_i^V, one per key/value head
        out += _linear(d, dh, arch.attention_bias)
        out += _linear(d, dh, arch.attention_bias)
    out += _linear(arch.n_heads * dh, d, arch.out_bias)  # W^O on the concatenated heads
    return out


def ffn_arrays(arch: Architecture, d_ff: int | None = None) -> list[np.ndarray]:
    """One FFN: two matrices (or three when gated) and their biases; a mixture of experts: router + experts.

    ``d_ff``: the hidden width (default ``arch.d_ff``; a decoder of another width passes its own).
    """
    d, f, b = arch.d_model, arch.d_ff if d_ff is None else d_ff, arch.mlp_bias
    one = (lambda: _linear(d, f, b) + _linear(d, f, b) + _linear(f, d, b)) if arch.gated else (
        lambda: _linear(d, f, b) + _linear(f, d, b))
    if not arch.n_experts:
        return one()
    out = _linear(d, arch.n_experts, False)  # the router scores every expert
    for _ in range(arch.n_experts):
        out += one()
    return out


def layer_arrays(arch: Architecture, cross: bool = False) -> list[np.ndarray]:
    """One layer: self-attention, (cross-attention,) FFN, one norm per sub-layer (or ``norms_per_layer``).

    A decoder layer (``cross``) uses the decoder's heads (``decoder_n_heads``, each of d_model/heads) and
    FFN width (``decoder_d_ff``) when they are given.
    """
    if cross and arch.decoder_n_heads is not None:
        from dataclasses import replace

        arch = replace(arch, n_heads=arch.decoder_n_heads, decoder_n_heads=None)
    out = attention_arrays(arch)
    if cross:
        out += attention_arrays(arch)
    out += ffn_arrays(arch, arch.decoder_d_ff if cross else None)
    for _ in range((3 if cross else 2) if arch.norms_per_layer is None else arch.norms_per_layer):
        out += _norm(arch, arch.d_model)
    return out


def allocate(arch: Architecture, limit: int = MAX_ALLOCATE) -> dict[str, list[np.ndarray]]:
    """Every weight of ``arch`` as a numpy array, grouped by part of the model.

    Args:
        arch: a small architecture.
        limit: refuse models above this many parameters (estimated from the
            sizes before anything is allocated).

    Returns:
        part name -> list of arrays (float32).

    Raises:
        InputError: the model is larger than ``limit``.
    """
    d, v = arch.d_model, arch.vocab_size
    rough = (arch.n_layers + 2 * arch.n_decoder_layers) * (
        2 * d * (arch.n_heads + arch.kv_heads) * arch.d_head + 3 * d * arch.d_ff * max(1, arch.n_experts)
        + 8 * d) + 4 * d * (
        (v or 0) + (arch.max_position_embeddings or 0) + arch.type_vocab_size + d)
    if rough > limit:
        raise InputError(f"refusing to allocate about {rough:,} parameters (limit {limit:,}); "
                         "use the exact count instead")
    parts: dict[str, list[np.ndarray]] = {}
    width = arch.word_embed_proj_dim or d  # OPT's token table may be narrower than the model
    v_dec = arch.decoder_vocab_size or v
    if v is not None:
        parts["embed_tokens"] = [np.zeros((v, width), dtype=np.float32)]
        if arch.stack_token_tables:  # transformers 5: the stacks' own tables, untied from the shared one
            parts["encoder.embed_tokens"] = [np.zeros((v, d), dtype=np.float32)]
        if arch.stack_token_tables or (arch.encoder_decoder and not arch.share_encoder_decoder_embeddings):
            parts["decoder.embed_tokens"] = [np.zeros((v_dec, d), dtype=np.float32)]
        if width != d:
            parts["project_in"] = _linear(width, d, False)
            parts["project_out"] = _linear(d, width, False)
    rows = (arch.max_position_embeddings or 0) + arch.position_offset
    if arch.position_table and not arch.per_stack_embeddings:
        parts["embed_positions"] = [np.zeros((rows, d), dtype=np.float32)]
    if arch.type_vocab_size:
        parts["embed_token_types"] = [np.zeros((arch.type_vocab_size, d), dtype=np.float32)]
    if arch.embedding_norm and not arch.per_stack_embeddings:
        parts["embed_norm"] = _norm(arch, d)
    stacks = [("encoder", arch.n_layers, False), ("decoder", arch.n_decoder_layers, True)]
    if not arch.encoder_decoder:
        stacks = [("layers", arch.n_layers, False)]
    for name, n, cross in stacks:
        if arch.per_stack_embeddings and arch.position_table:
            parts[f"{name}.embed_positions"] = [np.zeros((rows, d), dtype=np.float32)]
        if arch.per_stack_embeddings and arch.embedding_norm:
            parts[f"{name}.embed_norm"] = _norm(arch, d)
        if arch.position == "relative_bias":
            parts[f"{name}.relative_bias"] = [np.zeros((arch.relative_attention_num_buckets, arch.n_heads),
                                                       dtype=np.float32)]
        for k in range(n):
            parts[f"{name}.{k}"] = layer_arrays(arch, cross)
        if arch.final_norm:
            parts[f"{name}.final_norm"] = _norm(arch, d)
    if arch.lm_head_transform:
        parts["lm_head.transform"] = _linear(d, d, True) + _norm(arch, d)
    if arch.lm_head:
        rows = v_dec if arch.encoder_decoder and not arch.share_encoder_decoder_embeddings else v
        head = [] if arch.tie_word_embeddings else _linear(width, rows, arch.lm_head_linear_bias)
        if arch.lm_head_bias:
            head.append(np.zeros(rows, dtype=np.float32))
        parts["lm_head"] = head
    if arch.pooler:
        parts["pooler"] = _linear(d, d, True)
    return parts


def allocated_count(arch: Architecture, limit: int = MAX_ALLOCATE) -> int:
    """Sum of ``.size`` over every array :func:`allocate` builds (exact int)."""
    return sum(int(a.size) for arrays in allocate(arch, limit).values() for a in arrays)
