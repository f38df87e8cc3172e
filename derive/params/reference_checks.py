"""Cross-checks of the modelled FLOPs, KV-cache bytes and training memory against the reference decoder.

Each function returns a :class:`~derive.crosscheck.FunctionCheck` for one derivation of
:mod:`derive.transformer.compute`; it runs :mod:`derive.params.reference` (four sizes: MHA and MQA with a
GELU FFN, GQA and MHA with SwiGLU; a batch of 2 sequences) and compares what the run really did — the
multiply-adds its counter recorded, the bytes of the K/V arrays its cached loop holds, the bytes of the
arrays a mixed-precision Adam step holds — with the closed form evaluated at the same sizes. The rows of
every comparison are in the check's figures.
"""

from __future__ import annotations

from typing import Any

from ..crosscheck import FunctionCheck
from ..i18n import fill
from ..report import message_form
from .reference import ReferenceDecoder, adam_step_bytes, runs

# the messages of the checks (forms the catalog translates, derive.report.message_form)
_DECODING = message_form(
    "{n} decoding steps at {sizes} sizes: the FLOPs counted in the numpy forward pass (the LM head included) = "
    "this closed form at n_ctx = t (the shape-built count at the GELU sizes) = derive.params.flops.forward_flops")
_KV_HELD = message_form(
    "4 sizes (MHA, MQA, GQA): bytes of the fp16 K and V arrays held by a numpy KV-cache decoding loop after "
    "{tokens} tokens of {batch} sequences = this closed form = derive.params.memory")
_ADAM = message_form(
    "4 sizes: one mixed-precision Adam step in numpy holds fp16 weights and gradients, an fp32 master copy and "
    "fp32 m and v: their bytes = 16 × the parameters, and the parameters = derive.params.shapes.count")
_BACKWARD = message_form(
    "{n} sizes, a batch of 2 × 6 tokens: the backward pass (gradients checked against finite differences) counts "
    "exactly 2× the forward's FLOPs for every product, so a training step is 3× the forward; the weights cost 6N "
    "per token; the context products cost 12·n_layers·s·d_attn for the token at position s, twice this closed "
    "form's 6·n_layers·n_ctx·d_attn (Kaplan's row counts qKᵀ only)")


def _values(run: Any, **extra: int) -> dict:
    """Notation symbol -> Integer for the run's sizes, plus ``extra`` (notation names)."""
    import sympy as sp

    from ..transformer.notation import sym
    from .shapes import symbol_values

    vals = symbol_values(run.config.architecture())
    vals.update({sym(k): sp.Integer(v) for k, v in extra.items()})
    return vals


def _size(run: Any) -> str:
    return _size_of(run.config)


def flops_exact(closed: Any) -> FunctionCheck:
    """``params.flops-exact``: FLOPs of each cached decoding step t equal the closed form at n_ctx = t.

    The closed form is the LLaMA layout's (SwiGLU); at the GELU sizes the same count built from the
    shapes (:func:`~derive.params.flops.symbolic_forward_flops`, the derivation's start) is compared.
    """

    def check(seed: int) -> tuple[bool, dict, str]:
        from .flops import forward_flops, symbolic_forward_flops

        rows = []
        for r in runs():
            arch = r.config.architecture()
            form = closed if r.config.ffn == "swiglu" else symbolic_forward_flops(arch)
            for t, counted in enumerate(r.step_flops, start=1):
                rows.append({"size": _size(r), "n_ctx": t, "counted": counted // r.batch,
                             "closed_form": int(form.xreplace(_values(r, n_ctx=t))),
                             "derive_params": forward_flops(arch, t)})
        ok = all(x["counted"] == x["closed_form"] == x["derive_params"] for x in rows)
        sizes = len(runs())
        return ok, {"rows": rows}, (
            fill(_DECODING, n=len(rows), sizes=sizes) if ok
            else f"disagreement: {[x for x in rows if len(set(list(x.values())[2:])) > 1]}")

    return FunctionCheck("checked against the multiply-adds counted in a numpy decoder, every step of a cached "
                         "decoding loop at four sizes", check)


