"""Parameter counts in closed form, derived from the weight shapes.

Every derivation here starts from the sum of the sizes of the weight tensors
as :mod:`derive.params.shapes` lists them (the same table the exact integer
counts and ``derive params`` use), then substitutes the architecture's
relations (d_k = d_model/h, h_kv = h, d_ff = 4·d_model, d_ff = (2/3)·4·d_model)
as mechanical rules. Cross-checks: the claim at random points with the
relations imposed, arrays allocated by :mod:`derive.params.allocate` (an
independent, per-head construction), and every parameter figure of lecture 000
(STEP 3, 5, 6) and lecture 002 (§7 and the exercises) as printed.

Sources: Vaswani et al. 2017 §3.2.2 (multi-head shapes), §3.3 (FFN);
Shazeer 2020 (gated FFN width); Touvron et al. 2023 (LLaMA width rounding);
Ainslie et al. 2023 (GQA); Kaplan et al. 2020 (12·d² per layer).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..core import Assumption, Citation, Derivation, Step
from ..i18n import fill
from ..params.arch import Architecture, llama_ffn_hidden
from ..registry import metadata, register
from ..report import message_form

VASWANI_322 = Citation("vaswani2017", "§3.2.2")
VASWANI_33 = Citation("vaswani2017", "§3.3")
LECTURE_000 = "lecture 000, STEP 3/5/6"
LECTURE_002 = "lecture 002, §7 and exercises"

#: The lecture's layer: d_model 512, h 8, d_ff 2048 (Vaswani et al. 2017, base model).
LECTURE = {"d_model": 512, "n_heads": 8, "d_ff": 2048}

#: A layer in the GPT-2/BERT convention: biases everywhere, two LayerNorms with γ and β.
STANDARD_LAYER = Architecture(d_model=768, n_heads=12, d_ff=3072, n_layers=1, attention_bias=True, mlp_bias=True)
#: The lecture's convention: attention without biases, FFN with biases, two LayerNorms.
LECTURE_LAYER = Architecture(n_layers=1, **LECTURE)


def _s(name: str) -> Any:
    from .notation import sym

    return sym(name)


def _at(expr: Any, **values: int) -> Any:
    """``expr`` with notation symbols set to integers (``d_model=512``)."""
    import sympy as sp

    from ..params.shapes import SYMBOL_OF

    return sp.sympify(expr).xreplace({_s(SYMBOL_OF.get(k, k)): sp.Integer(v) for k, v in values.items()})


def _component(arch: Architecture, key: str) -> Any:
    from ..params.shapes import components

    return next(c for c in components(arch) if c.key == key)


def _layer_start(arch: Architecture) -> Any:
    """Per-layer count from the shapes: attention + FFN + norms of one layer (unevaluated sum)."""
    import sympy as sp

    parts = [_component(arch, k).symbolic_per_copy(evaluate=False) for k in ("attention", "ffn", "norms")]
    return sp.Add(*parts, evaluate=False)


def _mha_subs() -> dict:
    return {_s("n_kv_heads"): _s("n_heads"), _s("d_k"): _s("d_model") / _s("n_heads")}


def _premises(subs: dict) -> tuple:
    """The substitutions of a derivation as its declared premises (``Eq(d_k, d_model/n_heads)``…)."""
    import sympy as sp

    return tuple(sp.Eq(old, new, evaluate=False) for old, new in subs.items())


def _tex(expr: Any) -> str:
    """``expr`` in the catalog's notation, inline (``d_{\\text{model}} / h``), for words between ``$``."""
    import sympy as sp

    from .notation import latex_names

    return sp.latex(expr, symbol_names=latex_names(), fold_short_frac=True)


def _conditional_identity(start: Any, end: Any, subs: dict, what: str) -> Any:
    from ..numeric import IdentityCheck

    return IdentityCheck(start.xreplace(subs), end, name=f"claim at random points with {what}")


_ALLOCATED = message_form(r"{n} configurations $(d_{\text{model}}, h, h_{kv}, d_{\text{ff}})$ allocated: sum of "
                          ".size equals the closed form")
_RANDOM_MODELS = message_form("{n} random small models of this layout: allocated = counted = closed form; "
                              "{presets} presets: counted = closed form")


def _allocation_check(name: str, build: Any, closed: Any, configs: list[Architecture]) -> Any:
    """FunctionCheck: arrays built per head (allocate.py) have as many scalars as the closed form says."""
    from ..numeric import FunctionCheck
    from ..params.shapes import symbol_values

    def run(seed: int) -> tuple[bool, dict, str]:
        rows = []
        for arch in configs:
            allocated = sum(int(a.size) for a in build(arch))
            formula = int(closed.xreplace(symbol_values(arch)))
            rows.append((arch.d_model, arch.n_heads, arch.kv_heads, arch.d_ff, allocated, formula))
        ok = all(r[4] == r[5] for r in rows)
        bad = [r for r in rows if r[4] != r[5]]
        return ok, {"configs": len(rows), "mismatches": [list(r) for r in bad]}, (
            fill(_ALLOCATED, n=len(rows))
            if ok else f"allocation differs from the closed form at {bad[:3]}")

    return FunctionCheck(name, run)


