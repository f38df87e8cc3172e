"""A small decoder-only Transformer in numpy whose every matrix product is counted.

The FLOP, KV-cache and training-memory figures of :mod:`derive.params` and of the derivations
``params.flops-*``, ``params.kv-cache*``, ``params.adam-memory``, ``efficient.kv-cache-flops`` and
``efficient.no-cache-flops`` are *models* of a computation. This module runs that computation: a
LLaMA-style decoder (pre-norm RMSNorm, multi-head attention with ``n_kv_heads`` K/V heads, a two-matrix
GELU FFN or SwiGLU, an untied LM head, no biases) whose products all go through :class:`Counter`, which
records the multiply-adds of each product from the shapes of its operands as numpy sees them. The
cross-checks compare those counts, the bytes of the K/V arrays a real cached decoding loop keeps, and
the bytes of the arrays a mixed-precision Adam step holds, with the closed forms.

Conventions (those of the derivations): 2 FLOPs per multiply-add; only matrix products count (norms,
activations, softmax, the residual additions and the embedding lookup are not products of a weight);
causal attention computes each query's scores only over the positions it may see (position s scores
s keys), as an implementation that skips masked entries does, so one prefix of t tokens costs
Σ_(s≤t) 4·n_layers·s·h·d_k for attention, not 4·n_layers·t²·h·d_k.

Shapes: a batch of B sequences; ``x`` is (B, d_model); the cache of each layer holds K and V as
(B, t, n_kv_heads, head_dim) arrays at the cache's dtype.
"""

from __future__ import annotations

from collections import Counter as _Tally
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .arch import Architecture


@dataclass(frozen=True)
class ReferenceConfig:
    """Sizes of the reference decoder (units; ints).

    Attributes:
        d_model, n_heads, n_kv_heads, head_dim, d_ff, n_layers, vocab_size: the field's standard sizes;
            ``n_kv_heads`` divides ``n_heads`` (MHA when equal, MQA at 1).
        ffn: ``"gelu"`` (W_1, W_2) or ``"swiglu"`` (W_gate, W_up, W_down).
    """

    d_model: int
    n_heads: int
    n_kv_heads: int
    head_dim: int
    d_ff: int
    n_layers: int
    vocab_size: int
    ffn: str = "gelu"

    def architecture(self) -> Architecture:
        """The same model as :class:`~derive.params.arch.Architecture` (what ``derive params`` counts)."""
        return Architecture(d_model=self.d_model, n_heads=self.n_heads, n_kv_heads=self.n_kv_heads,
                            head_dim=self.head_dim, d_ff=self.d_ff, n_layers=self.n_layers,
                            vocab_size=self.vocab_size, position="rotary", attention_bias=False, mlp_bias=False,
                            norm="rmsnorm", final_norm=True, ffn=self.ffn, lm_head=True, tie_word_embeddings=False,
                            name="reference decoder")


@dataclass
class Counter:
    """Multiply-adds of every matrix product, by label (``"weights"``, ``"lm_head"``, ``"qk"``, ``"av"``)."""

    macs: _Tally = field(default_factory=_Tally)

    def einsum(self, spec: str, a: np.ndarray, b: np.ndarray, label: str) -> np.ndarray:
        """``np.einsum(spec, a, b)`` for a two-operand contraction, counting its multiply-adds.

        A two-operand contraction does one multiply-add per combination of all the indices that occur,
        so its count is the product of the sizes of the distinct indices of ``spec``, read off the
        operands' shapes.
        """
        ins, _ = spec.split("->")
        sa, sb = ins.split(",")
        sizes: dict[str, int] = {}
        for letters, arr in ((sa, a), (sb, b)):
            for ch, n in zip(letters, arr.shape, strict=True):
                if sizes.setdefault(ch, n) != n:
                    raise ValueError(f"index {ch} has sizes {sizes[ch]} and {n}")
        self.macs[label] += int(np.prod(list(sizes.values()), dtype=object))
        return np.einsum(spec, a, b)

    def linear(self, x: np.ndarray, w: np.ndarray, label: str = "weights") -> np.ndarray:
        """``x @ w`` for x (B, d_in), w (d_in, d_out)."""
        return self.einsum("bi,io->bo", x, w, label)

    def flops(self, *labels: str) -> int:
        """2 × the multiply-adds of the given labels (all when none given)."""
        keys = labels or tuple(self.macs)
        return 2 * sum(self.macs[k] for k in keys)


