"""Compute and memory per token in closed form: FLOPs (Kaplan's estimate and the exact count from the
shapes), training ≈ 3× forward, the KV cache (MHA, GQA, MQA), mixture-of-experts active parameters, and
mixed-precision Adam's 16 bytes per parameter.

Every step is a plain algebraic identity between expressions in the notation table's sizes (no
substitution rule): the relations used (d_attn = h·d_k, backward = 2× forward, 2 + 2 + 4 + 4 + 4 bytes)
are written into the start of each chain, and the assumptions say so. The integer figures that
``derive params`` prints come from :mod:`derive.params.flops` and :mod:`derive.params.memory`, which
walk the same weight shapes; the checks below evaluate these closed forms at real sizes and compare.

Sources: Kaplan et al. 2020, §2.1 and Table 1 (C_forward ≈ 2N + 2·n_layers·n_ctx·d_attn, training ≈ 3×);
Shazeer 2019 (multi-query attention: one K/V head); Ainslie et al. 2023 (GQA); Pope et al. 2023 (the KV
cache of inference); Micikevicius et al. 2018 (fp32 master weights); Kingma & Ba 2015 (Adam's two
moments); Rajbhandari et al. 2020, §3.1 (2 + 2 + 12 = 16 bytes per parameter); Jiang et al. 2024
(Mixtral: 2 of 8 experts per token).
"""

from __future__ import annotations

from typing import Any

from ..core import Assumption, Citation, Derivation, Step
from ..i18n import fill
from ..params import reference_checks
from ..params.arch import Architecture
from ..params.presets import MIXTRAL_8X7B
from ..registry import metadata, register
from ..report import message_form

_MODELS_AGREE = message_form("{n} models (4 presets, 6 random): integer count = shape table = per-head arrays = "
                             "closed form")

KAPLAN_T1 = Citation("kaplan2020", "§2.1, Table 1")
KAPLAN_21 = Citation("kaplan2020", "§2.1")

MIXTRAL = MIXTRAL_8X7B


def _s(name: str) -> Any:
    from .notation import sym

    return sym(name)


def _sizes() -> tuple[Any, ...]:
    return tuple(_s(n) for n in ("n_layers", "d_model", "n_heads", "d_k", "d_ff", "n_ctx"))


def _at(expr: Any, **values: int) -> Any:
    """``expr`` with notation symbols set to integers (``d_model=512``; ``head_dim`` means d_k)."""
    import sympy as sp

    from ..params.shapes import SYMBOL_OF

    expr = sp.Integer(expr) if isinstance(expr, int) else expr  # a sympy expression or an int, never text
    return expr.xreplace({_s(SYMBOL_OF.get(k, k)): sp.Integer(v) for k, v in values.items()})


def _u(*terms: Any) -> Any:
    """An unevaluated sum (so the chain shows the terms as written)."""
    import sympy as sp

    return sp.Add(*terms, evaluate=False)


def _m(*factors: Any) -> Any:
    """An unevaluated product."""
    import sympy as sp

    return sp.Mul(*factors, evaluate=False)


def kaplan_n() -> Any:
    """Kaplan's non-embedding count N = 2·d_model·n_layers·(2·d_attn + d_ff) with d_attn = h·d_k."""
    L, d, h, dk, f, _ = _sizes()
    return 2 * d * L * (2 * h * dk + f)


