"""verify_many: the same reports whether verified here, in worker processes, or served from the cache."""

from __future__ import annotations

import sympy as sp

from derive import Derivation, Step
from derive.batch import verify_many
from derive.cache import STATS

x, y = sp.symbols("x y", real=True)


def chain(name, last):
    return Derivation(name=name, title=name, start=(x + y) ** 2,
                      steps=(Step((x + y) * (x + y), "square"), Step(last, "distribute")))


def test_pool_gives_the_serial_reports_in_order(tmp_path, monkeypatch):
    monkeypatch.setenv("DERIVE_CACHE_DIR", str(tmp_path))
    ds = [chain("batch.right", x**2 + 2 * x * y + y**2), chain("batch.wrong", x**2 + y**2),
          chain("batch.right-too", (x + y) ** 2)]
    serial = verify_many(ds, jobs=1, cache=False)
    pooled = verify_many(ds, jobs=2, cache=False)
    assert [r.name for r in pooled] == [d.name for d in ds]
    assert [str(r.verdict) for r in pooled] == ["proved", "refuted", "proved"]
    for a, b in zip(serial, pooled, strict=True):
        assert [(s.verdict, s.strategy, s.counterexample) for s in a.steps] == \
               [(s.verdict, s.strategy, s.counterexample) for s in b.steps]
        assert [(c.name, c.passed, c.figures.get("points")) for c in a.checks] == \
               [(c.name, c.passed, c.figures.get("points")) for c in b.checks]


def test_cache_serves_passing_reports_only(tmp_path, monkeypatch):
    monkeypatch.setenv("DERIVE_CACHE_DIR", str(tmp_path))
    ds = [chain("batch.right", x**2 + 2 * x * y + y**2), chain("batch.wrong", x**2 + y**2)]
    first = verify_many(ds, jobs=2)
    hits = STATS.hits
    second = verify_many(ds, jobs=2)
    assert STATS.hits == hits + 1  # the passing one; the refuted one is verified again
    assert second[0] == first[0]
    assert not second[1].ok and second[1].steps[1].counterexample is not None
