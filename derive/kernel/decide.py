"""The verdict of one step: the only place in derive that issues ``Verdict.PROVED``.

A step ``before R claimed`` (R its relation, a rule optional) is decided so:

1. **Rule.** A primitive rule (:mod:`derive.kernel.primitives`) is applied by
   the kernel after its side conditions are checked on this expression; the
   goal becomes ``rule(before) R claimed``. Any other rule only proposes an
   expression p: the kernel proves ``before = p`` with its strategies and then
   ``p R claimed``; if it cannot, it tries ``before R claimed`` directly. A
   rule that raises or runs out of time proposes nothing.
2. **Symbolic proof** (:mod:`derive.kernel.strategies`). After the cheap
   closers, a quick numeric probe looks for an obvious counterexample so a
   false step does not spend the whole budget.
3. **Witness** (:mod:`derive.kernel.witness`). A symbolic proof stands only if
   mpmath, evaluating both sides from their definitions at random and special
   points, does not contradict it; if the proof relied on sympy's ``doit()``
   (an integral, a limit, a closed-form sum), the witness must also have
   agreed at one point at least. A contradiction is reported as a **kernel
   disagreement** (undecided: one of the two evaluators is wrong, and it may
   be the witness). Where sympy took a limit and the
   numeric limit at a special point disagrees with it, the step is not proved
   and goes to the counterexample search.
4. **Refutation** needs a point whose gap is stable from 60 to 120 digits.
   Anything else is undecided, with the reason.

The symbolic work (rule, side conditions, strategies) is chosen by the size of the
expressions (:mod:`derive.kernel.strategies`), never by time: the step's budget of
CPU time, and a backstop of ``limits.BACKSTOP`` (5 s) on each
sympy call, only stop a hang, so the verdict does not depend on how fast or how
loaded the machine is. The numeric phases (the
witness of a proof, the counterexample search) are bounded by a count of
evaluated nodes, the same on every machine, and run in a reserve of
:data:`NUMERIC_RESERVE` × the budget (at least :data:`NUMERIC_FLOOR` s) of their own, which the symbolic work
cannot spend: a false step whose strategies used their whole budget is still
searched, and a proof is still witnessed. A proof whose witness cannot finish
is not proved. A step that hits a limit is undecided and names the phase.
"""

from __future__ import annotations

from typing import Any

from ..report import Counterexample, StepResult, Verdict
from . import domain, hypotheses, limits, primitives, strategies, witness

#: CPU time reserved for the numeric phases (witness, counterexample search) beyond the symbolic budget,
#: as a multiple of the budget: they never run in what the symbolic strategies left over, so whether a
#: step is refuted or witnessed does not depend on how fast its strategies ran on this machine.
NUMERIC_RESERVE = 1.0
#: ... and never less than this many CPU seconds (a small symbolic budget does not starve the numeric checks).
NUMERIC_FLOOR = 5.0


def _confirm(lhs: Any, rhs: Any, relation: str, seed: int, everywhere: bool,
             hyps: hypotheses.Hypotheses) -> witness.Witness:
    return witness.confirm(lhs, rhs, relation, seed, everywhere=everywhere, hyps=hyps)


def hypotheses_of(ctx: primitives.Context) -> hypotheses.Hypotheses:
    """The hypotheses a context declares (:mod:`derive.kernel.hypotheses`), with the context's own
    consistency check (circular declarations, declarations the assumptions refute) folded in."""
    try:
        key = (tuple(ctx.definitions), tuple(ctx.premises))
        hit = _HYPOTHESES.get(key)
    except TypeError:  # an unhashable declaration (a mutable Matrix)
        key, hit = None, None
    if hit is not None:
        return hit
    hyps = hypotheses.of(ctx.definitions, ctx.premises)
    if not hyps.empty and not hyps.contradiction:
        why = ctx.inconsistency()
        if why:
            hyps = hypotheses.Hypotheses(hyps.eliminations, hyps.checks, hyps.domains, hyps.shown, why,
                                         hyps.unusable)
    if key is not None:
        if len(_HYPOTHESES) > 256:
            _HYPOTHESES.clear()
        _HYPOTHESES[key] = hyps
    return hyps


