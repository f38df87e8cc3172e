"""The verification cache: hits, misses, invalidation, and the JSON round trip of reports."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from derive import Derivation, Step
from derive.cache import STATS, cache_dir, cached_verify, derivation_key, load
from derive.numeric import MonteCarloCheck
from derive.report import Report
from derive.rules import Substitute

x, y = sp.symbols("x y", real=True)


def square(last=None, rule=None, check_n=2000):
    def sampler(rng, size):
        return rng.standard_normal(size) ** 2

    return Derivation(
        name="cache.square",
        title="square of a sum",
        start=(x + y) ** 2,
        steps=(
            Step((x + y) * (x + y), "a square is a product with itself", rule=rule),
            Step(last if last is not None else x**2 + 2 * x * y + y**2, "distribute"),
        ),
        checks=(MonteCarloCheck("E[Z^2]", sampler, 1.0, n=check_n, chunk=500),),
    )


@pytest.fixture
def store(tmp_path):
    return tmp_path / "cache"


def counts():
    return STATS.hits, STATS.misses


def test_miss_then_hit_returns_the_same_report(store):
    h0, m0 = counts()
    first = cached_verify(square(), directory=store)
    assert first.ok
    assert counts() == (h0, m0 + 1)
    second = cached_verify(square(), directory=store)
    assert counts() == (h0 + 1, m0 + 1)
    assert second == first  # the stored report, timings included
    assert [s.strategy for s in second.steps] == [s.strategy for s in first.steps]


@pytest.mark.parametrize(
    "changed",
    [
        dict(last=x**2 + 2 * x * y + y**2 + 0 * x + sp.Integer(0) + (x - x)),  # same value, same srepr: a hit
    ],
)
def test_equal_expression_is_still_a_hit(store, changed):
    cached_verify(square(), directory=store)
    h0, _ = counts()
    cached_verify(square(**changed), directory=store)
    assert counts()[0] == h0 + 1


def test_changing_a_step_invalidates(store):
    cached_verify(square(), directory=store)
    wrong = square(last=x**2 + y**2)
    h0, m0 = counts()
    report = cached_verify(wrong, directory=store)
    assert counts() == (h0, m0 + 1)
    assert not report.ok and report.steps[1].counterexample is not None
    # failures are never stored: the next run verifies again
    cached_verify(wrong, directory=store)
    assert counts() == (h0, m0 + 2)


def test_key_covers_rule_checks_settings_and_assumptions():
    base = derivation_key(square(), seed=1, budget=5.0)
    assert base == derivation_key(square(), seed=1, budget=5.0)
    assert base != derivation_key(square(), seed=2, budget=5.0)
    assert base != derivation_key(square(), seed=1, budget=4.0)
    assert base != derivation_key(square(), seed=1, budget=5.0, numeric=False)
    assert base != derivation_key(square(check_n=4000), seed=1, budget=5.0)
    assert base != derivation_key(square(rule=Substitute(((y, y),), label="nothing")), seed=1, budget=5.0)
    xp = sp.Symbol("x", positive=True)
    other = square(last=(x**2 + 2 * x * y + y**2).subs(x, xp))
    assert base != derivation_key(other, seed=1, budget=5.0)


def test_sampler_closure_is_in_the_key():
    def make(scale):
        def sampler(rng, size):
            return scale * rng.standard_normal(size)

        return Derivation("cache.mc", "mc", x, (Step(x, "nothing"),),
                          checks=(MonteCarloCheck("mean", sampler, 0.0, n=100),))

    assert derivation_key(make(1.0), seed=1, budget=1.0) != derivation_key(make(2.0), seed=1, budget=1.0)


def test_corrupt_entry_is_a_miss(store):
    d = square()
    # seed and budget given here and to the key alike: the key must not depend on a default
    cached_verify(d, directory=store, seed=20170612, budget=5.0)
    key = derivation_key(d, seed=20170612, budget=5.0)
    path = next(store.rglob(f"{key}.json"))
    path.write_text("{not json")
    assert load(key, store) is None
    assert cached_verify(d, directory=store, seed=20170612, budget=5.0).ok
    assert load(key, store) is not None  # rewritten


def test_report_json_round_trip():
    d = square(last=x**2 + y**2)
    from derive.verify import verify

    report = verify(d, seed=3)
    back = Report.from_dict(json.loads(json.dumps(report.to_dict())))
    assert back.verdict == report.verdict == "refuted"
    assert back.steps == report.steps
    assert back.steps[1].counterexample == report.steps[1].counterexample
    assert [c.name for c in back.checks] == [c.name for c in report.checks]
    assert back.ok is False


def test_cache_dir_respects_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("DERIVE_CACHE_DIR", str(tmp_path / "a"))
    assert cache_dir() == tmp_path / "a"
    monkeypatch.delenv("DERIVE_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "derive"


def test_cli_cache_flag(capsys):
    from derive.cli import main

    assert main(["check", "softmax.max-trick"]) == 0
    assert main(["check", "softmax.max-trick"]) == 0
    assert "served from the cache" in capsys.readouterr().out
    assert main(["check", "--no-cache", "softmax.max-trick"]) == 0
    assert "served from the cache" not in capsys.readouterr().out


def test_plain_objects_are_keyed_by_their_attributes():
    from derive.cache import _fingerprint

    class Model:
        def __init__(self, scale):
            self.scale = scale

    assert _fingerprint(Model(1)) == _fingerprint(Model(1))  # not by address
    assert _fingerprint(Model(1)) != _fingerprint(Model(2))


def test_float_and_integer_keys_differ_and_trees_are_stable():
    from derive.cache import _fingerprint

    assert _fingerprint(x + sp.Float(1)) != _fingerprint(x + 1)
    assert _fingerprint(sp.Float(2) * x) != _fingerprint(2 * x)
    assert _fingerprint(sp.Matrix([[x, 1]])) == _fingerprint(sp.ImmutableMatrix([[x, 1]]))
    f, g = sp.Function("f"), sp.Function("g")
    assert _fingerprint(f(x)) != _fingerprint(g(x))
    assert _fingerprint(sp.Symbol("x")) != _fingerprint(x)  # assumptions count


def test_modules_in_closures_are_keyed_by_name():
    import numpy as np

    from derive.cache import _fingerprint

    def uses_numpy(seed):
        return np.zeros(1)

    fp = _fingerprint(uses_numpy)
    assert ["module", "numpy"] == fp[5][0][:2]


def test_dummies_are_keyed_by_position_not_by_process_counter():
    from derive.cache import _fingerprint

    u, v = sp.Dummy("u", real=True), sp.Dummy("u", real=True)
    assert _fingerprint(sp.Lambda(u, u**2)) == _fingerprint(sp.Lambda(v, v**2))  # as in another process
    assert _fingerprint(u + 2 * v) != _fingerprint(u + 2 * u)
    assert _fingerprint(sp.Lambda(u, u**2)) != _fingerprint(sp.Lambda(u, u**3))


def test_warm_catalog_check_builds_nothing(capsys, monkeypatch, tmp_path):
    """A second `derive check` of catalog derivations is served from the manifest: nothing is built."""
    from derive import registry
    from derive.cli import main

    monkeypatch.setenv("DERIVE_CACHE_DIR", str(tmp_path))
    assert main(["check", "example.max-trick", "--jobs", "1"]) == 0  # cites softmax.max-trick
    first = capsys.readouterr().out
    built: list[str] = []

    def build(self):
        built.append(self.name)
        return self._built

    monkeypatch.setattr(registry.Entry, "build", build)
    assert main(["check", "example.max-trick"]) == 0
    out = capsys.readouterr().out
    assert built == []
    assert "2 unchanged and passing before: served from the cache" in out
    assert [line.split()[0] for line in out.splitlines() if line.startswith(("softmax.", "example."))] == \
        [line.split()[0] for line in first.splitlines() if line.startswith(("softmax.", "example."))]
    # other settings, another manifest: built and checked as usual
    assert main(["check", "example.max-trick", "--seed", "7", "--jobs", "1"]) == 0
    assert "example.max-trick" in built
