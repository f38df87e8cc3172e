"""Worked examples: every number printed in lectures 000 and 002, exactly and at the printed precision.

Each expected value below is typed here from the lecture and worked out by hand
(closed forms), independently of the catalog's code; the tests compare the
catalog's ValueCheck objects (exact value and printed string) with them.
"""

from __future__ import annotations

import dataclasses

import mpmath
import pytest
import sympy as sp

from derive import check as verify
from derive.numeric import FunctionCheck, ValueCheck, round_like
from derive.report import Verdict

E = sp.E
r2, r5 = sp.sqrt(2), sp.sqrt(5)


def logistic(t):
    return 1 / (1 + sp.exp(t))


# head 1 / head 2: token 2's weight on token 1 (exact, from the scores 3/√5 vs √2 and −1/√5 vs √2)
ALPHA = logistic(r2 - 3 / r5)
BETA = logistic(r2 + 1 / r5)


def grid(label, rows_exact, rows_printed):
    return {f"{label}[{r + 1},{c + 1}]": (v, p)
            for r, (re_, rp) in enumerate(zip(rows_exact, rows_printed, strict=True))
            for c, (v, p) in enumerate(zip(re_, rp, strict=True))}


LN_X = [[0, -r2, r2, 0], [1 / r5, -3 / r5, -1 / r5, 3 / r5]]
HEAD1_OUT2 = [(1 - ALPHA) / r5, -r2 * ALPHA - 3 * (1 - ALPHA) / r5]
HEAD2_OUT2 = [r2 * BETA - (1 - BETA) / r5, 3 * (1 - BETA) / r5]
MHA = [[0, -r2, r2, 0], HEAD1_OUT2 + HEAD2_OUT2]
H = [[1, -r2, 2 + r2, 1], [(2, 0, 1, 3)[c] + MHA[1][c] for c in range(4)]]  # X + MHA

