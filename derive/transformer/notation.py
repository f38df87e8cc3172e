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
    "decoder_d_ff": ({"integer": True, "positive": True}, r"d_{\text{ff,dec}}",
                     "hidden width of the decoder's feed-forward network (encoder-decoder)"),
    "decoder_vocab_size": ({"integer": True, "positive": True}, r"V_{\text{dec}}",
                           "rows of the decoder's token table (encoder-decoder)"),
    "word_embed_proj_dim": ({"integer": True, "positive": True}, r"d_{\text{proj}}",
                            "width of a token table narrower or wider than the model (OPT)"),
    "n_ctx": ({"integer": True, "positive": True}, r"n_{\text{ctx}}", "context length (tokens attended to)"),
    "batch_size": ({"integer": True, "positive": True}, r"B", "sequences in a batch"),
    "bytes_per_value": ({"integer": True, "positive": True}, r"b", "bytes of one stored number (2 for bf16)"),
    "n_params": ({"integer": True, "positive": True}, r"N_{\text{params}}", "number of parameters"),
    "alpha": ({"positive": True}, r"\alpha", "worked example: token 2's causal attention weight on token 1, head 1"),
    "beta": ({"positive": True}, r"\beta", "worked example: token 2's causal attention weight on token 1, head 2"),
    "i_pair": ({"integer": True, "nonnegative": True}, r"i", "index of a (sin, cos) pair, counted from 0"),
    "n_pairs": ({"integer": True, "positive": True}, r"m", r"number of (sin, cos) pairs, $d_{\text{model}}/2$"),
    "theta": ({"real": True}, r"\theta", r"an angle, $\mathrm{pos}\cdot \omega_i$"),
    "phi": ({"real": True}, r"\varphi", r"a phase: 0 for a sine component, $\pi/2$ for a cosine"),
    "pos_m": ({"real": True}, r"m", "RoPE: position of the query (RoFormer's m)"),
    "pos_n": ({"real": True}, r"n", "RoPE: position of the key (RoFormer's n)"),
    "alibi_slope": ({"positive": True}, r"m", "ALiBi: the head's slope (Press et al.'s m)"),
    "head_index": ({"integer": True, "positive": True}, r"k", "index of an attention head, 1..h"),
    "prefix": ({"integer": True, "positive": True}, r"p", "causal mask: number of visible (unmasked) keys"),
    "n_masked": ({"integer": True, "nonnegative": True}, r"r", "causal mask: number of masked keys of a row"),
    "u_later": ({"integer": True, "positive": True}, r"u", "causal mask: a later key 1 + u of the first row, u ≥ 1"),
    "split": ({"integer": True, "positive": True}, r"k", "online softmax: the index where the row is split"),
    "m_run": ({"real": True}, r"m", "online softmax: the running maximum after both blocks"),
    "m_1": ({"real": True}, r"m_1", "online softmax: the maximum of the first block"),
    "m_2": ({"real": True}, r"m_2", "online softmax: the maximum of the second block"),
    "l_1": ({"positive": True}, r"\ell_1", "online softmax: the first block's sum of exponentials"),
    "l_2": ({"positive": True}, r"\ell_2", "online softmax: the second block's sum of exponentials"),
    "acc_1": ({"real": True}, r"a_1", "online softmax: the first block's unnormalised output"),
    "acc_2": ({"real": True}, r"a_2", "online softmax: the second block's unnormalised output"),
    "m_prev": ({"real": True}, r"m_{j-1}", "online softmax: the running maximum before element j"),
    "m_cur": ({"real": True}, r"m_j", "online softmax: the running maximum after element j"),
    "d_prev": ({"positive": True}, r"d_{j-1}", "online softmax: the running sum before element j"),
    "t_step": ({"integer": True, "positive": True}, r"t", "decoding step: the t-th generated token"),
    "s_pos": ({"integer": True, "positive": True}, r"s", "a position of the prefix, 1..t"),
    "compute": ({"positive": True}, r"C", "training compute, FLOPs"),
    "n_tokens": ({"integer": True, "positive": True}, r"D", "training tokens"),
    "tokens_per_param": ({"positive": True}, r"r", "training tokens per parameter, D/N"),
    "chin_a": ({"positive": True}, r"a", r"Chinchilla: exponent of $N_{\text{opt}} \propto C^a$"),
    "chin_G": ({"positive": True}, r"G", "Chinchilla: the constant of eq. (4)"),
    "chin_b": ({"positive": True}, r"b", r"Chinchilla: exponent of $D_{\text{opt}} \propto C^b$"),
    "chin_alpha": ({"positive": True}, r"\alpha", r"Chinchilla: exponent of the parameter term $A/N^{\alpha}$ of the "
                                                  r"loss fit"),
    "chin_beta": ({"positive": True}, r"\beta", r"Chinchilla: exponent of the data term $B/D^{\beta}$ of the loss fit"),
    "n_opt": ({"positive": True}, r"N_{\text{opt}}", "Chinchilla: compute-optimal number of parameters"),
    "d_opt": ({"positive": True}, r"D_{\text{opt}}", "Chinchilla: compute-optimal number of training tokens"),
    "chin_A": ({"positive": True}, r"A",
               r"Chinchilla: coefficient of the parameter term $A/N^{\alpha}$ of the loss fit"),
    "chin_B": ({"positive": True}, r"B", r"Chinchilla: coefficient of the data term $B/D^{\beta}$ of the loss fit"),
    "chin_E": ({"positive": True}, r"E", "Chinchilla: the irreducible loss of the fit"),
    "d_out": ({"integer": True, "positive": True}, r"d_{\text{out}}", "width of the output of a linear map"),
    "ctx_train": ({"positive": True}, r"L", "context length a model was trained on (position interpolation)"),
    "pos_ext": ({"integer": True, "nonnegative": True}, r"m", r"a position of the extended window, $0 \le m < L'$"),
    "r_ext": ({"integer": True, "nonnegative": True}, r"r",
              r"positions of the extended window after m: $L' = m + 1 + r$"),
    "r_pairs": ({"integer": True, "nonnegative": True}, r"r", r"RoPE: pairs after pair i, so that $m = i + r$"),
    "n_real": ({"positive": True}, r"N", "number of parameters, treated as a positive real (for the calculus)"),
    "mu": ({"real": True}, r"\mu", r"mean of a token's $d_{\text{model}}$ components"),
    "sigma2": ({"nonnegative": True}, r"\sigma^{2}", r"biased variance of a token's $d_{\text{model}}$ components"),
    "gamma": ({"real": True}, r"\gamma", "LayerNorm/RMSNorm gain (one component)"),
    "ln_beta": ({"real": True}, r"\beta", "LayerNorm shift (one component)"),
    "a": ({"positive": True}, r"a", "a positive scale factor"),
    "t": ({"real": True}, r"t", "a pre-activation (one real number)"),
    "k_hidden": ({"integer": True, "positive": True}, r"k", r"index of a hidden unit of the FFN $(1, \dots, "
                                                            r"d_{\text{ff}})$"),
    "r_after": ({"integer": True, "nonnegative": True}, r"r", "pairs after pair i: r = m − 1 − i ≥ 0"),
    "col": ({"integer": True, "nonnegative": True}, r"c", "a column index of the encoding, counted from 0"),
    # gradients (derive.transformer.gradients) and initialisation (derive.transformer.initialisation)
    "k_class": ({"integer": True, "positive": True}, r"k", "a class index of the cross-entropy sum (1..n)"),
    "c_col": ({"integer": True, "positive": True}, r"c", r"a feature column of Q, K, V or O ($1, \dots, d_k$ or "
                                                         r"$d_v$)"),
    "b_row": ({"integer": True, "positive": True}, r"b", "a summation index over rows or columns"),
    "s_len": ({"positive": True}, r"s", r"the LayerNorm/RMSNorm divisor $\sqrt{\sigma^2 + \varepsilon}$ (or "
                                        r"$\sqrt{\operatorname{mean}(x^2) + \varepsilon}$)"),
    "rms2": ({"positive": True}, r"\overline{x^2}", r"mean square of a token's $d_{\text{model}}$ components"),
    "fan_in": ({"integer": True, "positive": True}, r"n_{\text{in}}", "inputs of a linear layer (fan-in)"),
    "fan_out": ({"integer": True, "positive": True}, r"n_{\text{out}}", "outputs of a linear layer (fan-out)"),
    "sigma_w": ({"positive": True}, r"\sigma_w", "standard deviation of each weight at initialisation"),
    "mu_x": ({"real": True}, r"\mu_x", "mean of each input component of a layer"),
    "sigma_x": ({"positive": True}, r"\sigma_x", "standard deviation of each input component of a layer"),
    "mu_r": ({"real": True}, r"\mu_r", r"mean of a ReLU output $\operatorname{relu}(x_i)$"),
    "sigma_r": ({"positive": True}, r"\sigma_r", r"standard deviation of a ReLU output $\operatorname{relu}(x_i)$"),
    "mu_0": ({"real": True}, r"\mu_0", "mean of a residual-stream component before the first block"),
    "sigma_0": ({"positive": True}, r"\sigma_0", "standard deviation of the residual stream before the first block"),
    "sigma_f": ({"positive": True}, r"\sigma_f", "standard deviation of one residual branch's output"),
    "n_res": ({"integer": True, "positive": True}, r"N", r"residual additions in the stream ($2\cdot "
                                                         r"n_{\text{layers}}$ in GPT-2)"),
    "bound": ({"positive": True}, r"a", "half-width of a uniform distribution U[−a, a]"),
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
