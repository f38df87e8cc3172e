"""Weight shapes: one table that both the integer and the symbolic counts read.

:func:`components` turns an :class:`~derive.params.arch.Architecture` into
components (token embedding, self-attention, FFN, norms, ...), each a tuple
of :class:`Weight` shapes and a number of copies (one per layer). A shape is
written with *names* of sizes (``("d_model",), ("n_heads", "head_dim")`` is
d_model × n_heads·head_dim), so the same table gives

* an exact Python int (:meth:`Component.count` with the architecture's sizes), and
* a sympy expression in the notation table's symbols (:meth:`Component.symbolic`),
  which the registered derivations in :mod:`derive.transformer.parameters`
  rewrite into closed forms.

Shapes follow Vaswani et al. 2017 (§3.2.2: ``W_Q, W_K ∈ R^(d_model×d_k)``,
``W_O ∈ R^(h·d_v×d_model)``; §3.3: ``W_1 ∈ R^(d_model×d_ff)``), with K and V
projected to ``n_kv_heads·head_dim`` for GQA (Ainslie et al. 2023) and three
FFN matrices for gated units (Shazeer 2020).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Any

from .arch import Architecture

#: A factor of an axis: a named size, an int constant, or a sum of those (``("max_position_embeddings", 2)``).
Factor = str | int | tuple[str | int, ...]
#: An axis of a shape: the product of its factors.
Axis = tuple[Factor, ...]

#: Size name -> notation symbol name (:mod:`derive.transformer.notation`);
#: the width of a head is written d_k (= d_v) as in the paper.
SYMBOL_OF = {
    "d_model": "d_model", "n_heads": "n_heads", "n_kv_heads": "n_kv_heads", "head_dim": "d_k",
    "d_ff": "d_ff", "n_layers": "n_layers", "n_decoder_layers": "n_decoder_layers",
    "vocab_size": "vocab_size", "max_position_embeddings": "max_position_embeddings",
    "type_vocab_size": "type_vocab_size", "relative_attention_num_buckets": "relative_attention_num_buckets",
    "n_experts": "n_experts", "experts_per_token": "experts_per_token",
    "decoder_d_ff": "decoder_d_ff", "decoder_vocab_size": "decoder_vocab_size",
    "word_embed_proj_dim": "word_embed_proj_dim",
}

#: Component groups, in report order.
GROUPS = ("embedding", "position", "attention", "cross-attention", "ffn", "norm", "head")


def _value(f: Factor, dims: dict[str, int]) -> int:
    if isinstance(f, tuple):
        return sum(_value(g, dims) for g in f)
    return dims[f] if isinstance(f, str) else f


def _symbolic(f: Factor, evaluate: bool = True) -> Any:
    import sympy as sp

    from ..transformer.notation import sym

    if isinstance(f, tuple):
        return sp.Add(*[_symbolic(g, evaluate) for g in f], evaluate=evaluate)
    return sym(SYMBOL_OF[f]) if isinstance(f, str) else sp.Integer(f)


@dataclass(frozen=True)
class Weight:
    """One weight tensor: a name and a shape made of named sizes.

    Attributes:
        name: e.g. ``"W_Q"`` (matrices) or ``"b_Q"`` (biases), ``"gamma"``.
        shape: axes; each axis is a product of size names (keys of
            :meth:`Architecture.dims`) and int constants.
    """

    name: str
    shape: tuple[Axis, ...]

    def size(self, dims: dict[str, int]) -> int:
        """Number of scalars (exact int)."""
        return prod(prod(_value(f, dims) for f in axis) for axis in self.shape)

    def axis_sizes(self, dims: dict[str, int]) -> tuple[int, ...]:
        """The shape as ints, e.g. ``(768, 2304)``."""
        return tuple(prod(_value(f, dims) for f in axis) for axis in self.shape)

    @property
    def matrix(self) -> bool:
        """A matrix a token is multiplied by (two axes besides an experts axis), not a bias or a norm's γ."""
        return sum(1 for axis in self.shape if axis != ("n_experts",)) >= 2

    def symbolic(self, evaluate: bool = True) -> Any:
        """The size as a sympy product of notation symbols (unevaluated for display when asked)."""
        import sympy as sp

        factors = [_symbolic(f, evaluate) for axis in self.shape for f in axis]
        if len(factors) == 1:
            return factors[0]
        return sp.Mul(*factors, evaluate=evaluate)


