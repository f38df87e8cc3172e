"""Symbolic verification of derivation steps.

For each step the verifier asks: does ``previous relation claimed`` hold
under the symbols' assumptions?

* If the step names a :class:`~derive.rules.Rule`, the rule is applied to the
  previous expression first and the question becomes ``rule(previous) =
  claimed`` (for an inequality step, ``rule(previous) relation claimed``).
* The gap is closed by a sequence of sympy strategies, cheapest first, under a
  per-step time budget (:data:`STRATEGIES`). The first one that reduces the
  difference to zero (or proves its sign) is recorded.
* If none closes it, :func:`derive.numeric.find_counterexample` searches for a
  point where the step fails; a confirmed point refutes it, otherwise the
  step is *undecided*. A step is never passed on numbers alone, and
  ``simplify(a - b) == 0`` is one strategy among several, not the only one.
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from .core import Derivation, Step
from .numeric import DEFAULT_SEED, IdentityCheck, derived_seed, find_counterexample
from .report import CheckResult, Report, StepResult, Verdict
from .rules import Transform
from .settings import DEFAULT_BUDGET, current, using

#: Per-step time budget for the symbolic strategies, in seconds (the default of
#: the settings in :mod:`derive.settings`; pass ``budget=`` or use ``settings.using``).
STEP_BUDGET = DEFAULT_BUDGET


class _Timeout(Exception):
    pass


@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Interrupt the body after ``seconds`` (main thread only; elsewhere no limit)."""
    if seconds <= 0 or threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise _Timeout

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _sums_normal(sp: Any, e: Any) -> Any:
    """Pull constant factors out of sums and split sums of sums (linearity of Σ)."""

    def fix(s: Any) -> Any:
        body = sp.expand(s.function, power_exp=True)
        return sp.factor_terms(sp.Sum(body, *s.limits).expand().simplify())

    return e.replace(lambda x: isinstance(x, sp.Sum), fix)


def _strategies(sp: Any) -> list[tuple[str, Callable[[Any], Any]]]:
    """The ordered list of (name, transform) tried on a difference."""
    return [
        ("structural", lambda d: d),
        ("expand", lambda d: sp.expand(d)),
        ("cancel", lambda d: sp.cancel(sp.together(d))),
        ("evaluate-derivatives", lambda d: sp.expand(d.doit(deep=True)) if d.has(sp.Derivative) else d),
        ("expand-power-exp", lambda d: sp.expand(sp.powsimp(sp.expand(d, power_exp=True)))),
        ("trigsimp-fu", lambda d: sp.trigsimp(d, method="fu")),
        ("expand-trig", lambda d: sp.expand(sp.expand_trig(sp.expand(d, trig=True)))),
        ("rewrite-exp", lambda d: sp.expand(sp.simplify(d.rewrite(sp.exp)))),
        ("powsimp-logcombine", lambda d: sp.logcombine(sp.powsimp(d))),
        ("sums", lambda d: sp.simplify(_sums_normal(sp, d))),
        ("factor-deep", lambda d: sp.factor(d, deep=True)),
        ("simplify", lambda d: sp.simplify(d)),
    ]


def _explicit(sp: Any, x: Any) -> Any:
    """Matrix expressions (products written unevaluated for display) as explicit matrices.

    Matrix symbols of symbolic shape (n×n) cannot be written out: they stay
    matrix expressions, evaluated with ``doit``.
    """
    if isinstance(x, sp.MatrixExpr) and not isinstance(x, sp.MatrixBase):
        done = x.doit()
        try:
            return sp.ImmutableMatrix(done)
        except (ValueError, TypeError):
            return done
    return x


def _is_zero(sp: Any, value: Any) -> bool:
    if isinstance(value, sp.MatrixBase):
        return all(_is_zero(sp, v) for v in value)
    if isinstance(value, sp.MatrixExpr):
        return isinstance(value, sp.ZeroMatrix) or value.is_ZeroMatrix is True
    return value == 0 or value.is_zero is True


