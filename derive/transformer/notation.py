"""One symbol table for the whole catalog: name -> sympy symbol -> LaTeX.

Every catalog module takes its symbols from :func:`sym` (and indexed
vectors from :func:`vec`), so that ``d_model`` is the same object, with the
same assumptions and the same LaTeX spelling (``d_{\\text{model}}``),
everywhere it appears.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import sympy as sp

#: name -> (sympy assumptions, LaTeX spelling, meaning)
SYMBOLS: dict[str, tuple[dict[str, bool], str, str]] = {
    "d_model": ({"integer": True, "positive": True}, r"d_{\text{model}}", "width of the residual stream"),
    "d_k": ({"integer": True, "positive": True}, r"d_k", "width of a query/key vector"),
    "d_v": ({"integer": True, "positive": True}, r"d_v", "width of a value vector"),
    "d_ff": ({"integer": True, "positive": True}, r"d_{\text{ff}}", "hidden width of the feed-forward network"),
    "d_in": ({"integer": True, "positive": True}, r"d_{\text{in}}", "width of the input of a linear map (fan-in)"),
    "n_heads": ({"integer": True, "positive": True}, r"h", "number of attention heads"),
    "n_kv_heads": ({"integer": True, "positive": True}, r"h_{kv}", "number of key/value heads (GQA)"),
    "n_layers": ({"integer": True, "positive": True}, r"N", "number of layers"),
    "vocab_size": ({"integer": True, "positive": True}, r"V", "vocabulary size"),
    "n": ({"integer": True, "positive": True}, r"n", "length of a vector or sequence"),
    "i": ({"integer": True, "positive": True}, r"i", "an index"),
    "j": ({"integer": True, "positive": True}, r"j", "an index"),
    "c": ({"real": True}, r"c", "a real constant"),
    "T": ({"positive": True}, r"T", "softmax temperature"),
    "pos": ({"real": True}, r"\mathrm{pos}", "token position"),
    "k": ({"real": True}, r"k", "a position offset"),
    "omega": ({"positive": True}, r"\omega", "angular frequency of a sinusoid"),
    "eps": ({"positive": True}, r"\varepsilon", "LayerNorm stabiliser"),
    "mu_q": ({"real": True}, r"\mu_q", "mean of each query component"),
    "mu_k": ({"real": True}, r"\mu_k", "mean of each key component"),
    "sigma_q": ({"positive": True}, r"\sigma_q", "standard deviation of each query component"),
    "sigma_k": ({"positive": True}, r"\sigma_k", "standard deviation of each key component"),
    "z_max": ({"real": True}, r"z_{\max}", "the largest score of a row"),
    "gain": ({"positive": True}, r"\lambda", "factor by which the scores are scaled up"),
    "M": ({"real": True}, r"M", "an upper bound of a column of V"),
    "m": ({"integer": True, "positive": True}, r"m", "the index where the maximum score sits"),
    "l": ({"integer": True, "positive": True}, r"l", "a summation index"),
    "i0": ({"integer": True, "nonnegative": True}, r"i", "a row index counted from 0 (matrix symbols)"),
    "j0": ({"integer": True, "nonnegative": True}, r"j", "a column index counted from 0 (matrix symbols)"),
    "l0": ({"integer": True, "nonnegative": True}, r"l", "a summation index counted from 0 (matrix symbols)"),
    "n_decoder_layers": ({"integer": True, "positive": True}, r"N_{\text{dec}}",
                         "number of decoder layers of an encoder-decoder model"),
    "max_position_embeddings": ({"integer": True, "positive": True}, r"n_{\text{pos}}",
                                "rows of a learned position table (longest context)"),
    "type_vocab_size": ({"integer": True, "positive": True}, r"n_{\text{type}}",
                        "rows of the token-type (segment) table"),
    "relative_attention_num_buckets": ({"integer": True, "positive": True}, r"n_{\text{buckets}}",
                                       "rows of T5's relative position bias table"),
    "n_experts": ({"integer": True, "positive": True}, r"n_{\text{exp}}",
                  "experts of a mixture-of-experts FFN in each layer"),
    "experts_per_token": ({"integer": True, "positive": True}, r"k_{\text{exp}}",
                          "experts a token is routed to (top-k)"),
    "n_ctx": ({"integer": True, "positive": True}, r"n_{\text{ctx}}", "context length (tokens attended to)"),
    "batch_size": ({"integer": True, "positive": True}, r"B", "sequences in a batch"),
    "bytes_per_value": ({"integer": True, "positive": True}, r"b", "bytes of one stored number (2 for bf16)"),
    "n_params": ({"integer": True, "positive": True}, r"N_{\text{params}}", "number of parameters"),
    "alpha": ({"positive": True}, r"\alpha", "worked example: token 2's causal attention weight on token 1, head 1"),
    "beta": ({"positive": True}, r"\beta", "worked example: token 2's causal attention weight on token 1, head 2"),
    "i_pair": ({"integer": True, "nonnegative": True}, r"i", "index of a (sin, cos) pair, counted from 0"),
    "n_pairs": ({"integer": True, "positive": True}, r"m", "number of (sin, cos) pairs, d_model/2"),
    "theta": ({"real": True}, r"\theta", "an angle, pos·ω_i"),
    "phi": ({"real": True}, r"\varphi", "a phase: 0 for a sine component, π/2 for a cosine"),
    "mu": ({"real": True}, r"\mu", "mean of a token's d_model components"),
    "sigma2": ({"nonnegative": True}, r"\sigma^{2}", "biased variance of a token's d_model components"),
    "gamma": ({"real": True}, r"\gamma", "LayerNorm/RMSNorm gain (one component)"),
    "ln_beta": ({"real": True}, r"\beta", "LayerNorm shift (one component)"),
    "a": ({"positive": True}, r"a", "a positive scale factor"),
    "t": ({"real": True}, r"t", "a pre-activation (one real number)"),
    "k_hidden": ({"integer": True, "positive": True}, r"k", "index of a hidden unit of the FFN (1..d_ff)"),
    "r_after": ({"integer": True, "nonnegative": True}, r"r", "pairs after pair i: r = m − 1 − i ≥ 0"),
    "col": ({"integer": True, "nonnegative": True}, r"c", "a column index of the encoding, counted from 0"),
    "softmax(z)_i": ({}, r"\operatorname{softmax}(z)_i", "component i of the softmax of z"),
    "PE_{pos,2i}": ({}, r"\mathrm{PE}_{\mathrm{pos},\,2i}", "sinusoidal encoding of pos, even column 2i"),
    "PE_{pos,2i+1}": ({}, r"\mathrm{PE}_{\mathrm{pos},\,2i+1}", "sinusoidal encoding of pos, odd column 2i+1"),
}


@cache
def sym(name: str) -> sp.Symbol:
    """The catalog's symbol called ``name`` (with its assumptions).

    Raises:
        KeyError: ``name`` is not in :data:`SYMBOLS`.
    """
    assumptions, _, _ = SYMBOLS[name]
    return sp.Symbol(name, **assumptions)


@cache
def vec(name: str, **assumptions: Any) -> sp.IndexedBase:
    """An indexed vector ``name[i]`` whose elements carry ``assumptions`` (default real)."""
    return sp.IndexedBase(name, **(assumptions or {"real": True}))


def latex_names() -> dict[sp.Symbol, str]:
    """Symbol -> LaTeX spelling for every symbol of the table (for ``sympy.latex``)."""
    return {sym(name): tex for name, (_, tex, _) in SYMBOLS.items()}
