"""A step that cites a proved derivation (Step(by=..., where=...)): the kernel's Lemma rule and its side conditions."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
import sympy as sp

from derive import Derivation, Step, Verdict
from derive import check as verify
from derive.citations import CitationCycleError, closure, graph
from derive.exceptions import DerivationDefinitionError
from derive.expectation import E, Linearity, Moments, RandomModel

x, y = sp.symbols("x y", real=True)
a = sp.Symbol("a", positive=True)
t = sp.Symbol("t", nonnegative=True)

SQUARE = Derivation(name="lem.square", title="square of a sum", start=(x + y) ** 2,
                    steps=(Step(x**2 + 2 * x * y + y**2, "expand"),))
WRONG = Derivation(name="lem.wrong", title="a wrong square", start=(x + y) ** 2,
                   steps=(Step(x**2 + y**2, "forgets the cross term"),))
ROOT = Derivation(name="lem.root", title="root of a square", start=sp.sqrt(t**2), steps=(Step(t, "t ≥ 0"),))


def _one(start, step, **kw):
    d = Derivation(name="lem.user", title="uses a lemma", start=start, steps=(step,), **kw)
    return verify(d).steps[0]


def test_an_instance_given_by_where_is_proved():
    r = _one((2 * a + 1) ** 2 + 3, Step(4 * a**2 + 4 * a + 4, "square of a sum", by=SQUARE, where={x: 2 * a, y: 1}))
    assert r.verdict is Verdict.PROVED and "by lem.square" in r.strategy


def test_an_instance_found_by_matching_is_proved():
    r = _one((2 * a + 1) ** 2 + 3, Step(4 * a**2 + 4 * a + 4, "square of a sum", by=SQUARE))
    assert r.verdict is Verdict.PROVED


def test_a_where_key_may_be_the_symbol_name():
    r = _one((a + 3) ** 2, Step(a**2 + 6 * a + 9, "square", by=SQUARE, where={"x": a, "y": 3}))
    assert r.verdict is Verdict.PROVED


def test_a_wrong_instance_is_not_proved():
    r = _one((2 * a + 1) ** 2 + 3, Step(4 * a**2 + 4 * a + 4, "square", by=SQUARE, where={x: 3 * a, y: 1}))
    assert r.verdict is Verdict.UNDECIDED
    assert "does not occur" in r.detail


def test_the_instance_must_still_equal_the_step():
    # the lemma applies, but the step claims something else: the rest is proved (or refuted) as usual
    r = _one((2 * a + 1) ** 2, Step(4 * a**2 + 1, "square", by=SQUARE, where={x: 2 * a, y: 1}))
    assert r.verdict is Verdict.REFUTED


def test_a_refuted_lemma_proves_nothing():
    r = _one((2 * a + 1) ** 2, Step(4 * a**2 + 1, "by the wrong square", by=WRONG))
    assert r.verdict is Verdict.UNDECIDED
    assert "lem.wrong is refuted" in r.detail


def test_a_lemma_applies_only_where_its_assumptions_hold():
    u = sp.Symbol("u", real=True)
    r = _one(sp.sqrt((u - 1) ** 2), Step(u - 1, "root of a square", by=ROOT, where={t: u - 1}))
    assert r.verdict is not Verdict.PROVED
    assert "nonnegative" in r.detail
    # where it holds (a positive instance), the lemma applies
    ok = _one(sp.sqrt((a + 1) ** 2), Step(a + 1, "root of a square", by=ROOT, where={t: a + 1}))
    assert ok.verdict is Verdict.PROVED


def test_a_premise_of_the_lemma_must_hold_at_the_instance():
    h, d_k, d_model, p, r, w = sp.symbols("h d_k d_model p r w", positive=True)
    from derive.rules import Substitute

    lemma = Derivation(name="lem.premised", title="h·d_k = d_model", start=h * d_k,
                       premises=(sp.Eq(d_k, d_model / h),),
                       steps=(Step(d_model, "d_k = d_model/h", rule=Substitute(((d_k, d_model / h),))),))
    assert verify(lemma).ok
    # the user's p is not known to be w/r: the premise is not proved at the instance
    r1 = _one(r * p, Step(w, "heads times width", by=lemma, where={h: r, d_k: p, d_model: w}))
    assert r1.verdict is not Verdict.PROVED and "the premise" in r1.detail
    # declared, it is
    r2 = _one(r * p, Step(w, "heads times width", by=lemma, where={h: r, d_k: p, d_model: w}),
              premises=(sp.Eq(p, w / r),))
    assert r2.verdict is Verdict.PROVED


def test_an_inequality_lemma_justifies_only_its_direction():
    z = sp.Symbol("z", real=True)
    bound = Derivation(name="lem.bound", title="x² + 1 ≥ 2x", start=x**2 + 1,
                       steps=(Step(2 * x + (x - 1) ** 2, "complete the square"), Step(2 * x, "drop a square",
                                                                                       relation=">=")))
    assert verify(bound).ok and bound.relation == ">="
    assert _one(z**2 + 1, Step(2 * z, "AM-GM", by=bound, relation=">=")).verdict is Verdict.PROVED
    r = _one(z**2 + 1, Step(2 * z, "AM-GM", by=bound))
    assert r.verdict is Verdict.UNDECIDED and "cannot justify" in r.detail


def test_a_claim_about_expectations_needs_its_random_model():
    v = sp.IndexedBase("v", real=True)
    i = sp.Symbol("i", integer=True, positive=True)
    mu = sp.Symbol("mu", real=True)
    model = RandomModel(((v, mu, sp.Integer(1)),))
    mean = Derivation(name="lem.mean", title="E[v_i] = μ", start=E(v[i]),
                      steps=(Step(mu, "moments", rule=Moments(model)),))
    assert verify(mean).ok
    zero = RandomModel(((v, sp.Integer(0), sp.Integer(1)),))
    two = RandomModel(((v, sp.Integer(2), sp.Integer(1)),))
    # no model declared: the cited claim's model is not a hypothesis here
    assert _one(E(v[i]), Step(sp.Integer(0), "mean", by=mean, where={mu: 0})).verdict is not Verdict.PROVED
    # declared at the instance: proved
    assert _one(E(v[i]), Step(sp.Integer(0), "mean", by=mean, where={mu: 0}),
                models=(zero,)).verdict is Verdict.PROVED
    # a model that gives v another mean: not proved
    assert _one(E(v[i]), Step(sp.Integer(0), "mean", by=mean, where={mu: 0}),
                models=(two,)).verdict is not Verdict.PROVED
    # two models contradicting each other prove nothing
    both = _one(E(2 * v[i]), Step(2 * E(v[i]), "linearity", rule=Linearity(zero)), models=(two,))
    r = _one(E(v[i]), Step(sp.Integer(0), "mean", by=mean, where={mu: 0}), models=(zero, two))
    assert r.verdict is not Verdict.PROVED and "two different moments" in r.detail
    assert both.verdict is Verdict.PROVED  # a rule of the kernel needs no citation


def test_a_step_has_one_justification_and_images_are_expressions():
    with pytest.raises(DerivationDefinitionError, match="not both"):
        from derive.rules import Evaluate

        Step(x, "two", by=SQUARE, rule=Evaluate("x"))
    with pytest.raises(DerivationDefinitionError, match="never parses strings"):
        Step(x, "text", by=SQUARE, where={x: "2*a"})
    with pytest.raises(DerivationDefinitionError, match="give by= too"):
        Step(x, "where without by", where={x: 1})
    with pytest.raises(DerivationDefinitionError, match="names a derivation"):
        Step(x, "bad", by=3)


def test_a_cycle_is_refused_with_its_names(monkeypatch):
    one = Derivation(name="lem.one", title="one", start=x + x, steps=(Step(2 * x, "by two", by="lem.two"),))
    two = Derivation(name="lem.two", title="two", start=2 * x, steps=(Step(x + x, "by one", by=one),))
    from derive import registry

    registry.load_catalog()
    monkeypatch.setattr(registry, "_ENTRIES", dict(registry._ENTRIES))  # the two leave the catalog afterwards
    registry.add(one, "tests.lemmas")
    registry.add(two, "tests.lemmas")
    with pytest.raises(CitationCycleError, match=r"^citation cycle: lem\.one → lem\.two → lem\.one$"):
        closure([one])
    # verifying it anyway: the circular step is not proved
    assert verify(one).steps[0].verdict is not Verdict.PROVED


def test_the_cli_refuses_a_cycle_in_one_line(tmp_path):
    (tmp_path / "cyc.py").write_text(textwrap.dedent('''
        import sympy as sp
        from derive import Derivation, Step
        x = sp.Symbol("x", real=True)
        a = Derivation(name="cyc.a", title="a", start=x + x, steps=(Step(2 * x, "by b", by="cyc.b"),))
        b = Derivation(name="cyc.b", title="b", start=2 * x, steps=(Step(x + x, "by a", by="cyc.a"),))
    '''))
    run = subprocess.run([sys.executable, "-m", "derive", "check", "--module", "cyc.py", "--no-cache"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2
    assert run.stderr.strip() == "derive: error: citation cycle: cyc.a → cyc.b → cyc.a"
    assert run.stdout == ""


def test_check_by_name_verifies_what_it_cites_first(tmp_path):
    (tmp_path / "mine.py").write_text(textwrap.dedent('''
        import sympy as sp
        from derive import Derivation, Step
        x, y = sp.symbols("x y", real=True)
        a = sp.Symbol("a", positive=True)
        square = Derivation(name="mine.square", title="square", start=(x + y) ** 2,
                            steps=(Step(x**2 + 2 * x * y + y**2, "expand"),))
        use = Derivation(name="mine.use", title="use", start=(a + 1) ** 2,
                         steps=(Step(a**2 + 2 * a + 1, "square of a sum", by="mine.square"),))
    '''))
    run = subprocess.run([sys.executable, "-m", "derive", "check", "--module", "mine.py", "mine.use",
                          "--no-cache", "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    import json

    names = [r["name"] for r in json.loads(run.stdout)["reports"]]
    assert names == ["mine.square", "mine.use"]


def test_the_graph_is_read_from_the_citations():
    use = Derivation(name="lem.graph-user", title="user", start=(a + 1) ** 2,
                     steps=(Step(a**2 + 2 * a + 1, "square", by=SQUARE),))
    g = graph([use])
    assert [n["name"] for n in g["nodes"]] == ["lem.square", "lem.graph-user"]
    assert g["edges"] == [{"from": "lem.graph-user", "to": "lem.square", "step": 1}]


def test_a_premise_about_a_bound_index_is_not_proved_from_the_free_symbol():
    # Σ_{j=1}^{3} j² is 14, not 3: the cited j = 1 speaks of the free j, the sum's j runs over 1..3
    from derive.rules import Substitute

    j = sp.Symbol("j", integer=True, positive=True)
    lemma = Derivation(name="lem.at-one", title="j² at j = 1", start=j**2, premises=(sp.Eq(j, 1),),
                       auto_identity_check=False,
                       steps=(Step(sp.Integer(1), "j = 1", rule=Substitute(((j, 1),), "j = 1")),))
    assert verify(lemma).ok
    r = _one(sp.Sum(j**2, (j, 1, 3)), Step(sp.Sum(sp.Integer(1), (j, 1, 3)), "inside the sum", by=lemma),
             premises=(sp.Eq(j, 1),), auto_identity_check=False)
    assert r.verdict is not Verdict.PROVED
    assert "bound variable" in r.detail


def test_a_premise_about_a_bound_index_may_follow_from_its_range():
    j = sp.Symbol("j", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    lemma = Derivation(name="lem.in-range", title="(j + 1)² for j ≤ n", start=(j + 1) ** 2, premises=(j <= n,),
                       steps=(Step(j**2 + 2 * j + 1, "expand"),))
    assert verify(lemma).ok
    ok = _one(sp.Sum((j + 1) ** 2, (j, 1, n)), Step(sp.Sum(j**2 + 2 * j + 1, (j, 1, n)), "in range", by=lemma))
    assert ok.verdict is Verdict.PROVED
    # the range 1..n + 1 leaves j = n + 1 outside the premise: not proved
    out = _one(sp.Sum((j + 1) ** 2, (j, 1, n + 1)),
               Step(sp.Sum(j**2 + 2 * j + 1, (j, 1, n + 1)), "out of range", by=lemma))
    assert out.verdict is not Verdict.PROVED and "range" in out.detail


def test_the_inner_sum_of_a_multiple_sum_may_be_rewritten():
    # sympy builds Σ_j Σ_i f as one Sum(f, (i…), (j…)); its inner sum is still an instance's site
    v = sp.IndexedBase("v", real=True)
    i, j = sp.symbols("i j", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    lemma = Derivation(name="lem.row", title="a row sum", start=sp.Sum(v[i] + v[j], (i, 1, n)), premises=(j <= n,),
                       steps=(Step(sp.Sum(v[i], (i, 1, n)) + n * v[j], "split"),))
    assert verify(lemma).ok
    start = sp.Sum(sp.Sum(v[i] + v[j], (i, 1, n)), (j, 1, n))
    assert len(start.limits) == 2  # flattened by sympy
    ok = _one(start, Step(sp.Sum(sp.Sum(v[i], (i, 1, n)) + n * v[j], (j, 1, n)), "each row", by=lemma))
    assert ok.verdict is Verdict.PROVED
    # over j = 1..n + 1 the premise j ≤ n fails at the last row
    wide = sp.Sum(sp.Sum(v[i] + v[j], (i, 1, n)), (j, 1, n + 1))
    out = _one(wide, Step(sp.Sum(sp.Sum(v[i], (i, 1, n)) + n * v[j], (j, 1, n + 1)), "each row", by=lemma))
    assert out.verdict is not Verdict.PROVED


def test_an_image_is_not_captured_by_a_bound_index():
    # m ↦ k in Σ_k m·k = m·n(n+1)/2 is Σ_d k·d, not Σ_k k²: the sum of squares is not k·n(n+1)/2
    k = sp.Symbol("k", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    m = sp.Symbol("m", real=True)
    gauss = Derivation(name="lem.gauss-m", title="Σ m·k", start=sp.Sum(m * k, (k, 1, n)),
                       steps=(Step(m * n * (n + 1) / 2, "Gauss"),))
    assert verify(gauss).ok
    r = _one(sp.Sum(k**2, (k, 1, n)), Step(k * n * (n + 1) / 2, "captured", by=gauss, where={m: k}))
    assert r.verdict is not Verdict.PROVED
    # a fresh name for the image is an instance like any other
    a2 = sp.Symbol("a2", real=True)
    ok = _one(sp.Sum(a2 * k, (k, 1, n)), Step(a2 * n * (n + 1) / 2, "Gauss at m = a2", by=gauss, where={m: a2}))
    assert ok.verdict is Verdict.PROVED


def test_a_family_may_be_given_elementwise():
    # Σ_j (v_j + 1) = Σ_j v_j + n at the family v_j = j²: Σ_j (j² + 1) = Σ_j j² + n
    v = sp.IndexedBase("v", real=True)
    j = sp.Symbol("j", integer=True, positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    k = sp.Symbol("k", integer=True)
    lemma = Derivation(name="lem.shift-sum", title="Σ (v_j + 1)", start=sp.Sum(v[j] + 1, (j, 1, n)),
                       steps=(Step(sp.Sum(v[j], (j, 1, n)) + n, "split"),))
    assert verify(lemma).ok
    ok = _one(sp.Sum(j**2 + 1, (j, 1, n)), Step(sp.Sum(j**2, (j, 1, n)) + n, "the law at v_j = j²", by=lemma,
                                                where={v: sp.Lambda(k, k**2)}))
    assert ok.verdict is Verdict.PROVED
    # a family whose elements break the cited assumption (real) is not an instance
    bad = _one(sp.Sum(sp.I * j + 1, (j, 1, n)), Step(sp.Sum(sp.I * j, (j, 1, n)) + n, "complex", by=lemma,
                                                     where={v: sp.Lambda(k, sp.I * k)}))
    assert bad.verdict is not Verdict.PROVED
    # nor where the claim differentiates with respect to the family's elements (z_j ↦ w_1 for every j)
    w = sp.IndexedBase("w", real=True)
    deriv = Derivation(name="lem.d-own", title="∂v_1/∂v_j", start=sp.Derivative(v[1], v[j]),
                       steps=(Step(sp.KroneckerDelta(1, j), "differentiate"),))
    if verify(deriv).ok:
        r = _one(sp.Derivative(w[1], w[1]), Step(sp.KroneckerDelta(1, j), "collapsed", by=deriv,
                                                 where={v: sp.Lambda(k, w[1])}))
        assert r.verdict is not Verdict.PROVED


def test_a_citing_step_survives_dataclasses_replace():
    import dataclasses

    step = Step(x**2 + 2 * x * y + y**2, "square", by=SQUARE)
    copy = dataclasses.replace(step, expr=x**2 + y**2)
    assert copy.cites == "lem.square" and copy.rule == step.rule
    from derive.rules import Evaluate

    with pytest.raises(DerivationDefinitionError, match="not both"):
        dataclasses.replace(step, rule=Evaluate("x"))


def test_a_matrix_symbol_law_is_cited_at_a_matrix_of_its_shape():
    # X·I_m = X for X of shape n × m: its shape symbols n, m are part of the instance
    n, m = sp.symbols("n m", integer=True, positive=True)
    X = sp.MatrixSymbol("X", n, m)
    law = Derivation(name="lem.right-identity", title="X·I = X", start=sp.MatMul(X, sp.Identity(m), evaluate=False),
                     steps=(Step(X, "the identity matrix"),))
    assert verify(law).ok
    M = sp.ImmutableMatrix([[a, 1, 0], [0, 1, 2]])  # 2 × 3
    start = sp.MatMul(M, sp.Identity(3), evaluate=False)
    ok = _one(start, Step(M, "the law at X = M", by=law, where={"X": M}))  # n ↦ 2, m ↦ 3 read from M
    assert ok.verdict is Verdict.PROVED
    wrong = _one(start, Step(M, "the law at a wrong size", by=law, where={"X": M, "m": sp.Integer(4)}))
    assert wrong.verdict is Verdict.UNDECIDED and "2 × 4 at the instance" in wrong.detail
    scalar = _one(a * 2, Step(2 * a, "a number is not a matrix", by=law, where={"X": 2 * a}))
    assert scalar.verdict is not Verdict.PROVED


# ----------------------------------------------------------------------------
# several instances in one step, a matrix claim entry by entry, premises read at pinned elements (issue 22)
# ----------------------------------------------------------------------------

_i = sp.Symbol("i", integer=True, positive=True)
_v = sp.IndexedBase("v", real=True)


def test_a_tuple_image_stands_for_one_instance_per_entry():
    # the law about entry i used for i = 1, 2 at once: each instance must occur
    lemma = Derivation(name="lem.twice", title="v_i + v_i = 2 v_i", start=_v[_i] + _v[_i] + x - x,
                       steps=(Step(2 * _v[_i], "add"),))
    both = sp.ImmutableMatrix([[2 * _v[1], 2 * _v[2]]])
    r = _one(both, Step(sp.ImmutableMatrix([[2 * _v[1], 2 * _v[2]]]) * 1, "no-op", by=lemma,
                        where={"i": sp.Tuple(1, 2)}))
    assert r.verdict is Verdict.PROVED, r
    # an instance that does not occur (i = 3) is named in the reason
    bad = _one(both, Step(both, "no-op", by=lemma, where={"i": sp.Tuple(1, 3)}))
    assert bad.verdict is Verdict.UNDECIDED and "instance 2 of 2" in bad.detail
    # tuples of different lengths are refused
    odd = _one(both, Step(both, "no-op", by=lemma, where={"i": sp.Tuple(1, 2), "x": sp.Tuple(1, 2, 3)}))
    assert odd.verdict is Verdict.UNDECIDED and "one length" in odd.detail


def test_a_matrix_claim_may_be_used_entry_by_entry():
    w = sp.Symbol("w", positive=True)
    rot = Derivation(name="lem.pair", title="a pair", start=sp.ImmutableMatrix([[sp.sin(2 * w)], [sp.cos(2 * w)]]),
                     steps=(Step(sp.ImmutableMatrix([[2 * sp.sin(w) * sp.cos(w)], [sp.cos(w) ** 2 - sp.sin(w) ** 2]]),
                                 "double angle"),))
    row = sp.ImmutableMatrix([[sp.sin(6), sp.cos(6), 1]])  # a 1 × 3 row holding the pair at w = 3
    right = sp.ImmutableMatrix([[2 * sp.sin(3) * sp.cos(3), sp.cos(3) ** 2 - sp.sin(3) ** 2, 1]])
    r = _one(row, Step(right, "the double angle, entry by entry", by=rot, where={w: 3}))
    assert r.verdict is Verdict.PROVED, r
    # at another w the entries do not occur: not proved
    r2 = _one(row, Step(right, "wrong angle", by=rot, where={w: 2}))
    assert r2.verdict is Verdict.UNDECIDED and "does not occur" in r2.detail
    # the entries rewritten, the step must still equal the result: a wrong sign is refuted
    wrong = sp.ImmutableMatrix([[2 * sp.sin(3) * sp.cos(3), sp.sin(3) ** 2 - sp.cos(3) ** 2, 1]])
    assert _one(row, Step(wrong, "sign slip", by=rot, where={w: 3})).verdict is Verdict.REFUTED