def _sign_ok(sp: Any, d: Any, relation: str) -> bool:
    """Does the transformed difference ``d = after - before`` have the sign the relation needs?"""
    if isinstance(d, sp.MatrixBase):
        return False
    want = {"<=": "is_nonnegative", "<": "is_positive", ">=": "is_nonpositive", ">": "is_negative"}[relation]
    if getattr(d, want) is True:
        return True
    # a - b with a, b > 0: compare logarithms (exp and log are increasing)
    if isinstance(d, sp.Add) and len(d.args) == 2:
        pos = [t for t in d.args if not t.could_extract_minus_sign()]
        neg = [-t for t in d.args if t.could_extract_minus_sign()]
        if len(pos) == 1 and len(neg) == 1 and pos[0].is_positive and neg[0].is_positive:
            ld = sp.expand_log(sp.log(pos[0]) - sp.log(neg[0]))
            if getattr(sp.simplify(ld), want) is True:
                return True
    # Σ f - Σ g over the same range: compare term by term
    if isinstance(d, sp.Add) and len(d.args) == 2:
        sums = [t for t in d.args if isinstance(t, sp.Sum)]
        negs = [-t for t in d.args if isinstance(-t, sp.Sum)]
        if len(sums) == 1 and len(negs) == 1 and sums[0].limits == negs[0].limits:
            # only for ranges of non-negative length: sympy's Sum over upper < lower - 1 is minus
            # the sum over the reversed range, which flips a termwise inequality
            lengths_ok = all((hi - lo + 1).is_nonnegative is True for _, lo, hi in sums[0].limits)
            if lengths_ok and relation in ("<=", ">="):
                return _sign_ok(sp, sp.simplify(sums[0].function - negs[0].function), relation)
    return False


#: How many of the first (cheap) strategies run before the quick counterexample probe.
QUICK_STRATEGIES = 3


def prove_relation(before: Any, after: Any, relation: str = "=", budget: float = STEP_BUDGET,
                   *, first: int = 0, last: int | None = None) -> tuple[bool, str]:
    """Try to prove ``before relation after`` symbolically.

    Args:
        before, after: sympy expressions or matrices of the same shape.
        relation: ``"="`` or an inequality; for ``"<="`` the claim is
            ``before <= after``.
        budget: seconds for all strategies together.
        first, last: run only strategies ``first:last`` of the ordered list
            (the verifier runs the cheap ones, probes for a counterexample,
            then runs the rest).

    Returns:
        ``(proved, strategy)`` where ``strategy`` names what closed the gap,
        or lists what was tried.
    """
    import sympy as sp

    before, after = _explicit(sp, before), _explicit(sp, after)
    if isinstance(before, sp.MatrixBase) != isinstance(after, sp.MatrixBase):
        return False, "shape mismatch (matrix vs scalar)"
    if isinstance(before, sp.MatrixBase) and before.shape != after.shape:
        return False, f"shape mismatch {before.shape} vs {after.shape}"
    if relation == "=" and before == after:
        return True, "structural"
    diff = after - before
    if isinstance(diff, sp.MatrixBase):
        diff = sp.ImmutableMatrix(diff)
    tried: list[str] = []
    deadline = time.perf_counter() + budget
    for name, fn in _strategies(sp)[first:last]:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            tried.append("(budget spent)")
            break
        tried.append(name)
        try:
            with _time_limit(remaining):
                if isinstance(diff, sp.MatrixBase):
                    out = diff.applyfunc(fn)
                else:
                    out = fn(diff)
        except _Timeout:
            tried[-1] = f"{name} (timed out)"
            break
        except Exception:  # noqa: BLE001 - a strategy that cannot handle the input just fails
            continue
        if relation == "=":
            if _is_zero(sp, out):
                return True, name
        elif _sign_ok(sp, out, relation):
            return True, name
    return False, "tried " + ", ".join(tried)