@register(
    "params.flops-kaplan",
    title=(r"Forward FLOPs per token: $C_{\text{forward}} = 2N + 2\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot "
           r"d_{\text{attn}}$ (Kaplan et al. 2020, Table 1)"),
    summary=r"Two FLOPs per weight of Q, K, V, the projection and the FFN give 2N; attending over $n_{\text{ctx}}$ "
            r"positions adds $2\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot d_{\text{attn}}$.",
)
def flops_kaplan() -> Derivation:
    from ..numeric import FunctionCheck, ValueCheck
    from ..params.flops import kaplan_forward
    from ..params.presets import PRESETS

    L, d, h, dk, f, c = _sizes()
    da = _m(h, dk)
    rows = (_m(2, L, d, 3, da), _m(2, L, c, da), _m(2, L, da, d), _m(2, L, 2, d, f))
    n = _m(2, d, L, _u(_m(2, da), f))
    end = _u(_m(2, n), _m(2, L, c, da))
    gpt3 = {"n_layers": 96, "d_model": 12288, "n_heads": 96, "head_dim": 128, "d_ff": 4 * 12288}

    def same_as_cli(seed: int) -> tuple[bool, dict, str]:
        # Table 1's layout (MHA, two-matrix FFN, no biases, no norms): the integer route gives the same number
        rows_ = []
        for p in ("lecture-layer", "gpt3-175b"):
            a = PRESETS[p].arch
            bare = Architecture(d_model=a.d_model, n_heads=a.n_heads, d_ff=a.d_ff, n_layers=a.n_layers,
                                mlp_bias=False, norms_per_layer=0, head_dim=a.head_dim)
            for ctx in (1, 1024, 2048):
                rows_.append((p, ctx, kaplan_forward(bare, ctx), int(_at(end, n_ctx=ctx, **_dims(bare)))))
        ok = all(x == y for *_, x, y in rows_)
        return ok, {"rows": [list(r) for r in rows_]}, (
            (rf"{len(rows_)} (model, $n_{{\text{{ctx}}}}$) pairs: $\mathtt{{derive.params.flops.kaplan\_forward}}$ = "
             "this closed form") if ok
            else f"disagreement: {[r for r in rows_ if r[2] != r[3]]}")

    return Derivation(
        **metadata("params.flops-kaplan"),
        start=_u(*rows),
        steps=(
            Step(_u(_m(2, L, d, _u(_m(4, da), _m(2, f))), _m(2, L, c, da)),
                 "the three weight rows are two FLOPs (a multiply and an add) per weight: "
                 "$2 n_{layers} d_{model}(3 d_{attn} + d_{attn} + 2 d_{ff})$; the context row stays"),
            Step(end, "factor out $N = 2 d_{model} n_{layers} (2 d_{attn} + d_{ff})$, the non-embedding "
                      "parameters of Table 1: $C_{forward} = 2N + 2 n_{layers} n_{ctx} d_{attn}$",
                 citation=KAPLAN_T1),
        ),
        definitions=((_s("n_params"), n),),
        assumptions=(Assumption(r"Kaplan et al. 2020, Table 1, per token: QKV $2\cdot n_{\text{layers}}\cdot "
                                r"d_{\text{model}}\cdot 3\cdot d_{\text{attn}}$, attention over the context $2\cdot "
                                r"n_{\text{layers}}\cdot n_{\text{ctx}}\cdot d_{\text{attn}}$, projection $2\cdot "
                                r"n_{\text{layers}}\cdot d_{\text{attn}}\cdot d_{\text{model}}$, FFN $2\cdot "
                                r"n_{\text{layers}}\cdot 2\cdot d_{\text{model}}\cdot d_{\text{ff}}$, with "
                                r"$d_{\text{attn}} = h\cdot d_k$; embeddings, biases, norms, nonlinearities and "
                                "softmax left out"),),
        citations=(KAPLAN_T1,),
        checks=(
            ValueCheck((r"GPT-3 175B: N at $d_{\text{model}}$ 12288, 96 layers, $d_{\text{ff}} = 4\cdot "
                        r"d_{\text{model}}$"), _at(n, **gpt3),
                       "173,946,175,488", "Kaplan et al. 2020 Table 1 with Brown et al. 2020 Table 2.1 sizes"),
            ValueCheck(r"GPT-3 175B: $C_{\text{forward}}$ per token at $n_{\text{ctx}}$ "
                       r"2048", _at(end, n_ctx=2048, **gpt3),
                       "352,724,189,184", "derived"),
            ValueCheck((r"GPT-3 175B: context share $2\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot "
                        r"d_{\text{attn}} / 2N = n_{\text{ctx}}/(12\cdot d_{\text{model}})$"),
                       _at(_m(2, L, c, da) / (2 * n), n_ctx=2048, **gpt3), "0.0139",
                       r"Kaplan et al. 2020, §2.1 (small when $d_{\text{model}} > n_{\text{ctx}}/12$)"),
            FunctionCheck((r"$\mathtt{derive.params.flops.kaplan\_forward}$ on Table 1's layout equals this closed "
                           "form"),
                          same_as_cli),
            reference_checks.flops_kaplan(),
        ),
        notes=(r"Kaplan's context row counts $2\cdot n_{\text{ctx}}\cdot d_{\text{attn}}$ per layer; the scores "
               r"$QK^\top$ and the weighted sum of V are each that large, so the exact count (params.flops-exact) "
               r"has $4\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot d_{\text{attn}}$.",),
    )