EXPECTED = {
    "example.two-token-attention": {
        "√dₖ": (2, "2"),
        **{f"q₁·k₁ term {c + 1}": (v, str(v)) for c, v in enumerate((1, 0, 1, 0))},
        **grid("QKᵀ", [[2, 1], [0, 1]], [["2", "1"], ["0", "1"]]),
        **grid("QKᵀ/√dₖ", [[1, sp.Rational(1, 2)], [0, sp.Rational(1, 2)]], [["1.0", "0.5"], ["0.0", "0.5"]]),
        "row 1: exp(1.0)": (E, "2.7183"),
        "row 1: exp(0.5)": (sp.sqrt(E), "1.6487"),
        "row 1: exp(1.0) + exp(0.5)": (E + sp.sqrt(E), "4.3670"),
        "row 2: exp(0.0)": (1, "1.0000"),
        "row 2: exp(0.5)": (sp.sqrt(E), "1.6487"),
        "row 2: exp(0.0) + exp(0.5)": (1 + sp.sqrt(E), "2.6487"),
        **grid("weights", [[E / (E + sp.sqrt(E)), sp.sqrt(E) / (E + sp.sqrt(E))],
                           [1 / (1 + sp.sqrt(E)), sp.sqrt(E) / (1 + sp.sqrt(E))]],
               [["0.6225", "0.3775"], ["0.3775", "0.6225"]]),
        **grid("output", [[4 * logistic(-sp.Rational(1, 2)), 4 * logistic(sp.Rational(1, 2))],
                          [4 * logistic(sp.Rational(1, 2)), 4 * logistic(-sp.Rational(1, 2))]],
               [["2.49", "1.51"], ["1.51", "2.49"]]),
    },
    "example.temperature-table": {
        **{f"T = {t}: weight {c + 1}": (v, p)
           for t, row, printed in (
               ("0.5", [E**4, 1, E**2], ("0.867", "0.016", "0.117")),
               ("1", [E**2, 1, E], ("0.665", "0.090", "0.245")),
               ("2", [E, 1, sp.sqrt(E)], ("0.506", "0.186", "0.307")))
           for c, (v, p) in enumerate(zip([w / sum(row) for w in row], printed, strict=True))},
    },
    "example.max-trick": {
        "max z": (1002, "1002"),
        "z₁ − max z": (-2, "-2"), "z₂ − max z": (-1, "-1"), "z₃ − max z": (0, "0"),
        "e⁻²": (sp.exp(-2), "0.1353"), "e⁻¹": (sp.exp(-1), "0.3679"), "e⁰": (1, "1.0000"),
        "e⁻² + e⁻¹ + e⁰": (sp.exp(-2) + sp.exp(-1) + 1, "1.5032"),
    },
    "example.pe-table": {
        "10000^(0/4)": (1, "1"),
        "10000^(2/4)": (100, "100"),
        "cos(0.01) to 5 decimals": (sp.cos(sp.Rational(1, 100)), "0.99995"),
        **grid("PE", [[f(sp.Integer(p) * w) for w in (1, sp.Rational(1, 100)) for f in (sp.sin, sp.cos)]
                      for p in range(4)],
               [["0.0000", "1.0000", "0.0000", "1.0000"], ["0.8415", "0.5403", "0.0100", "1.0000"],
                ["0.9093", "-0.4161", "0.0200", "0.9998"], ["0.1411", "-0.9900", "0.0300", "0.9996"]]),
    },
    "example.pre-ln-attention": {
        "token 1 mean": (1, "1"), "token 1 variance": (sp.Rational(1, 2), "0.5"),
        "token 1 standard deviation": (1 / r2, "0.707"),
        "token 2 mean": (sp.Rational(3, 2), "1.5"), "token 2 variance": (sp.Rational(5, 4), "1.25"),
        "token 2 standard deviation": (r5 / 2, "1.118"),
        "head width d_model/h = 4/2": (2, "2"),
        **{f"token 1 squared deviation {c + 1}": (v, str(v)) for c, v in enumerate((0, 1, 1, 0))},
        **{f"token 2 squared deviation {c + 1}": (v, p) for c, (v, p) in enumerate(
            zip([sp.Rational(1, 4), sp.Rational(9, 4)] * 2, ["0.25", "2.25"] * 2, strict=True))},
        **grid("LN(X)", LN_X, [["0", "-1.414", "1.414", "0"], ["0.447", "-1.342", "-0.447", "1.342"]]),
        **grid("head 1 q/k/v", [[0, -r2], [1 / r5, -3 / r5]], [["0", "-1.414"], ["0.447", "-1.342"]]),
        **grid("head 2 q/k/v", [[r2, 0], [-1 / r5, 3 / r5]], [["1.414", "0"], ["-0.447", "1.342"]]),
        # the lecture prints 1.898 (= 1.342·1.414); the exact 3√2/√5 rounds to 1.897
        "head 1 q2·k1": (3 * r2 / r5, "1.897"), "head 2 q2·k1": (-r2 / r5, "-0.632"),
        "head 1 q2·k2": (2, "2"), "head 2 q2·k2": (2, "2"),
        "head 1 divisor √dₖ": (r2, "1.414"), "head 2 divisor √dₖ": (r2, "1.414"),
        "head 1 score token 2 → 1": (3 / r5, "1.342"), "head 1 score token 2 → 2": (r2, "1.414"),
        "head 2 score token 2 → 1": (-1 / r5, "-0.447"), "head 2 score token 2 → 2": (r2, "1.414"),
        **grid("head 1 weights", [[1, 0], [ALPHA, 1 - ALPHA]], [["1", "0"], ["0.482", "0.518"]]),
        **grid("head 2 weights", [[1, 0], [BETA, 1 - BETA]], [["1", "0"], ["0.135", "0.865"]]),
        **grid("head 1 output", [[0, -r2], HEAD1_OUT2], [["0", "-1.414"], ["0.232", "-1.377"]]),
        **grid("head 2 output", [[r2, 0], HEAD2_OUT2], [["1.414", "0"], ["-0.197", "1.161"]]),
        "head 1 q2·k1 terms: (1/√5)·0": (0, "0"),
        "head 1 q2·k2 terms: (1/√5)²": (sp.Rational(1, 5), "0.2"),
        "head 1 q2·k2 terms: (−3/√5)²": (sp.Rational(9, 5), "1.8"),
        "head 2 token 2 self-weight in percent": (100 * (1 - BETA), "87"),
        **grid("MHA", MHA, [["0", "-1.414", "1.414", "0"], ["0.232", "-1.377", "-0.197", "1.161"]]),
        **grid("H", H, [["1", "-1.414", "3.414", "1"], ["2.232", "-1.377", "0.803", "4.161"]]),
        "lecture's 1.898 is 1.342·1.414 (rounded factors)": (sp.Rational(1342 * 1414, 10**6), "1.898"),
    },
    "example.rmsnorm": {
        **{f"x{'₁₂₃₄'[c]}²": (v, str(v)) for c, v in enumerate((1, 0, 4, 1))},
        "sum of squares 1 + 0 + 4 + 1": (6, "6"),
        "RMS": (sp.sqrt(sp.Rational(3, 2)), "1.225"),
        **{f"RMSNorm(x){'₁₂₃₄'[i]}": (v * sp.sqrt(sp.Rational(2, 3)), p)
           for i, (v, p) in enumerate(zip((1, 0, 2, 1), ("0.816", "0", "1.633", "0.816"), strict=True))},
    },
    "example.exercise-layernorm-constant": {
        "mean": (2, "2"), "variance": (0, "0"), **{f"LayerNorm(x){s}": (0, "0") for s in "₁₂₃₄"},
    },
    "example.exercise-causal-first-token": {"weight on token 1": (1, "1"), "weight on token 2": (0, "0")},
}