def _small(arch: Architecture) -> list[Architecture]:
    """Small variants of ``arch``: every h dividing d_model for d_model in 8, 12, 16, 24."""
    out = []
    for d in (8, 12, 16, 24):
        for h in (h for h in range(1, d + 1) if d % h == 0):
            out.append(replace(arch, d_model=d, n_heads=h, d_ff=4 * d, head_dim=None, n_kv_heads=None))
    return out


@register(
    "params.attention",
    title=r"Multi-head attention has $4\cdot d_{\text{model}}^2$ weights, whatever the number of heads",
    summary=(r"$h\cdot 3\cdot d_{\text{model}}\cdot (d_{\text{model}}/h) + d_{\text{model}}^2 = 4\cdot "
             r"d_{\text{model}}^2$ for every h dividing $d_{\text{model}}$."),
)
def attention() -> Derivation:
    from ..numeric import FunctionCheck, ValueCheck
    from ..params.allocate import attention_arrays
    from ..params.shapes import count
    from ..rules import Substitute

    d, h, dk, hkv = _s("d_model"), _s("n_heads"), _s("d_k"), _s("n_kv_heads")
    start = _component(LECTURE_LAYER, "attention").symbolic_per_copy(evaluate=False)
    end = 4 * d**2
    per_head = d * dk

    def gpt2_heads(seed: int) -> tuple[bool, dict, str]:
        base = Architecture(d_model=768, n_heads=12, d_ff=3072, n_layers=12)
        counts = {h_: count(replace(base, n_heads=h_)) for h_ in (8, 12, 16)}
        return len(set(counts.values())) == 1, {"counts": counts}, (
            f"GPT-2-small sizes (768/3072/12 layers) with h = 8, 12, 16: {sorted(set(counts.values()))} parameters")

    return Derivation(
        **metadata("params.attention"),
        start=start,
        steps=(
            Step(4 * d * h * dk, "multi-head attention (MHA) gives every query head its own key and value head, "
                                 "$h_{kv} = h$, so the four matrices have the same size $d_{model}\\cdot h d_k$",
                 rule=Substitute(((hkv, h),), r"$h_{kv} = h$")),
            Step(end, "each head has width $d_k = d_{model}/h$, so $h\\,d_k = d_{model}$ and h cancels",
                 rule=Substitute(((dk, d / h),), r"$d_k = d_{\text{model}}/h$"),
                 citation=VASWANI_322),
        ),
        assumptions=(Assumption(r"h divides $d_{\text{model}}$ and $d_k = d_v = d_{\text{model}}/h$; projections "
                                r"without biases $(W_Q, W_K, W_V: d_{\text{model}} \times h\cdot d_k; W_O: h\cdot "
                                r"d_v \times d_{\text{model}})$"),),
        citations=(VASWANI_322,),
        premises=_premises(_mha_subs()),
        checks=(
            _conditional_identity(start, end, _mha_subs(), r"$h_{kv} = h$, $d_k = d_{\text{model}}/h$"),
            _allocation_check(r"per-head arrays, every h dividing $d_{\text{model}}$ (8, 12, 16, "
                              r"24)", attention_arrays, end,
                              _small(Architecture(d_model=8, n_heads=1, d_ff=32, n_layers=1))),
            FunctionCheck("lecture 000 exercise: h = 8 or 16 at GPT-2-small sizes leaves the total unchanged",
                          gpt2_heads),
            *(ValueCheck(rf"$W_i^{m}$ of one head, $512 \times 64$", _at(per_head, d_model=512, head_dim=64), "32,768",
                         LECTURE_000) for m in "QKV"),
            *(ValueCheck(f"$W^{m}$ of all 8 heads", _at(h * per_head, d_model=512, n_heads=8, head_dim=64), "262,144",
                         LECTURE_000) for m in "QKV"),
            ValueCheck(r"$W^O$, $512 \times 512$", _at(d**2, d_model=512), "262,144", LECTURE_000),
            ValueCheck("attention block, 4 × 512²", _at(end, d_model=512), "1,048,576", LECTURE_000),
        ),
        notes=(r"The heads split $d_{\text{model}}$ between them; they do not multiply the weights. The benefit of "
               "several heads is several attention patterns over different subspaces at the same parameter cost.",),
    )