def _value_changed(before: Any, after: Any, seed: int) -> Any:
    """A confirmed point where ``after`` differs from ``before``, or ``None`` (also when it cannot tell)."""
    try:
        cex, _ = find_counterexample(before, after, "=", seed=seed)
    except Exception:  # noqa: BLE001 - no evidence either way
        return None
    return cex


def verify_step(
    before: Any,
    step: Step,
    *,
    index: int = 1,
    seed: int = DEFAULT_SEED,
    budget: float = STEP_BUDGET,
) -> StepResult:
    """Check one step against the previous expression.

    Returns:
        A :class:`~derive.report.StepResult` with the verdict, the strategy
        that closed the step (prefixed by the rule when there is one), the
        seed of its counterexample search, and a counterexample when refuted.
    """
    t0 = time.perf_counter()
    target = before
    prefix = ""
    if step.rule is not None:
        prefix = step.rule.describe() + " → "
        allowed = getattr(step.rule, "relations", None)
        if allowed is not None and step.relation not in allowed:
            return StepResult(index, Verdict.UNDECIDED, prefix + "rule not applicable", time.perf_counter() - t0,
                              detail=f"the rule justifies only {', '.join(allowed)} steps, not {step.relation!r}")
        try:
            target = step.rule.apply(before)
        except Exception as exc:  # noqa: BLE001
            return StepResult(index, Verdict.UNDECIDED, prefix + "rule failed", time.perf_counter() - t0,
                              detail=f"{type(exc).__name__}: {exc}", seed=seed)
    # the rule's output must equal the claim; the relation applies to the step as a whole
    # (with a rule, the rule's output is what the step must match: a rule may
    # use a premise, e.g. a reparametrisation, that the raw expressions lack)
    if isinstance(step.rule, Transform):
        # a Transform runs any callable: it is trusted to preserve value only if no point shows otherwise
        changed = _value_changed(before, target, seed)
        if changed is not None:
            return StepResult(index, Verdict.REFUTED, prefix + "the transform changed the value",
                              time.perf_counter() - t0, counterexample=changed, seed=seed,
                              detail="a Transform must return an expression equal to its input")
    started = time.perf_counter()
    proved, strategy = prove_relation(target, step.expr, step.relation, budget, last=QUICK_STRATEGIES)
    if proved:
        return StepResult(index, Verdict.PROVED, prefix + strategy, time.perf_counter() - t0, seed=seed)
    try:
        # a false step usually shows at float precision: refute it now rather
        # than spend the whole budget on strategies that cannot succeed
        # (a probe that cannot evaluate the step decides nothing: go on proving)
        try:
            cex, _ = find_counterexample(target, step.expr, step.relation, seed=seed)
        except Exception:  # noqa: BLE001
            cex = None
        if cex is not None:
            return StepResult(index, Verdict.REFUTED, prefix + strategy + " (then refuted numerically)",
                              time.perf_counter() - t0, counterexample=cex, seed=seed)
        if strategy.startswith("shape mismatch"):
            return StepResult(index, Verdict.REFUTED if cex else Verdict.UNDECIDED, prefix + strategy,
                              time.perf_counter() - t0, seed=seed, detail="the two sides have different shapes")
        remaining = budget - (time.perf_counter() - started)
        proved, more = prove_relation(target, step.expr, step.relation, max(remaining, 0.0),
                                      first=QUICK_STRATEGIES)
        strategy = more if proved else strategy + ", " + more.removeprefix("tried ")
        if proved:
            return StepResult(index, Verdict.PROVED, prefix + strategy, time.perf_counter() - t0, seed=seed)
        # not proved: search again, confirming every point at high precision
        # (the float screen alone would let a claim off by 1e-30 through)
        cex, evaluated = find_counterexample(target, step.expr, step.relation, seed=seed, confirm_all=True)
    except Exception as exc:  # noqa: BLE001 - a search that cannot run decides nothing
        return StepResult(index, Verdict.UNDECIDED, prefix + strategy, time.perf_counter() - t0,
                          detail=f"counterexample search failed ({type(exc).__name__}: {exc}); not proved", seed=seed)
    if cex is not None:
        return StepResult(index, Verdict.REFUTED, prefix + strategy, time.perf_counter() - t0, counterexample=cex,
                          seed=seed)
    detail = (f"no counterexample at {evaluated} random points; not proved"
              if evaluated else "could not be evaluated numerically; not proved")
    return StepResult(index, Verdict.UNDECIDED, prefix + strategy, time.perf_counter() - t0, detail=detail,
                      seed=seed)


