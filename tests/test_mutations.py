"""The mutation suite: deliberately false variants of the catalog's claims must never be proved.

Each mutant is data: an id, the start, the (false) claimed expression, the
relation and optionally the rule the step names. They are built from the
mathematics with our own sympy expressions (not from catalog objects, which
may change), plus a few mutations of the real catalog objects
(``dataclasses.replace`` on a step) and a Monte Carlo claim off by 1 %.

Each must come out refuted (a counterexample confirmed at 60 digits) or
undecided, never proved. The rejection rate is printed in the terminal
summary (``mutation rejection: N/N (100 %)``, see ``conftest.py``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy as sp

from derive import Derivation, Step, Substitute, Transform
from derive import check as verify
from derive.numeric import MonteCarloCheck
from derive.report import Verdict
from derive.transformer.notation import sym, vec

d, d_k, d_ff = sym("d_model"), sym("d_k"), sym("d_ff")
h, h_kv, L, V = sym("n_heads"), sym("n_kv_heads"), sym("n_layers"), sym("vocab_size")
n, i, j, c, T = sym("n"), sym("i"), sym("j"), sym("c"), sym("T")
pos, k, w, eps = sym("pos"), sym("k"), sym("omega"), sym("eps")
z, u = vec("z"), vec("u", nonnegative=True)
x, a, b, mu = sp.symbols("x a b mu", real=True)
s2, sq2, sk2 = sp.symbols("sigma2 sigma_q2 sigma_k2", positive=True)
pair_i = sp.Symbol("i", integer=True, nonnegative=True)
Q, K, W = (sp.MatrixSymbol(name, n, n) for name in ("Q", "K", "W_O"))  # frequency index counts pairs from 0
f, ln = sp.Function("f"), sp.Function("LN")
sin, cos, exp, sqrt, Sum = sp.sin, sp.cos, sp.exp, sp.sqrt, sp.Sum


def softmax_i(arg):
    """softmax(arg)_i for a score ``arg`` written in the summation index j."""
    return exp(arg.subs(j, i)) / Sum(exp(arg), (j, 1, n))


def rot(angle, s01=1, s10=-1):
    return sp.ImmutableMatrix([[cos(angle), s01 * sin(angle)], [s10 * sin(angle), cos(angle)]])


PE_SHIFTED = sp.ImmutableMatrix([sin(w * (pos + k)), cos(w * (pos + k))])
PE = sp.ImmutableMatrix([sin(w * pos), cos(w * pos)])
MEAN = Sum(z[j], (j, 1, n)) / n
SQ_DEV = Sum((z[j] - MEAN) ** 2, (j, 1, n))


def dff(value):
    return Substitute(((d_ff, value),), f"d_ff := {value}")


def dk_per_head():
    return Substitute(((d_k, d / h),), "d_k := d_model / n_heads")


#: (id, start, claimed, relation, rule): every claim here is false
MUTANTS = [
    # scaled dot-product attention (Vaswani et al. §3.2.1, footnote 4)
    ("var-qk-is-dk-squared", Sum(1, (j, 1, d_k)), d_k**2, "=", None),
    ("var-qk-variances-add", Sum(sq2 * sk2, (j, 1, d_k)), d_k * (sq2 + sk2), "=", None),
    ("dropped-inv-sqrt-dk", (1 / sqrt(d_k)) ** 2 * Sum(1, (j, 1, d_k)), d_k, "=", None),
    ("scaled-by-dk-not-sqrt-dk", (1 / d_k) ** 2 * Sum(1, (j, 1, d_k)), sp.Integer(1), "=", None),
    ("std-of-score-is-dk", sqrt(Sum(1, (j, 1, d_k))), d_k, "=", None),
    ("softmax-scaled-by-dk", softmax_i(z[j] / sqrt(d_k)), softmax_i(z[j] / d_k), "=", None),
    # softmax
    ("softmax-scale-invariance", softmax_i(c * z[j]), softmax_i(z[j]), "=", None),
    ("softmax-index-dependent-shift", softmax_i(z[j] + j), softmax_i(z[j]), "=", None),
    ("softmax-shift-numerator-only", exp(z[i] - c) / Sum(exp(z[j]), (j, 1, n)), softmax_i(z[j]), "=", None),
    ("softmax-temperature-dropped", softmax_i(z[j] / T), softmax_i(z[j]), "=", None),
    ("softmax-sums-to-n", Sum(exp(z[i]) / Sum(exp(z[j]), (j, 1, n)), (i, 1, n)), n, "=", None),
    ("two-way-softmax-sign", exp(a) / (exp(a) + exp(b)), 1 / (1 + exp(a - b)), "=", None),
    ("log-softmax-without-log", sp.log(softmax_i(z[j])), z[i] - Sum(z[j], (j, 1, n)), "=", None),
    ("logsumexp-drops-the-shift", sp.log(Sum(exp(z[j]), (j, 1, n))), sp.log(Sum(exp(z[j] - c), (j, 1, n))), "=",
     None),
    ("max-trick-bound-reversed", Sum(exp(-u[j]), (j, 1, n)), n, ">=", None),
    ("max-trick-bound-one", Sum(exp(-u[j]), (j, 1, n)), sp.Integer(1), "<=", None),
    ("max-trick-wrong-substitution", Sum(exp(z[j] - c), (j, 1, n)), Sum(exp(u[j]), (j, 1, n)), "=",
     Substitute(((z[j], c - u[j]),), "z_j = c − u_j")),
    # sinusoidal positions (§3.5)
    ("rotation-transposed", PE_SHIFTED, sp.MatMul(rot(k * w, -1, 1), PE, evaluate=False), "=", None),
    ("rotation-one-sign-flipped", PE_SHIFTED, sp.MatMul(rot(k * w, 1, 1), PE, evaluate=False), "=", None),
    ("rotation-double-angle", PE_SHIFTED, sp.MatMul(rot(2 * k * w), PE, evaluate=False), "=", None),
    ("sin-addition-sign", sin(w * (pos + k)), sin(w * pos) * cos(w * k) - cos(w * pos) * sin(w * k), "=", None),
    ("cos-addition-sign", cos(w * (pos + k)), cos(w * pos) * cos(w * k) + sin(w * pos) * sin(w * k), "=", None),
    ("frequency-exponent-halved", sp.Integer(10000) ** (-2 * pair_i / d), sp.Integer(10000) ** (-pair_i / d), "=",
     None),
    # parameter counts
    ("block-12d2-as-8d2", 4 * d * d + 2 * d * d_ff, 8 * d**2, "=", dff(4 * d)),
    ("block-biases-miscounted", 4 * d**2 + 4 * d + 2 * d * d_ff + d_ff + d, 12 * d**2 + 8 * d, "=", dff(4 * d)),
    ("swiglu-4d-over-3-equal-count", 3 * d * d_ff, 2 * d * (4 * d), "=", dff(sp.Rational(4, 3) * d)),
    ("swiglu-two-matrices", 2 * d * d_ff, 8 * d**2, "=", dff(sp.Rational(8, 3) * d)),
    ("mha-params-times-heads", h * 3 * d * d_k + d * d, 4 * d**2 * h, "=", dk_per_head()),
    ("gqa-kv-with-query-heads", d * h * d_k + 2 * d * h_kv * d_k + d * h * d_k, 4 * d**2, "=", dk_per_head()),
    ("tied-embedding-counted-twice", V * d + 12 * L * d**2, 2 * V * d + 12 * L * d**2, "=", None),
    ("kv-cache-missing-k-or-v", 2 * L * h_kv * d_k, L * h_kv * d_k, "=", None),
    ("attention-scores-linear-in-n", 2 * n * n * d_k, 2 * n * d_k, "=", None),
    # normalisation (Ba et al. 2016; Zhang & Sennrich 2019)
    ("layernorm-unbiased-equals-biased", SQ_DEV / (n - 1), SQ_DEV / n, "=", None),
    ("layernorm-eps-outside-sqrt", (x - mu) / sqrt(s2 + eps), (x - mu) / (sqrt(s2) + eps), "=", None),
    ("layernorm-eps-split-over-sqrt", sqrt(s2 + eps), sqrt(s2) + sqrt(eps), "=", None),
    ("rmsnorm-is-layernorm", z[i] / sqrt(Sum(z[j] ** 2, (j, 1, n)) / n + eps),
     (z[i] - MEAN) / sqrt(SQ_DEV / n + eps), "=", None),
    ("layernorm-output-mean-one", Sum(z[j] - MEAN, (j, 1, n)) / n, sp.Integer(1), "=", None),
    # activations
    ("gelu-tanh-approximation-as-identity", x / 2 * (1 + sp.erf(x / sqrt(2))),
     x / 2 * (1 + sp.tanh(sqrt(2 / sp.pi) * (x + sp.Rational(44715, 10**6) * x**3))), "=", None),
    ("silu-is-relu", x / (1 + exp(-x)), sp.Max(x, 0), "=", None),
    # matrices (n×n of symbolic size: checked at explicit random matrices)
    ("scores-transpose-is-themselves", (Q * K.T).T, Q * K.T, "=", None),
    ("transpose-keeps-the-order", (Q * K.T * W).T, Q.T * K * W.T, "=", None),
    # an unsound manipulation as a rule: expand_log(force=True) ignores that x, y may be negative
    ("log-product-forced-for-real-arguments", sp.log(a * b), sp.log(a) + sp.log(b), "=",
     Transform(lambda e: sp.expand_log(e, force=True), "log(ab) = log a + log b")),
    # beyond float64: off by one part in 10^30
    ("off-by-1e-30", (1 + sp.Rational(1, 10**30)) * x, x, "=", None),
    # no numeric value (undefined functions): must stay undecided, never pass
    ("pre-ln-equals-post-ln", x + f(ln(x)), ln(x + f(x)), "=", None),
]


@pytest.mark.parametrize("label, start, claimed, relation, rule", MUTANTS, ids=[m[0] for m in MUTANTS])
def test_mutant_is_never_proved(label, start, claimed, relation, rule, mutation_log):
    derivation = Derivation(name="mutant.m", title=label, start=start,
                            steps=(Step(claimed, "a tempting false claim", rule=rule, relation=relation),))
    report = verify(derivation, numeric=False, budget=2)
    mutation_log[label] = str(report.verdict)
    assert report.verdict is not Verdict.PROVED and not report.ok, report
    step = report.steps[0]
    if step.verdict is Verdict.REFUTED:
        assert step.counterexample.point and step.counterexample.lhs != step.counterexample.rhs


def test_mutants_that_have_a_numeric_value_are_refuted_not_just_undecided():
    """Everything but the undefined-function mutant has a counterexample (the suite is not passing by shrugs)."""
    numeric = [m for m in MUTANTS if m[0] != "pre-ln-equals-post-ln"]
    assert len(numeric) >= 30
    for label, start, claimed, relation, rule in numeric[::7]:  # a sample; every one is run above
        step = verify(Derivation(name="mutant.m", title=label, start=start,
                                 steps=(Step(claimed, "false", rule=rule, relation=relation),)),
                      numeric=False, budget=2).steps[0]
        assert step.verdict is Verdict.REFUTED, label


# -- the real catalog objects, one step replaced ------------------------------------------------


def _replace_step(d, index, **changes):
    steps = list(d.steps)
    steps[index] = dataclasses.replace(steps[index], **changes)
    return dataclasses.replace(d, steps=tuple(steps))


def _catalog_mutants():
    from derive import registry

    registry.load_catalog()
    shift, trick, rotation = (registry.get(name) for name in
                              ("softmax.shift-invariance", "softmax.max-trick", "positional.rotation"))
    ez, ec = exp(z[i]), exp(-c)
    return [
        ("catalog-shift-cancel-in-denominator-only",
         _replace_step(shift, -1, expr=exp(z[i] - c) / Sum(exp(z[j]), (j, 1, n)))),
        ("catalog-shift-sign-of-c", _replace_step(shift, 0, expr=ez * exp(c) / Sum(exp(z[j]) * ec, (j, 1, n)))),
        ("catalog-max-trick-relation-flipped",
         _replace_step(trick, next(k for k, s in enumerate(trick.steps) if s.relation == "<="), relation=">=")),
        ("catalog-max-trick-evaluates-to-n-squared", _replace_step(trick, -1, expr=n**2)),
        ("catalog-rotation-transposed",
         _replace_step(rotation, -1, expr=sp.MatMul(rot(k * w, -1, 1), PE, evaluate=False))),
        ("catalog-rotation-cos-sign", _replace_step(rotation, 0, expr=sp.ImmutableMatrix(
            [sin(w * pos) * cos(w * k) + cos(w * pos) * sin(w * k),
             cos(w * pos) * cos(w * k) + sin(w * pos) * sin(w * k)]))),
    ]


@pytest.mark.parametrize("index", range(6), ids=lambda k: f"catalog-{k}")
def test_mutated_catalog_derivation_fails(index, mutation_log):
    label, mutant = _catalog_mutants()[index]
    report = verify(mutant, budget=2)
    mutation_log[label] = str(report.verdict if not report.ok else Verdict.PROVED)
    assert not report.ok and report.verdict is not Verdict.PROVED, label


# -- a Monte Carlo claim off by 1 % --------------------------------------------------------------

D_K = 4


def scaled_score_squared(rng: np.random.Generator, size: int) -> np.ndarray:
    """(q·k/√d_k)² for q, k ~ N(0, I_{d_k}); its mean is Var(q·k/√d_k) = 1."""
    q = rng.standard_normal((size, D_K))  # (size, d_k)
    kk = rng.standard_normal((size, D_K))  # (size, d_k)
    return ((q * kk).sum(axis=1) / np.sqrt(D_K)) ** 2  # (size,)


MC = {"n": 4_000_000, "chunk": 500_000}


def test_monte_carlo_claim_off_by_one_percent_is_rejected(mutation_log):
    wrong = MonteCarloCheck("Var(q·k/√d_k) claimed 1.01", scaled_score_squared, expected=1.01, **MC)
    result = wrong.run(seed=20170612)
    mutation_log["monte-carlo-var-off-by-1%"] = str(Verdict.PROVED if result.passed else Verdict.REFUTED)
    assert not result.passed, result.message
    assert "beyond the bound" in result.message and result.figures["seed"] == 20170612
    # the control: the true value passes, with the power to reject ±1 %
    right = MonteCarloCheck("Var(q·k/√d_k) = 1", scaled_score_squared, expected=1.0, alternatives=(0.99, 1.01), **MC)
    ok = right.run(seed=20170612)
    assert ok.passed, ok.message
    assert ok.figures["alternatives_rejected"] == [0.99, 1.01]


# -- every step of every catalog derivation, mutated ----------------------------------------------

FLIP = {"<=": ">", "<": ">=", ">=": "<", ">": "<="}


def _off_by_one(expr):
    """``expr + 1`` (a matrix of ones for a matrix): never equal to what ``expr`` equals."""
    if isinstance(expr, sp.MatrixBase) or (isinstance(expr, sp.MatrixExpr)
                                           and all(sp.sympify(k).is_Integer for k in expr.shape)):
        return sp.MatAdd(expr, sp.ImmutableMatrix(sp.ones(*expr.shape)), evaluate=False)
    if isinstance(expr, sp.MatrixExpr):  # symbolic shape
        return sp.MatAdd(expr, sp.OneMatrix(*expr.shape), evaluate=False)
    return expr + 1


#: the catalog's derivations are mutated in this many parametrised chunks (derivation k in chunk k mod CHUNKS),
#: so that pytest-xdist's workers share the sweep; the terminal summary counts every mutant of every chunk
CHUNKS = 12


def _catalog_derivations():
    from derive import registry

    registry.load_catalog()
    return [entry.build() for entry in registry.entries() if entry.module in registry.CATALOG_MODULES]


def test_the_off_by_one_sweep_covers_every_step_of_the_catalog():
    """The chunks below partition the catalog: every derivation in exactly one, every step mutated."""
    derivations = _catalog_derivations()
    chunks = [derivations[k::CHUNKS] for k in range(CHUNKS)]
    assert sorted(d.name for chunk in chunks for d in chunk) == sorted(d.name for d in derivations)
    assert all(chunks) and sum(len(d.steps) for d in derivations) >= 10


@pytest.mark.parametrize("chunk", range(CHUNKS), ids=lambda k: f"chunk-{k}")
def test_every_step_of_every_catalog_derivation_off_by_one_is_rejected(chunk, mutation_log):
    """Each ``=`` step claimed one larger, each inequality step reversed (a ≤ b makes a > b false)."""
    from derive.verify import verify_step

    proved = []
    count = 0
    for d in _catalog_derivations()[chunk::CHUNKS]:
        before = d.start
        for k, step in enumerate(d.steps, 1):
            if step.relation == "=":
                mutated = dataclasses.replace(step, expr=_off_by_one(step.expr))
            else:
                mutated = dataclasses.replace(step, relation=FLIP[step.relation])
            result = verify_step(before, mutated, index=k, budget=2)
            mutation_log[f"{d.name}#{k}"] = str(result.verdict)
            count += 1
            if result.verdict is Verdict.PROVED:
                proved.append(f"{d.name} step {k}")
            before = step.expr
    assert count >= 1
    assert not proved, f"false variants proved: {proved}"