#: the hypotheses of a context by (definitions, premises): both the hypotheses and the context's consistency
#: check are functions of the declarations alone, and every step of a derivation asks again
_HYPOTHESES: dict = {}


def _cex(res: witness.PointResult) -> Counterexample:
    return witness.counterexample(res)


def check_step(before: Any, step: Any, *, index: int, seed: int, budget: float,
               ctx: primitives.Context | None = None) -> StepResult:
    """Decide one step of a derivation (see the module docstring).

    Args:
        before: the previous expression of the chain.
        step: a :class:`~derive.core.Step`.
        index: the step's 1-based number, for the result.
        seed: seed of the witness's random points.
        budget: CPU seconds for the symbolic work of the step; the numeric phases have
            :data:`NUMERIC_RESERVE` × ``budget`` more, at least :data:`NUMERIC_FLOOR` seconds (hard: the
            step never runs longer than the two together, up to the limit's granularity).
        ctx: what the derivation declares (definitions, premises).

    Returns:
        A :class:`~derive.report.StepResult`.
    """
    ctx = ctx or primitives.Context()
    t0, c0 = limits.time.perf_counter(), limits.cpu_time()
    phase = ["start"]

    def done(verdict: Verdict, strategy: str, **kw: Any) -> StepResult:
        if kw.get("counterexample") is not None and not hyps.empty:
            kw["detail"] = "; ".join(x for x in (kw.get("detail", ""), "the point satisfies the premises "
                                                 + hyps.describe()) if x)
        return StepResult(index, verdict, strategy, limits.time.perf_counter() - t0, seed=seed,
                          cpu_seconds=limits.cpu_time() - c0, **kw)

    hyps = hypotheses.NONE
    try:
        with limits.limit(budget + max(NUMERIC_RESERVE * budget, NUMERIC_FLOOR), "the step"):
            phase[0] = "the premises"
            hyps = hypotheses_of(ctx)
            refusal = hyps.refusal() if not hyps.empty else ""
            if refusal:
                return done(Verdict.UNDECIDED, "premises refused" if hyps.contradiction else "premises unsatisfied",
                            detail=refusal + "; nothing is proved under them")
            return _decide(before, step, budget, seed, ctx, phase, done, hyps)
    except limits.TimeLimit:
        return done(Verdict.UNDECIDED, f"time limit ({phase[0]})",
                    detail=f"the step's time limit ({budget:g} s CPU and the numeric reserve) was reached in "
                           f"{phase[0]}; not proved")
    except RecursionError:
        return done(Verdict.UNDECIDED, f"recursion limit ({phase[0]})",
                    detail=f"expression too deep for {phase[0]}; not proved")
    except Exception as exc:  # noqa: BLE001 - sympy raises many types; a failure is never evidence
        return done(Verdict.UNDECIDED, f"internal error ({phase[0]})",
                    detail=f"{type(exc).__name__} in {phase[0]}: {str(exc)[:160]}; not proved")