def _dims(arch: Architecture) -> dict[str, int]:
    from ..params.shapes import SYMBOL_OF

    return {k: v for k, v in arch.dims().items() if k in SYMBOL_OF}


@register(
    "params.flops-training",
    title=(r"Training FLOPs per token: $3\times$ the forward pass, $C \approx 6N + 6\cdot n_{\text{layers}}\cdot "
           r"n_{\text{ctx}}\cdot d_{\text{attn}}$"),
    summary=r"Forward, backward to the activations and backward to the weights each cost one forward: $3\cdot (2N + "
            r"2\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot d_{\text{attn}})$.",
)
def flops_training() -> Derivation:
    from ..numeric import ValueCheck

    L, d, h, dk, f, c = _sizes()
    n = _s("n_params")
    fwd = _u(_m(2, n), _m(2, L, c, h, dk))
    return Derivation(
        **metadata("params.flops-training"),
        start=_u(fwd, fwd, fwd),
        steps=(
            Step(_m(3, fwd), "forward pass, gradient with respect to the activations, gradient with respect to "
                             "the weights: every matrix product is done three times at the same size",
                 citation=KAPLAN_21),
            Step(6 * n + 6 * L * c * h * dk, "expand: $C_{train} \\approx 6N$ per token when the context term is "
                                             "small", citation=KAPLAN_21),
        ),
        assumptions=(Assumption(r"N: the (active) non-embedding parameters; $d_{\text{attn}} = h\cdot d_k$. The "
                                r"backward pass of y = xW computes $\partial L/\partial x = (\partial L/\partial "
                                r"y)W^\top$ and $\partial L/\partial W = x^\top (\partial L/\partial y)$, two "
                                r"products of the forward's size, so backward ≈ $2\times$ forward; no activation "
                                "recomputation (which would add another forward)"),),
        citations=(KAPLAN_21,),
        checks=(
            ValueCheck(r"GPT-3 175B: training FLOPs per token at $n_{\text{ctx}}$ 2048",
                       _at(6 * n + 6 * L * c * h * dk, n_params=173_946_175_488, n_layers=96, n_ctx=2048,
                           n_heads=96, head_dim=128), "1,058,172,567,552", "derived"),
            ValueCheck("GPT-3 175B (174.6B parameters) trained on 300B tokens, 6N·D in PF-days (8.64e19 FLOPs each)",
                       _at(6 * n, n_params=174_600_000_000) * 300_000_000_000 / 86_400 / 10**15, "3.64e3",
                       "Brown et al. 2020, Table D.1 (3.64e3 PF-days)"),
            reference_checks.flops_training(6 * n + 6 * L * c * h * dk),
        ),
        notes=("Counted in a real training step (the cross-check), the backward pass is exactly twice the forward "
               r"for every product, weights and attention alike; the context term of a step is then $12\cdot "
               r"n_{\text{layers}}\cdot n_{\text{ctx}}\cdot d_{\text{attn}}$, because the forward's attention costs "
               r"$4\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot d_{\text{attn}}$ (params.flops-exact), not "
               r"Kaplan's $2\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot d_{\text{attn}}$.",),
    )


