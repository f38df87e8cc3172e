"""``Lemma``: a step justified by a proved derivation, instantiated (a primitive rule).

A step may cite another derivation ``L`` whose claim is ``L.start R L.end`` under its hypotheses (the
assumptions on its symbols, its premises and its definitions)::

    Step(expr, "shift invariance", by="softmax.shift-invariance", where={c: m})

Soundness: if ``L`` is proved, its claim holds at every point that satisfies its hypotheses. An
*instance* replaces the claim's free symbols by expressions, σ = {c ↦ m, …}; at every point of the
citing derivation, σ maps to a point of ``L``'s hypotheses as long as (a) each σ(s) has every assumption
the symbol s carries (positive, integer, …), (b) each premise of ``L``, instantiated, holds under the
citing derivation's own hypotheses, and (c) each definition of ``L`` either is unfolded into the claim
(a symbol defined by an expression) or holds, instantiated, like a premise. Then σ(L.start) R σ(L.end)
holds there. For an equality the instance may be used anywhere inside the previous expression
(equality is a congruence), in either direction; an inequality only as the whole step, and only in a
step whose relation it implies (start ≤ end justifies ``≤`` and ``<`` once the rest is proved with that
relation: a ≤ b < c gives a < c).

Side conditions, checked by the kernel on every use (:func:`check`):

1. the cited derivation is resolved and *proved*: the running layer (:mod:`derive.verify`) verified it in
   this run, or served its report from the cache whose key covers its content and that of everything it
   cites (:mod:`derive.cache`); its status is handed to the kernel in the step's
   :class:`~derive.kernel.primitives.Context` (``citations``) and a missing status is "not proved";
2. the citation is not circular (the running layer refuses a cycle before any step is checked; a
   cycle's status is "not proved" here too);
3. the instance: ``where`` names the images of some of the claim's free symbols; each other symbol is its
   own image, or, if that instance does not occur, its image is found by matching the claim's start (or
   end) against a subexpression of the previous expression;
4. (a), (b), (c) above, proved with the same kernel strategies (``prove_equal``) or sympy's assumptions;
   a claim about expectations also holds only under its random model (the families and moments of its
   probability rules): the instance of that model must be a model of the citing derivation's own rules;
5. the instance occurs in the previous expression (alpha-equivalence: bound indices may be renamed; the
   inner sums of a multiple sum ``Sum(f, (i…), (j…))`` are subexpressions) or the whole previous
   expression is proved equal to it;
6. where the instance sits under a binder (a sum's index, an integral's variable) that binds one of its
   symbols, a premise of the cited derivation about that symbol is not proved from the citing
   derivation's hypotheses (they speak of the free symbol of the same name): it must follow from the
   binder's range (``j ≤ n`` inside ``Σ_{j=1}^{n}``), else the step is not proved.

One step may use several instances that differ in one or more symbols: a ``where`` image that is a
``Tuple`` of expressions (``where={i: Tuple(1, 2, 3, 4)}``, several tuples of one length taken together)
stands for the instances it lists, applied one after the other, each checked as above on the expression
the previous ones left (a law about entry i of a vector, used for every entry at once).

A claim between explicit matrices (a rotation of a 2 × 1 pair) may also be used entry by entry, when every
entry of one side occurs in the expression and none is a bare number: equal matrices have equal entries.

The substitution avoids capture: a variable bound in the claim that occurs in an image is renamed first.
An indexed family may be given elementwise, ``z ↦ Lambda(k, body)`` (the family ``z_k = body(k)``), when
``body(k)`` keeps z's assumptions for every integer k; not where the claim differentiates with respect to
z's elements or draws z at random (there the elements must be independent variables, a family).

Then the rule's output (the previous expression with the instance rewritten) must still be proved in the
step's relation to the step's expression by the ordinary strategies and witness.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import sympy as sp

from .binders import rename_bound, substitute
from .rule import Rule

#: the assumptions of a cited symbol an instance must keep (the others follow from these)
_KEPT = ("integer", "rational", "real", "positive", "negative", "nonnegative", "nonpositive", "nonzero",
         "even", "odd")


@dataclass(frozen=True)
class Lemma(Rule):
    """Use the proved claim of another derivation at an instance (see the module docstring).

    Args:
        cited: the cited derivation: a :class:`~derive.core.Derivation` or its registered name.
        where: ``((symbol, image), ...)``: the images of some of the cited claim's free symbols (a symbol
            of the cited derivation, or its name); the others are found by matching.
    """

    cited: Any
    where: tuple = ()
    name: str = "lemma"

    @property
    def cited_name(self) -> str:
        return self.cited if isinstance(self.cited, str) else getattr(self.cited, "name", "?")

    def describe(self) -> str:
        return f"by {self.cited_name}"

    def apply(self, expr: Any) -> Any:  # pragma: no cover - applied through :func:`apply` with its context
        raise TypeError("a Lemma is applied by the kernel with the step's context")


# ----------------------------------------------------------------------------
# the instance
# ----------------------------------------------------------------------------


def _claim(d: Any) -> tuple[Any, Any, str]:
    """The cited claim with its symbol definitions unfolded (a defined symbol is not free)."""
    start, end = sp.sympify(d.start, strict=True), sp.sympify(d.steps[-1].expr, strict=True)
    defs = {a: b for a, b in d.definitions if isinstance(a, sp.Symbol)}
    for _ in range(6):
        new_start, new_end = substitute(start, defs), substitute(end, defs)
        if new_start == start and new_end == end:
            break
        start, end = new_start, new_end
    return start, end, d.relation


def _free(e: Any) -> set:
    """Free symbols, indexed bases (the label of ``z[i]`` stands for ``z``) and matrix symbols with the
    symbols of their shapes (``X`` of shape n × d: X, n and d)."""
    out = set()
    for s in e.free_symbols:
        if isinstance(s, sp.Indexed):
            out.add(s.base)
        elif isinstance(s, sp.Symbol):
            out.add(s)
        elif isinstance(s, sp.MatrixSymbol):
            out.add(s)
            out |= {t for n in s.shape for t in sp.sympify(n, strict=True).free_symbols if isinstance(t, sp.Symbol)}
    bases = {b.label for b in out if isinstance(b, sp.IndexedBase)}
    return {s for s in out if s not in bases}


def _key(symbols: set, k: Any) -> Any:
    if isinstance(k, str):
        hit = [s for s in symbols if str(s) == k]
        if len(hit) != 1:
            raise ValueError(f"the cited claim has no free symbol named {k!r}")
        return hit[0]
    if k in symbols:
        return k
    hit = [s for s in symbols if str(s) == str(k)]
    if len(hit) == 1:  # the same name, other assumptions: the cited derivation's own symbol
        return hit[0]
    raise ValueError(f"{k} is not a free symbol of the cited claim")


def instance(rule: Lemma, d: Any, expr: Any) -> tuple[dict, Any, Any, str]:
    """σ, σ(start), σ(end) and the relation; raises ``ValueError`` naming what could not be determined.

    Remembered per (lemma, cited derivation, expression): the side conditions and the application of one
    step ask for the same instance (a pure function of the three; σ is returned as a fresh dict)."""
    try:
        key = (id(rule.cited), rule.where, rule.name, id(d), expr)
        hit = _INSTANCES.get(key)
    except TypeError:  # an unhashable image
        key, hit = None, None
    if hit is not None and hit[0] is rule.cited and hit[1] is d:
        sigma, lhs, rhs, relation = hit[2]
        return dict(sigma), lhs, rhs, relation
    out = _instance(rule, d, expr)
    if key is not None:
        if len(_INSTANCES) > 1024:
            _INSTANCES.clear()
        _INSTANCES[key] = (rule.cited, d, out)
    sigma, lhs, rhs, relation = out
    return dict(sigma), lhs, rhs, relation


#: instances by (id of the cited object, images, rule name, id of the cited derivation, expression); the
#: objects are kept beside the result, so an id is never reused while its entry lives
_INSTANCES: dict = {}


def _instance(rule: Lemma, d: Any, expr: Any) -> tuple[dict, Any, Any, str]:
    start, end, relation = _claim(d)
    free = _free(start) | _free(end)
    sigma = {_key(free, k): sp.sympify(v, strict=True) for k, v in rule.where}
    sigma.update(_shapes(sigma))
    for s, image in sigma.items():  # before any substitution: sympy would fail on misaligned shapes
        bad = _shape_of(s, image, sigma)
        if bad is not None:
            raise ValueError(bad)
    rest = [s for s in free if s not in sigma]
    same = {**sigma, **{s: s for s in rest}}  # a symbol left alone is its own image (always an instance)
    lhs, rhs = _subs(start, same), _subs(end, same)
    if not rest or _occurs(expr, lhs) or (relation == "=" and _occurs(expr, rhs)):
        return same, lhs, rhs, relation
    found = _match(start, end, sigma, rest, expr, relation)
    if not found:
        return same, lhs, rhs, relation  # the check then says the instance does not occur
    sigma.update(found)
    return sigma, _subs(start, sigma), _subs(end, sigma), relation


def _shapes(sigma: dict) -> dict:
    """The images of the shape symbols of the matrix symbols σ maps, read from their images' shapes
    (``X ↦`` a 2 × 4 matrix gives ``n ↦ 2``, ``d ↦ 4`` when σ does not name them); :func:`_shape_of`
    then checks every matrix image against its symbol's shape under σ."""
    out: dict = {}
    for m, image in sigma.items():
        if isinstance(m, sp.MatrixSymbol) and getattr(image, "shape", None) is not None:
            for dim, size in zip(m.shape, image.shape, strict=True):
                dim = sp.sympify(dim, strict=True)
                if isinstance(dim, sp.Symbol) and dim not in sigma and dim not in out:
                    out[dim] = sp.sympify(size, strict=True)
    return out