@register(
    "params.attention-bias",
    title=r"With biases, multi-head attention has $4\cdot d_{\text{model}}^2 + 4\cdot d_{\text{model}}$ parameters",
    summary=(r"Biases add $h\cdot d_k$ for each of Q, K, V and $d_{\text{model}}$ for the output: $4\cdot "
             r"d_{\text{model}}$ more."),
)
def attention_bias() -> Derivation:
    from ..numeric import ValueCheck
    from ..params.allocate import attention_arrays
    from ..rules import Substitute

    d, h, dk, hkv = _s("d_model"), _s("n_heads"), _s("d_k"), _s("n_kv_heads")
    arch = replace(LECTURE_LAYER, attention_bias=True)
    start = _component(arch, "attention").symbolic_per_copy(evaluate=False)
    end = 4 * d**2 + 4 * d
    return Derivation(
        **metadata("params.attention-bias"),
        start=start,
        steps=(
            Step(4 * d * h * dk + 3 * h * dk + d, "MHA: $h_{kv} = h$", rule=Substitute(((hkv, h),), (r"$h_{kv} "
                                                                                                     "= h$"))),
            Step(end, "$h\\,d_k = d_{model}$ in every matrix and every bias",
                 rule=Substitute(((dk, d / h),), r"$d_k = d_{\text{model}}/h$"), citation=VASWANI_322),
        ),
        assumptions=(Assumption(r"h divides $d_{\text{model}}$, $d_k = d_{\text{model}}/h$; Q, K, V, O projections "
                                 "each with a bias"),),
        citations=(VASWANI_322, Citation("radford2019")),
        premises=_premises(_mha_subs()),
        checks=(
            _conditional_identity(start, end, _mha_subs(), r"$h_{kv} = h$, $d_k = d_{\text{model}}/h$"),
            _allocation_check(r"per-head arrays with biases, every h dividing "
                              r"$d_{\text{model}}$", attention_arrays, end,
                              _small(replace(arch, d_model=8, n_heads=1, d_ff=32))),
            ValueCheck((r"GPT-2 small attention block $(c_{\text{attn}} 768\times 2304 + 2304, c_{\text{proj}} "
                        r"768\times 768 + 768)$"),
                       _at(end, d_model=768), "2,362,368", "HF gpt2 state dict"),
        ),
    )


@register(
    "params.gqa-attention",
    title=r"Grouped-query attention: K and V shrink to $2\cdot d_{\text{model}}\cdot (h_{kv}\cdot d_k)$",
    summary=(r"$W_Q$ and $W_O$ keep $d_{\text{model}}^2$ each; $W_K$ and $W_V$ have $d_{\text{model}}^2\cdot "
             r"h_{kv}/h$ each."),
)
def gqa_attention() -> Derivation:
    from ..numeric import ValueCheck
    from ..params.allocate import attention_arrays
    from ..params.presets import PRESETS
    from ..rules import Substitute

    d, h, dk, hkv = _s("d_model"), _s("n_heads"), _s("d_k"), _s("n_kv_heads")
    start = _component(LECTURE_LAYER, "attention").symbolic_per_copy(evaluate=False)
    end = 2 * d**2 + 2 * d**2 * hkv / h
    configs = [Architecture(d_model=d_, n_heads=h_, n_kv_heads=k_, d_ff=4, n_layers=1)
               for d_, h_ in ((16, 8), (24, 6), (32, 16)) for k_ in range(1, h_ + 1) if h_ % k_ == 0]
    llama70 = PRESETS["llama2-70b"].arch
    mistral = PRESETS["mistral-7b"].arch
    return Derivation(
        **metadata("params.gqa-attention"),
        start=start,
        steps=(
            Step(2 * d * h * dk + 2 * d * hkv * dk, "collect: Q and O are $d_{model}\\times h d_k$, "
                                                    "K and V are $d_{model}\\times h_{kv} d_k$"),
            Step(end, "substitute the head width $d_k = d_{model}/h$",
                 rule=Substitute(((dk, d / h),), r"$d_k = "
                                                 r"d_{\text{model}}/h$"), citation=Citation("ainslie2023", "§2.2")),
        ),
        assumptions=(Assumption(r"$h_{kv}$ divides h (each key/value head serves $h/h_{kv}$ query "
                                r"heads); $d_k = d_{\text{model}}/h$; no biases. $h_{kv} = h$ is MHA $(4\cdot "
                                r"d_{\text{model}}^2)$, $h_{kv} = 1$ is MQA"),),
        citations=(Citation("ainslie2023"), VASWANI_322),
        premises=_premises({dk: d / h}),
        checks=(
            _conditional_identity(start, end, {dk: d / h}, r"$d_k = d_{\text{model}}/h$"),
            _allocation_check(r"per-head arrays, every $h_{kv}$ dividing h", attention_arrays, end, configs),
            ValueCheck(r"Llama 2 70B attention per layer $(d 8192, h 64, h_{kv} 8)$",
                       end.xreplace({d: llama70.d_model, h: llama70.n_heads, hkv: llama70.kv_heads}),
                       "150,994,944", "HF meta-llama/Llama-2-70b-hf"),
            ValueCheck(r"Mistral 7B attention per layer $(d 4096, h 32, h_{kv} 8)$",
                       end.xreplace({d: mistral.d_model, h: mistral.n_heads, hkv: mistral.kv_heads}),
                       "41,943,040", "HF mistralai/Mistral-7B-v0.1"),
        ),
    )