@register(
    "params.flops-exact",
    title=r"Exact forward FLOPs of a LLaMA-style decoder from its shapes: $2\cdot n_{\text{layers}}\cdot (2\cdot "
          r"d\cdot h\cdot d_k + 2\cdot d\cdot h_{kv}\cdot d_k + 3\cdot d\cdot d_{\text{ff}}) + 2\cdot d\cdot "
          r"V + 4\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot h\cdot d_k$",
    summary=r"Two FLOPs per entry of every matrix a token meets (GQA projections, SwiGLU, the LM head) and $2\cdot "
            r"n_{\text{ctx}}\cdot h\cdot d_k$ for each of $QK^\top$ and the weighted sum of V.",
)
def flops_exact() -> Derivation:
    from ..numeric import FunctionCheck, ValueCheck
    from ..params.allocate import layer_arrays
    from ..params.flops import forward_flops, symbolic_forward_flops
    from ..params.presets import PRESETS
    from ..params.shapes import symbol_values

    L, d, h, dk, f, c = _sizes()
    hkv, v = _s("n_kv_heads"), _s("vocab_size")
    arch = PRESETS["mistral-7b"].arch
    start = symbolic_forward_flops(arch, evaluate=False)
    per_layer = _u(_m(2, d, h, dk), _m(2, d, hkv, dk), _m(3, d, f))
    mid = _u(_m(2, L, per_layer), _m(2, d, v), _m(4, L, c, h, dk))
    end = 2 * L * (2 * d * h * dk + 2 * d * hkv * dk + 3 * d * f) + 2 * d * v + 4 * L * c * h * dk

    def integer_route(seed: int) -> tuple[bool, dict, str]:
        """The integer FLOPs of derive params, and FLOPs of arrays built per head, against this closed form."""
        import numpy as np

        rng = np.random.default_rng(seed)
        rows = []
        archs = [PRESETS[p].arch for p in ("llama-7b", "llama-13b", "llama2-70b", "mistral-7b")]
        for _ in range(6):
            hh = int(rng.choice([2, 4, 8]))
            archs.append(Architecture(d_model=hh * int(rng.integers(1, 5)), n_heads=hh,
                                      n_kv_heads=int(rng.choice([k for k in (1, 2, 4, 8) if hh % k == 0])),
                                      d_ff=int(rng.integers(1, 50)), n_layers=int(rng.integers(1, 4)),
                                      vocab_size=int(rng.integers(5, 60)), position="rotary", attention_bias=False,
                                      mlp_bias=False, norm="rmsnorm", final_norm=True, ffn="swiglu", lm_head=True,
                                      tie_word_embeddings=False))
        for a in archs:
            ctx = int(rng.integers(1, 8193))
            closed = int(end.xreplace({**symbol_values(a), c: ctx}))
            shapes = int(symbolic_forward_flops(a).xreplace({**symbol_values(a), c: ctx}))
            arrays = 2 * a.n_layers * sum(x.size for x in layer_arrays(a) if x.ndim == 2) + 2 * a.d_model * (
                a.vocab_size or 0) + 4 * a.n_layers * ctx * a.n_heads * a.d_head
            rows.append((a.name, ctx, forward_flops(a, ctx), shapes, arrays, closed))
        ok = all(r[2] == r[3] == r[4] == r[5] for r in rows)
        return ok, {"rows": [list(r) for r in rows]}, (
            fill(_MODELS_AGREE, n=len(rows)) if ok
            else f"disagreement (int, shapes, arrays, closed): {[r for r in rows if len(set(r[2:])) > 1]}")

    llama = PRESETS["llama-7b"].arch
    return Derivation(
        **metadata("params.flops-exact"),
        start=start,
        steps=(
            Step(mid, "collect per layer: $W_Q$ and $W_O$ are $d_{model}\\times h d_k$, $W_K$ and $W_V$ are "
                      "$d_{model}\\times h_{kv} d_k$, three FFN matrices $d_{model}\\times d_{ff}$; the LM head "
                      "$d_{model}\\times V$; $QK^\\top$ and the weighted sum of $V$ over $n_{ctx}$ positions"),
            Step(end, "expand", citation=KAPLAN_T1),
        ),
        assumptions=(Assumption("the layout of the preset 'mistral-7b' (LLaMA family: GQA, SwiGLU, untied LM head, "
                                "no biases); 2 FLOPs per multiply-add; matrix products only; every token attends to "
                                r"$n_{\text{ctx}}$ positions (no causal halving); embedding lookups cost nothing"),),
        citations=(KAPLAN_T1, Citation("ainslie2023"), Citation("shazeer2020")),
        checks=(
            ValueCheck(r"LLaMA-7B forward FLOPs per token at $n_{\text{ctx}}$ 2048",
                       end.xreplace({**symbol_values(llama), c: 2048}), "14,287,896,576", "derived"),
            ValueCheck(r"Mistral-7B forward FLOPs per token at $n_{\text{ctx}}$ 4096",
                       end.xreplace({**symbol_values(arch), c: 4096}), "16,368,271,360", "derived"),
            FunctionCheck("integer count, shape table and per-head arrays agree with the closed form",
                          integer_route),
            reference_checks.flops_exact(end),
        ),
        notes=(r"Against Kaplan's $2N + 2\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot d_{\text{attn}}$ the exact "
               r"count adds the LM head ($2\cdot d_{\text{model}}\cdot V$, an embedding in Kaplan's N) and a second "
               r"$2\cdot n_{\text{layers}}\cdot n_{\text{ctx}}\cdot h\cdot d_k$ for the weighted sum of V; GQA "
               "lowers only the K and V projections, not the attention over the context.",),
    )