def _decide(before: Any, step: Any, budget: float, seed: int, ctx: primitives.Context, phase: list,
            done: Any, hyps: hypotheses.Hypotheses) -> StepResult:
    claimed, relation, rule = step.expr, step.relation, step.rule
    vacuous = _structurally_same(before, claimed)
    prefix = ""
    notes: list[str] = []
    target, lhs_for_witness = before, before
    used_doit: list[str] = []
    found: list = []
    proof = strategies.Proof(False, "no strategy finished")
    def symbolic() -> StepResult | None:
        """The rule, its side conditions and the symbolic strategies (a result only if the step ends here)."""
        nonlocal prefix, target, lhs_for_witness, used_doit, proof
        display = getattr(step, "display", None)
        if display is not None:
            phase[0] = "the display form"
            shown = strategies.prove(display, claimed, "=", doit=False)
            if not (shown.proved and not shown.used_doit):
                return done(Verdict.UNDECIDED, "display form not proved equal",
                            detail="the step's display form is not proved equal to its expression, so the step would "
                                   "show another claim than the one checked; not proved", vacuous=vacuous)
        if rule is not None:
            prefix = rule.describe() + " → "
            allowed = getattr(rule, "relations", None)
            if allowed is not None and relation not in allowed:
                return done(Verdict.UNDECIDED, prefix + "rule not applicable",
                            detail=f"the rule justifies only {', '.join(allowed)} steps, not {relation!r}")
            if primitives.is_primitive(rule):
                phase[0] = f"the side conditions of {rule.name}"

                def prove_equal(a: Any, b: Any) -> bool:
                    p = strategies.prove(a, b, "=", doit=False)
                    return p.proved and not p.used_doit

                try:
                    reason = primitives.check(rule, before, ctx, prove_equal, relation)
                except (ValueError, TypeError, AttributeError, NotImplementedError, ArithmeticError) as exc:
                    reason = f"its side conditions could not be checked ({type(exc).__name__})"
                if reason is not None and type(rule) is primitives.Lemma:
                    # a citation is the author's proof of the step: if it does not apply, the step is not proved
                    return done(Verdict.UNDECIDED, prefix + "lemma not applicable",
                                detail=f"{reason}; not proved", vacuous=vacuous)
                if reason is not None:
                    # outside its conditions the rule is no evidence: the step must stand without it
                    notes.append(_not_applicable(rule, reason))
                    prefix = rule.describe() + " (not applicable) → "
            if primitives.is_primitive(rule) and not notes:
                phase[0] = f"applying {rule.name}"
                ok, out = limits.run_limited(limits.BACKSTOP, phase[0], _call, primitives.apply, rule, before, ctx)
                if not ok or isinstance(out, _Failed):
                    why = "ran out of time" if not ok else out.reason
                    return done(Verdict.UNDECIDED, prefix + "rule failed", detail=f"{why}; not proved", vacuous=vacuous)
                target = lhs_for_witness = out
            elif not primitives.is_primitive(rule):
                phase[0] = f"the rule {rule.name} (a proposal)"
                ok, out = limits.run_limited(limits.BACKSTOP, phase[0], _call, type(rule).apply, rule, before)
                if not ok or isinstance(out, _Failed):
                    why = "ran out of time" if not ok else out.reason
                    notes.append(f"the rule proposed nothing ({why})")
                elif out != before:
                    phase[0] = "proving the rule's proposal equal to its input"
                    p = strategies.prove(before, out, "=")
                    if p.proved:
                        target = out
                        used_doit += p.used_doit
                        notes.append(f"proposal proved equal to the input by {p.strategy}")
                    else:
                        notes.append("the rule's proposal was not proved equal to its input; the step is proved "
                                     "without it")
        # the symbolic proof, with a quick probe for an obvious counterexample
        phase[0] = "the symbolic strategies"

        def probe() -> bool:
            """After the cheap closers: is there an obvious counterexample (stable from 60 to 120 digits)?"""
            phase[0] = "the quick counterexample probe"
            # bounded by a count of evaluated nodes (the same points on every machine); the time limit is a
            # backstop against a hang only
            ok, w = limits.run_limited(limits.BACKSTOP, phase[0], witness.quick_search, lhs_for_witness, claimed,
                                       relation, seed, hyps)
            phase[0] = "the symbolic strategies"
            if ok and w.differ is not None:
                again = witness.compare_at(lhs_for_witness, claimed, relation, w.differ.point, witness.SEARCH_DIGITS,
                                           limits_allowed=False, hyps=hyps)
                if again.status == "differ":
                    found.append(again)
                    return True
            return False

        evaluates = rule is not None and not primitives.is_primitive(rule)  # e.g. Evaluate: closed forms first
        proof = strategies.prove(target, claimed, relation, probe=probe, operators_first=evaluates)
        if not proof.proved and not found and hyps.usable:
            # the premises: exact eliminations substituted, bounds written s = c ± t (sound uses only)
            phase[0] = "the symbolic strategies under the premises"
            t2, c2 = hyps.specialise(target), hyps.specialise(claimed)
            if (t2, c2) != (target, claimed):
                second = strategies.prove(t2, c2, relation, operators_first=evaluates)
                if second.proved:
                    proof = strategies.Proof(True, "under the premises → " + second.strategy, second.used_doit)
        return None

    ok, early = limits.run_limited(budget, "the symbolic work", symbolic)
    if ok and early is not None:
        return early
    if not ok:  # the symbolic budget is spent: the numeric phases still run, in their own reserve
        proof = strategies.Proof(False, f"the symbolic budget of {budget:g} s CPU was spent in {phase[0]}",
                                 proof.used_doit, (phase[0],))
    if found:
        return done(Verdict.REFUTED, prefix + proof.strategy + " (then refuted numerically)",
                    counterexample=_cex(found[0]), detail="; ".join(notes), vacuous=vacuous)
    used_doit += proof.used_doit
    strategy = prefix + proof.strategy
    if proof.proved:
        phase[0] = "the numeric witness"
        # sympy's limits and integrals hold for generic values of the other symbols: the special points
        # (where an integral may diverge, a limit jump) must then be evaluated too
        took_limit = any("Limit" in op or "Integral" in op for op in used_doit)
        ok, w = limits.run_limited(max(limits.remaining() - 0.05, 0.05), phase[0], _confirm,
                                   lhs_for_witness, claimed, relation, seed, took_limit, hyps)
        if not ok:
            # the witness is bounded by a count of evaluated nodes and has its own reserve: a witness that
            # still cannot finish leaves the proof unchecked, on every machine alike
            return done(Verdict.UNDECIDED, strategy + " (witness ran out of time)",
                        detail=(f"sympy closed the step by {proof.strategy}, but the numeric witness ran out of "
                                "time before it could check the proof; not proved"), vacuous=vacuous)
        if w.differ is not None and "side is undefined at" in w.differ.reason:
            at = _parameter_value(w.differ.point)
            if at is not None:
                # at a special value or a breakpoint of one symbol (where an integral diverges, a limit
                # jumps): sympy's result holds for generic values of it, the step only off a set of it
                name, value, kind = at
                side = "left" if w.differ.reason.startswith("the left") else "right"
                return done(Verdict.UNDECIDED, strategy + f" (holds only off a set of {name})",
                            detail=(f"sympy closed the step by {proof.strategy}, a result for generic values of "
                                    f"{name}, but the {side} side is undefined at {name} = {value} ({kind}), the "
                                    f"other is not: the step holds only off a set of {name}; not proved"),
                            witness=w.summary(), vacuous=vacuous)
            return done(Verdict.UNDECIDED, strategy + " (kernel disagreement)",
                        detail=(f"KERNEL DISAGREEMENT: sympy closed the step by {proof.strategy}, but "
                                f"{w.differ.reason} (the two sides differ on a region); not proved"),
                        witness=w.summary(), vacuous=vacuous)
        if w.differ is not None:
            phase[0] = "re-checking a disagreement"
            again = witness.compare_at(lhs_for_witness, claimed, relation, w.differ.point, witness.SEARCH_DIGITS,
                                       hyps=hyps)
            if again.status == "differ":
                # one of the two evaluators is wrong, and the witness can be (a quadrature, a numeric limit):
                # a disagreement is never a refutation by itself
                return done(Verdict.UNDECIDED, strategy + " (kernel disagreement)", counterexample=_cex(again),
                            detail=("KERNEL DISAGREEMENT: sympy closed the step by " + proof.strategy
                                    + ", but mpmath evaluates the two sides differently at a point (stable from "
                                    f"{witness.SEARCH_DIGITS[0]} to {witness.SEARCH_DIGITS[-1]} digits); "
                                    "not proved"),
                            witness=w.summary(), vacuous=vacuous)
            return done(Verdict.UNDECIDED, strategy + " (kernel disagreement)",
                        detail=(f"sympy closed the step by {proof.strategy}, but mpmath evaluates the two sides "
                                f"differently at a point, by a gap that is not stable as the precision grows "
                                f"({again.reason or again.status}); not proved"),
                        witness=w.summary(), vacuous=vacuous)
        summary = w.summary()
        if not w.evaluated and w.outside and w.not_evaluable.startswith(witness.NO_ADMISSIBLE_POINT):
            # the derivation's hypotheses are satisfiable, but no point of this step's witness satisfied them:
            # the proof is unchecked on the region the step is about
            return done(Verdict.UNDECIDED, strategy + " (no admissible point)",
                        detail=(f"sympy closed the step by {proof.strategy}, but none of the {w.outside} points of its "
                                "witness satisfied the premises and definitions, so the proof could not be checked "
                                "numerically; not proved"), witness=summary, vacuous=vacuous)
        if took_limit and w.doubtful:
            # sympy's limit holds for generic values; at a special point the numeric limit disagrees with it:
            # not proved. That point first, as the counterexample search would (sympy's limit at the exact
            # point must agree with the numeric one, and the gap be stable from 60 to 120 digits)
            phase[0] = "re-checking a doubted point"
            again = witness.compare_at(lhs_for_witness, claimed, relation, w.doubted_at, witness.SEARCH_DIGITS,
                                       limits_allowed=False, hyps=hyps) if w.doubted_at is not None else None
            if again is not None and again.status == "differ" and not hyps.unusable:
                return done(Verdict.REFUTED, strategy + " (refuted where the witness doubted it)",
                            counterexample=_cex(again), witness=w.summary(), vacuous=vacuous,
                            detail=(f"sympy closed the step by {proof.strategy}, a limit for generic values; at this "
                                    "point sympy's own limit and the numeric one agree with each other and not "
                                    "with the step"))
            phase[0] = "the numeric witness"
            notes.append(f"sympy closed the step by {proof.strategy}, but at {w.doubtful} special point(s) the "
                         "numeric limit disagrees with its closed form")
            strategy += " (doubted by the witness)"
        elif used_doit and w.agreed == 0:
            ops = ", ".join(dict.fromkeys(used_doit))
            return done(Verdict.UNDECIDED, strategy + " (unconfirmed doit)",
                        detail=(f"the proof used sympy's doit() on {ops}, and the independent evaluation could not "
                                f"confirm it ({summary}); not proved"),
                        witness=summary, vacuous=vacuous)
        else:
            detail = "; ".join(notes + (["vacuous: the expression is the previous one"] if vacuous else []))
            excluded = domain.excluded(lhs_for_witness, claimed, hyps)
            return done(Verdict.PROVED, strategy, detail=detail, witness=summary, vacuous=vacuous,
                        excluded=excluded)
    # not proved: look for a counterexample that is stable as the precision grows
    phase[0] = "the counterexample search"
    ok, w = limits.run_limited(max(limits.remaining() - 0.05, 0.05), phase[0], _search,
                               lhs_for_witness, claimed, relation, seed, hyps)
    if ok and w.differ is not None:
        return done(Verdict.REFUTED, strategy, counterexample=_cex(w.differ), witness=w.summary(),
                    detail="; ".join(notes), vacuous=vacuous)
    why = []
    if proof.timed_out:
        why.append("timed out: " + ", ".join(proof.timed_out))
    if strategy.startswith(prefix + "shape mismatch"):
        why.append("the two sides have different shapes")
    if not ok:
        why.append("the counterexample search ran out of time")
    elif w.evaluated and not notes and not why:
        # nothing refutes it and no rule was misused: say what the author can do before what was tried
        why.append(f"no strategy closed the step and no counterexample at {w.evaluated} points ({w.special} special"
                   + (f", {w.unknown} undecidable" if w.unknown else "") + "): split it into smaller steps, name the "
                   "rule it follows from (Substitute, Evaluate, Transform, ...), or declare the premise it relies on "
                   "(premises=...)")
    elif w.evaluated:
        why.append(f"no counterexample at {w.evaluated} points ({w.special} special"
                   + (f", {w.unknown} undecidable" if w.unknown else "") + ")")
    else:
        why.append("could not be evaluated numerically" + (f" ({w.not_evaluable})" if w.not_evaluable else ""))
    return done(Verdict.UNDECIDED, strategy, detail="; ".join(notes + why) + "; not proved",
                witness=w.summary() if ok else "", vacuous=vacuous)


