"""Proving power on our own corpus of table derivatives (benchmarks/corpus_derivatives.py).

A deterministic sample (every 7th true case and every 7th false case: 48 + 48) is checked with
derive's public API, numeric cross-checks off, as ``benchmarks/run.py --only power`` does for the
whole corpus. derive must never refute a true case nor prove a false one; and it should prove at
least as many true cases as ``sympy.simplify(diff(F, x) - f) == 0`` does on the same sample.

SIMPLIFY_PROVED was measured once, not in the test (simplify costs several seconds a run), with
sympy 1.14, a 5 s limit a case, on 2026-12-01 (branch ``corpus``)::

    PYTHONPATH=. python -c "from benchmarks.corpus_derivatives import subset; \\
    from benchmarks.power_methods import by_simplify; \\
    print(sum(by_simplify(c)[0] == 'proved' for c in subset() if c.truth))"

It printed 46 (of 48; it misses ``rational.log-abs.sym`` and ``hyperbolic.sinh-of-log.sym``);
``Expr.equals`` also proves 46, and refutes the true ``rational.log-abs.sym`` (d/dx a·log|x| = a/x).
On this sample derive proved 30 (18 undecided) on main at f1f943e, before the kernel rewrite (the
assertion was an expected failure then); with the kernel of 832e889 it proves more than simplify.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import corpus_derivatives as corpus  # noqa: E402

#: true cases of the sample that ``simplify(diff(F, x) - f) == 0`` proves (see the module docstring)
SIMPLIFY_PROVED = 46
SAMPLE_TRUE = 48


@pytest.fixture(scope="module")
def verdicts():
    """(case, derive's verdict) for every case of the sample, computed once for the module."""
    from benchmarks.power_methods import by_derive

    return [(c, by_derive(c, i)[0]) for i, c in enumerate(corpus.subset())]


def test_corpus_shape():
    cases = corpus.cases()
    assert cases == corpus.cases()  # deterministic
    ids = [c.id for c in cases]
    assert len(ids) == len(set(ids))
    true, false = corpus.true_cases(), corpus.false_cases()
    assert len(true) >= 300 and len(false) >= 300
    assert {c.of for c in false} <= {c.id for c in true}
    assert {c.mutation for c in false} == {"coefficient", "sign", "function"}
    counts = corpus.summary()
    assert set(counts) == set(corpus.CATEGORIES)
    assert all(row["true"] >= 30 for row in counts.values())
    (example,) = [c for c in true if c.id == "rational.issue-example.sym"]
    x, b = example.x, corpus.B
    assert x.is_positive and b.is_positive
    assert example.F == corpus.sp.log(x) - corpus.sp.log(1 + b * x)
    assert example.f == 1 / (x * (1 + b * x))
    sample = corpus.subset()
    assert sum(c.truth for c in sample) == SAMPLE_TRUE and len(sample) == 2 * SAMPLE_TRUE


def test_true_cases_vanish_at_50_digits():
    for case in corpus.true_cases():
        gaps = corpus.numeric_gap(case, digits=50)
        finite = [g for g in gaps if g is not None]
        assert len(finite) >= 5, case.id
        assert max(finite) < 1e-40, (case.id, gaps)


def test_false_cases_differ_at_50_digits():
    for case in corpus.false_cases():
        gaps = corpus.numeric_gap(case, digits=50)
        assert sum(1 for g in gaps if g is not None and g > 1e-12) >= 4, (case.id, gaps)


def test_derive_never_refutes_a_true_case(verdicts):
    wrong = [c.id for c, v in verdicts if c.truth and v == "refuted"]
    assert wrong == []


def test_derive_never_proves_a_false_case(verdicts):
    wrong = [c.id for c, v in verdicts if not c.truth and v == "proved"]
    assert wrong == []


def test_derive_refutes_every_false_case(verdicts):
    # today every false variant is refuted with a confirmed counterexample (issue 11: keep that)
    assert [c.id for c, v in verdicts if not c.truth and v != "refuted"] == []


def test_derive_proves_at_least_as_many_as_simplify(verdicts):
    proved = sum(1 for c, v in verdicts if c.truth and v == "proved")
    missed = [c.id for c, v in verdicts if c.truth and v != "proved"]
    assert proved >= SIMPLIFY_PROVED, f"derive proves {proved} of {SAMPLE_TRUE}, simplify {SIMPLIFY_PROVED}; " \
                                      f"not proved: {missed}"


def test_figure_summary_counts():
    from benchmarks.fig_power import summarise

    def row(i, truth, d, s, e, cat="trig"):
        return {"id": f"{cat}.case-{i}.sym", "category": cat, "truth": truth, "mutation": "" if truth else "sign",
                "derive": {"verdict": d, "seconds": 0.1 * i}, "simplify": {"verdict": s, "seconds": 0.2},
                "equals": {"verdict": e, "seconds": 0.3, "timed_out": True}}

    data = {"cases": [row(1, True, "proved", "proved", "proved"), row(2, True, "undecided", "proved", "refuted"),
                      row(3, False, "refuted", "undecided", "refuted"), row(4, True, "proved", "undecided", "proved",
                                                                             "log")]}
    s = summarise(data)
    assert (s["n_true"], s["n_false"]) == (3, 1)
    assert s["methods"]["derive"]["true"] == {"proved": 2, "undecided": 1, "refuted": 0}
    assert s["methods"]["equals"]["true"]["refuted"] == 1 and s["methods"]["equals"]["timeouts"] == 4
    assert s["methods"]["simplify"]["false"] == {"proved": 0, "undecided": 1, "refuted": 0}
    assert s["simplify_not_derive"] == ["trig.case-2.sym"] and s["derive_not_simplify"] == ["log.case-4.sym"]
    assert s["categories"] == {"trig": {"n": 2, "derive": 1, "simplify": 2, "equals": 1},
                               "log": {"n": 1, "derive": 1, "simplify": 0, "equals": 1}}
    assert s["methods"]["derive"]["median_s"] == pytest.approx(0.25)