@register(
    "params.moe-active",
    title=(r"Mixture of experts: active parameters = total − $n_{\text{layers}}\cdot (n_{\text{exp}} - "
           r"k_{\text{exp}})\cdot 3\cdot d_{\text{model}}\cdot d_{\text{ff}}$"),
    summary=r"A token is routed to $k_{\text{exp}}$ of the $n_{\text{exp}}$ SwiGLU experts of each layer; the "
            "others' weights are stored but not used. Mixtral 8x7B: 46.7B stored, 12.9B active.",
)
def moe_active() -> Derivation:
    import sympy as sp

    from ..numeric import FunctionCheck, ValueCheck
    from ..params.shapes import active_count, components, count, symbol_values, symbolic_count

    L, d, _, _, f, _ = _sizes()
    e, k = _s("n_experts"), _s("experts_per_token")
    parts = []
    for comp in components(MIXTRAL):
        expr = comp.symbolic(evaluate=False)
        parts.append(expr.xreplace({e: k}) if comp.routed else expr)
    start = sp.Add(*parts, evaluate=False)
    end = _u(symbolic_count(MIXTRAL), _m(-1, L, _u(e, -k), 3, d, f))

    def routes(seed: int) -> tuple[bool, dict, str]:
        import numpy as np

        rng = np.random.default_rng(seed)
        rows = []
        for _ in range(8):
            n_e = int(rng.integers(1, 17))
            a = Architecture(d_model=4 * int(rng.integers(1, 5)), n_heads=4, n_kv_heads=int(rng.choice([1, 2, 4])),
                             d_ff=int(rng.integers(1, 40)), n_layers=int(rng.integers(1, 4)),
                             vocab_size=int(rng.integers(5, 60)), position="rotary", mlp_bias=False, norm="rmsnorm",
                             final_norm=True, ffn="swiglu", n_experts=n_e,
                             experts_per_token=int(rng.integers(1, n_e + 1)), lm_head=True, tie_word_embeddings=False)
            rows.append((active_count(a), int(end.xreplace(symbol_values(a))), count(a)))
        ok = all(x == y <= z for x, y, z in rows)
        return ok, {"rows": [list(r) for r in rows]}, (
            rf"{len(rows)} random mixtures: $\mathtt{{derive.params.shapes.active\_count}}$ = closed form ≤ total" if ok
            else f"disagreement (active, closed form, total): {rows}")

    return Derivation(
        **metadata("params.moe-active"),
        start=start,
        steps=(Step(end, "write the $k_{exp}$ experts a token uses as all $n_{exp}$ experts minus the "
                         "$n_{exp} - k_{exp}$ it does not; each SwiGLU expert has $3 d_{model} d_{ff}$ weights",
                    citation=Citation("jiang2024", "§2")),),
        assumptions=(Assumption("Mixtral's layout (mistralai/Mixtral-8x7B-v0.1): GQA attention, per layer a router "
                                r"$d_{\text{model}} \times n_{\text{exp}}$ and $n_{\text{exp}}$ SwiGLU experts "
                                r"without biases, $\text{top}-k_{\text{exp}}$ routing; the router is active for "
                                "every token"),),
        citations=(Citation("jiang2024"), Citation("shazeer2020")),
        checks=(
            ValueCheck("Mixtral 8x7B stored parameters", sp.Integer(count(MIXTRAL)), "46,702,792,704",
                       "MixtralForCausalLM on the meta device (transformers 4.57 and 5.24)"),
            ValueCheck("Mixtral 8x7B active parameters per token", end.xreplace(symbol_values(MIXTRAL)),
                       "12,879,925,248", "Jiang et al. 2024, §2 (13B active of 47B)"),
            FunctionCheck("random mixtures: integer active count equals the closed form", routes),
        ),
    )