def _parameter_value(point: Any) -> tuple[str, str, str] | None:
    """``(symbol, value, kind)`` of a special or breakpoint point (one symbol set to a special value, or to
    where a limit, an integral or a kink changes), ``None`` for a random one."""
    kind, _, rest = point.label.partition(" ")
    if kind not in ("special", "breakpoint") or " = " not in rest:
        return None
    name, _, value = rest.partition(" = ")
    return name, value, "a breakpoint" if kind == "breakpoint" else "a special value"


def _not_applicable(rule: Any, reason: str) -> str:
    """The actionable first words of a step whose primitive rule's side condition failed: the rule, the
    condition, and what would make it hold."""
    text = f"{rule.name} does not apply: {reason}"
    if "not declared" in reason or "neither declared" in reason:
        text += " (declare it among the derivation's premises or definitions)"
    return text + "; the step was checked without the rule"


def _search(lhs: Any, rhs: Any, relation: str, seed: int, hyps: hypotheses.Hypotheses) -> witness.Witness:
    return witness.search(lhs, rhs, relation, seed, hyps=hyps)


class _Failed:
    def __init__(self, reason: str) -> None:
        self.reason = reason


def _call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except limits.TimeLimit:
        raise
    except Exception as exc:  # noqa: BLE001 - an untrusted rule may raise anything: it then proposes nothing
        return _Failed(f"{type(exc).__name__}: {exc}")