def _rms(x: np.ndarray) -> np.ndarray:
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6)


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3)))


class ReferenceDecoder:
    """Random weights of :class:`ReferenceConfig` and a forward pass with and without a KV cache.

    Weights (float64, seeded): per layer W_Q (d_model × h·d_k), W_K, W_V (d_model × h_kv·d_k), W_O
    (h·d_k × d_model), the FFN's matrices, two RMSNorm gains; a token table and an untied LM head
    (vocab_size × d_model and d_model × vocab_size) and a final norm gain. No biases; no position
    encoding (it would add no product of a weight).
    """

    def __init__(self, config: ReferenceConfig, seed: int = 0) -> None:
        c = self.config = config
        rng = np.random.default_rng(seed)

        def mat(n_in: int, n_out: int) -> np.ndarray:
            return rng.normal(scale=n_in ** -0.5, size=(n_in, n_out))

        hq, hkv = c.n_heads * c.head_dim, c.n_kv_heads * c.head_dim
        self.layers = []
        for _ in range(c.n_layers):
            ffn = ({"W_gate": mat(c.d_model, c.d_ff), "W_up": mat(c.d_model, c.d_ff), "W_down": mat(c.d_ff, c.d_model)}
                   if c.ffn == "swiglu" else {"W_1": mat(c.d_model, c.d_ff), "W_2": mat(c.d_ff, c.d_model)})
            self.layers.append({"W_Q": mat(c.d_model, hq), "W_K": mat(c.d_model, hkv), "W_V": mat(c.d_model, hkv),
                                "W_O": mat(hq, c.d_model), **ffn,
                                "g_1": np.ones(c.d_model), "g_2": np.ones(c.d_model)})
        self.embedding = rng.normal(size=(c.vocab_size, c.d_model))
        self.lm_head = mat(c.d_model, c.vocab_size)
        self.final_gain = np.ones(c.d_model)
        self.step_flops: list[int] = []  # FLOPs of each step of the last decode_cached
        self.step_attention_flops: list[int] = []  # of which qKᵀ and A·V
        self.step_cache_bytes: list[int] = []  # bytes of K and V held after each step

    def parameters(self) -> list[np.ndarray]:
        """Every weight array (the token table, per-layer matrices and gains, final gain, LM head)."""
        out = [self.embedding]
        for layer in self.layers:
            out += list(layer.values())
        return out + [self.final_gain, self.lm_head]

    def non_embedding_matrices(self) -> int:
        """Entries of the layers' weight matrices: Kaplan's N for this model (no biases, gains left out)."""
        return sum(w.size for layer in self.layers for w in layer.values() if w.ndim == 2)

    def _ffn(self, layer: dict, x: np.ndarray, cnt: Counter) -> np.ndarray:
        if "W_gate" in layer:
            g, u = cnt.linear(x, layer["W_gate"]), cnt.linear(x, layer["W_up"])
            return cnt.linear(g / (1 + np.exp(-g)) * u, layer["W_down"])
        return cnt.linear(_gelu(cnt.linear(x, layer["W_1"])), layer["W_2"])

    def step(self, tokens: np.ndarray, cache: list[dict], cnt: Counter, cache_dtype: type = np.float64) -> np.ndarray:
        """One decoding step: the next token of each sequence, attending over the cache and itself.

        Args:
            tokens: (B,) int token ids.
            cache: per layer ``{"K": (B, t, h_kv, d_k), "V": ...}`` arrays (empty dict at t = 0);
                the new K and V rows are appended in place.
            cnt: the counter of the products.
            cache_dtype: numpy dtype the cache is stored in (computations upcast to float64).

        Returns:
            logits (B, vocab_size).
        """
        c = self.config
        b = tokens.shape[0]
        group = c.n_heads // c.n_kv_heads
        x = self.embedding[tokens]  # (B, d_model): a lookup, not a product
        for layer, kv in zip(self.layers, cache, strict=True):
            hn = _rms(x) * layer["g_1"]
            q = cnt.linear(hn, layer["W_Q"]).reshape(b, c.n_kv_heads, group, c.head_dim)
            k_new = cnt.linear(hn, layer["W_K"]).reshape(b, 1, c.n_kv_heads, c.head_dim).astype(cache_dtype)
            v_new = cnt.linear(hn, layer["W_V"]).reshape(b, 1, c.n_kv_heads, c.head_dim).astype(cache_dtype)
            kv["K"] = k_new if "K" not in kv else np.concatenate([kv["K"], k_new], axis=1)
            kv["V"] = v_new if "V" not in kv else np.concatenate([kv["V"], v_new], axis=1)
            keys, values = kv["K"].astype(np.float64), kv["V"].astype(np.float64)  # (B, t, h_kv, d_k)
            scores = cnt.einsum("bkgd,btkd->bkgt", q, keys, "qk") / np.sqrt(c.head_dim)
            weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
            weights /= weights.sum(axis=-1, keepdims=True)
            heads = cnt.einsum("bkgt,btkd->bkgd", weights, values, "av").reshape(b, c.n_heads * c.head_dim)
            x = x + cnt.linear(heads, layer["W_O"])
            x = x + self._ffn(layer, _rms(x) * layer["g_2"], cnt)
        return cnt.linear(_rms(x) * self.final_gain, self.lm_head, "lm_head")

    def decode_cached(self, tokens: np.ndarray, cache_dtype: type = np.float64) -> tuple[np.ndarray, Counter, list]:
        """Feed ``tokens`` (B, n) one position at a time with a KV cache.

        Returns:
            ``(logits, counter, cache)``: logits (B, n, vocab_size) after each position, the counts, and the
            cache the loop holds at the end (per layer K and V of shape (B, n, h_kv, d_k)).
        """
        cnt, cache = Counter(), [{} for _ in self.layers]
        out, self.step_flops, self.step_attention_flops, self.step_cache_bytes = [], [], [], []
        for t in range(tokens.shape[1]):
            before, attention = cnt.flops(), cnt.flops("qk", "av")
            out.append(self.step(tokens[:, t], cache, cnt, cache_dtype))
            self.step_flops.append(cnt.flops() - before)
            self.step_attention_flops.append(cnt.flops("qk", "av") - attention)
            self.step_cache_bytes.append(sum(kv["K"].nbytes + kv["V"].nbytes for kv in cache))
        return np.stack(out, axis=1), cnt, cache

    def decode_uncached(self, tokens: np.ndarray) -> tuple[np.ndarray, Counter]:
        """The same logits without a cache: step t reruns the whole prefix of t tokens from scratch.

        Each rerun is a causal forward pass over the prefix (position s attends over s positions),
        written as the cached step applied to a fresh cache, whose state is thrown away afterwards.

        Returns:
            ``(logits, counter)``: logits (B, n, vocab_size), the next-token logits of each prefix.
        """
        cnt = Counter()
        out = []
        for t in range(1, tokens.shape[1] + 1):
            fresh = [{} for _ in self.layers]
            for s in range(t):
                logits = self.step(tokens[:, s], fresh, cnt)
            out.append(logits)
        return np.stack(out, axis=1), cnt