@register(
    "params.kv-cache-token",
    title=r"KV cache per token: $2\cdot n_{\text{layers}}\cdot h_{kv}\cdot d_k\cdot b$ bytes",
    summary=r"Every layer keeps one key and one value row of $h_{kv}\cdot d_k$ numbers per token; GQA "
            r"and MQA shrink it by $h/h_{kv}$.",
)
def kv_cache_token() -> Derivation:
    from ..numeric import FunctionCheck, ValueCheck
    from ..params.memory import kv_cache_bytes_per_token
    from ..params.presets import PRESETS
    from ..params.shapes import symbol_values

    L, _, _, dk, _, _ = _sizes()
    hkv, b = _s("n_kv_heads"), _s("bytes_per_value")
    start = _m(L, _u(_m(hkv, dk, b), _m(hkv, dk, b)))
    end = 2 * L * hkv * dk * b

    def cli(seed: int) -> tuple[bool, dict, str]:
        rows = []
        for p in ("gpt2", "llama-7b", "llama2-70b", "mistral-7b"):
            a = PRESETS[p].arch
            for by in (1, 2, 4):
                rows.append((p, by, kv_cache_bytes_per_token(a, by),
                             int(end.xreplace({**symbol_values(a), b: by}))))
        ok = all(r[2] == r[3] for r in rows)
        return ok, {"rows": [list(r) for r in rows]}, (
            rf"{len(rows)} (preset, bytes): $\mathtt{{derive.params.memory.kv\_cache\_bytes\_per\_token}}$ = "
            "closed form" if ok
            else f"disagreement: {[r for r in rows if r[2] != r[3]]}")

    return Derivation(
        **metadata("params.kv-cache-token"),
        start=start,
        steps=(Step(end, "the key row and the value row have the same size $h_{kv} d_k$",
                    citation=Citation("pope2023")),),
        assumptions=(Assumption(r"every layer caches K and V of each past token, $h_{kv}$ heads of $d_k$ "
                                r"numbers each, b bytes per number (2 for bf16/fp16); $h_{kv} = h$ is MHA, $1 "
                                r"< h_{kv} < h$ GQA, $h_{kv} = 1$ MQA"),),
        citations=(Citation("pope2023"), Citation("shazeer2019"), Citation("ainslie2023")),
        checks=(
            ValueCheck("LLaMA-7B, fp16 (32 layers, 32 KV heads of 128)",
                       _at(end, n_layers=32, n_kv_heads=32, head_dim=128, bytes_per_value=2), "524,288", "derived"),
            ValueCheck("Mistral-7B, bf16 (GQA: 8 KV heads)",
                       _at(end, n_layers=32, n_kv_heads=8, head_dim=128, bytes_per_value=2), "131,072", "derived"),
            ValueCheck("Falcon-7B, bf16 (MQA: 1 KV head of 64)",
                       _at(end, n_layers=32, n_kv_heads=1, head_dim=64, bytes_per_value=2), "8,192", "derived"),
            FunctionCheck("derive.params.memory on four presets equals the closed form", cli),
            reference_checks.kv_cache(end),
        ),
    )