@dataclass(frozen=True)
class Component:
    """A named group of weights repeated ``copies`` times.

    Attributes:
        key: stable id, e.g. ``"decoder.cross_attention"``.
        label: words for tables, e.g. ``"decoder cross-attention"``.
        group: one of :data:`GROUPS`.
        weights: the weight tensors of one copy.
        copies: size name giving the number of copies (``"n_layers"``) or ``None`` for one.
        embedding: counted as an embedding parameter in the Kaplan et al. (2020)
            non-embedding convention (token, position and token-type tables,
            an untied output projection onto the vocabulary and its bias).
        routed: the experts of a mixture-of-experts FFN; a token uses ``experts_per_token``
            of the ``n_experts`` (the weights carry an ``n_experts`` axis).
    """

    key: str
    label: str
    group: str
    weights: tuple[Weight, ...]
    copies: str | None = None
    embedding: bool = False
    routed: bool = False

    def per_copy(self, dims: dict[str, int]) -> int:
        return sum(w.size(dims) for w in self.weights)

    def n_copies(self, dims: dict[str, int]) -> int:
        return 1 if self.copies is None else dims[self.copies]

    def count(self, dims: dict[str, int]) -> int:
        """All copies together (exact int)."""
        return self.n_copies(dims) * self.per_copy(dims)

    def symbolic_per_copy(self, evaluate: bool = True) -> Any:
        import sympy as sp

        terms = [w.symbolic(evaluate) for w in self.weights]
        return sp.Add(*terms, evaluate=evaluate) if len(terms) > 1 else terms[0]

    def symbolic(self, evaluate: bool = True) -> Any:
        """The count of all copies as a sympy expression."""
        import sympy as sp

        from ..transformer.notation import sym

        body = self.symbolic_per_copy(evaluate)
        return body if self.copies is None else sp.Mul(sym(SYMBOL_OF[self.copies]), body, evaluate=evaluate)


def _w(name: str, *axes: Axis) -> Weight:
    return Weight(name, tuple(axes))


D: Axis = ("d_model",)
Q_OUT: Axis = ("n_heads", "head_dim")
KV_OUT: Axis = ("n_kv_heads", "head_dim")
FF: Axis = ("d_ff",)


def embed_axis(arch: Architecture) -> Axis:
    """Width of the token table and of the LM head's input: d_model, or OPT's word_embed_proj_dim."""
    return ("word_embed_proj_dim",) if arch.projected else D


def head_vocab_axis(arch: Architecture) -> Axis:
    """The vocabulary the LM head projects onto: the decoder's with unshared encoder-decoder embeddings."""
    return ("decoder_vocab_size",) if arch.head_uses_decoder_vocab else ("vocab_size",)


def attention_weights(arch: Architecture) -> tuple[Weight, ...]:
    """W_Q (d_model × h·d_k), W_K and W_V (d_model × h_kv·d_k), W_O (h·d_k × d_model), and biases."""
    ws = [_w("W_Q", D, Q_OUT), _w("W_K", D, KV_OUT), _w("W_V", D, KV_OUT), _w("W_O", Q_OUT, D)]
    if arch.attention_bias:
        ws += [_w("b_Q", Q_OUT), _w("b_K", KV_OUT), _w("b_V", KV_OUT)]
    if arch.out_bias:
        ws.append(_w("b_O", D))
    return tuple(ws)


def expert_weights(arch: Architecture) -> tuple[Weight, ...]:
    """The experts of a mixture-of-experts FFN: each weight of :func:`ffn_weights` with an n_experts axis."""
    return tuple(Weight(w.name, (("n_experts",), *w.shape)) for w in ffn_weights(arch))