@register(
    "params.ffn",
    title=(r"The feed-forward network has $2\cdot d_{\text{model}}\cdot d_{\text{ff}} + d_{\text{ff}} + "
           r"d_{\text{model}}$ parameters ($8\cdot d_{\text{model}}^2 + 5\cdot d_{\text{model}}$ at 4d)"),
    summary=(r"Two matrices and two biases; at $d_{\text{ff}} = 4\cdot d_{\text{model}}$ this is $8\cdot "
             r"d_{\text{model}}^2 + 5\cdot d_{\text{model}}$."),
)
def ffn() -> Derivation:
    from ..numeric import ValueCheck
    from ..params.allocate import ffn_arrays
    from ..rules import Substitute

    d, f = _s("d_model"), _s("d_ff")
    start = _component(LECTURE_LAYER, "ffn").symbolic_per_copy(evaluate=False)
    general = 2 * d * f + f + d
    end = 8 * d**2 + 5 * d
    w = {w.name: w.symbolic() for w in _component(LECTURE_LAYER, "ffn").weights}
    return Derivation(
        **metadata("params.ffn"),
        start=start,
        steps=(
            Step(general, "$W_1$ and $W_2$ have the same size $d_{model} d_{ff}$; $b_1$ has $d_{ff}$ entries and "
                          "$b_2$ has $d_{model}$", citation=VASWANI_33),
            Step(end, "the usual width $d_{ff} = 4 d_{model}$", rule=Substitute(((f, 4 * d),), (r"$d_{\text{ff}} = "
                                                                                                r"4\cdot "
                                                                                                r"d_{\text{model}}$"))),
        ),
        assumptions=(Assumption(r"$\operatorname{FFN}(x) = \max (0, x W_1 + b_1) W_2 + b_2$ with $W_1$: "
                                r"$d_{\text{model}} \times d_{\text{ff}}$, $W_2$: $d_{\text{ff}} \times "
                                r"d_{\text{model}}$; the last step takes $d_{\text{ff}} = 4\cdot d_{\text{model}}$ "
                                "(2048 = 4·512 in the paper)"),),
        citations=(VASWANI_33,),
        premises=_premises({f: 4 * d}),
        checks=(
            _conditional_identity(start, end, {f: 4 * d}, r"$d_{\text{ff}} = 4\cdot d_{\text{model}}$"),
            _allocation_check("$W_1$, $b_1$, $W_2$, $b_2$ allocated", ffn_arrays, end,
                              _small(Architecture(d_model=8, n_heads=1, d_ff=32, n_layers=1))),
            ValueCheck(r"$W_1$, $512 \times 2048$", _at(w["W_1"], d_model=512, d_ff=2048), "1,048,576", LECTURE_000),
            ValueCheck("$b_1$", _at(w["b_1"], d_ff=2048), "2,048", LECTURE_000),
            ValueCheck(r"$W_2$, $2048 \times 512$", _at(w["W_2"], d_model=512, d_ff=2048), "1,048,576", LECTURE_000),
            ValueCheck("$b_2$", _at(w["b_2"], d_model=512), "512", LECTURE_000),
            ValueCheck("FFN total", _at(general, d_model=512, d_ff=2048), "2,099,712", LECTURE_000),
            ValueCheck(r"widening of the base model, $d_{\text{ff}}/d_{\text{model}} = "
                       r"2048/512$", _at(_s("d_ff") / _s("d_model"),
                       d_model=512, d_ff=2048), "4", "lecture 002, §6"),
        ),
    )


