"""Catalog-wide audit: no derivation says nothing.

SymPy evaluates expressions as they are built, so a step written as ``(12d² + 13d − 12d²)/(12d²)`` is
already ``13/(12d)`` and a derivation can silently prove ``x = x``. These tests catch that everywhere.

They also read every text field a reader sees (titles, summaries, assumptions, justifications, notes, check
names): math is written between dollars as TeX, so that the site and the slides typeset it and the terminal
shows it as Unicode, never as ``d_k`` or ``e^(…)`` in plain words.
"""

from __future__ import annotations

import re

import pytest
import sympy as sp

from derive import Verdict


def test_no_derivation_starts_at_its_claim(catalog):
    vacuous = [name for name in catalog.names() if catalog.get(name).start == catalog.get(name).end]
    assert not vacuous


def test_no_equality_step_repeats_the_previous_expression(catalog):
    repeated = []
    for name in catalog.names():
        d = catalog.get(name)
        before = d.start
        for k, step in enumerate(d.steps, 1):
            if step.relation == "=" and step.expr == before:
                repeated.append(f"{name} step {k}")
            before = step.expr
    assert not repeated


def test_layer_approximation_derives_the_relative_error(catalog, refute_step):
    d = catalog.get("params.layer-approximation")
    dm = next(s for s in d.end.free_symbols if s.name == "d_model")
    assert sp.simplify(d.end - sp.Rational(13, 12) / dm) == 0
    assert d.start != d.end and len(d.start.atoms(sp.Add)) >= 1  # the unsimplified quotient
    # step 1 cites params.layer; the arithmetic after it must still refute a wrong quotient
    assert refute_step(d, 2, 13 / (12 * dm**2)).verdict is Verdict.REFUTED


@pytest.mark.parametrize("name, index, wrong", [
    ("example.exercise-causal-first-token", 2, sp.ImmutableMatrix([[sp.Rational(1, 2), sp.Rational(1, 2)]])),
])
def test_wrong_step_refuted(catalog, refute_step, name, index, wrong):
    assert refute_step(catalog.get(name), index, wrong).verdict is Verdict.REFUTED


#: CPU seconds the steps of one catalog derivation may take together (each step's CPU time, what its budget
#: counts; the cross-checks report wall time only, which a loaded machine inflates, so they are listed in the
#: profile but not counted). Issue 20's target is 1 s; this ceiling is what the engine reaches today (the
#: slowest derivation, example.pre-ln-block, took 2.1 s of step CPU at a load of 5 on 2 cores in session 8),
#: with room for a loaded machine, so that a new derivation or an engine change that is much slower fails
#: here with its profile.
CPU_CEILING = 8.0


def test_no_derivation_is_over_the_cpu_ceiling(catalog, verified_catalog):
    from derive.batch import verify_many

    derivations = [catalog.get(name) for name in catalog.names()]
    # the run's verification cache (conftest.verified_catalog): the catalog is verified once per run, with the
    # CPU time of each step recorded in the stored report
    reports = verify_many(derivations)
    over = []
    for report in reports:
        parts = [(s.cpu_seconds, f"step {s.index} ({s.strategy})") for s in report.steps]
        cpu = sum(seconds for seconds, _ in parts)
        parts += [(c.seconds, f"check {c.name!r} (wall)") for c in report.checks]
        if cpu > CPU_CEILING:
            profile = ", ".join(f"{what} {seconds:.2f} s" for seconds, what in sorted(parts, reverse=True)[:4])
            over.append(f"{report.name}: {cpu:.1f} s CPU ({profile})")
    assert not over, f"over the {CPU_CEILING:g} s CPU ceiling: " + "; ".join(over)


def _text_fields(derivation):
    """(where, text) for every text field a reader sees: title, summary, assumptions, justifications, notes,
    check names, citation notes, the instance an instance-only law is proved for."""
    yield "title", derivation.title
    yield "summary", derivation.summary
    for a in derivation.assumptions:
        yield "assumption", a.text
    for k, step in enumerate(derivation.steps, 1):
        yield f"step {k}", step.justification
    for note in derivation.notes:
        yield "note", note
    for check in derivation.checks:
        yield "check", getattr(check, "name", "")
    for c in derivation.citations:
        yield "citation", c.note
    yield "instance", derivation.instance


#: ASCII math that only a TeX engine would read: x_i, e^(…), 2^x, x**2, [[1, 2], [3, 4]]; and Kᵀ, since the one
#: transpose sign is math's ⊤ ($K^\top$)
_RAW_MATH = re.compile(r"_[\w{(\\]|\^[\w({\\−-]|\*\*|\[\[|ᵀ")


def _outside_math(text: str) -> str | None:
    """``text`` without its ``$…$`` spans (None when the dollars do not pair up)."""
    parts = text.split("$")
    return None if len(parts) % 2 == 0 else " ".join(parts[0::2])


@pytest.mark.parametrize("sample, bad", [
    ("the scores $q_i \\cdot k_j$", False), ("Var(q·k) = d_k", True), ("e^(m₁ − m)", True), ("2^x", True),
    ("x**2", True), ("J = [[1, 2], [3, 4]]", True), ("an odd $ sign", True), ("σ² and √d", False),
    ("QKᵀ", True), ("$QK^\\top$", False),
])
def test_the_audit_tells_raw_math_from_marked_math(sample, bad):
    outside = _outside_math(sample)
    assert (outside is None or bool(_RAW_MATH.search(outside))) is bad


def test_every_text_field_writes_its_math_between_dollars(catalog):
    raw = []
    for name in catalog.names():
        for where, text in _text_fields(catalog.get(name)):
            outside = _outside_math(text or "")
            if outside is None or _RAW_MATH.search(outside):
                raw.append(f"{name} [{where}]: {text}")
    # before: 437 text fields with raw _x, ^(, ^x, ** or [[ outside $…$
    assert not raw, "\n".join(raw)


def test_math_in_text_fields_is_plain_tex(catalog):
    """Inside ``$…$`` only ASCII TeX (pdflatex reads every title of the deck), operators upright
    (``\\max_j``, never the product m·a·x), one transpose sign."""
    bad = []
    for name in catalog.names():
        for where, text in _text_fields(catalog.get(name)):
            for span in re.findall(r"\$([^$]*)\$", text or ""):
                if (re.search(r"[^\x00-\x7f]", span) or re.search(r"(?<![\\A-Za-z])(?:max|min|softmax|log|exp)_", span)
                        or re.search(r"\^\{?T\}?(?![A-Za-z])", span)):
                    bad.append(f"{name} [{where}]: ${span}$")
    assert not bad, "\n".join(bad)