def _shape_of(symbol: Any, image: Any, sigma: dict) -> str | None:
    """A matrix symbol's image must be a matrix of the symbol's shape under σ."""
    if not isinstance(symbol, sp.MatrixSymbol):
        return None
    want = tuple(sp.sympify(n, strict=True).xreplace(sigma) for n in symbol.shape)
    have = getattr(image, "shape", None)
    if have is None or not getattr(image, "is_Matrix", False):
        return f"the matrix {symbol} must be replaced by a matrix, not {image}"
    if any(sp.simplify(sp.sympify(a, strict=True) - b) != 0 for a, b in zip(have, want, strict=True)):
        return f"the matrix {symbol} is {want[0]} × {want[1]} at the instance, and {image} is {have[0]} × {have[1]}"
    return None


def _subs(e: Any, sigma: dict) -> Any:
    """``e`` with σ applied; an identity pair is left out (xreplace would rebuild, and evaluate, the tree).

    The substitution avoids capture: a variable bound in ``e`` (a sum's index…) that occurs in an image is
    renamed first, so ``m ↦ k`` in ``Σ_k m·k`` gives ``Σ_d k·d``, not ``Σ_k k²``.
    """
    moved = {k: v for k, v in sigma.items() if k != v}
    if not moved:
        return e
    avoid = set().union(*(getattr(v, "free_symbols", set()) for v in moved.values()))
    e = rename_bound(e, avoid)
    families = {k: v for k, v in moved.items() if isinstance(v, sp.Lambda)}
    if not families:
        return e.xreplace(moved)
    # a family k ↦ body(k): park each family under a fresh name, substitute the rest, then expand the
    # family's elements (simultaneous: the bodies are not substituted again)
    parked = {k: sp.IndexedBase(sp.Dummy(str(k))) for k in families}
    e = e.xreplace({**{k: v for k, v in moved.items() if k not in families}, **parked})
    back = {p.label: families[k] for k, p in parked.items()}
    return e.replace(lambda x: isinstance(x, sp.Indexed) and x.base.label in back,
                     lambda x: back[x.base.label](*x.indices))