def ffn_weights(arch: Architecture, ff: Axis = FF) -> tuple[Weight, ...]:
    """W_1 (d_model × d_ff), W_2 (d_ff × d_model), biases; gated: W_gate, W_up, W_down.

    ``ff``: the hidden axis (``("decoder_d_ff",)`` for a decoder of another width).
    """
    if arch.gated:
        ws = [_w("W_gate", D, ff), _w("W_up", D, ff), _w("W_down", ff, D)]
        if arch.mlp_bias:
            ws += [_w("b_gate", ff), _w("b_up", ff), _w("b_down", D)]
    else:
        ws = [_w("W_1", D, ff), _w("W_2", ff, D)]
        if arch.mlp_bias:
            ws = [ws[0], _w("b_1", ff), ws[1], _w("b_2", D)]
    return tuple(ws)


def norm_weights(arch: Architecture, label: str = "") -> tuple[Weight, ...]:
    """γ (d_model), and β (d_model) for a LayerNorm with bias."""
    suffix = f"_{label}" if label else ""
    ws = [_w(f"gamma{suffix}", D)]
    if arch.norm == "layernorm" and arch.norm_bias:
        ws.append(_w(f"beta{suffix}", D))
    return tuple(ws)


def _norm_name(arch: Architecture) -> str:
    return "LayerNorm" if arch.norm == "layernorm" else "RMSNorm"


def _stack(arch: Architecture, prefix: str, copies: str, cross: bool) -> list[Component]:
    ff: Axis = ("decoder_d_ff",) if cross and arch.decoder_d_ff is not None else FF
    lab = f"{prefix} " if prefix else ""
    key = f"{prefix}." if prefix else ""
    out = []
    if arch.per_stack_embeddings:
        out += _position_components(arch, key, lab)
    if arch.position == "relative_bias":
        out.append(Component(f"{key}relative_bias", f"{lab}relative position bias", "position",
                             (_w("B_rel", ("relative_attention_num_buckets",), ("n_heads",)),), embedding=True))
    out.append(Component(f"{key}attention", f"{lab}self-attention", "attention", attention_weights(arch), copies))
    if cross:
        out.append(Component(f"{key}cross_attention", f"{lab}cross-attention", "cross-attention",
                             attention_weights(arch), copies))
    if arch.n_experts:
        out.append(Component(f"{key}router", f"{lab}router", "ffn", (_w("W_router", D, ("n_experts",)),), copies))
        out.append(Component(f"{key}experts", f"{lab}experts (FFN {arch.ffn})", "ffn", expert_weights(arch), copies,
                             routed=True))
    else:
        out.append(Component(f"{key}ffn", f"{lab}FFN ({arch.ffn})", "ffn", ffn_weights(arch, ff), copies))
    n_norms = (3 if cross else 2) if arch.norms_per_layer is None else arch.norms_per_layer
    norms = tuple(w for k in range(1, n_norms + 1) for w in norm_weights(arch, str(k)))
    if norms:
        out.append(Component(f"{key}norms", f"{lab}{_norm_name(arch)} × {n_norms}", "norm", norms, copies))
    if arch.final_norm:
        out.append(Component(f"{key}final_norm", f"{lab}final {_norm_name(arch)}", "norm", norm_weights(arch)))
    return out


def _position_rows(arch: Architecture) -> Axis:
    if arch.position_offset:
        return (("max_position_embeddings", arch.position_offset),)
    return ("max_position_embeddings",)


def _position_components(arch: Architecture, key: str = "", lab: str = "") -> list[Component]:
    """The position table (learned or frozen sinusoids) and the embedding norm, of the model or of one stack."""
    out = []
    if arch.position_table:
        words = "position embedding" if arch.position == "learned" else "sinusoidal position table (frozen)"
        out.append(Component(f"{key}position_embedding", f"{lab}{words}", "embedding",
                             (_w("P", _position_rows(arch), D),), embedding=True))
    if arch.embedding_norm:
        out.append(Component(f"{key}embedding_norm", f"{lab}embedding {_norm_name(arch)}", "norm",
                             norm_weights(arch)))
    return out