@register(
    "params.swiglu-width",
    title=(r"A SwiGLU FFN of width $(2/3)\cdot 4\cdot d_{\text{model}}$ has the $8\cdot d_{\text{model}}^2$ weights "
           r"of a $4\cdot d_{\text{model}}$ ReLU FFN"),
    summary=(r"Three matrices of $d_{\text{model}} \times d_{\text{ff}}$: $3\cdot d_{\text{model}}\cdot (8\cdot "
             r"d_{\text{model}}/3) = 8\cdot d_{\text{model}}^2$; LLaMA rounds the width up."),
)
def swiglu_width() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from ..params.allocate import ffn_arrays
    from ..rules import Substitute

    d, f = _s("d_model"), _s("d_ff")
    gated = Architecture(d_model=8, n_heads=1, d_ff=32, n_layers=1, ffn="swiglu", mlp_bias=False)
    start = _component(gated, "ffn").symbolic_per_copy(evaluate=False)
    end = 8 * d**2

    def rounded(dm: int) -> Any:  # the reference code's int(2·4d/3), rounded up to 256, written in sympy
        return 256 * sp.ceiling(sp.floor(sp.Rational(8 * dm, 3)) / 256)

    def widths(seed: int) -> tuple[bool, dict, str]:
        known = {4096: 11008, 5120: 13824, 6656: 17920, 8192: 22016}  # LLaMA 7B, 13B, 33B, 65B
        got = {dm: llama_ffn_hidden(dm) for dm in known}
        sym_got = {dm: int(rounded(dm)) for dm in known}
        ok = got == known == sym_got
        return ok, {"widths": got}, rf"LLaMA widths for $d_{{\text{{model}}}}$ {list(known)}: {list(got.values())}"

    configs = [Architecture(d_model=3 * k, n_heads=1, d_ff=8 * k, n_layers=1, ffn="swiglu", mlp_bias=False)
               for k in (1, 2, 4, 8)]  # d_ff = (2/3)·4·d_model exactly when 3 divides d_model
    return Derivation(
        **metadata("params.swiglu-width"),
        start=start,
        steps=(
            Step(3 * d * f, "gate $W$, value $V$ (both $d_{model}\\times d_{ff}$) and output $W_2$ "
                            "($d_{ff}\\times d_{model}$) have the same size", citation=Citation("shazeer2020", "§2")),
            Step(end, "the width $d_{ff} = \\tfrac23\\cdot 4 d_{model}$ that keeps the parameter count",
                 rule=Substitute(((f, sp.Rational(2, 3) * 4 * d),), (r"$d_{\text{ff}} = (2/3)\cdot 4\cdot "
                                                                     r"d_{\text{model}}$")),
                 citation=Citation("touvron2023", "§2.2")),
        ),
        assumptions=(Assumption(r"$\operatorname{FFN}_{\text{SwiGLU}}(x) = (\operatorname{Swish}(x W) \odot x V) "
                                r"W_2$ without biases; the width is $d_{\text{ff}} = (2/3)\cdot 4\cdot "
                                r"d_{\text{model}}$ before any rounding"),),
        citations=(Citation("shazeer2020"), Citation("touvron2023")),
        premises=_premises({f: sp.Rational(8, 3) * d}),
        checks=(
            _conditional_identity(start, end, {f: sp.Rational(8, 3) * d}, (r"$d_{\text{ff}} = (2/3)\cdot 4\cdot "
                                                                           r"d_{\text{model}}$")),
            _allocation_check(r"three matrices allocated at $d_{\text{ff}} = 8\cdot "
                              r"d_{\text{model}}/3$", ffn_arrays, end, configs),
            FunctionCheck("LLaMA's rounding to a multiple of 256 (7B, 13B, 33B, 65B)", widths),
            ValueCheck("LLaMA-7B width: ⌊2·4·4096/3⌋ = 10922 rounded up to 256", rounded(4096), "11008",
                       "Touvron et al. 2023 (the (2/3)·4·d rule of lecture 002, §8)"),
            ValueCheck("LLaMA-13B width", rounded(5120), "13824", "Touvron et al. 2023"),
            ValueCheck("LLaMA-7B FFN per layer with the rounded width, 3·4096·11008",
                       _at(3 * d * f, d_model=4096, d_ff=11008), "135,266,304", "HF huggyllama/llama-7b"),
            ValueCheck(r"$8\cdot d_{\text{model}}^2$ at 4096, the unrounded "
                       r"target", _at(end, d_model=4096), "134,217,728",
                       "derived (8·d² of lecture 002, §7)"),
        ),
        notes=((r"The rounding makes LLaMA-7B's FFN 0.78 % larger than $8\cdot d_{\text{model}}^2$ (135,266,304 vs "
                "134,217,728)."),),
    )


def _cited(expr: Any, names: tuple[str, ...], why: dict[str, str]) -> tuple[list[Step], Any]:
    """Steps that each replace a component by the closed form a catalog derivation proves for it (a lemma)."""
    import sympy as sp

    from .. import registry

    steps = []
    for name in names:
        lemma = registry.get(name)
        parts = [lemma.end if p == lemma.start else p for p in sp.Add.make_args(expr)]
        if all(p != lemma.start for p in sp.Add.make_args(expr)):  # inside a product n_layers·(...)
            parts = [p.xreplace({lemma.start: lemma.end}) for p in sp.Add.make_args(expr)]
        expr = sp.Add(*parts, evaluate=False)
        steps.append(Step(expr, why[name], by=name))
    return steps, expr


_WHY = {
    "params.attention": "the attention block without biases is $4d_{model}^2$ for every h (params.attention)",
    "params.attention-bias": "the attention block with its biases is $4d_{model}^2 + 4d_{model}$ for every h "
                             "(params.attention-bias)",
    "params.gqa-attention": "grouped-query attention with $h_{kv}$ key/value heads (params.gqa-attention)",
    "params.ffn": "the FFN of width $d_{ff} = 4d_{model}$ has $8d_{model}^2 + 5d_{model}$ parameters (params.ffn)",
}


def _layer_derivation(name: str, arch: Architecture, mid: Any, end: Any,
                      checks: tuple, citations: tuple, assumption: str, notes: tuple = ()) -> Derivation:
    from ..params.allocate import layer_arrays

    d, f = _s("d_model"), _s("d_ff")
    start = _layer_start(arch)
    attention = "params.attention-bias" if arch.attention_bias else "params.attention"
    lemmas = (attention, "params.ffn") if end is not None else (attention,)
    steps, _ = _cited(start, lemmas, _WHY)
    final = end if end is not None else mid
    steps.append(Step(final, "collect the terms" + ("" if end is not None else
                                                    ": the FFN's two matrices and two biases, LayerNorm's γ and β"),
                      citation=VASWANI_33))
    subs = {**_mha_subs(), **({f: 4 * d} if end is not None else {})}
    return Derivation(
        **metadata(name), start=start, steps=tuple(steps),
        assumptions=(Assumption(assumption),), citations=citations,
        premises=_premises(subs),
        checks=(_conditional_identity(start, final, subs, r"$h_{kv} = h$, $d_k = d_{\text{model}}/h$"
                                      + (r", $d_{\text{ff}} = 4\cdot d_{\text{model}}$" if end is not None else "")),
                _allocation_check("one layer allocated per head (attention, FFN, two norms)", layer_arrays, final,
                                  _small(replace(arch, d_model=8, n_heads=1, d_ff=32))),
                *checks),
        notes=notes,
    )