def _structurally_same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return False


#: Random points of the claim's search: every step's witness already agreed at random points, so the
#: search spends its work on the special and breakpoint values, where measure-zero exceptions sit.
CLAIM_RANDOM = 1


def check_claim(start: Any, end: Any, relation: str, seed: int, budget: float,
                ctx: primitives.Context | None = None, chain: tuple = ()) -> str:
    """Search the claim ``start relation end`` itself for a counterexample, once every step is proved.

    Each step may be an identity everywhere except on a set of measure zero (x/x = 1 fails at x = 0),
    and so may be their composition, but the exceptions of consecutive steps can hide a point where the
    claim's two sides both have values and differ (lim_{x→0} x/(x + y) = 0 except at y = 0, where it is 1).
    The counterexample search at the special and breakpoint values of the symbols finds such a point.

    The search is skipped only when ``chain`` (the ``(expression, relation)`` of every proved step, in
    order) shows that no step has an exceptional set: see :func:`chain_implies_claim`.

    Returns:
        ``""`` if no stable counterexample was found (or the search ran out of its ``budget`` CPU seconds),
        else one line naming the point.
    """
    exprs = [start, end]
    if not any(getattr(e, "free_symbols", None) for e in exprs):
        return ""  # a constant claim: every step's witness already evaluated it
    hyps = hypotheses_of(ctx) if ctx is not None else hypotheses.NONE
    if chain and hyps.empty and chain_implies_claim(start, chain):
        return ""
    try:
        with limits.limit(budget, "the claim's counterexample search"):
            w = witness.search(start, end, relation, seed, n_random=CLAIM_RANDOM, hyps=hyps)
    except limits.TimeLimit:
        return ""
    except Exception:  # noqa: BLE001 - a failed search is no counterexample
        return ""
    if w.differ is None:
        return ""
    cex = _cex(w.differ)
    where = ", ".join(f"{k} = {v}" for k, v in cex.point.items())
    under = f" (a point satisfying the premises {hyps.describe()})" if not hyps.empty else ""
    return (f"the claim is refuted at {where}{under} ({cex.lhs} vs {cex.rhs}) although every step was proved: "
            "the steps' exceptions on a set of measure zero hide a point where the claim fails; not proved")