def verify(
    derivation: Derivation,
    *,
    seed: int | None = None,
    budget: float | None = None,
    numeric: bool = True,
    atol: float | None = None,
    rtol: float | None = None,
) -> Report:
    """Verify every step of ``derivation`` and run its numeric cross-checks.

    Args:
        derivation: the derivation to check.
        seed: base seed; each step and check derives its own seed from it and
            the derivation's name, and reports it.
        budget: per-step symbolic time budget in seconds.
        numeric: run the cross-checks (the counterexample search of failing
            steps runs regardless).
        atol, rtol: tolerances of the float64 screen of identity checks.

    Arguments left as ``None`` take the active settings (:func:`derive.settings.current`;
    defaults: seed 20170612, budget 5 s, atol 1e-12, rtol 1e-9).

    Returns:
        A :class:`~derive.report.Report`; ``report.ok`` is true only if every
        step is proved and every cross-check passed.

    Raises:
        InputError: a setting out of range (negative seed, budget ≤ 0, ...).
    """
    if not isinstance(derivation, Derivation):
        from .exceptions import InputError

        raise InputError(f"expected a Derivation, got {type(derivation).__name__}")
    settings = current().merged(seed=seed, budget=budget, atol=atol, rtol=rtol)
    with using(settings):
        return _verify(derivation, settings.seed, settings.budget, numeric)


def _verify(derivation: Derivation, seed: int, budget: float, numeric: bool) -> Report:
    t0 = time.perf_counter()
    results: list[StepResult] = []
    before = derivation.start
    for k, step in enumerate(derivation.steps, 1):
        step_seed = derived_seed(seed, derivation.name, f"step{k}")
        step_t0 = time.perf_counter()
        try:
            results.append(verify_step(before, step, index=k, seed=step_seed, budget=budget))
        except Exception as exc:  # noqa: BLE001 - a step the verifier cannot handle is undecided, never a crash
            results.append(StepResult(k, Verdict.UNDECIDED, "verifier failed", time.perf_counter() - step_t0,
                                      detail=f"{type(exc).__name__}: {exc}; not proved", seed=step_seed))
        before = step.expr
    checks: list[CheckResult] = []
    if numeric:
        all_checks = list(derivation.checks)
        auto = derivation.auto_identity_check
        if auto:
            all_checks.insert(0, IdentityCheck(derivation.start, derivation.end, name="claim at random points",
                                               relation=derivation.relation))
        for k, check in enumerate(all_checks, 1):
            check_seed = derived_seed(seed, derivation.name, f"check{k}")
            try:
                result = check.run(check_seed)
                if k == 1 and auto and result.figures.get("points") == 0:
                    continue  # the claim involves operators with no numeric value: rely on its own checks
                checks.append(result)
            except Exception as exc:  # noqa: BLE001 - a crashing check is a failed check
                checks.append(CheckResult(getattr(check, "name", "check"), False, {"seed": check_seed},
                                          f"check raised {type(exc).__name__}: {exc}"))
    return Report(derivation.name, tuple(results), tuple(checks), time.perf_counter() - t0, seed=seed)