# example.pre-ln-block: token 1's row in closed form; token 2's row after LN(H) is checked against an
# independent 50-digit mpmath recomputation of the whole block (the closed forms are long expressions in α, β).
BLOCK_PRINTED = {
    "LN(H)": [["0", "-1.414", "1.414", "0"], ["0.384", "-1.400", "-0.322", "1.338"]],
    "LN(H)W1": [["0", "-1.414", "2.828", "-1.414"], ["1.722", "-1.784", "1.078", "1.660"]],
    "ReLU": [["0", "0", "2.828", "0"], ["1.722", "0", "1.078", "1.660"]],
    "FFN": [["0", "0", "1.414", "0"], ["0.861", "0", "0.539", "0.830"]],
    "Y": [["1", "-1.414", "4.828", "1"], ["3.093", "-1.377", "1.342", "4.991"]],
}
BLOCK_ROW1 = {
    "LN(H)": [0, -r2, r2, 0], "LN(H)W1": [0, -r2, 2 * r2, -r2], "ReLU": [0, 0, 2 * r2, 0],
    "FFN": [0, 0, r2, 0], "Y": [1, -r2, 2 + 2 * r2, 1],
}


def block_mpmath(dps: int = 50) -> dict:
    """The lecture-002 block recomputed with mpmath at ``dps`` digits (a third, independent route), as Floats."""
    with mpmath.workdps(dps):
        x = [[mpmath.mpf(v) for v in row] for row in ((1, 0, 2, 1), (2, 0, 1, 3))]

        def ln(rows):
            out = []
            for row in rows:
                mu = mpmath.fsum(row) / len(row)
                sd = mpmath.sqrt(mpmath.fsum((v - mu) ** 2 for v in row) / len(row))
                out.append([(v - mu) / sd for v in row])
            return out

        a = ln(x)
        mha = [[None] * 4 for _ in range(2)]
        for k in range(2):
            q = [row[2 * k:2 * k + 2] for row in a]
            for i in range(2):
                s = [mpmath.fsum(qi * kj for qi, kj in zip(q[i], q[j], strict=True)) / mpmath.sqrt(2)
                     for j in range(i + 1)]  # causal: keys 0..i
                w = [mpmath.exp(v) / mpmath.fsum(mpmath.exp(u) for u in s) for v in s]
                for c in range(2):
                    mha[i][2 * k + c] = mpmath.fsum(w[j] * q[j][c] for j in range(i + 1))
        h = [[x[i][c] + mha[i][c] for c in range(4)] for i in range(2)]
        lh = ln(h)
        w1 = ((1, -1, 0, 0), (0, 1, -1, 0), (0, 0, 1, -1), (1, 0, 0, 1))
        z = [[mpmath.fsum(row[r] * w1[r][c] for r in range(4)) for c in range(4)] for row in lh]
        relu = [[max(v, 0) for v in row] for row in z]
        f = [[v / 2 for v in row] for row in relu]
        y = [[h[i][c] + f[i][c] for c in range(4)] for i in range(2)]
        stages = {"LN(H)": lh, "LN(H)W1": z, "ReLU": relu, "FFN": f, "Y": y}
        return {k: [[sp.Float(mpmath.nstr(v, dps), dps) for v in row] for row in m] for k, m in stages.items()}