def _match(start: Any, end: Any, sigma: dict, rest: list, expr: Any, relation: str) -> dict:
    if not all(isinstance(s, sp.Symbol) for s in rest):
        return {}
    wilds = {s: sp.Wild(f"w_{k}") for k, s in enumerate(rest)}
    sides = [start] if relation != "=" else [start, end]
    for side in sides:
        pattern = _subs(side, sigma).xreplace(wilds)
        for node in sp.preorder_traversal(expr):
            try:
                m = node.match(pattern)
            except Exception:  # noqa: BLE001 - sympy's matcher may fail on any node: no match
                m = None
            if m and all(w in m for w in wilds.values()):
                found = {s: m[w] for s, w in wilds.items()}
                if _occurs(expr, _subs(side, {**sigma, **found})):
                    return found
    return {}


# ----------------------------------------------------------------------------
# side conditions and application
# ----------------------------------------------------------------------------


def _status(rule: Lemma, ctx: Any) -> tuple[Any, str | None]:
    """The cited derivation and ``None`` if it is proved, else the reason it may not be used."""
    for name, ok, reason, d in getattr(ctx, "citations", ()):
        if name == rule.cited_name:
            return d, None if ok else reason
    return None, f"{rule.cited_name} has not been verified in this run (its status is unknown): not proved"