def flops_kaplan() -> FunctionCheck:
    """``params.flops-kaplan``: the weights cost 2N per token; Kaplan's context row is the qKᵀ products alone."""

    def check(seed: int) -> tuple[bool, dict, str]:
        rows = []
        for r in runs():
            c, steps = r.config, r.n * r.batch
            context = sum(2 * c.n_layers * t * c.n_heads * c.head_dim for t in range(1, r.n + 1))
            rows.append({"size": _size(r), "tokens": r.n, "2N": 2 * r.n_matrix_weights,
                         "counted_weights": r.cached.flops("weights") // steps,
                         "kaplan_context_row": context, "counted_qk": r.cached.flops("qk") // r.batch,
                         "counted_av": r.cached.flops("av") // r.batch})
        ok = all(x["2N"] == x["counted_weights"] and x["kaplan_context_row"] == x["counted_qk"] == x["counted_av"]
                 for x in rows)
        return ok, {"rows": rows}, (
            "4 sizes: counted weight FLOPs per token = 2N; Kaplan's 2·n_layers·t·d_attn summed over the steps = "
            "the counted FLOPs of qKᵀ, and the weighted sum of V costs as much again (so the exact attention term "
            "is 4·n_layers·n_ctx·d_attn)" if ok else f"disagreement: {rows}")

    return FunctionCheck("checked against the multiply-adds counted in a numpy decoder (weights, $qK^\\top$ and $AV$ "
                         "apart), four sizes", check)


def kv_cache(per_token: Any, batch_total: Any | None = None) -> FunctionCheck:
    """``params.kv-cache-token`` / ``params.kv-cache``: the bytes of the K/V arrays a cached loop holds (fp16)."""

    def check(seed: int) -> tuple[bool, dict, str]:
        from .memory import kv_cache_bytes_per_token

        rows = []
        for r in runs():
            row = {"size": _size(r), "batch": r.batch, "tokens": r.n, "held_bytes": r.cache_bytes,
                   "closed_form": int(r.batch * r.n * per_token.xreplace(_values(r, bytes_per_value=2))),
                   "derive_params": r.batch * r.n * kv_cache_bytes_per_token(r.config.architecture(), 2)}
            if batch_total is not None:
                row["closed_form"] = int(batch_total.xreplace(_values(r, bytes_per_value=2, batch_size=r.batch,
                                                                      n_ctx=r.n)))
            rows.append(row)
        ok = all(x["held_bytes"] == x["closed_form"] == x["derive_params"] for x in rows)
        return ok, {"rows": rows}, (
            fill(_KV_HELD, tokens=", ".join(str(r.n) for r in runs()), batch=runs()[0].batch) if ok
            else f"disagreement: {rows}")

    return FunctionCheck("checked against the K and V arrays a numpy KV-cache decoding loop holds, four sizes",
                         check)


def adam_memory(closed: Any) -> FunctionCheck:
    """``params.adam-memory``: the bytes of the arrays a mixed-precision Adam step holds = 16·(parameters)."""

    def check(seed: int) -> tuple[bool, dict, str]:
        from ..transformer.notation import sym
        from .shapes import count

        rows = []
        for r in runs():
            model = ReferenceDecoder(r.config, seed)
            held, parts = adam_step_bytes(model, seed)
            n = sum(p.size for p in model.parameters())
            rows.append({"size": _size(r), "parameters": n, "derive_params_count": count(r.config.architecture()),
                         "held_bytes": held, "closed_form": int(closed.xreplace({sym("n_params"): n})),
                         "parts": parts})
        ok = all(x["parameters"] == x["derive_params_count"] and x["held_bytes"] == x["closed_form"] for x in rows)
        return ok, {"rows": rows}, (
            _ADAM if ok else f"disagreement: {rows}")

    return FunctionCheck("checked against the arrays a numpy mixed-precision Adam step holds, four sizes", check)


def flops_training(closed: Any) -> FunctionCheck:
    """``params.flops-training``: a counted training step (forward, loss, backward) is 3× its forward pass."""

    def check(seed: int) -> tuple[bool, dict, str]:
        import numpy as np

        from ..transformer.notation import sym
        from .reference import SIZES, TrainingStep, gradient_check

        rows = []
        for config in SIZES:
            model = ReferenceDecoder(config, seed)
            rng = np.random.default_rng(seed + 1)
            batch, length = 2, 6
            tokens = rng.integers(0, config.vocab_size, size=(batch, length))
            targets = rng.integers(0, config.vocab_size, size=(batch, length))
            step = TrainingStep(model)
            _, saved = step.loss(tokens, targets)
            step.gradients(saved)
            fwd, bwd = step.forward, step.backward
            n = model.non_embedding_matrices()
            c = config
            context = sum(int(closed.xreplace({sym("n_params"): 0, sym("n_layers"): c.n_layers, sym("n_ctx"): s,
                                               sym("n_heads"): c.n_heads, sym("d_k"): c.head_dim}))
                          for s in range(1, length + 1)) * batch
            rows.append({"size": _size_of(config), "tokens": batch * length,
                         "forward": fwd.flops(), "backward": bwd.flops(),
                         "backward_per_label": {k: bwd.flops(k) for k in sorted(bwd.macs)},
                         "forward_per_label": {k: fwd.flops(k) for k in sorted(fwd.macs)},
                         "weights_per_token": (fwd.flops("weights") + bwd.flops("weights")) // (batch * length),
                         "6N": int(closed.xreplace({sym("n_params"): n, sym("n_ctx"): 0})),
                         "counted_context": fwd.flops("qk", "av") + bwd.flops("qk", "av"),
                         "closed_context": context,
                         "gradient_gap": gradient_check(config, seed)})
        ok = all(all(r["backward_per_label"][k] == 2 * r["forward_per_label"][k] for k in r["forward_per_label"])
                 and r["weights_per_token"] == r["6N"] and r["counted_context"] == 2 * r["closed_context"]
                 and r["gradient_gap"] < 1e-6 for r in rows)
        return ok, {"rows": rows}, (
            fill(_BACKWARD, n=len(rows)) if ok else f"disagreement: {rows}")

    return FunctionCheck("checked against the multiply-adds counted in a numpy training step (forward, "
                         "cross-entropy, backward), four sizes", check)


def _size_of(c: Any) -> str:
    return f"d_model {c.d_model}, h {c.n_heads}/{c.n_kv_heads} KV, d_k {c.head_dim}, {c.ffn} d_ff {c.d_ff}, " \
           f"{c.n_layers} layer{'s' if c.n_layers > 1 else ''}"


def decoding_intensity(closed: Any) -> FunctionCheck:
    """``efficient.decoding-intensity``: FLOPs of qKᵀ and A·V per byte of the fp16 cache each step reads."""

    def check(seed: int) -> tuple[bool, dict, str]:
        from ..transformer.notation import sym

        rows = []
        for r in runs():
            c = r.config
            want = float(closed.xreplace({sym("n_heads"): c.n_heads, sym("n_kv_heads"): c.n_kv_heads,
                                          sym("bytes_per_value"): 2}))
            rows.append({"size": _size(r), "steps": r.n, "counted": sorted(set(r.intensity)), "closed_form": want})
        ok = all(x["counted"] == [x["closed_form"]] for x in rows)
        return ok, {"rows": rows}, (
            "4 sizes, every step t of a numpy KV-cache decoding loop: counted FLOPs of qKᵀ and A·V over the bytes of "
            "the fp16 K and V arrays held = 2h/(h_kv·b): " + ", ".join(
                f"h {r.config.n_heads}/h_kv {r.config.n_kv_heads} → {x['closed_form']:g}" for r, x in zip(runs(), rows,
                                                                                                   strict=True))
            if ok else f"disagreement: {rows}")

    return FunctionCheck("checked against the FLOPs and the cache bytes of a numpy KV-cache decoding loop, "
                         "four sizes", check)


def kv_cache_gqa(closed: Any) -> FunctionCheck:
    """``params.kv-cache-gqa``: the K/V bytes a cached loop holds with h K/V heads over those with h_kv."""

    def check(seed: int) -> tuple[bool, dict, str]:
        from dataclasses import replace

        from ..transformer.notation import sym
        from .reference import run

        rows = []
        for config, n in zip(SIZES_GQA, (4, 5, 3), strict=True):
            mha = run(replace(config, n_kv_heads=config.n_heads), n, seed=seed)
            gqa = run(config, n, seed=seed)
            rows.append({"n_heads": config.n_heads, "n_kv_heads": config.n_kv_heads, "tokens": n,
                         "mha_bytes": mha.cache_bytes, "gqa_bytes": gqa.cache_bytes,
                         "closed_form": int(closed.xreplace({sym("n_heads"): config.n_heads,
                                                             sym("n_kv_heads"): config.n_kv_heads}))})
        ok = all(x["mha_bytes"] == x["closed_form"] * x["gqa_bytes"] for x in rows)
        return ok, {"rows": rows}, (
            "3 models decoded with h K/V heads and with h_kv: the K and V arrays held shrink by exactly h/h_kv ("
            + ", ".join(f"{x['mha_bytes']} / {x['gqa_bytes']} bytes = {x['closed_form']}" for x in rows) + ")"
            if ok else f"disagreement: {rows}")

    return FunctionCheck("checked against the K and V arrays a numpy KV-cache decoding loop holds, MHA against "
                         "GQA and MQA", check)


def _gqa_sizes() -> tuple:
    from .reference import ReferenceConfig

    return (ReferenceConfig(d_model=16, n_heads=4, n_kv_heads=2, head_dim=4, d_ff=16, n_layers=2, vocab_size=13),
            ReferenceConfig(d_model=16, n_heads=8, n_kv_heads=1, head_dim=2, d_ff=16, n_layers=1, vocab_size=13),
            ReferenceConfig(d_model=12, n_heads=6, n_kv_heads=3, head_dim=4, d_ff=8, n_layers=3, vocab_size=13,
                            ffn="swiglu"))


SIZES_GQA = _gqa_sizes()