@pytest.fixture(scope="module")
def derivations():
    from derive import registry

    registry.load_catalog()
    return {name: registry.get(name) for name in registry.names() if name.startswith("example.")}


def value_checks(d):
    """The value checks of ``d`` by name as the terminal shows it (``$\\sqrt{d_k}$`` is ``√dₖ``)."""
    from derive.render.textmath import unicode_text

    return {unicode_text(c.name): c for c in d.checks if isinstance(c, ValueCheck)}


def assert_exactly(value, closed):
    diff = sp.nsimplify(value) - closed if not isinstance(value, sp.Basic) else value - sp.sympify(closed)
    assert sp.simplify(diff) == 0 or abs(sp.N(diff, 60)) < sp.Float("1e-55"), (value, closed)


EXAMPLE_NAMES = sorted(EXPECTED) + ["example.pre-ln-block", "example.exercise-residual-zero-init"]


def test_every_example_is_registered(derivations):
    assert set(EXAMPLE_NAMES) <= set(derivations)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_printed_numbers_exact_and_rounded(derivations, name):
    checks = value_checks(derivations[name])
    assert set(checks) == set(EXPECTED[name]), "every value check has an expected closed form and vice versa"
    for label, (closed, printed) in EXPECTED[name].items():
        check = checks[label]
        assert check.printed == printed, label
        assert_exactly(check.exact, closed)
        assert round_like(sp.sympify(closed), printed) == printed, label
        assert check.run(0).passed, label


def test_pre_ln_block_numbers(derivations):
    d = derivations["example.pre-ln-block"]
    checks = value_checks(d)
    ref = block_mpmath()
    assert len(checks) == 40
    for stage, rows in BLOCK_PRINTED.items():
        for r, row in enumerate(rows):
            for c, printed in enumerate(row):
                check = checks[f"{stage}[{r + 1},{c + 1}]"]
                assert check.printed == printed
                assert check.run(0).passed, check.name
                exact = check.exact.xreplace(dict(getattr(check, "at", ())))  # α, β -> their exact definitions
                if r == 0:
                    assert_exactly(exact, BLOCK_ROW1[stage][c])
                else:  # exact expression vs the independent 50-digit recomputation
                    assert abs(sp.N(exact, 50) - ref[stage][r][c]) < sp.Float("1e-40")
                    assert round_like(ref[stage][r][c], printed) == printed


def test_lecture_rounding_slip_is_reported(derivations):
    """The lecture's 1.898 for head 1's q₂·k₁ is not the rounding of the exact 3√2/√5 (= 1.89737)."""
    d = derivations["example.pre-ln-attention"]
    assert any("1.898" in n and "1.897" in n for n in d.notes)
    exact = value_checks(d)["head 1 q2·k1"].exact
    assert not ValueCheck("as printed", exact, "1.898").run(0).passed
    assert ValueCheck("as corrected", exact, "1.897").run(0).passed


@pytest.mark.parametrize("name, label, wrong", [
    ("example.two-token-attention", "weights[1,1]", "0.6255"),
    ("example.two-token-attention", "output[1,2]", "1.52"),
    ("example.temperature-table", "T = 2: weight 2", "0.187"),
    ("example.pe-table", "PE[3,2]", "0.4161"),
    ("example.pre-ln-attention", "head 2 weights[2,1]", "0.134"),
    ("example.rmsnorm", "RMSNorm(x)₁", "0.817"),
    ("example.pre-ln-block", "Y[2,4]", "4.992"),
])
def test_wrong_printed_number_fails(derivations, name, label, wrong):
    check = value_checks(derivations[name])[label]
    assert check.run(0).passed
    result = dataclasses.replace(check, printed=wrong).run(0)
    assert not result.passed
    assert f"not the printed {wrong}" in result.message


@pytest.mark.parametrize("name", EXAMPLE_NAMES)
def test_derivation_passes_check(derivations, name):
    report = verify(derivations[name])
    assert report.ok, report
    assert all(s.verdict is Verdict.PROVED for s in report.steps)
    assert any(isinstance(c, FunctionCheck) for c in derivations[name].checks) or name == "example.max-trick"