def components(arch: Architecture) -> list[Component]:
    """Every component of ``arch`` with its weight shapes, in model order.

    Embeddings first, then each stack (encoder, then decoder with
    cross-attention), then the heads. Components with no weights (sinusoidal
    or rotary positions, a tied LM head) are left out; reports say why.
    """
    out: list[Component] = []
    if arch.vocab_size is not None:
        words = "token embedding" if not arch.encoder_decoder else (
            "shared token embedding" if arch.share_encoder_decoder_embeddings else "encoder token embedding")
        out.append(Component("token_embedding", words, "embedding", (_w("E", ("vocab_size",), embed_axis(arch)),),
                             embedding=True))
        if arch.stack_token_tables:
            out.append(Component("encoder.token_embedding", "encoder token embedding (untied from the shared one)",
                                 "embedding", (_w("E_enc", ("vocab_size",), D),), embedding=True))
        if arch.stack_token_tables or (arch.encoder_decoder and not arch.share_encoder_decoder_embeddings):
            untied = " (untied from the shared one)" if arch.stack_token_tables else ""
            out.append(Component("decoder.token_embedding", f"decoder token embedding{untied}", "embedding",
                                 (_w("E_dec", ("decoder_vocab_size",), D),), embedding=True))
        if arch.projected:
            out.append(Component("embedding_projection", "project_in and project_out (word_embed_proj_dim ↔ "
                                 "d_model)", "head", (_w("W_in", ("word_embed_proj_dim",), D),
                                                      _w("W_out", D, ("word_embed_proj_dim",)))))
    if not arch.per_stack_embeddings:
        pos = _position_components(arch)
        out += [c for c in pos if c.group == "embedding"]
    if arch.type_vocab_size:
        out.append(Component("token_type_embedding", "token-type embedding", "embedding",
                             (_w("T", ("type_vocab_size",), D),), embedding=True))
    if not arch.per_stack_embeddings:
        out += [c for c in pos if c.group == "norm"]
    if arch.encoder_decoder:
        out += _stack(arch, "encoder", "n_layers", cross=False)
        out += _stack(arch, "decoder", "n_decoder_layers", cross=True)
    else:
        out += _stack(arch, "", "n_layers", cross=False)
    if arch.lm_head_transform:
        out.append(Component("lm_head_transform", "LM head transform", "head",
                             (_w("W_t", D, D), _w("b_t", D), *norm_weights(arch, "t"))))
    if arch.lm_head and not arch.tie_word_embeddings:
        weights = (_w("W_vocab", embed_axis(arch), head_vocab_axis(arch)),)
        if arch.lm_head_linear_bias:
            weights += (_w("b_vocab_linear", head_vocab_axis(arch)),)
        out.append(Component("lm_head", "LM head (untied)", "head", weights, embedding=True))
    if arch.lm_head and arch.lm_head_bias:
        out.append(Component("lm_head_bias", "LM head bias", "head", (_w("b_vocab", head_vocab_axis(arch)),),
                             embedding=True))
    if arch.pooler:
        out.append(Component("pooler", "pooler", "head", (_w("W_pool", D, D), _w("b_pool", D))))
    return out


def count(arch: Architecture) -> int:
    """Total number of parameters of ``arch`` (exact int, no floats anywhere)."""
    dims = arch.dims()
    return sum(c.count(dims) for c in components(arch))


def active_dims(arch: Architecture) -> dict[str, int]:
    """:meth:`Architecture.dims` with ``n_experts`` set to ``experts_per_token``: the sizes a token sees."""
    dims = arch.dims()
    if arch.n_experts:
        dims["n_experts"] = arch.experts_per_token
    return dims


def active_count(arch: Architecture) -> int:
    """Parameters one token uses: all, except that a mixture of experts counts ``experts_per_token`` experts.

    Equal to :func:`count` for a dense model. The router counts in full (every token scores every expert).
    """
    dims, active = arch.dims(), active_dims(arch)
    return sum(c.count(active if c.routed else dims) for c in components(arch))


def symbolic_count(arch: Architecture, evaluate: bool = True) -> Any:
    """The total as a sympy expression in the notation symbols (sizes left symbolic)."""
    import sympy as sp

    return sp.Add(*[c.symbolic(evaluate) for c in components(arch)], evaluate=evaluate)


def symbol_values(arch: Architecture) -> dict[Any, Any]:
    """Notation symbol -> sympy Integer for every size of ``arch`` (to evaluate symbolic counts)."""
    import sympy as sp

    from ..transformer.notation import sym

    return {sym(SYMBOL_OF[k]): sp.Integer(v) for k, v in arch.dims().items() if k in SYMBOL_OF}
