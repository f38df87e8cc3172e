"""LaTeX for derivations: the chain as an aligned equation.

The public functions are thin wrappers over :class:`LatexSettings`, which
validates its options the way sympy's printers validate theirs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core import Derivation, Step
from ..exceptions import InputError

_REL_TEX = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}
_ENVIRONMENTS = ("align*", "align", "aligned")


@dataclass(frozen=True)
class LatexSettings:
    """Options of the LaTeX renderer.

    Attributes:
        environment: ``"align*"``, ``"align"`` (numbered) or ``"aligned"``
            (to sit inside ``equation`` or ``$$``).
        justifications: add each step's justification as ``\\text{...}``.
        symbol_names: extra ``Symbol -> LaTeX`` spellings (merged over the
            notation table of :mod:`derive.transformer.notation`).
    """

    environment: str = "align*"
    justifications: bool = True
    symbol_names: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.environment not in _ENVIRONMENTS:
            raise InputError(f"environment {self.environment!r} is not one of {', '.join(_ENVIRONMENTS)}")


def expr_latex(expr: Any, symbol_names: dict | None = None) -> str:
    """LaTeX of one expression, using the project's notation table."""
    import sympy as sp

    from ..transformer.notation import latex_names

    names = latex_names()
    if symbol_names:
        names.update(symbol_names)
    # bound symbols too (summation indices such as the pair index i_pair), not only free ones
    present = expr.atoms(sp.Symbol) if isinstance(expr, sp.Basic) else set()
    used = {s: n for s, n in names.items() if s in present}
    return sp.latex(expr, symbol_names=used)


def escape_text(text: str) -> str:
    r"""Escape ``text`` for ``\text{...}``, keeping ``$...$`` math as it is."""
    out = []
    parts = text.split("$")
    for k, part in enumerate(parts):
        if k % 2 == 1:
            out.append("$" + part + "$")
            continue
        for ch, rep in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"),
                        ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("^", r"\^{}"), ("~", r"\~{}")):
            part = part.replace(ch, rep)
        out.append(part)
    return "".join(out)


def step_line(step: Step, settings: LatexSettings) -> str:
    """One line of the chain: ``&= expr`` and its annotation."""
    rel = _REL_TEX[step.relation]
    line = f"&{rel} {expr_latex(step.expr, settings.symbol_names)}"
    if settings.justifications:
        line += rf" && \text{{{escape_text(step.justification)}}}"
    return line


def derivation_latex(derivation: Derivation, **settings: Any) -> str:
    """The derivation's chain as a LaTeX environment.

    Args:
        derivation: what to render.
        **settings: fields of :class:`LatexSettings`.

    Returns:
        For ``environment="align*"``: ``\\begin{align*} start &= e_1 ... \\end{align*}``.

    Raises:
        InputError: an unknown setting or value.
    """
    try:
        s = LatexSettings(**settings)
    except TypeError as exc:
        raise InputError(f"unknown LaTeX setting: {exc}") from None
    lines = [expr_latex(derivation.start, s.symbol_names) + " " + step_line(derivation.steps[0], s)]
    lines += [step_line(st, s) for st in derivation.steps[1:]]
    body = " \\\\\n".join(lines)
    return f"\\begin{{{s.environment}}}\n{body}\n\\end{{{s.environment}}}"


def claim_latex(derivation: Derivation, symbol_names: dict | None = None) -> str:
    """The claim alone, ``start R end``, as inline LaTeX (no environment)."""
    rel = _REL_TEX[derivation.relation]
    return f"{expr_latex(derivation.start, symbol_names)} {rel} {expr_latex(derivation.end, symbol_names)}"