@register(
    "params.kv-cache",
    title=(r"KV cache of a batch: $2\cdot B\cdot n_{\text{ctx}}\cdot n_{\text{layers}}\cdot "
           r"h_{kv}\cdot d_k\cdot b$ bytes"),
    summary=r"B sequences of $n_{\text{ctx}}$ cached tokens, each token's K and V rows in every layer.",
)
def kv_cache() -> Derivation:
    from ..numeric import ValueCheck

    L, _, _, dk, _, c = _sizes()
    hkv, b, bs = _s("n_kv_heads"), _s("bytes_per_value"), _s("batch_size")
    start = _m(bs, c, _m(L, _u(_m(hkv, dk, b), _m(hkv, dk, b))))  # B sequences × n_ctx tokens × one token's rows
    end = 2 * bs * c * L * hkv * dk * b
    return Derivation(
        **metadata("params.kv-cache"),
        start=start,
        steps=(Step(end, "each of the $B \\cdot n_{ctx}$ cached tokens takes $2 N h_{kv} d_k b$ bytes "
                         "(params.kv-cache-token)", by="params.kv-cache-token"),),
        assumptions=(Assumption(r"B sequences, each with $n_{\text{ctx}}$ tokens cached; b bytes per number; no "
                                "paging, quantisation or sliding window"),),
        citations=(Citation("pope2023"),),
        checks=(
            ValueCheck("LLaMA-7B, fp16, one sequence of 2048: 1 GiB",
                       _at(end, batch_size=1, n_ctx=2048, n_layers=32, n_kv_heads=32, head_dim=128,
                           bytes_per_value=2) / 2**30, "1", "derived"),
            ValueCheck("Llama 2 70B, bf16, batch 8 × 4096 (GQA 8 KV heads, 80 layers), GiB",
                       _at(end, batch_size=8, n_ctx=4096, n_layers=80, n_kv_heads=8, head_dim=128,
                           bytes_per_value=2) / 2**30, "10", "derived"),
            reference_checks.kv_cache(2 * L * hkv * dk * b, end),
        ),
    )