#: The sizes the cross-checks run at: MHA with a GELU FFN, MQA with GELU, GQA with SwiGLU (head_dim ≠
#: d_model/n_heads) and MHA with SwiGLU.
SIZES = (
    ReferenceConfig(d_model=8, n_heads=2, n_kv_heads=2, head_dim=4, d_ff=32, n_layers=1, vocab_size=11),
    ReferenceConfig(d_model=12, n_heads=3, n_kv_heads=1, head_dim=4, d_ff=20, n_layers=2, vocab_size=17),
    ReferenceConfig(d_model=16, n_heads=4, n_kv_heads=2, head_dim=6, d_ff=24, n_layers=3, vocab_size=23,
                    ffn="swiglu"),
    ReferenceConfig(d_model=20, n_heads=5, n_kv_heads=5, head_dim=4, d_ff=36, n_layers=2, vocab_size=29,
                    ffn="swiglu"),
)
#: Tokens decoded at each size of :data:`SIZES`.
LENGTHS = (5, 7, 9, 6)
#: Sequences decoded together at each size.
BATCH = 2


@dataclass(frozen=True)
class Run:
    """One decoding run of the reference decoder at one size (exact ints from the counters).

    Attributes:
        config, n, batch: the size, tokens per sequence and sequences.
        n_matrix_weights: entries of the layers' weight matrices (Kaplan's N of this model).
        cached, uncached: the counters of the cached loop and of the rerun-the-prefix loop.
        step_flops: FLOPs of each cached step t = 1..n, all sequences of the batch (LM head included).
        intensity: per step, the FLOPs of qKᵀ and A·V over the bytes of the fp16 K and V arrays they read.
        cache_bytes: bytes of the K and V arrays the cached loop holds at the end (cache dtype float16).
        max_logit_gap: largest absolute gap between a cached and an uncached logit (the cache changes the
            cost, not the result).
    """

    config: ReferenceConfig
    n: int
    batch: int
    n_matrix_weights: int
    cached: Counter
    uncached: Counter
    step_flops: tuple[int, ...]
    intensity: tuple[float, ...]
    cache_bytes: int
    max_logit_gap: float