@register(
    "params.layer",
    title=(r"A Transformer layer with biases and two LayerNorms has $12\cdot d_{\text{model}}^2 + 13\cdot "
           r"d_{\text{model}}$ parameters"),
    summary=(r"$4d^2 + 4d$ (attention) + $8d^2 + 5d$ (FFN at $d_{\text{ff}} = 4d) + 4d$ (two LayerNorms) = $12d^2 + "
             "13d$."),
)
def layer() -> Derivation:
    from ..numeric import ValueCheck

    d, f = _s("d_model"), _s("d_ff")
    end = 12 * d**2 + 13 * d
    return _layer_derivation(
        "params.layer",
        STANDARD_LAYER, (4 * d**2 + 4 * d) + (2 * d * f + f + d) + 4 * d, end,
        (ValueCheck("GPT-2 small layer (d 768)", _at(end, d_model=768), "7,087,872", "HF gpt2 state dict"),
         ValueCheck("GPT-3 175B layer (d 12288)", _at(end, d_model=12288), "1,812,099,072", "Brown et al. 2020")),
        (Citation("vaswani2017", "§3.1–3.3"), Citation("radford2019"), Citation("devlin2019")),
        (r"biases on Q, K, V, O and both FFN matrices; two LayerNorms with $\gamma$ and $\beta$; $d_k = "
         r"d_{\text{model}}/h$; $d_{\text{ff}} = 4\cdot d_{\text{model}}$"),
        ("GPT-2, GPT-3 and BERT layers have exactly this layout.",),
    )


@register(
    "params.layer-lecture",
    title=r"The lecture's encoder layer: 3,150,336 parameters at $d_{\text{model}}$ 512, h 8, $d_{\text{ff}}$ 2048",
    summary=(r"$4\cdot d_{\text{model}}^2 + 2\cdot d_{\text{model}}\cdot d_{\text{ff}} + d_{\text{ff}} + 5\cdot "
             r"d_{\text{model}}$: attention without biases, FFN with biases, 2 LayerNorms."),
)
def layer_lecture() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck

    d, f, n = _s("d_model"), _s("d_ff"), _s("n_layers")
    attn, ffn_, norms = 4 * d**2, 2 * d * f + f + d, 4 * d
    mid = attn + ffn_ + norms
    layer_total = _at(mid, **LECTURE)
    share = {k: sp.Integer(100) * _at(v, **LECTURE) / layer_total for k, v in
             (("attention", attn), ("FFN", ffn_), ("LayerNorm × 2", norms))}
    return _layer_derivation(
        "params.layer-lecture",
        LECTURE_LAYER, mid, None,
        (ValueCheck("multi-head attention, 4 × 512²", _at(attn, **LECTURE), "1,048,576", LECTURE_000),
         ValueCheck("FFN, 512·2048 + 2048 + 2048·512 + 512", _at(ffn_, **LECTURE), "2,099,712", LECTURE_000),
         ValueCheck("one LayerNorm, 2 × 512", _at(norms / 2, **LECTURE), "1,024", LECTURE_000),
         ValueCheck("two LayerNorms", _at(norms, **LECTURE), "2,048", LECTURE_000),
         ValueCheck("one encoder layer", layer_total, "3,150,336", LECTURE_000),
         *(ValueCheck(f"share of {k} (%)", v, p, LECTURE_000)
           for (k, v), p in zip(share.items(), ("33.3", "66.7", "0.1"), strict=True)),
         ValueCheck("sum of the shares (%)", sp.Add(*share.values()), "100", LECTURE_000),
         ValueCheck("FFN share as a fraction, about 2/3", share["FFN"] / 100, "0.67", LECTURE_000),
         ValueCheck("six layers", _at(n * mid, n_layers=6, **LECTURE), "18,902,016", LECTURE_000),
         ValueCheck(r"same layer at $d_{\text{ff}} = 4\cdot d_{\text{model}}$: $12\cdot d^2 + 9\cdot "
                    r"d$", _at(12 * d**2 + 9 * d, d_model=512), "3,150,336",
                    LECTURE_000)),
        (Citation("vaswani2017", "§3.1–3.3, Table 3"), Citation("ba2016")),
        "the lecture's convention: $W_Q$, $W_K$, $W_V$, $W_O$ without biases, FFN with $b_1$ and $b_2$, two "
        r"LayerNorms $(\gamma, \beta)$; $d_k = d_{\text{model}}/h$",
        ((r"About two thirds of the layer is the FFN: $2\cdot d_{\text{model}}\cdot d_{\text{ff}}$ against $4\cdot "
          r"d_{\text{model}}^2$ with $d_{\text{ff}} = 4\cdot d_{\text{model}}$."),),
    )