def test_wrong_step_in_worked_example_is_refuted():
    """A worked example whose final matrix has a wrong entry (4·0.6225 typed as 2.49 exactly) is refuted."""
    from derive import Derivation, Step
    from derive.transformer.exact_ops import RowSoftmax

    s = sp.ImmutableMatrix([[1, sp.Rational(1, 2)]])
    wrong = Derivation(name="test.wrong-weights", title="t", start=RowSoftmax(s),
                       steps=(Step(sp.ImmutableMatrix([[sp.Rational(6225, 10000), sp.Rational(3775, 10000)]]),
                                   "rounded weights are not exact"),), auto_identity_check=False)
    report = verify(wrong, numeric=False)
    assert report.steps[0].verdict is Verdict.REFUTED


def test_exact_operators_edge_cases():
    from derive.transformer.exact_ops import CausalMask, LayerNorm, ReLU, RowSoftmax, softmax_row

    with pytest.raises(ZeroDivisionError, match="eps = 0"):
        LayerNorm(sp.ImmutableMatrix([[2, 2, 2, 2]])).doit()
    eps = sp.Symbol("eps", positive=True)
    assert LayerNorm(sp.ImmutableMatrix([[2, 2, 2, 2]]), eps).doit() == sp.ImmutableMatrix([[0, 0, 0, 0]])
    with pytest.raises(ValueError, match="fully masked"):
        softmax_row([-sp.oo, -sp.oo])
    with pytest.raises(ValueError, match="form"):
        softmax_row([0, 1], form="nope")
    masked = CausalMask(sp.ImmutableMatrix([[1, 2], [3, 4]])).doit()
    assert masked == sp.ImmutableMatrix([[1, -sp.oo], [3, 4]])
    assert RowSoftmax(masked).doit()[0, :] == sp.ImmutableMatrix([[1, 0]])
    t = sp.Symbol("t", real=True)
    assert ReLU(sp.ImmutableMatrix([[r2 - 1, 1 - r2, t]])).doit() == sp.ImmutableMatrix([[r2 - 1, 0, sp.Max(0, t)]])
    # the two softmax forms agree
    for a, b in zip(softmax_row([1, sp.Rational(1, 2)]), softmax_row([1, sp.Rational(1, 2)], "definition"),
                    strict=True):
        assert sp.simplify(a - b) == 0


def test_titles_are_written_once(derivations):
    from derive import registry
    from derive.exceptions import UnknownDerivationError

    for name, d in derivations.items():
        meta = registry.metadata(name)
        assert (d.name, d.title, d.summary) == (meta["name"], meta["title"], meta["summary"])
    with pytest.raises(UnknownDerivationError, match="example.pe-tabel"):
        registry.metadata("example.pe-tabel")


def test_relu_sign_from_an_interval_enclosure():
    from derive.transformer.exact_ops import _interval_sign, relu

    a = sp.Symbol("a")
    w = 1 / (1 + sp.exp(1))  # 0.26894...
    assert _interval_sign(a - sp.Rational(1, 4), {a: w}) == 1
    assert _interval_sign(a - sp.Rational(27, 100), {a: w}) == -1
    assert relu(a - sp.Rational(1, 4), {a: w}) == a - sp.Rational(1, 4)
    assert relu(a - sp.Rational(27, 100), {a: w}) == 0
    # 10⁻³⁰ apart: the 40-digit enclosure still separates it from 0
    close = r2 - sp.Rational(14142135623730950488016887242096, 10**31)
    assert _interval_sign(close, {}) == 1 and _interval_sign(-close, {}) == -1
    # an exact zero written as surds cannot be separated from 0: no sign from the enclosure
    assert _interval_sign(sp.sqrt(3) * r2 - sp.sqrt(6) + 0 * a, {a: w}) is None
    assert relu(sp.Mul(sp.sqrt(3), r2, evaluate=False) - sp.sqrt(6)) == 0
    # an operator the intervals do not evaluate, or a symbol without a value: evalf or Max decides
    assert _interval_sign(sp.log(3) - 1, {}) is None and relu(sp.log(3) - 1) == sp.log(3) - 1
    assert _interval_sign(a + 1, {}) is None