def run(config: ReferenceConfig, n: int, batch: int = BATCH, seed: int = 0) -> Run:
    """Decode ``n`` random tokens of ``batch`` sequences with and without a cache at ``config``."""
    model = ReferenceDecoder(config, seed)
    tokens = np.random.default_rng(seed + 1).integers(0, config.vocab_size, size=(batch, n))
    with_cache, cnt_c, _ = model.decode_cached(tokens)
    steps = tuple(model.step_flops)
    without, cnt_u = model.decode_uncached(tokens)
    _, _, half = model.decode_cached(tokens, cache_dtype=np.float16)
    cache_bytes = sum(kv["K"].nbytes + kv["V"].nbytes for kv in half)
    intensity = tuple(f / b for f, b in zip(model.step_attention_flops, model.step_cache_bytes, strict=True))
    gap = float(np.max(np.abs(with_cache - without)))
    return Run(config, n, batch, model.non_embedding_matrices(), cnt_c, cnt_u, steps, intensity, cache_bytes, gap)


@lru_cache(maxsize=4)
def runs(seed: int = 0) -> tuple[Run, ...]:
    """:func:`run` at every size of :data:`SIZES` with :data:`LENGTHS` (computed once per seed)."""
    return tuple(run(c, n, BATCH, seed) for c, n in zip(SIZES, LENGTHS, strict=True))