#: functions continuous on the whole complex plane (entire), whose arguments the claim's search may skip
_ENTIRE = ("exp", "sin", "cos", "sinh", "cosh", "erf")


def chain_implies_claim(start: Any, chain: tuple) -> bool:
    """Do the proved steps ``start R₁ e₁ R₂ e₂ …`` (``chain`` = ``((e₁, R₁), …)``) imply the claim at every point?

    A proved step holds where both its sides are defined, and its proof may hold for generic values only
    (sympy's algebra): the exceptions are a set of measure zero. When every expression of the chain is
    defined and continuous at every point of the symbols' domains — built from numbers, symbols and
    elements ``z[i]`` by +, ×, powers with a constant non-negative integer exponent or a constant positive
    base, and the entire functions exp, sin, cos, sinh, cosh, erf; no symbol outside an element's indices
    with integer values (a domain whose points are isolated) — each step holds on a dense set and so, by
    continuity, everywhere; with relations ``=``, ``≤``, ``≥`` only (a strict inequality does not survive
    the limit), the chain then implies the claim everywhere and a counterexample search of the claim has
    nothing to find. Anything else (a division, a limit, an integral, a sum, a root, a logarithm, a
    piecewise function, an integer symbol, a strict inequality, a matrix expression) returns ``False``.
    """
    if any(rel not in ("=", "<=", ">=") for _, rel in chain):
        return False
    try:
        return all(_continuous_everywhere(e) for e in (start, *(e for e, _ in chain)))
    except (TypeError, AttributeError, ValueError, RecursionError):
        return False