def _keeps(image: Any, symbol: Any, ctx: Any) -> str | None:
    """Does ``image`` have every assumption of the cited ``symbol``?"""
    if isinstance(symbol, sp.IndexedBase):
        k = sp.Dummy("k", integer=True)
        if isinstance(image, sp.Lambda) and len(image.variables) == 1:
            probe, target = symbol[k], image(k)  # a family given elementwise: k ↦ body(k), for every integer k
        elif isinstance(image, sp.IndexedBase):
            probe, target = symbol[k], image[k]
        else:
            return f"{symbol} must be replaced by an indexed family (or a Lambda k ↦ element), not {image}"
    else:
        probe, target = symbol, image
    for fact in _KEPT:
        if getattr(probe, f"is_{fact}") is not True or getattr(target, f"is_{fact}") is True:
            continue
        if fact == "nonnegative" and ctx.nonnegative(target):
            continue
        if fact == "positive" and ctx.nonnegative(target) and target.is_nonzero is True:
            continue
        return f"the cited claim assumes {symbol} {fact}, and {image} is not known to be {fact}"
    return None


def _holds(premise: Any, sigma: dict, ctx: Any, prove_equal: Any) -> bool:
    """Does the cited premise, instantiated, hold under the citing derivation's hypotheses?"""
    if isinstance(premise, tuple) and len(premise) == 2:
        premise = sp.Eq(*premise, evaluate=False)
    p = _subs(premise, sigma)
    if p is sp.true:
        return True
    if isinstance(p, sp.Equality):
        declared = ctx.equations()
        if any(_same(p.lhs, a) and _same(p.rhs, b) or _same(p.lhs, b) and _same(p.rhs, a) for a, b in declared):
            return True
        lhs, rhs = p.lhs, p.rhs
        defs = {a: b for a, b in declared if isinstance(a, sp.Symbol)}
        for _ in range(5):
            if prove_equal(lhs, rhs):
                return True
            new_lhs, new_rhs = substitute(lhs, defs), substitute(rhs, defs)
            if (new_lhs, new_rhs) == (lhs, rhs):
                break
            lhs, rhs = new_lhs, new_rhs
        pinned = _pinned(ctx)
        return pinned is not None and prove_equal(pinned.reduce(p.lhs, True), pinned.reduce(p.rhs, True))
    if isinstance(p, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
        gap = p.rhs - p.lhs if isinstance(p, (sp.LessThan, sp.StrictLessThan)) else p.lhs - p.rhs
        strict = isinstance(p, (sp.StrictLessThan, sp.StrictGreaterThan))
        if strict and (gap.is_positive is True or any(_same(gap, _gap(q)) and _strict(q) for q in ctx.premises)):
            return True
        if not strict and ctx.nonnegative(gap):
            return True
        pinned = _pinned(ctx)
        if pinned is None:
            return False
        value = pinned.reduce(gap, True)  # the citing derivation's elements at their pinned values
        return (value.is_positive if strict else value.is_nonnegative) is True
    return False


def _pinned(ctx: Any) -> Any:
    """The citing derivation's hypotheses when they pin elements of a family (``z[1] = 2``), else ``None``:
    a premise of the cited derivation about those elements is then read at their values."""
    from . import hypotheses

    hyps = hypotheses.of(tuple(getattr(ctx, "definitions", ())), tuple(getattr(ctx, "premises", ())))
    return hyps if any(hypotheses.is_pinned(el.target) for el in hyps.eliminations) else None


def _gap(q: Any) -> Any:
    if isinstance(q, (sp.LessThan, sp.StrictLessThan)):
        return q.rhs - q.lhs
    if isinstance(q, (sp.GreaterThan, sp.StrictGreaterThan)):
        return q.lhs - q.rhs
    return sp.nan


def _strict(q: Any) -> bool:
    return isinstance(q, (sp.StrictLessThan, sp.StrictGreaterThan))


def _same(a: Any, b: Any) -> bool:
    from .strategies import alpha_equal

    try:
        return alpha_equal(sp.sympify(a, strict=True), sp.sympify(b, strict=True))
    except (TypeError, ValueError, sp.SympifyError):
        return False


_IMPLIES = {"=": ("=", "<=", "<", ">=", ">"), "<=": ("<=", "<"), "<": ("<=", "<"), ">=": (">=", ">"),
            ">": (">=", ">")}


def each(rule: Lemma) -> list[Lemma]:
    """The single instances a rule stands for: one per position of its ``Tuple`` images (see the docstring).

    Raises:
        ValueError: tuples of different lengths, or an empty one.
    """
    lengths = {len(v) for _, v in rule.where if isinstance(v, sp.Tuple)}
    if not lengths:
        return [rule]
    if len(lengths) > 1 or 0 in lengths:
        raise ValueError("the Tuple images of where= must have one length, at least 1")
    (n,) = lengths
    return [Lemma(rule.cited, tuple((k, v[m] if isinstance(v, sp.Tuple) else v) for k, v in rule.where))
            for m in range(n)]


def check(rule: Lemma, expr: Any, ctx: Any, prove_equal: Any, relation: str = "=") -> str | None:
    """The side conditions of a lemma application on ``expr``: ``None`` if they hold, else the reason.

    Several instances (``Tuple`` images) are checked one after the other, each on the expression the
    previous ones left; the reason names the instance that fails.
    """
    try:
        singles = each(rule)
    except ValueError as exc:
        return str(exc)
    if len(singles) == 1:
        return _check_one(singles[0], expr, ctx, prove_equal, relation)
    if relation != "=":
        return "several instances in one step are used only in an equality step"
    for m, single in enumerate(singles, 1):
        why = _check_one(single, expr, ctx, prove_equal, "=")
        if why is not None:
            return f"instance {m} of {len(singles)}: {why}"
        expr = _apply_one(single, expr, ctx)
    return None


def _check_one(rule: Lemma, expr: Any, ctx: Any, prove_equal: Any, relation: str = "=") -> str | None:
    d, why = _status(rule, ctx)
    if why is not None:
        return why
    try:
        sigma, lhs, rhs, lemma_relation = instance(rule, d, expr)
    except (ValueError, TypeError, sp.SympifyError) as exc:
        return str(exc)
    if relation not in _IMPLIES[lemma_relation]:
        return f"the cited claim is a {lemma_relation} relation and cannot justify a {relation!r} step"
    pairs = [(lhs, rhs)]
    if lemma_relation == "=":
        occurs = _occurs(expr, lhs) or _occurs(expr, rhs)
        if not occurs and (found := _entrywise(expr, lhs, rhs)):
            occurs, pairs = True, found
        occurs = occurs or prove_equal(expr, lhs)
    else:
        occurs = _same(expr, lhs) or prove_equal(expr, lhs)
    if not occurs:
        return f"the instance {lhs} of {d.name}'s claim does not occur in the expression"
    ranges = []  # the premises the binders' ranges prove, at the sites of every part used
    for part_lhs, part_rhs in pairs:
        captured, proved = _captured(d, sigma, expr, part_lhs, part_rhs, lemma_relation, ctx)
        if captured:
            return captured
        ranges.append(proved)
    by_range = set.intersection(*ranges)
    for s, image in sigma.items():
        bad = _keeps(image, s, ctx) or _family(s, image, d)
        if bad is not None:
            return bad
    clash = _clash(getattr(ctx, "models", ()))
    if clash:
        return clash
    for model in _models(d):
        wanted = [(b.xreplace(sigma), m.xreplace(sigma), v.xreplace(sigma)) for b, m, v in model.moments]
        if not any(_same_model(wanted, have, prove_equal) for have in getattr(ctx, "models", ())):
            return (f"the claim of {d.name} holds under its random model ({_families(wanted)}), which this "
                    "derivation's probability rules do not use")
    for p in _hypotheses(d):
        if p not in by_range and not _holds(p, sigma, ctx, prove_equal):
            shown = p
            return f"the premise {shown} of {d.name} is not proved at the instance {_show(sigma)}"
    return None


def _binders(node: Any) -> dict:
    """The variables ``node`` binds in its arguments, with their ranges ``(lo, hi)`` (``None`` if unknown)."""
    if isinstance(node, (sp.Sum, sp.Product)):
        return {lim[0]: (lim[1], lim[2]) if len(lim) == 3 else None for lim in node.limits}
    if isinstance(node, sp.Integral):
        return {lim[0]: None for lim in node.limits}  # a real variable: no index range to use
    if isinstance(node, sp.Limit):
        return {node.args[1]: None}
    if isinstance(node, (sp.Lambda, sp.Subs)):
        return {v: None for v in node.variables}
    return {}


def _sites(expr: Any, part: Any, bound: dict | None = None, canon: Any = None) -> list:
    """Every occurrence of ``part`` in ``expr`` with the variables bound around it (and their ranges)."""
    bound = bound or {}
    canon = _canon(part) if canon is None else canon
    if _like(expr, part, canon):
        return [bound]
    out = [{**bound, **{lim[0]: (lim[1], lim[2]) for lim in expr.limits[m:]}}
           for m, nest in _nests(expr) if _like(nest, part, canon)]
    inner = {**bound, **_binders(expr)}
    for arg in getattr(expr, "args", ()):
        if isinstance(arg, sp.Basic):
            out.extend(_sites(arg, part, inner, canon))
    return out


def _captured(d: Any, sigma: dict, expr: Any, lhs: Any, rhs: Any, relation: str,
              ctx: Any) -> tuple[str | None, set]:
    """An instance used under a binder (a sum's index, an integral's variable…) whose variable it mentions.

    There the instance speaks of the bound variable, not of the citing derivation's free symbol of the same
    name, so a premise of the cited derivation that mentions it cannot be proved from the citing
    derivation's hypotheses (which are about the free symbol). Such a premise must follow from the binder's
    range alone (``j ≤ n`` inside ``Σ_{j=1}^{m}`` with ``m ≤ n``); any other is not proved. Returns the
    reason the instance may not be used, or ``None`` and the premises the ranges proved at every site.
    """
    if relation != "=":
        return None, set()
    parts = [p for p in (lhs, rhs) if _occurs(expr, p)] or [lhs]
    sites = [(part.free_symbols, bound) for part in parts for bound in _sites(expr, part)]
    by_range = set()
    for p in _hypotheses(d):
        q = _subs(p, sigma)
        if not isinstance(q, sp.Basic):
            continue
        everywhere = True
        for free, bound in sites:
            hit = {v: r for v, r in bound.items() if v in free and v in q.free_symbols}
            if not hit:
                everywhere = False
            elif not _by_range(q, hit, ctx):
                v = next(iter(hit))
                return (f"the instance is used where {v} is a bound variable, and the premise {q} of "
                        f"{d.name} is about {v}: it does not follow from {v}'s range"), set()
        if everywhere and sites:
            by_range.add(p)
    return None, by_range


def _hypotheses(d: Any) -> list:
    """The cited derivation's premises and its definitions that are not of a symbol, as relations."""
    out = []
    for p in (*d.premises, *((a, b) for a, b in d.definitions if not isinstance(a, sp.Symbol))):
        out.append(sp.Eq(*p, evaluate=False) if isinstance(p, tuple) and len(p) == 2 else p)
    return out


def _by_range(q: Any, hit: dict, ctx: Any) -> bool:
    """Does the inequality ``q`` on one bound index follow from that index's range (lo ≤ v ≤ hi)?"""
    if len(hit) != 1 or not isinstance(q, (sp.LessThan, sp.StrictLessThan, sp.GreaterThan, sp.StrictGreaterThan)):
        return False
    (v, rng), = hit.items()
    if rng is None:
        return False
    lo, hi = rng
    small, big = (q.lhs, q.rhs) if isinstance(q, (sp.LessThan, sp.StrictLessThan)) else (q.rhs, q.lhs)
    strict = isinstance(q, (sp.StrictLessThan, sp.StrictGreaterThan))
    if small == v and v not in big.free_symbols:  # v ≤ big follows from hi ≤ big (hi < big if strict)
        gap = big - hi
    elif big == v and v not in small.free_symbols:  # small ≤ v follows from small ≤ lo
        gap = lo - small
    else:
        return False
    return gap.is_positive is True if strict else ctx.nonnegative(gap)


def _family(symbol: Any, image: Any, d: Any) -> str | None:
    """A family given elementwise (``z ↦ Lambda(k, body)``) is refused where the claim differentiates with
    respect to its elements or draws it at random: ∂/∂z_j and a random model are about the family's
    elements as independent variables, which an arbitrary body need not be."""
    if not isinstance(image, sp.Lambda):
        return None
    start, end, _ = _claim(d)
    for node in (*sp.preorder_traversal(start), *sp.preorder_traversal(end)):
        if isinstance(node, sp.Derivative) and any(getattr(v, "base", None) == symbol for v, _ in node.variable_count):
            return f"the cited claim differentiates with respect to {symbol}'s elements: {symbol} must be a family"
    if any(b == symbol for model in _models(d) for b, _, _ in model.moments):
        return f"{symbol} is random in the cited claim: it must be replaced by a family, not by {image}"
    return None


def _models(d: Any) -> list:
    """The random models of the cited derivation's probability rules: hypotheses of its claim."""
    return list(dict.fromkeys((*getattr(d, "models", ()),
                               *(m for s in d.steps if (m := getattr(s.rule, "model", None)) is not None))))


def _clash(models: tuple) -> str | None:
    """Two models of one derivation that give a random family different moments contradict each other."""
    seen: dict = {}
    for model in models:
        for b, m, v in model.moments:
            if b in seen and seen[b] != (m, v):
                return f"the derivation's random models give {b} two different moments: {seen[b]} and {(m, v)}"
            seen[b] = (m, v)
    return None


def _same_model(wanted: list, have: Any, prove_equal: Any) -> bool:
    """Does the model ``have`` give the same families the same moments as ``wanted``?"""
    mine = {b: (m, v) for b, m, v in have.moments}
    return len(mine) == len(wanted) and all(
        b in mine and (m == mine[b][0] or prove_equal(m, mine[b][0]))
        and (v == mine[b][1] or prove_equal(v, mine[b][1]))
        for b, m, v in wanted)


def _families(moments: list) -> str:
    return "; ".join(f"{b}: mean {m}, variance {v}" for b, m, v in moments)


def apply(rule: Lemma, expr: Any, ctx: Any) -> Any:
    """The previous expression with the instance (each instance, in order) rewritten (after :func:`check`)."""
    for single in each(rule):
        expr = _apply_one(single, expr, ctx)
    return expr


def _apply_one(rule: Lemma, expr: Any, ctx: Any) -> Any:
    d, _ = _status(rule, ctx)
    _, lhs, rhs, lemma_relation = instance(rule, d, expr)
    if lemma_relation == "=":
        if _occurs(expr, lhs):
            return _rewrite(expr, lhs, rhs)
        if _occurs(expr, rhs):
            return _rewrite(expr, rhs, lhs)
        found = _entrywise(expr, lhs, rhs)
        if found:
            out = expr
            for old, new in found:
                out = _rewrite(out, old, new)
            return out
    return rhs  # check proved the whole expression equal to the instance's start


def _entrywise(expr: Any, lhs: Any, rhs: Any) -> list | None:
    """A claim between explicit matrices used entry by entry: ``[(entry, its image), …]`` when every entry of one
    side occurs in ``expr`` (equal matrices have equal entries), else ``None``. An entry that is a bare number
    (0, 1) would be found anywhere: then the claim is not used entrywise."""
    if not (getattr(lhs, "is_Matrix", False) and getattr(rhs, "is_Matrix", False)) or lhs.shape != rhs.shape:
        return None
    try:
        left, right = sp.ImmutableMatrix(lhs.as_explicit()), sp.ImmutableMatrix(rhs.as_explicit())
    except (TypeError, ValueError, AttributeError):
        return None
    for old, new in ((left, right), (right, left)):
        if any(e.is_Number for e in old) or len(set(old)) != len(old):
            continue
        if all(_occurs(expr, e) for e in old):
            return [(a, b) for a, b in zip(old, new, strict=True) if a != b]
    return None


def _canon(e: Any) -> Any:
    """``e`` rebuilt with sympy's evaluation (an ``Add(..., evaluate=False)`` in its canonical form)."""
    try:
        return e.replace(lambda x: isinstance(x, (sp.Add, sp.Mul, sp.Pow)), lambda x: x.func(*x.args))
    except Exception:  # noqa: BLE001 - no canonical form: compared as written
        return e


def _like(node: Any, part: Any, canon_part: Any) -> bool:
    if type(node) is not type(part) and type(node) is not type(canon_part):
        return False  # renaming bound indices keeps the head: a node of another kind is not the instance
    if node == part:
        return True
    try:
        return _like_cached(node, part, canon_part)
    except TypeError:  # an unhashable node: compared without the cache
        return _like_uncached(node, part, canon_part)


def _like_uncached(node: Any, part: Any, canon_part: Any) -> bool:
    return _same(node, part) or (type(node) is type(canon_part) and _same(_canon(node), canon_part))


#: one step's instances are looked for in the same expression several times (occurs, sites, rewrite, and
#: once per instance of a Tuple): alpha-equivalence of a node and an instance is decided once
_like_cached = functools.lru_cache(maxsize=1 << 16)(_like_uncached)


def _nests(node: Any) -> list:
    """A sum (product) of several limits read as nested ones: ``Σ_j Σ_i f`` is ``Sum(f, (i…), (j…))``.

    sympy flattens ``Sum(Sum(f, (i, …)), (j, …))`` into one node; its inner sums ``Sum(f, limits[:m])`` are
    subexpressions all the same (the definition of a multiple sum). Returns ``[(m, inner), …]``.
    """
    if not isinstance(node, (sp.Sum, sp.Product)) or len(node.limits) < 2:
        return []
    return [(m, node.func(node.function, *node.limits[:m])) for m in range(1, len(node.limits))]


def _occurs(expr: Any, part: Any) -> bool:
    canon = _canon(part)
    return any(_like(node, part, canon) or any(_like(inner, part, canon) for _, inner in _nests(node))
               for node in sp.preorder_traversal(expr))


def _unnest(node: Any, old: Any, new: Any, canon: Any) -> Any:
    for m, inner in _nests(node):
        if _like(inner, old, canon):
            return node.func(new, *node.limits[m:])
    return None


def _rewrite(expr: Any, old: Any, new: Any) -> Any:
    if expr.has(old):
        return expr.xreplace({old: new})
    canon = _canon(old)
    out = expr.replace(lambda node: _like(node, old, canon), lambda node: new)
    if out != expr:
        return out
    return expr.replace(lambda node: _unnest(node, old, new, canon) is not None,
                        lambda node: _unnest(node, old, new, canon))


def _show(sigma: dict) -> str:
    return "{" + ", ".join(f"{k} ↦ {v}" for k, v in sigma.items()) + "}"
