"""Floating-point operations per token, from the weight shapes: exact matrix products and Kaplan's estimate.

Conventions (both counts): a multiply-add is 2 FLOPs; only matrix products are counted (biases, norms,
activations, softmax and embedding lookups are left out, as Kaplan et al. 2020, §2.1 do); every token
attends to the full context of ``n_ctx`` positions (no halving for a causal mask). For an
encoder–decoder, "per token" is one source token and one target token, both with ``n_ctx`` context. A
mixture of experts counts its router and the ``experts_per_token`` experts a token is sent to.

* :func:`forward_flops` — exact: 2 FLOPs per entry of every weight matrix a token is multiplied by
  (:func:`matmul_weights`; the LM head's d_model × vocab_size product counts even when tied), plus
  4·n_ctx·h·d_k per attention block for the scores QKᵀ and the weighted sum of V
  (:func:`attention_flops`). The closed form is the derivation ``params.flops-exact``.
* :func:`kaplan_forward` — Kaplan et al. 2020, Table 1: C_forward ≈ 2N + 2·n_layers·n_ctx·d_attn with N
  the non-embedding parameters and d_attn = h·d_k (derivation ``params.flops-kaplan``).
* Training ≈ 3× forward (the backward pass costs twice the forward; derivation ``params.flops-training``).

Everything is exact Python integer arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .arch import Architecture
from .shapes import active_dims, components

#: Training / forward FLOPs: a forward pass and a backward pass of twice its cost (Kaplan et al. 2020, §2.1).
TRAINING_FACTOR = 3

#: The conventions of every FLOP figure, for reports.
FLOPS_CONVENTION = (
    "2 FLOPs per multiply-add; matrix products only (biases, norms, activations, softmax and embedding lookups "
    "left out, as in Kaplan et al. 2020); every token attends to the full context n_ctx (no causal halving); "
    "encoder-decoder: one source and one target token; mixture of experts: router + experts_per_token experts"
)


@dataclass(frozen=True)
class Tally:
    """The counts FLOPs and memory need, from one walk over the components (exact ints).

    Attributes:
        total: all parameters; active: those one token uses (a mixture: router + k experts).
        non_embedding_active: Kaplan's N (active, embeddings excluded).
        matmul_weights: entries of the matrices one token is multiplied by (see :func:`matmul_weights`).
    """

    total: int
    active: int
    non_embedding_active: int
    matmul_weights: int


def tally(arch: Architecture) -> Tally:
    """:class:`Tally` of ``arch`` in one pass over :func:`~derive.params.shapes.components`."""
    dims, act = arch.dims(), active_dims(arch)
    total = active = non_emb = matmul = 0
    for c in components(arch):
        copies = c.n_copies(dims)
        d = act if c.routed else dims
        sizes = [(w.size(d), w.matrix) for w in c.weights]
        n_active = copies * sum(n for n, _ in sizes)
        total += copies * c.per_copy(dims) if c.routed else n_active
        active += n_active
        if not c.embedding:
            non_emb += n_active
        if c.group not in ("embedding", "position") and c.key != "pooler":
            matmul += copies * sum(n for n, is_matrix in sizes if is_matrix)
    if arch.lm_head and arch.tie_word_embeddings:
        matmul += arch.embed_dim * arch.head_vocab
    return Tally(total, active, non_emb, matmul)


def matmul_weights(arch: Architecture) -> int:
    """Entries of the weight matrices one token is multiplied by in a forward pass (exact int).

    Every matrix of every layer (attention, FFN, router and the token's experts), the LM-head
    transform, and the projection onto the vocabulary (d_model·vocab_size, also when tied to the
    embedding). Not counted: embedding and position tables (looked up, not multiplied), biases and
    norms (vectors), the pooler (one token per sequence).
    """
    return tally(arch).matmul_weights


def _multiplied(arch: Architecture) -> list:
    """The components whose matrices multiply every token (no lookup tables, no pooler)."""
    return [c for c in components(arch) if c.group not in ("embedding", "position") and c.key != "pooler"]


def symbolic_forward_flops(arch: Architecture, evaluate: bool = True) -> Any:
    """:func:`forward_flops` as a sympy expression in the notation symbols, built from the same shapes.

    Each matrix contributes ``2·(its size)`` per copy; a tied LM head ``2·d_model·vocab_size``; each
    attention block ``2·n_ctx·h·d_k`` for QKᵀ and as much for the weighted sum of V. In the experts of a
    mixture, ``n_experts`` is replaced by ``experts_per_token``. With ``evaluate=False`` the terms stay
    as written, one per weight (the start of the derivation ``params.flops-exact``).
    """
    import sympy as sp

    from ..transformer.notation import sym
    from .shapes import SYMBOL_OF

    terms = []
    for c in _multiplied(arch):
        for w in c.weights:
            if not w.matrix:
                continue
            size = w.symbolic(evaluate)
            if c.routed:
                size = size.xreplace({sym("n_experts"): sym("experts_per_token")})
            term = sp.Mul(2, size, evaluate=evaluate)
            if c.copies is not None:
                term = sp.Mul(sym(SYMBOL_OF[c.copies]), term, evaluate=evaluate)
            terms.append(term)
    from .shapes import embed_axis, head_vocab_axis

    if arch.lm_head and arch.tie_word_embeddings:
        terms.append(sp.Mul(2, sym(SYMBOL_OF[embed_axis(arch)[0]]), sym(SYMBOL_OF[head_vocab_axis(arch)[0]]),
                            evaluate=evaluate))
    ctx, h, dk = sym("n_ctx"), sym("n_heads"), sym("d_k")
    blocks = [(sym("n_layers"), 1)] + ([(sym("n_decoder_layers"), 2)] if arch.encoder_decoder else [])
    for layers, k in blocks:  # k attention blocks per layer (self, and cross in a decoder)
        for _product in ("QK^T", "AV"):
            terms.append(sp.Mul(*([k] if k != 1 else []), layers, 2, ctx, h, dk, evaluate=evaluate))
    return sp.Add(*terms, evaluate=evaluate)


def attention_blocks(arch: Architecture) -> int:
    """Attention blocks a token pair passes through: n_layers (+ 2·n_decoder_layers: self and cross)."""
    return arch.n_layers + 2 * arch.n_decoder_layers


def attention_flops(arch: Architecture, n_ctx: int) -> int:
    """FLOPs of QKᵀ and of the weighted sum of V for one token over ``n_ctx`` positions, all layers.

    2·n_ctx·h·d_k each, per attention block. GQA does not change it: every query head still scores
    every position.
    """
    return 4 * n_ctx * arch.n_heads * arch.d_head * attention_blocks(arch)


def forward_flops(arch: Architecture, n_ctx: int, t: Tally | None = None) -> int:
    """Exact forward FLOPs per token from the shapes: ``2·matmul_weights + attention_flops``."""
    return 2 * (t or tally(arch)).matmul_weights + attention_flops(arch, n_ctx)


def non_embedding_active(arch: Architecture) -> int:
    """Non-embedding parameters a token uses (Kaplan's N; a mixture of experts: router + k experts)."""
    return tally(arch).non_embedding_active


def kaplan_forward(arch: Architecture, n_ctx: int, t: Tally | None = None) -> int:
    """Kaplan et al. 2020, Table 1: 2N + 2·(attention blocks)·n_ctx·d_attn, N = :func:`non_embedding_active`."""
    n = (t or tally(arch)).non_embedding_active
    return 2 * n + 2 * attention_blocks(arch) * n_ctx * arch.n_heads * arch.d_head


@dataclass(frozen=True)
class Flops:
    """FLOPs per token at one context length (exact ints).

    Attributes:
        context: n_ctx, positions attended to.
        forward: exact forward FLOPs from the shapes.
        training: ``TRAINING_FACTOR × forward``.
        kaplan_forward: 2N + 2·n_layers·n_ctx·d_attn.
        kaplan_training: ``TRAINING_FACTOR × kaplan_forward`` (6N + 6·n_layers·n_ctx·d_attn).
        matmul_weights: matrix entries one token is multiplied by.
        n_kaplan: Kaplan's N (non-embedding, active).
    """

    context: int
    forward: int
    training: int
    kaplan_forward: int
    kaplan_training: int
    matmul_weights: int
    n_kaplan: int

    def as_json(self) -> dict:
        return {"context": self.context, "forward": self.forward, "training": self.training,
                "kaplan_forward": self.kaplan_forward, "kaplan_training": self.kaplan_training,
                "matmul_weights": self.matmul_weights, "kaplan_n": self.n_kaplan,
                "training_factor": TRAINING_FACTOR, "convention": FLOPS_CONVENTION,
                "derivations": ["params.flops-exact", "params.flops-kaplan", "params.flops-training"]}


def flops(arch: Architecture, n_ctx: int, t: Tally | None = None) -> Flops:
    """Every FLOP figure of ``arch`` at context ``n_ctx`` (see the module docstring for the conventions).

    ``t``: the :func:`tally` of ``arch`` if already computed.
    """
    t = t or tally(arch)
    fwd, kap = forward_flops(arch, n_ctx, t), kaplan_forward(arch, n_ctx, t)
    return Flops(n_ctx, fwd, TRAINING_FACTOR * fwd, kap, TRAINING_FACTOR * kap, t.matmul_weights,
                 t.non_embedding_active)