def _continuous_everywhere(e: Any) -> bool:
    import sympy as sp

    if isinstance(e, sp.MatrixBase):
        return all(_continuous_everywhere(x) for x in e)
    if not isinstance(e, sp.Expr) or isinstance(e, sp.MatrixExpr):
        return False
    stack = [e]
    while stack:
        node = stack.pop()
        if node.is_Number:
            if node.is_finite is not True:
                return False
        elif node.is_NumberSymbol or node is sp.I:
            continue
        elif node.is_Symbol:
            if node.is_integer is True:
                return False
        elif isinstance(node, sp.Indexed):
            if node.is_integer is True or not isinstance(node.base.label, sp.Symbol):
                return False
            # the indices pick an element (each a variable of its own); any integer expression will do
            if not all(isinstance(i, sp.Expr) and _index_polynomial(i) for i in node.indices):
                return False
        elif isinstance(node, (sp.Add, sp.Mul)):
            stack.extend(node.args)
        elif isinstance(node, sp.Pow):
            base, exp = node.args
            if exp.is_Integer and exp >= 0:
                stack.append(base)
            elif base.is_number and base.is_positive is True and not base.free_symbols:
                stack.append(exp)
            else:
                return False
        elif type(node).__name__ in _ENTIRE and isinstance(node, sp.Function) and len(node.args) == 1:
            stack.append(node.args[0])
        else:
            return False
    return True


def _index_polynomial(i: Any) -> bool:
    """An index built from integers and symbols by + and × (``j``, ``j + 1``, ``2k``)."""
    import sympy as sp

    return all(isinstance(n, (sp.Add, sp.Mul, sp.Symbol, sp.Integer)) for n in sp.preorder_traversal(i))
