"""The coverage list of the two source lectures, tested: every printed figure and every stated result.

``tests/data/lecture_numbers.json`` maps each figure the lectures print to the catalog ValueCheck that
produces it, and each stated formula to the derivation that proves it (see its ``about`` field). These
tests keep that list true: a renamed check, a changed exact value or a figure that no longer rounds
right fails here, and a new lecture-sourced check that is not on the list fails too.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest

DATA = json.loads((Path(__file__).parent / "data" / "lecture_numbers.json").read_text(encoding="utf-8"))
SEEDS = next((p / "shared" / "seeds" for p in Path(__file__).resolve().parents if (p / "shared" / "seeds").is_dir()),
             Path("shared/seeds/absent"))


def _id(e: dict) -> str:
    return f"{e['lecture']}:{e['line']}:{e.get('check') or e.get('derivation') or e.get('preset')}"


def _value_check(catalog, derivation: str, name: str):
    from derive.numeric import ValueCheck

    found = [c for c in catalog.get(derivation).checks if isinstance(c, ValueCheck) and c.name == name]
    assert len(found) == 1, f"{derivation}: {len(found)} ValueChecks named {name!r}"
    return found[0]


def _value(check):
    """The check's exact value as a number (ValueAt checks are expressions in named constants)."""
    from derive.transformer.examples_common import ValueAt, at_values

    return at_values(check.exact, check.at) if isinstance(check, ValueAt) else check.exact


def _normal(figure: str) -> str:
    text = figure.replace(",", "")
    if "e" in text:
        mant, exp = text.split("e")
        return f"{Decimal(mant)}e{int(exp)}"
    return text


@pytest.mark.parametrize("entry", DATA["numbers"], ids=_id)
def test_printed_figure(catalog, entry):
    import sympy as sp

    from derive.numeric import round_like

    check = _value_check(catalog, entry["derivation"], entry["check"])
    value = _value(check)
    if entry["exact"] is not None:
        assert sp.sstr(check.exact) == entry["exact"]
    assert str(sp.N(value, 30)) == entry["value"]
    assert round_like(value, entry["figure"]) == _normal(entry["figure"])
    assert check.run(0).passed, check.run(0).message


def _off_by_one(figure: str) -> str:
    """``figure`` with its last digit moved by one (a wrong figure of the same precision)."""
    mant, _, exp = figure.partition("e")
    i = max(k for k, ch in enumerate(mant) if ch.isdigit())
    digit = "1" if mant[i] == "0" else str(int(mant[i]) - 1)
    return mant[:i] + digit + mant[i + 1:] + (f"e{exp}" if exp else "")


@pytest.mark.parametrize("entry", DATA["numbers"][::7], ids=_id)
def test_wrong_figure_rejected(catalog, entry):
    from dataclasses import replace

    check = _value_check(catalog, entry["derivation"], entry["check"])
    wrong = _off_by_one(entry["figure"])
    assert wrong != entry["figure"]
    assert not replace(check, printed=wrong).run(0).passed


def test_every_lecture_check_is_listed(catalog):
    """A ValueCheck whose source is a lecture must be on the coverage list (so the list cannot rot)."""
    from derive.numeric import ValueCheck

    listed = {(e["derivation"], e["check"]) for e in DATA["numbers"]}
    missing = [(name, c.name) for name in catalog.names() for c in catalog.get(name).checks
               if isinstance(c, ValueCheck) and c.source.startswith("lecture") and (name, c.name) not in listed]
    assert not missing


def test_coverage_counts():
    """Both lectures are covered, figure by figure (the counts of the audit)."""
    lectures = [e["lecture"] for e in DATA["numbers"]]
    assert (lectures.count("000"), lectures.count("002")) == (106, 142)
    assert len({(e["derivation"], e["check"]) for e in DATA["numbers"]}) >= 200


@pytest.mark.parametrize("entry", DATA["results"], ids=_id)
def test_stated_result(catalog, entry):
    derivation = catalog.get(entry["derivation"])
    assert derivation.steps and (derivation.checks or derivation.auto_identity_check)
    assert sorted({str(s) for s in derivation.claim.free_symbols}) == entry["symbols"]


@pytest.mark.parametrize("entry", DATA["reported"], ids=_id)
def test_reported_figure_beside_exact_count(entry):
    from derive.params.presets import PRESETS
    from derive.params.shapes import count

    preset = PRESETS[entry["preset"]]
    assert preset.reported == entry["reported"]
    assert preset.notes and count(preset.arch) > 0


@pytest.mark.skipif(not SEEDS.is_dir(), reason="the source lectures are not next to this checkout")
def test_printed_text_is_on_the_line():
    """Each ``printed`` text stands on its line of the lecture (minus signs and spacing normalised)."""
    files = {p.name[:3]: p.read_text(encoding="utf-8").splitlines() for p in SEEDS.glob("00[02]_*.txt")}

    def norm(s: str) -> str:
        return s.replace("−", "-").replace(" ", "").replace("\\", "")

    bad = []
    for e in DATA["numbers"] + DATA["reported"] + DATA["empirical"]:
        line = norm(files[e["lecture"]][e["line"] - 1])
        if norm(e["printed"]) not in line:
            bad.append(_id(e))
    assert not bad