@register(
    "params.kv-cache-gqa",
    title=r"GQA and MQA shrink the KV cache by $h/h_{kv}$",
    summary=(r"The MHA cache over the GQA cache is $h/h_{kv}$: $8\times$ for Llama 2 70B, $71\times$ for "
             "Falcon-7B (MQA)."),
)
def kv_cache_gqa() -> Derivation:
    import sympy as sp

    from ..numeric import ValueCheck

    L, _, h, dk, _, c = _sizes()
    hkv, b, bs = _s("n_kv_heads"), _s("bytes_per_value"), _s("batch_size")
    def cache(heads: Any) -> Any:  # the start of params.kv-cache with ``heads`` K/V heads
        return _m(bs, c, _m(L, _u(_m(heads, dk, b), _m(heads, dk, b))))

    start = _m(cache(h), sp.Pow(cache(hkv), -1, evaluate=False))
    return Derivation(
        **metadata("params.kv-cache-gqa"),
        start=start,
        steps=(Step(_m(2 * bs * c * L * h * dk * b, sp.Pow(cache(hkv), -1, evaluate=False)),
                    "the MHA cache: params.kv-cache with $h_{kv} = h$", by="params.kv-cache",
                    where={hkv: h}),
               Step(h / hkv, "the GQA cache (params.kv-cache); every factor but the number of K/V heads cancels",
                    by="params.kv-cache", citation=Citation("ainslie2023", "§2")),),
        assumptions=(Assumption(r"the same model with h K/V heads (MHA) and with $h_{kv}$ (GQA; "
                                r"$h_{kv} = 1$ is MQA); $h_{kv}$ divides h"),),
        citations=(Citation("ainslie2023"), Citation("shazeer2019")),
        checks=(
            ValueCheck("Llama 2 70B (64 heads, 8 KV heads)", _at(h / hkv, n_heads=64, n_kv_heads=8), "8",
                       "HF meta-llama/Llama-2-70b-hf config.json"),
            ValueCheck("Mistral 7B (32 heads, 8 KV heads)", _at(h / hkv, n_heads=32, n_kv_heads=8), "4",
                       "Jiang et al. 2023, Table 1"),
            ValueCheck("Falcon-7B, MQA (71 heads, 1 KV head)", _at(h / hkv, n_heads=71, n_kv_heads=1), "71",
                       "HF tiiuae/falcon-7b config.json"),
            reference_checks.kv_cache_gqa(h / hkv),
        ),
    )


@register(
    "params.adam-memory",
    title="Mixed-precision Adam needs 16 bytes per parameter: 2 + 2 + 4 + 4 + 4",
    summary="fp16 weights and gradients, an fp32 master copy and Adam's two fp32 moments: 16·N bytes, "
            "before activations.",
)
def adam_memory() -> Derivation:
    from ..numeric import ValueCheck
    from ..params.presets import PRESETS
    from ..params.shapes import count

    n = _s("n_params")
    start = _u(_m(2, n), _m(2, n), _m(4, n), _m(4, n), _m(4, n))
    return Derivation(
        **metadata("params.adam-memory"),
        start=start,
        steps=(
            Step(_u(_m(2, 2, n), _m(3, 4, n)), "two half-precision copies (weights, gradients) and three "
                                               "single-precision ones (master weights, m, v)",
                 citation=Citation("micikevicius2018")),
            Step(16 * n, "$4 + 12 = 16$ bytes per parameter", citation=Citation("rajbhandari2020", "§3.1")),
        ),
        assumptions=(Assumption("fp16/bf16 weights (2 bytes) and gradients (2); an fp32 master copy of the weights "
                                "(4); Adam's first and second moments m and v in fp32 (4 + 4); every parameter "
                                "trained; activations, temporary and communication buffers, fragmentation not "
                                "included"),),
        citations=(Citation("rajbhandari2020", "§3.1"), Citation("micikevicius2018"), Citation("kingma2015")),
        checks=(
            ValueCheck("GPT-2 with 1.5B parameters needs at least 24 GB", _at(16 * n, n_params=1_500_000_000) / 10**9,
                       "24", "Rajbhandari et al. 2020, §3.1"),
            ValueCheck("LLaMA-7B (6,738,415,616 parameters), bytes", _at(16 * n, n_params=count(
                PRESETS["llama-7b"].arch)), "107,814,649,856", "derived"),
            reference_checks.adam_memory(16 * n),
        ),
    )