@register(
    "params.layer-approximation",
    title=r"$12\cdot d_{\text{model}}^2$ per layer, and its relative error $13/(12\cdot d_{\text{model}})$",
    summary=r"$(12d^2 + 13d - 12d^2)/(12d^2) = 13/(12d)$: under 0.22 % from $d_{\text{model}} = 512$ up.",
)
def layer_approximation() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from ..params.presets import PRESETS
    from ..params.shapes import count

    d, n = _s("d_model"), _s("n_layers")
    exact, approx = 12 * d**2 + 13 * d, 12 * d**2
    gpt3 = PRESETS["gpt3-175b"].arch
    llama = PRESETS["llama-7b"].arch

    def beside(seed: int) -> tuple[bool, dict, str]:
        figures = {
            "12·4096²·32": int(_at(n * approx, d_model=4096, n_layers=32)),
            "32·(12·4096² + 13·4096)": int(_at(n * exact, d_model=4096, n_layers=32)),
            "LLaMA-7B exact": count(llama),
            "12·12288²·96": int(_at(n * approx, d_model=12288, n_layers=96)),
            "96·(12·12288² + 13·12288)": int(_at(n * exact, d_model=12288, n_layers=96)),
            "GPT-3 175B exact": count(gpt3),
        }
        ok = figures["GPT-3 175B exact"] > figures["96·(12·12288² + 13·12288)"] > figures["12·12288²·96"]
        return ok, figures, "; ".join(f"{k} = {v:,}" for k, v in figures.items())

    return Derivation(
        **metadata("params.layer-approximation"),
        # unevaluated: sympy would otherwise cancel the quotient at construction and the steps would say nothing
        start=sp.Mul(sp.Add(_layer_start(STANDARD_LAYER), -approx, evaluate=False),
                     sp.Pow(approx, -1, evaluate=False), evaluate=False),
        premises=_premises({**_mha_subs(), _s("d_ff"): 4 * d}),
        steps=(
            Step(sp.Mul(sp.Add(exact, -approx, evaluate=False), sp.Pow(approx, -1, evaluate=False), evaluate=False),
                 "the layer from its shapes has $12 d_{model}^2 + 13 d_{model}$ parameters (params.layer)",
                 by="params.layer"),
            Step(sp.Mul(13 * d, sp.Pow(12 * d**2, -1, evaluate=False), evaluate=False),
                 "the quadratic terms cancel in the numerator"),
            Step(sp.Rational(13, 12) / d, "cancel one factor $d_{model}$"),
        ),
        assumptions=(Assumption(r"the layer of params.layer: $12\cdot d_{\text{model}}^2 + 13\cdot d_{\text{model}}$ "
                                r"parameters; the error is measured relative to the approximation $12\cdot "
                                r"d_{\text{model}}^2$"),),
        citations=(Citation("kaplan2020", "§2.1"),),
        checks=(
            ValueCheck(r"relative error at $d_{\text{model}} = "
                       r"512$", _at(sp.Rational(13, 12) / d, d_model=512), "0.00212",
                       "derived"),
            ValueCheck(r"relative error at $d_{\text{model}} = "
                       r"12288$", _at(sp.Rational(13, 12) / d, d_model=12288), "8.82e-5",
                       "derived"),
            ValueCheck("d = 4096, 32 layers: 12·4096²·32", _at(n * approx, d_model=4096, n_layers=32), "6.44e9",
                       LECTURE_002),
            ValueCheck("exact layers at d = 4096 × 32 (with biases)", _at(n * exact, d_model=4096, n_layers=32),
                       "6,444,154,880", "derived"),
            ValueCheck("GPT-3: 12·12288²·96", _at(n * approx, d_model=12288, n_layers=96), "1.74e11", LECTURE_002),
            ValueCheck("GPT-3 175B exact layers", _at(n * exact, d_model=12288, n_layers=96), "173,961,510,912",
                       "derived"),
            ValueCheck("GPT-3 175B exact total (embeddings, positions, final LayerNorm)", sp.Integer(count(gpt3)),
                       "174,604,259,328", "Brown et al. 2020, Table 2.1 (175.0B)"),
            FunctionCheck("the rule of thumb beside the exact counts", beside),
        ),
        notes=("Embeddings are outside the rule: GPT-3's 50257 × 12288 token table and 2048 × 12288 position table "
               "add 642,723,840; LLaMA-7B (d 4096, 32 layers, SwiGLU width 11008) has 6,738,415,616 in all.",),
    )


