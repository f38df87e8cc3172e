"""The core model: a derivation is a chain of steps, each justified.

A :class:`Derivation` starts from an expression and rewrites it step by step;
each :class:`Step` holds the new expression, the words that justify it, the
rule the verifier applies to check it mechanically, and its source. The
objects are frozen: a derivation is written once and every surface (terminal,
docs, slides, tests) renders that same object.

This module does not import sympy at import time so that the registry and
``derive --help`` stay cheap; the expressions it holds are sympy objects.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .exceptions import DerivationDefinitionError

if TYPE_CHECKING:  # pragma: no cover
    from .numeric import CrossCheck
    from .rules import Rule

#: Relations a step may assert between the previous expression and its own.
RELATIONS = ("=", "<=", "<", ">=", ">")

_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)+$")


@dataclass(frozen=True)
class Citation:
    """A source for a step or a derivation.

    Attributes:
        key: BibTeX key of the work, one of :data:`derive.references.REFERENCES`
            (e.g. ``"vaswani2017"``).
        where: the place in the work, e.g. ``"§3.2.1, footnote 4"``.
        note: optional words on what is taken from there.
    """

    key: str
    where: str = ""
    note: str = ""

    def __str__(self) -> str:
        from .references import short

        text = short(self.key)
        return f"{text}, {self.where}" if self.where else text


@dataclass(frozen=True)
class Assumption:
    """A premise stated in words, with the symbols it concerns.

    Assumptions that sympy can hold (real, positive, integer...) live on the
    symbols themselves; this class carries the rest, e.g. "q_i, k_i are
    independent with mean 0 and variance 1". Rules that use a premise
    (independence, known moments) take their data from the derivation's
    rules, not from this text: the text is for the reader.

    Attributes:
        text: the premise in words (plain text, may contain ``$...$`` math).
        latex: optional LaTeX form of the premise.
    """

    text: str
    latex: str = ""


def _is_expression(value: Any) -> bool:
    """A sympy object (anything with ``free_symbols``) or a plain number; never text or a container."""
    if isinstance(value, bool):
        return False
    return isinstance(value, (int, float)) or hasattr(value, "free_symbols")


@dataclass(frozen=True)
class Step:
    """One step of a derivation chain.

    Attributes:
        expr: the expression after the step (a sympy ``Expr`` or an
            ``ImmutableMatrix``); it stands in ``relation`` to the previous one.
        justification: why the step holds, in words, for the reader.
        rule: the rule the verifier applies mechanically to the previous
            expression (:mod:`derive.rules`); ``None`` means the step is an
            algebraic identity proved by the symbolic strategies.
        relation: one of ``"="``, ``"<="``, ``"<"``, ``">="``, ``">"``: how
            ``expr`` relates to the previous expression.
        citation: the source of the step, if it has one.
        display: an expression shown instead of ``expr`` on every surface,
            when sympy's evaluated form reads badly (``Add(a, -b, evaluate=False)``
            keeps ``a - b`` as written). The kernel proves it equal to ``expr``
            (without sympy's ``doit()``); if it cannot, the step is undecided, so a
            display form can never show another claim than the one proved.
        by: a proved derivation this step uses as a lemma (a :class:`Derivation` or its registered
            name, e.g. ``"softmax.shift-invariance"``); the kernel instantiates its claim and checks that
            the cited derivation is proved, that the instance satisfies its hypotheses and that it occurs
            in the previous expression (:mod:`derive.kernel.lemmas`). Exclusive with ``rule``.
        where: with ``by``, the images of the cited claim's free symbols, as a dict or pairs
            (``{c: m}``; a key may be the cited symbol or its name); the others are found by matching.
    """

    expr: Any
    justification: str
    rule: Rule | None = None
    relation: str = "="
    citation: Citation | None = None
    display: Any = None
    by: Any = None
    where: Any = ()

    def __post_init__(self) -> None:
        if self.by is not None:
            self._cite()
        elif self.where:
            raise DerivationDefinitionError("a step's where= names the instance of a lemma: give by= too")
        if isinstance(self.expr, (str, bytes)):
            raise DerivationDefinitionError(
                f"a step's expression must be a sympy object, not text ({str(self.expr)[:40]!r}): "
                "derive never parses strings")
        if not _is_expression(self.expr):
            raise DerivationDefinitionError(
                f"a step's expression must be a sympy expression, matrix or number, not {type(self.expr).__name__}")
        if self.relation not in RELATIONS:
            raise DerivationDefinitionError(
                f"step relation {self.relation!r} is not one of {', '.join(RELATIONS)}"
            )
        if not isinstance(self.justification, str) or not self.justification.strip():
            raise DerivationDefinitionError("every step needs a justification in words")
        if self.display is not None and (isinstance(self.display, (str, bytes)) or not _is_expression(self.display)):
            raise DerivationDefinitionError(
                f"a step's display form must be a sympy expression, not {type(self.display).__name__}")


    def _cite(self) -> None:
        from .kernel.lemmas import Lemma

        if self.rule is not None and not isinstance(self.rule, Lemma):
            raise DerivationDefinitionError("a step is justified by a rule or by a lemma (by=), not both")
        if not (isinstance(self.by, str) and _NAME_RE.match(self.by)) and not isinstance(self.by, Derivation):
            raise DerivationDefinitionError(
                f"by= names a derivation (its registered name or the Derivation), not {type(self.by).__name__}")
        pairs = tuple(self.where.items()) if isinstance(self.where, dict) else tuple(self.where)
        for pair in pairs:
            if not (isinstance(pair, tuple) and len(pair) == 2):
                raise DerivationDefinitionError("where= maps the cited claim's symbols to expressions: {c: m}")
            key, value = pair
            if isinstance(value, (str, bytes)) or not _is_expression(value):
                raise DerivationDefinitionError(
                    f"where= maps {key} to {type(value).__name__}; an image must be a sympy expression "
                    "(derive never parses strings)")
            if not isinstance(key, str) and not hasattr(key, "free_symbols"):
                raise DerivationDefinitionError(f"where= keys are the cited claim's symbols, not {key!r}")
        lemma = Lemma(self.by, pairs)
        if self.rule is not None and self.rule != lemma:  # a copy (dataclasses.replace) carries its own Lemma
            raise DerivationDefinitionError("a step is justified by a rule or by a lemma (by=), not both")
        object.__setattr__(self, "where", pairs)
        object.__setattr__(self, "rule", lemma)

    @property
    def cites(self) -> str | None:
        """The name of the derivation this step uses as a lemma, or ``None``."""
        if self.by is None:
            return None
        return self.by if isinstance(self.by, str) else self.by.name


@dataclass(frozen=True)
class Derivation:
    """A claim and the chain of steps that proves it.

    The chain reads ``start R1 steps[0].expr R2 steps[1].expr ...``; the claim
    is ``start R steps[-1].expr`` where R is ``=`` when every step is an
    equality, else the strongest inequality the chain gives.

    Attributes:
        name: stable dotted name, e.g. ``"softmax.shift-invariance"``.
        title: short human title.
        start: the expression the chain starts from.
        steps: the steps, in order (at least one).
        summary: one sentence saying what is shown (for listings).
        assumptions: premises in words (symbol assumptions are on the symbols).
        definitions: pairs ``(lhs, rhs)`` shown as "where lhs = rhs".
        citations: sources for the derivation as a whole.
        checks: numeric cross-checks (:mod:`derive.numeric`), run after the
            symbolic verification; an identity check of the claim at random
            points is added automatically unless ``auto_identity_check`` is off.
        notes: optional remarks for the reader (plain text).
        auto_identity_check: add the random-point check of ``start`` against
            the final expression, in the relation of the claim.
        premises: hypotheses of the claim as sympy relationals, e.g.
            ``Eq(d_k, d_model/n_heads)`` or ``Le(j, n)`` (a pair ``(lhs, rhs)``
            is an equation, for matrices whose ``Eq`` sympy would evaluate). The kernel lets a
            ``Substitute`` use an ``Eq`` premise and a side condition (the index
            of ``SiftDelta`` inside its range) use an inequality premise; the
            claim is then proved *under* them, and every surface shows them.
        models: the random models (:class:`derive.kernel.primitives.RandomModel`) the claim's expectations are
            taken under, when no probability rule of its own steps names them (a derivation that only
            cites a claim about expectations, at an instance of its model). The models of its rules and
            these must give each random family one mean and one variance.
        instance: for a derivation that proves a law only at fixed sizes, which
            ones (``"n = 3 tokens, P a 3-cycle"``); its title must say "for …"
            too. Empty for a law proved at symbolic sizes and for worked
            examples (``example.*``), whose numbers are the point. Every
            surface shows an instance's verdict as "proved for this instance".
    """

    name: str
    title: str
    start: Any
    steps: tuple[Step, ...]
    summary: str = ""
    assumptions: tuple[Assumption, ...] = ()
    definitions: tuple[tuple[Any, Any], ...] = ()
    citations: tuple[Citation, ...] = ()
    checks: tuple[CrossCheck, ...] = ()
    notes: tuple[str, ...] = ()
    auto_identity_check: bool = True
    premises: tuple[Any, ...] = ()
    instance: str = ""
    models: tuple = ()
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise DerivationDefinitionError(
                f"derivation name {self.name!r} must be dotted lower-case words, "
                "e.g. 'softmax.shift-invariance'"
            )
        for attr in ("steps", "assumptions", "definitions", "citations", "checks", "notes", "premises", "models"):
            value = getattr(self, attr)
            if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
                raise DerivationDefinitionError(f"{self.name}: {attr} must be a tuple")
            object.__setattr__(self, attr, tuple(value))
        if not self.steps:
            raise DerivationDefinitionError(f"{self.name}: a derivation needs at least one step")
        if isinstance(self.start, (str, bytes)) or not _is_expression(self.start):
            raise DerivationDefinitionError(f"{self.name}: start must be a sympy expression, matrix or number, "
                                            f"not {type(self.start).__name__} (derive never parses strings)")
        for k, step in enumerate(self.steps, 1):
            if not isinstance(step, Step):
                raise DerivationDefinitionError(f"{self.name}: step {k} is not a Step")
        if not isinstance(self.instance, str):
            raise DerivationDefinitionError(f"{self.name}: instance must be text, e.g. 'n = 3'")
        for p in self.premises:
            pair = isinstance(p, tuple) and len(p) == 2 and all(_is_expression(x) for x in p)
            if not (pair or (hasattr(p, "lhs") and hasattr(p, "rhs") and hasattr(p, "free_symbols"))):
                raise DerivationDefinitionError(f"{self.name}: a premise must be a sympy relational "
                                                f"(Eq, Le, Lt, Ge, Gt) or a pair (lhs, rhs), not {type(p).__name__}")

    @property
    def relation(self) -> str:
        """The relation of the claim: ``"="`` or the inequality the chain gives."""
        rels = {s.relation for s in self.steps} - {"="}
        if not rels:
            return "="
        if rels <= {"<=", "<"}:
            return "<" if "<" in rels else "<="
        if rels <= {">=", ">"}:
            return ">" if ">" in rels else ">="
        raise DerivationDefinitionError(f"{self.name}: the chain mixes <-type and >-type steps")

    @property
    def premise_relations(self) -> tuple[tuple[Any, str, Any], ...]:
        """The premises as ``(lhs, relation, rhs)`` with relation one of ``=``, ``<=``, ``<``, ``>=``, ``>``, ``!=``."""
        ops = {"==": "=", "<=": "<=", "<": "<", ">=": ">=", ">": ">", "!=": "!="}
        out = []
        for p in self.premises:
            if isinstance(p, tuple):
                out.append((p[0], "=", p[1]))
            else:
                out.append((p.lhs, ops.get(getattr(p, "rel_op", "=="), "="), p.rhs))
        return tuple(out)

    @property
    def end(self) -> Any:
        """The final expression of the chain."""
        return self.steps[-1].expr

    @property
    def claim(self) -> Any:
        """The claim as a sympy relational, ``start R end``."""
        import sympy

        ops = {"=": sympy.Eq, "<=": sympy.Le, "<": sympy.Lt, ">=": sympy.Ge, ">": sympy.Gt}
        if self.relation == "=":
            return sympy.Eq(self.start, self.end, evaluate=False)
        return ops[self.relation](self.start, self.end, evaluate=False)