def adam_step_bytes(model: ReferenceDecoder, seed: int = 0) -> tuple[int, dict[str, int]]:
    """Run one mixed-precision Adam step on ``model``'s weights and measure the arrays it holds.

    The step keeps fp16 weights and fp16 gradients (what the forward and backward passes use), an fp32
    master copy of the weights and Adam's first and second moments in fp32 (Micikevicius et al. 2018;
    Kingma & Ba 2015); it updates the master copy and writes the fp16 weights back. The gradients are
    seeded random numbers of the weights' shapes (their values do not change the memory).

    Returns:
        ``(total, parts)``: bytes of every array the step holds after the update, and by part.
    """
    rng = np.random.default_rng(seed)
    params = model.parameters()
    master = [p.astype(np.float32) for p in params]
    weights = [p.astype(np.float16) for p in params]
    grads = [rng.normal(size=p.shape).astype(np.float16) for p in params]
    m = [np.zeros_like(p) for p in master]
    v = [np.zeros_like(p) for p in master]
    lr, b1, b2, eps, t = 1e-3, 0.9, 0.999, 1e-8, 1
    for i, g in enumerate(grads):
        g32 = g.astype(np.float32)
        m[i] = b1 * m[i] + (1 - b1) * g32
        v[i] = b2 * v[i] + (1 - b2) * g32 * g32
        master[i] -= np.float32(lr) * (m[i] / (1 - b1**t)) / (np.sqrt(v[i] / (1 - b2**t)) + np.float32(eps))
        weights[i] = master[i].astype(np.float16)
    parts = {"fp16 weights": sum(a.nbytes for a in weights), "fp16 gradients": sum(a.nbytes for a in grads),
             "fp32 master weights": sum(a.nbytes for a in master),
             "Adam first moment m (fp32)": sum(a.nbytes for a in m),
             "Adam second moment v (fp32)": sum(a.nbytes for a in v)}
    if any(a.dtype != np.float32 for a in m + v + master):
        raise AssertionError("the optimiser state left fp32")
    return sum(parts.values()), parts


def _gelu_grad(x: np.ndarray) -> np.ndarray:
    c = 0.7978845608028654
    inner = c * (x + 0.044715 * x**3)
    t = np.tanh(inner)
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * c * (1 + 3 * 0.044715 * x * x)