def _total_derivation(name: str, preset: str, subs: dict, end: Any,
                      printed: tuple[tuple[str, str], ...], citations: tuple,
                      lemmas: tuple[str, ...] = ()) -> Derivation:
    """Whole-model closed form of a preset's architecture, from its shape table."""
    from ..numeric import FunctionCheck, ValueCheck
    from ..params.allocate import allocated_count
    from ..params.presets import PRESETS
    from ..params.shapes import count, symbol_values, symbolic_count
    from ..rules import Substitute

    arch = PRESETS[preset].arch
    start = symbolic_count(arch, evaluate=False)
    words = ", ".join(f"${_tex(k)} = {_tex(v)}$" for k, v in subs.items())

    def small(seed: int) -> tuple[bool, dict, str]:
        import numpy as np

        rng = np.random.default_rng(seed)
        rows = []
        for _ in range(6):
            h = int(rng.choice([1, 2, 4]))
            d = h * int(rng.integers(1, 5))
            kw = dict(d_model=d, n_heads=h, head_dim=None, n_layers=int(rng.integers(1, 4)),
                      vocab_size=int(rng.integers(5, 60)),
                      d_ff=4 * d if _s("d_ff") in subs else int(rng.integers(1, 40)),
                      n_kv_heads=None if arch.n_kv_heads is None else int(rng.choice([k for k in (1, 2, 4) if k <= h])))
            if arch.max_position_embeddings:
                kw["max_position_embeddings"] = int(rng.integers(1, 40))
            a = replace(arch, **kw)
            rows.append((allocated_count(a), count(a), int(end.xreplace(symbol_values(a)))))
        presets = [(count(PRESETS[p].arch), int(end.xreplace(symbol_values(PRESETS[p].arch)))) for p, _ in printed]
        ok = all(x == y == z for x, y, z in rows) and all(x == y for x, y in presets)
        return ok, {"rows": [list(r) for r in rows], "presets": [list(r) for r in presets]}, (
            fill(_RANDOM_MODELS, n=len(rows), presets=len(presets)) if ok
            else f"disagreement (allocated, counted, closed form): {rows}; presets {presets}")

    cited, _ = _cited(start, lemmas, _WHY)
    last = (Step(end, "collect the embedding tables and the remaining norms") if lemmas else
            Step(end, f"every component from its weight shapes, with {words}", rule=Substitute(tuple(subs.items()),
                                                                                                   words)))
    return Derivation(
        **metadata(name), start=start,
        steps=(*cited, last),
        assumptions=(Assumption(f"the layout of the preset {preset!r} ({PRESETS[preset].source})"),),
        citations=citations,
        premises=_premises(subs),
        checks=(_conditional_identity(start, end, subs, words),
                FunctionCheck("allocation and integer count against the closed form", small),
                *(ValueCheck(f"{PRESETS[p].arch.name} total", end.xreplace(symbol_values(PRESETS[p].arch)), text,
                             PRESETS[p].source) for p, text in printed)),
    )


@register(
    "params.gpt2-total",
    title=(r"GPT-2: $V\cdot d + n_{\text{pos}}\cdot d + N\cdot (12\cdot d^2 + 13\cdot d) + 2\cdot d$ parameters; "
           "124,439,808 for GPT-2 small"),
    summary="Token and position tables, N standard layers, a final LayerNorm; the LM head is tied.",
)
def gpt2_total() -> Derivation:
    d, f, v, p, n = _s("d_model"), _s("d_ff"), _s("vocab_size"), _s("max_position_embeddings"), _s("n_layers")
    return _total_derivation(
        "params.gpt2-total", "gpt2",
        {**_mha_subs(), f: 4 * d}, v * d + p * d + n * (12 * d**2 + 13 * d) + 2 * d,
        (("gpt2", "124,439,808"), ("gpt2-medium", "354,823,168"), ("gpt2-large", "774,030,080"),
         ("gpt2-xl", "1,557,611,200")),
        (Citation("radford2019", "§2.3"),), ("params.attention-bias", "params.ffn"))


@register(
    "params.bert-total",
    title=(r"BERT (BertModel): $V\cdot d + n_{\text{pos}}\cdot d + 2\cdot d + 2\cdot d + N\cdot (12\cdot d^2 + "
           r"13\cdot d) + d^2 + d$; 109,482,240 for BERT-base"),
    summary="Word, position and 2 token-type rows, an embedding LayerNorm, N standard layers, the pooler.",
)
def bert_total() -> Derivation:
    d, f, v, p, n = _s("d_model"), _s("d_ff"), _s("vocab_size"), _s("max_position_embeddings"), _s("n_layers")
    t = _s("type_vocab_size")
    return _total_derivation(
        "params.bert-total", "bert-base",
        {**_mha_subs(), f: 4 * d}, v * d + p * d + t * d + 2 * d + n * (12 * d**2 + 13 * d) + d**2 + d,
        (("bert-base", "109,482,240"), ("bert-large", "335,141,888")),
        (Citation("devlin2019", "§3"),), ("params.attention-bias", "params.ffn"))


@register(
    "params.llama-total",
    title=(r"LLaMA-style decoders: $2\cdot V\cdot d + N\cdot (2d^2 + 2d^2\cdot h_{kv}/h + 3\cdot d\cdot "
           r"d_{\text{ff}} + 2d) + d$; 6,738,415,616 for LLaMA-7B"),
    summary="Untied input and output tables, N layers of (GQA) attention, SwiGLU and two RMSNorms, a final RMSNorm.",
)
def llama_total() -> Derivation:
    d, f, v, n, h, hkv = (_s("d_model"), _s("d_ff"), _s("vocab_size"), _s("n_layers"), _s("n_heads"),
                          _s("n_kv_heads"))
    return _total_derivation(
        "params.llama-total",
        "llama-7b", {_s("d_k"): d / h},
        2 * v * d + n * (2 * d**2 + 2 * d**2 * hkv / h + 3 * d * f + 2 * d) + d,
        (("llama-7b", "6,738,415,616"), ("llama-13b", "13,015,864,320"), ("llama2-70b", "68,976,648,192"),
         ("mistral-7b", "7,241,732,096")),
        (Citation("touvron2023", "§2.2"), Citation("touvron2023b"), Citation("jiang2023")),
        ("params.gqa-attention",))
