"""Honest evidence: a cross-check that evaluated nothing is *not evaluated* on every surface, never passed;
an undecided step names what the author can act on before the strategies tried."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from derive import Derivation, Step
from derive.cli import main
from derive.crosscheck import FunctionCheck, IdentityCheck
from derive.expectation import E, Independence, Linearity, Moments, RandomModel
from derive.report import CheckResult, CheckState, Report, checks_summary
from derive.verify import verify

i = sp.Symbol("i", integer=True, positive=True)
d = sp.Symbol("d", integer=True, positive=True)
x, w = sp.IndexedBase("x"), sp.IndexedBase("w")
MODEL = RandomModel(((x, sp.Integer(0), sp.Integer(1)), (w, sp.Integer(0), sp.Integer(1))))


def _mean_of_dot(**kw) -> Derivation:
    """E[Σ x_i w_i] = 0: every step proved, the claim has no value at a point (E is an operator)."""
    return Derivation(
        name="evidence.mean-of-dot", title="mean of a dot product", start=E(sp.Sum(x[i] * w[i], (i, 1, d))),
        steps=(Step(sp.Sum(E(x[i] * w[i]), (i, 1, d)), "linearity", rule=Linearity(MODEL)),
               Step(sp.Sum(E(x[i]) * E(w[i]), (i, 1, d)), "independence", rule=Independence(MODEL)),
               Step(sp.Sum(sp.Integer(0), (i, 1, d)), "means", rule=Moments(MODEL))),
        **kw)


@pytest.fixture(scope="module")
def unevaluated_report() -> Report:
    return verify(_mean_of_dot(checks=(FunctionCheck("a check that holds", lambda seed: (True, {"n": 3}, "ok")),)))


def test_a_check_of_zero_points_is_not_evaluated_never_passed():
    r = CheckResult("claim", True, {"points": 0}, "holds at 0 points")
    assert (r.state, r.passed, r.evaluated) == (CheckState.NOT_EVALUATED, False, False)
    assert r.ok is False  # required by default: evaluating nothing fails it
    optional = CheckResult.not_evaluated("claim", {"points": 0}, "no value", required=False)
    assert (optional.state, optional.passed, optional.ok) == (CheckState.NOT_EVALUATED, False, True)
    assert CheckResult("mc", True, {"n": 10}).state is CheckState.PASSED
    assert CheckResult("mc", False, {"n": 10}).state is CheckState.FAILED
    assert checks_summary([r, optional, CheckResult("a", True), CheckResult("b", False)]) == \
        "1 passed, 1 failed, 2 not evaluated"
    assert checks_summary([CheckResult("a", True)] * 4) == "4 passed"


def test_identity_check_on_an_operator_claim_is_not_evaluated():
    lhs = E(sp.Sum(x[i] * w[i], (i, 1, d)))
    required = IdentityCheck(lhs, sp.Integer(0)).run(1)
    assert required.state is CheckState.NOT_EVALUATED and required.figures["points"] == 0
    assert required.message.startswith("not evaluated: E[") and not required.ok
    assert IdentityCheck(lhs, sp.Integer(0), required=False).run(1).ok


def test_the_report_counts_not_evaluated_apart(unevaluated_report):
    r = unevaluated_report
    assert [str(s.verdict) for s in r.steps] == ["proved"] * 3
    assert [c.state for c in r.checks] == [CheckState.NOT_EVALUATED, CheckState.PASSED]
    assert r.checks[0].name == "claim at random points" and not r.checks[0].passed
    assert r.ok  # the automatic claim check is not required: visibly not passed, but it fails nothing
    assert checks_summary(r.checks) == "1 passed, 1 not evaluated"
    back = Report.from_dict(json.loads(json.dumps(r.to_dict())))
    assert [c.state for c in back.checks] == [c.state for c in r.checks] and back.ok
    assert [c["state"] for c in r.to_dict()["checks"]] == ["not evaluated", "passed"]


def test_a_required_check_that_evaluates_nothing_fails_the_derivation():
    from derive.render.text import failed_checks_text
    from derive.testing import DerivationAssertionError, assert_proved

    lhs = E(sp.Sum(x[i] * w[i], (i, 1, d)))
    der = _mean_of_dot(checks=(IdentityCheck(lhs, sp.Integer(0), name="mean by points"),))
    report = verify(der)
    assert report.symbolic_ok and not report.ok
    assert "cross-check not evaluated (required): mean by points: not evaluated: E[" in failed_checks_text(report)
    with pytest.raises(DerivationAssertionError, match="a required numeric cross-check was not evaluated"):
        assert_proved(der)


def test_terminal_surfaces_never_say_ok_for_nothing(unevaluated_report):
    from derive.render.text import check_table, report_text, summary_line

    table = check_table([unevaluated_report])
    assert "1/2 ok, 1 not evaluated" in table and "2/2 ok" not in table
    text = report_text(unevaluated_report)
    assert "check NOT EVALUATED claim at random points: not evaluated: E[" in text
    assert "check ok a check that holds" in text
    assert summary_line([unevaluated_report], 1.0).endswith(
        "; 1 cross-check not evaluated (not counted as passed)")


def test_html_markdown_and_sphinx_surfaces(unevaluated_report):
    from docutils import nodes

    from derive.render.html import report_html, verdict_html
    from derive.sphinxext.content import checks_table, footer

    assert "numeric cross-checks: 1 passed, 1 not evaluated" in verdict_html(unevaluated_report)
    assert "<td>not evaluated</td>" in report_html(unevaluated_report)
    der = _mean_of_dot()
    table = checks_table(der, unevaluated_report).astext()
    assert "– not evaluated" in table and table.count("✓ passed") == 1
    out = footer(der, unevaluated_report, lambda key: [nodes.Text(key)], show_checks=True)
    text = " ".join(n.astext() for n in out)
    assert "numeric cross-checks: 1 passed, 1 not evaluated" in text
    assert "2 of 2" not in text and "passed, 0" not in text


def test_cli_table_and_json(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DERIVE_CACHE_DIR", str(tmp_path / "cache"))
    module = tmp_path / "evidence_mod.py"
    module.write_text(
        "import sympy as sp\nfrom derive import Derivation, Step\nfrom derive.expectation import E, Linearity, "
        "RandomModel\nx = sp.IndexedBase('x')\ni = sp.Symbol('i', integer=True, positive=True)\n"
        "d = sp.Symbol('d', integer=True, positive=True)\n"
        "m = RandomModel(((x, sp.Symbol('mu', real=True), sp.Integer(1)),))\n"
        "mean = Derivation(name='evidence.cli-mean', title='t', start=E(sp.Sum(x[i], (i, 1, d))),\n"
        "    steps=(Step(sp.Sum(E(x[i]), (i, 1, d)), 'linearity', rule=Linearity(m)),))\n")
    code = main(["check", "--module", str(module), "-j", "1"])
    out = capsys.readouterr().out
    assert code == 0  # not evaluated and not required: does not fail derive check ...
    assert "0/1 ok, 1 not evaluated" in out and "1/1 ok" not in out  # ... and is not shown as passed
    code = main(["check", "--module", str(module), "-j", "1", "--json"])
    data = json.loads(capsys.readouterr().out)
    check = data["reports"][0]["checks"][0]
    assert code == 0 and (check["state"], check["passed"], check["evaluated"]) == ("not evaluated", False, False)


def test_catalog_claim_checks_never_pass_with_zero_points():
    """Every catalog derivation's automatic claim check: passed only with points evaluated (the ten whose
    claim is an operator, E[·]/Var[·], or a function without a numeric definition, are not evaluated)."""
    from derive import registry
    from derive.numeric import DEFAULT_SEED, derived_seed

    registry.load_catalog()
    states: dict[str, CheckState] = {}
    for name in registry.names():
        if not registry.entry(name).module.startswith("derive."):
            continue  # a user's module loaded by another test
        der = registry.get(name)
        if not der.auto_identity_check:
            continue
        r = IdentityCheck(der.start, der.end, name="claim at random points", relation=der.relation,
                          required=False, definitions=der.definitions,
                          premises=der.premises).run(derived_seed(DEFAULT_SEED, name, "check1"))
        assert not (r.passed and not r.figures.get("points")), name
        states[name] = r.state
    unevaluated = {n for n, s in states.items() if s is CheckState.NOT_EVALUATED}
    assert "attention.scaled-variance" in unevaluated  # the √d_k result: Var[·] has no value at a point
    assert [n for n, s in states.items() if s is CheckState.FAILED] == []
    assert len(unevaluated) <= 10


# --- undecided: the reason first ---------------------------------------------------------------------


def test_undecided_names_what_to_do_before_the_strategies():
    from derive.render.text import failure_text, report_text

    t = sp.Symbol("t", positive=True)
    der = Derivation(name="evidence.lambert", title="t", start=sp.LambertW(t) * sp.exp(sp.LambertW(t)),
                     steps=(Step(t, "W(t) e^{W(t)} = t"),))
    report = verify(der, numeric=False)
    step = report.steps[0]
    assert str(step.verdict) == "undecided"
    assert step.detail.startswith("no strategy closed the step and no counterexample at ")
    assert "split it into smaller steps" in step.detail and "declare the premise" in step.detail
    text = failure_text(der, report)
    assert text.index("why: no strategy closed") < text.index("strategy: tried ")
    assert "undecided: no strategy closed" in report_text(report)


def test_a_rule_outside_its_condition_is_named_with_the_condition():
    from derive.kernel.primitives import Substitute

    d_k, d_model, h = sp.symbols("d_k d_model h", positive=True)
    der = Derivation(name="evidence.substitute", title="t", start=d_k * h,
                     steps=(Step(d_model, "d_k = d_model/h", rule=Substitute(((d_k, d_model / h),))),))
    report = verify(der, numeric=False)
    step = report.steps[0]
    assert str(step.verdict) == "refuted"  # without the rule the step is false: d_k·h ≠ d_model in general
    assert step.detail == ("substitute does not apply: d_k = d_model/h is neither declared by the derivation "
                           "(definitions or an Eq premise) nor provable (declare it among the derivation's "
                           "premises or definitions); the step was checked without the rule")
    from derive.render.text import failure_text

    text = failure_text(der, report)
    assert text.index("why: substitute does not apply") < text.index("strategy: substitute (not applicable)")