def _rms_backward(x: np.ndarray, gain: np.ndarray, dy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradients of y = x/r·gain, r = √(mean(x²) + 1e-6), with respect to x and gain (elementwise, no products)."""
    r = np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6)
    dyg = dy * gain
    dx = dyg / r - x * np.mean(dyg * x, axis=-1, keepdims=True) / r**3
    return dx, (dy * x / r).reshape(-1, x.shape[-1]).sum(axis=0)


class TrainingStep:
    """One training step of :class:`ReferenceDecoder` on a batch: the forward pass over every position, the
    next-token cross-entropy, and the backward pass to every weight, all products counted.

    The forward pass is causal with masked work skipped (position s scores s keys), as in
    :meth:`ReferenceDecoder.decode_uncached`; the backward pass computes, for every product, the gradient
    with respect to each of its two operands (for y = xW: ∂L/∂x = (∂L/∂y)Wᵀ and ∂L/∂W = xᵀ(∂L/∂y)), so the
    embedding's gradient reaches the first layer's input too. Counters: ``forward`` and ``backward``.
    """

    def __init__(self, model: ReferenceDecoder) -> None:
        self.model = model
        self.forward, self.backward = Counter(), Counter()

    def loss(self, tokens: np.ndarray, targets: np.ndarray, cnt: Counter | None = None) -> tuple[float, dict]:
        """Mean cross-entropy of ``targets`` (B, T) given ``tokens`` (B, T), and the saved activations."""
        m, c = self.model, self.model.config
        cnt = cnt or self.forward
        b, t_len = tokens.shape
        kvh, grp, dk = c.n_kv_heads, c.n_heads // c.n_kv_heads, c.head_dim
        x = m.embedding[tokens].reshape(b * t_len, c.d_model)
        saved: dict = {"layers": [], "tokens": tokens, "targets": targets}
        for layer in m.layers:
            s: dict = {"x": x}
            h1 = _rms(x) * layer["g_1"]
            q = cnt.linear(h1, layer["W_Q"]).reshape(b, t_len, kvh, grp, dk)
            k = cnt.linear(h1, layer["W_K"]).reshape(b, t_len, kvh, dk)
            v = cnt.linear(h1, layer["W_V"]).reshape(b, t_len, kvh, dk)
            heads, probs = np.zeros_like(q), []
            for pos in range(t_len):  # query pos attends over keys 0..pos
                sc = cnt.einsum("bkgd,btkd->bkgt", q[:, pos], k[:, :pos + 1], "qk") / np.sqrt(dk)
                a = np.exp(sc - sc.max(axis=-1, keepdims=True))
                a /= a.sum(axis=-1, keepdims=True)
                probs.append(a)
                heads[:, pos] = cnt.einsum("bkgt,btkd->bkgd", a, v[:, :pos + 1], "av")
            concat = heads.reshape(b * t_len, c.n_heads * dk)
            x2 = x + cnt.linear(concat, layer["W_O"])
            h2 = _rms(x2) * layer["g_2"]
            if "W_gate" in layer:
                gate, up = cnt.linear(h2, layer["W_gate"]), cnt.linear(h2, layer["W_up"])
                sig = 1 / (1 + np.exp(-gate))
                act = gate * sig * up
                x = x2 + cnt.linear(act, layer["W_down"])
                s.update(gate=gate, up=up, sig=sig)
            else:
                pre = cnt.linear(h2, layer["W_1"])
                act = _gelu(pre)
                x = x2 + cnt.linear(act, layer["W_2"])
                s["pre"] = pre
            s.update(h1=h1, q=q, k=k, v=v, probs=probs, concat=concat, x2=x2, h2=h2, act=act)
            saved["layers"].append(s)
        hf = _rms(x) * m.final_gain
        logits = cnt.linear(hf, m.lm_head, "lm_head")
        z = logits - logits.max(axis=-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        flat = targets.reshape(-1)
        saved.update(x_final=x, hf=hf, p=np.exp(logp), n=flat.size)
        return float(-logp[np.arange(flat.size), flat].mean()), saved

    def gradients(self, saved: dict) -> dict[str, np.ndarray]:
        """Gradients of the loss with respect to every weight (keys ``"embedding"``, ``"lm_head"``,
        ``"final_gain"``, ``"<layer>.<name>"``), the products counted in ``backward``."""
        m, c, cnt = self.model, self.model.config, self.backward
        b, t_len = saved["tokens"].shape
        kvh, grp, dk = c.n_kv_heads, c.n_heads // c.n_kv_heads, c.head_dim
        flat = saved["targets"].reshape(-1)
        dlogits = saved["p"].copy()
        dlogits[np.arange(flat.size), flat] -= 1
        dlogits /= saved["n"]
        grads: dict[str, np.ndarray] = {}
        grads["lm_head"] = cnt.einsum("bi,bo->io", saved["hf"], dlogits, "lm_head")
        dhf = cnt.einsum("bo,io->bi", dlogits, m.lm_head, "lm_head")
        dx, grads["final_gain"] = _rms_backward(saved["x_final"], m.final_gain, dhf)
        for idx in reversed(range(len(m.layers))):
            layer, s = m.layers[idx], saved["layers"][idx]
            # FFN branch: x = x2 + FFN(h2)
            if "W_gate" in layer:
                grads[f"{idx}.W_down"] = cnt.einsum("bi,bo->io", s["act"], dx, "weights")
                dact = cnt.einsum("bo,io->bi", dx, layer["W_down"], "weights")
                sig, gate = s["sig"], s["gate"]
                dgate = dact * s["up"] * sig * (1 + gate * (1 - sig))
                dup = dact * gate * sig
                grads[f"{idx}.W_gate"] = cnt.einsum("bi,bo->io", s["h2"], dgate, "weights")
                grads[f"{idx}.W_up"] = cnt.einsum("bi,bo->io", s["h2"], dup, "weights")
                dh2 = (cnt.einsum("bo,io->bi", dgate, layer["W_gate"], "weights")
                       + cnt.einsum("bo,io->bi", dup, layer["W_up"], "weights"))
            else:
                grads[f"{idx}.W_2"] = cnt.einsum("bi,bo->io", s["act"], dx, "weights")
                dpre = cnt.einsum("bo,io->bi", dx, layer["W_2"], "weights") * _gelu_grad(s["pre"])
                grads[f"{idx}.W_1"] = cnt.einsum("bi,bo->io", s["h2"], dpre, "weights")
                dh2 = cnt.einsum("bo,io->bi", dpre, layer["W_1"], "weights")
            dnorm, grads[f"{idx}.g_2"] = _rms_backward(s["x2"], layer["g_2"], dh2)
            dx2 = dx + dnorm
            # attention branch: x2 = x + concat·W_O
            grads[f"{idx}.W_O"] = cnt.einsum("bi,bo->io", s["concat"], dx2, "weights")
            dheads = cnt.einsum("bo,io->bi", dx2, layer["W_O"], "weights").reshape(b, t_len, kvh, grp, dk)
            q, k, v = s["q"], s["k"], s["v"]
            dq, dk_, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
            for pos in range(t_len):
                a, do = s["probs"][pos], dheads[:, pos]
                da = cnt.einsum("bkgd,btkd->bkgt", do, v[:, :pos + 1], "av")
                dv[:, :pos + 1] += cnt.einsum("bkgt,bkgd->btkd", a, do, "av")
                dsc = a * (da - (da * a).sum(axis=-1, keepdims=True)) / np.sqrt(dk)
                dq[:, pos] = cnt.einsum("bkgt,btkd->bkgd", dsc, k[:, :pos + 1], "qk")
                dk_[:, :pos + 1] += cnt.einsum("bkgt,bkgd->btkd", dsc, q[:, pos], "qk")
            dh1 = 0
            for name, dproj in (("W_Q", dq), ("W_K", dk_), ("W_V", dv)):
                dproj = dproj.reshape(b * t_len, -1)
                grads[f"{idx}.{name}"] = cnt.einsum("bi,bo->io", s["h1"], dproj, "weights")
                dh1 = dh1 + cnt.einsum("bo,io->bi", dproj, layer[name], "weights")
            dnorm, grads[f"{idx}.g_1"] = _rms_backward(s["x"], layer["g_1"], dh1)
            dx = dx2 + dnorm
        demb = np.zeros_like(m.embedding)
        np.add.at(demb, saved["tokens"].reshape(-1), dx)  # a lookup's gradient: a scatter-add, no product
        grads["embedding"] = demb
        return grads


def gradient_check(config: ReferenceConfig, seed: int = 0, probes: int = 12) -> float:
    """Largest relative gap between :class:`TrainingStep`'s gradients and central finite differences.

    ``probes`` entries drawn from the weight matrices, the token table and the gains; step 1e-5 in float64.
    """
    model = ReferenceDecoder(config, seed)
    rng = np.random.default_rng(seed + 2)
    tokens = rng.integers(0, config.vocab_size, size=(2, 4))
    targets = rng.integers(0, config.vocab_size, size=(2, 4))
    step = TrainingStep(model)
    _, saved = step.loss(tokens, targets)
    grads = step.gradients(saved)
    arrays = {"embedding": model.embedding, "lm_head": model.lm_head, "final_gain": model.final_gain,
              **{f"{i}.{k}": w for i, layer in enumerate(model.layers) for k, w in layer.items()}}
    keys = sorted(arrays)
    worst, h = 0.0, 1e-5
    for _ in range(probes):
        key = keys[int(rng.integers(len(keys)))]
        w = arrays[key]
        pos = tuple(int(rng.integers(n)) for n in w.shape)
        if key == "embedding":
            pos = (int(tokens[0, 0]),) + pos[1:]  # a row the batch uses
        old = w[pos]
        w[pos] = old + h
        up, _ = step.loss(tokens, targets, Counter())
        w[pos] = old - h
        down, _ = step.loss(tokens, targets, Counter())
        w[pos] = old
        numeric = (up - down) / (2 * h)
        worst = max(worst, abs(numeric - grads[key][pos]) / max(1e-8, abs(numeric) + abs(grads[key][pos])))
    return worst
