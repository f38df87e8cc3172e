"""The site's LaTeX of one derivation, computed once and then served from the cache.

Printing a derivation's expressions with sympy's LaTeX printer, breaking them into lines and naming large
repeats (:class:`derive.render.chain.ChainLayout`) is most of the CPU time of a site build, and the same
derivation is laid out again by every build: the English and the Korean edition, a rebuild after a prose edit,
the test suite. :func:`chain_tex` returns the strings a page shows (claim, "where" list, definitions, the start
and each step) and keeps them in the verification cache (:func:`derive.cache.remember_bytes`, kind
``chaintex``), keyed by the derivation's expressions, relations and definitions
(:func:`derive.cache.expression_fingerprint`), the line width, and derive's own source hash. The words of a page
are not in it: they change with the language.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..core import Derivation

#: a relation's LaTeX
REL_TEX = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}


@dataclasses.dataclass(frozen=True)
class ChainTex:
    """What the site shows of a derivation's formulas, as LaTeX strings.

    Attributes:
        claim: ``start R end`` (an ``aligned`` block when wider than the site's line).
        where: the "where" list of named repeats (empty when nothing is named).
        definitions: the definitions as one ``aligned`` block (empty when there are none).
        alone: the start has a row of its own (too wide to share one with step 1).
        lhs: the start beside step 1 (empty when ``alone``).
        start: the start on its own row (empty unless ``alone``).
        steps: ``R e_k`` of every step, broken into lines.
    """

    claim: str
    where: str
    definitions: str
    alone: bool
    lhs: str
    start: str
    steps: tuple[str, ...]


def _compute(derivation: Derivation, budget: float) -> ChainTex:
    from ..render.chain import ChainLayout
    from ..render.layout import aligned_lines

    layout = ChainLayout(derivation, budget)
    definitions = ""
    if derivation.definitions:
        rows: list[str] = []
        for lhs, rhs in derivation.definitions:
            lines = aligned_lines(layout.breaker.lines(rhs, layout.budget - 6.0), "=", r"\qquad")
            rows += [layout.breaker.tex(lhs) + " " + lines[0], *lines[1:]]
        definitions = "\\begin{aligned}" + " \\\\\n".join(rows) + "\\end{aligned}"
    return ChainTex(
        claim=layout.claim(REL_TEX[derivation.relation]),
        where=layout.where() if layout.names else "",
        definitions=definitions,
        alone=layout.alone,
        lhs=layout.lhs,
        start=layout.block("", layout.start, layout.budget) if layout.alone else "",
        steps=tuple(layout.block(REL_TEX[step.relation], expr)
                    for step, expr in zip(derivation.steps, layout.exprs, strict=True)),
    )


def chain_tex(derivation: Derivation, budget: float | None = None) -> ChainTex:
    """The site's LaTeX of ``derivation`` (see the module docstring), from the cache when it has it.

    Args:
        derivation: the derivation (its words may be translated: they are not used).
        budget: the widest line in em (default :data:`derive.render.chain.SITE_BUDGET`).

    Returns:
        The strings; computed (and stored) on a miss. A derivation whose expressions cannot be fingerprinted
        is laid out every time.
    """
    from ..cache import expression_fingerprint, remember_bytes
    from ..render.chain import SITE_BUDGET

    budget = SITE_BUDGET if budget is None else budget
    try:
        key = expression_fingerprint(derivation)
    except Exception:  # noqa: BLE001 - an expression the fingerprint cannot read: no caching, same output
        return _compute(derivation, budget)

    def make() -> bytes:
        return json.dumps(dataclasses.asdict(_compute(derivation, budget))).encode()

    data = json.loads(remember_bytes("chaintex", (key, repr(float(budget))), make))
    return ChainTex(**{**data, "steps": tuple(data["steps"])})
