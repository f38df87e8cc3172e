r"""LaTeX for derivations: the chain as an aligned equation, one step, the claim.

The public functions are thin wrappers over :class:`LatexSettings`, which
validates its options the way sympy's printers validate theirs::

    >>> from derive import registry
    >>> registry.load_catalog()
    >>> d = registry.get("softmax.max-trick")
    >>> print(claim_latex(d))
    \sum_{j=1}^{n} e^{{z}_{j} - c} \le n

Every other target that shows formulas (Beamer, Markdown slides, SVG,
MathML) takes its LaTeX from here, so the notation is the same everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Any

from ..core import Derivation, Step
from ..exceptions import InputError

REL_TEX = {"=": "=", "<=": r"\le", "<": "<", ">=": r"\ge", ">": ">"}
_REL_TEX = REL_TEX  # the name used before the slides renderers
_ENVIRONMENTS = ("align*", "align", "aligned")
_ANNOTATIONS = ("column", "inline")
_WHAT = ("chain", "claim", "step")

#: Non-ASCII characters that appear in justifications and assumptions, as LaTeX
#: that pdflatex understands in text mode (math in ``$...$``).
UNICODE_TEX = {
    "−": "$-$", "·": r"$\cdot$", "×": r"$\times$", "≤": r"$\le$", "≥": r"$\ge$", "≠": r"$\ne$",
    "≈": r"$\approx$", "→": r"$\to$", "∈": r"$\in$", "√": r"$\surd$", "∑": r"$\sum$", "∞": r"$\infty$",
    "ω": r"$\omega$", "θ": r"$\theta$", "σ": r"$\sigma$", "μ": r"$\mu$", "ε": r"$\varepsilon$",
    "α": r"$\alpha$", "β": r"$\beta$", "γ": r"$\gamma$", "λ": r"$\lambda$", "π": r"$\pi$",
    "²": r"$^2$", "½": r"$\frac12$", "…": r"\dots{}", "–": "--", "—": "---", "’": "'", "“": "``", "”": "''",
    "<": "$<$", ">": "$>$", "|": r"$|$", "§": r"\S{}", "ℝ": r"$\mathbb{R}$",
    "⊙": r"$\odot$", "⊗": r"$\otimes$", "⊕": r"$\oplus$", "∘": r"$\circ$", "∂": r"$\partial$",
    "∇": r"$\nabla$", "±": r"$\pm$", "÷": r"$\div$", "≡": r"$\equiv$", "∝": r"$\propto$", "∼": r"$\sim$",
    "⇒": r"$\Rightarrow$", "⇔": r"$\Leftrightarrow$", "←": r"$\leftarrow$", "↔": r"$\leftrightarrow$",
    "∀": r"$\forall$", "∃": r"$\exists$", "≪": r"$\ll$", "≫": r"$\gg$", "⟨": r"$\langle$", "⟩": r"$\rangle$",
    "‖": r"$\|$", "°": r"$^\circ$", "³": r"$^3$", "¹": r"$^1$", "⁻": r"$^-$", "ᵀ": r"$^\top$",
    "δ": r"$\delta$", "η": r"$\eta$", "ρ": r"$\rho$", "τ": r"$\tau$", "φ": r"$\phi$", "ψ": r"$\psi$",
    "ζ": r"$\zeta$", "′": "$'$", "″": "$''$", "κ": r"$\kappa$", "ν": r"$\nu$", "ξ": r"$\xi$", "χ": r"$\chi$",
    "Σ": r"$\Sigma$", "Δ": r"$\Delta$", "Θ": r"$\Theta$", "Λ": r"$\Lambda$", "Π": r"$\Pi$", "Ω": r"$\Omega$",
    "Φ": r"$\Phi$", "Ψ": r"$\Psi$", "Γ": r"$\Gamma$", "\u00a0": "~", "∓": r"$\mp$", "⁺": r"$^+$",
    **{ch: f"$^{k}$" for k, ch in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")},
    **{ch: f"$_{k}$" for k, ch in enumerate("₀₁₂₃₄₅₆₇₈₉")},
}


def _plain(ch: str) -> str:
    """A character pdflatex can typeset: ASCII, a :data:`UNICODE_TEX` form, or its ASCII decomposition."""
    if ch in UNICODE_TEX or ord(ch) < 128:
        return UNICODE_TEX.get(ch, ch)
    from ..i18n import is_hangul

    if is_hangul(ch):  # Korean: as it is, for kotex (see korean_preamble)
        return ch
    import unicodedata

    ascii_form = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
    return ascii_form or r"\textbf{?}"  # unknown symbol: visible, and the document still compiles


def _math_char(ch: str) -> str:
    r"""A character inside ``$...$`` as pdflatex takes it: ASCII as it is, ω as ``\omega `` and so on."""
    if ord(ch) < 128:
        return ch
    rep = UNICODE_TEX.get(ch)
    if rep is None:
        return _plain(ch)
    return rep[1:-1] + " " if rep.startswith("$") and rep.endswith("$") else rep


@dataclass(frozen=True)
class LatexSettings:
    """Options of the LaTeX renderer (checked when built).

    Attributes:
        environment: ``"align*"``, ``"align"`` (numbered by LaTeX) or
            ``"aligned"`` (to sit inside ``equation``, ``$$`` or a slide).
        justifications: show each step's justification.
        annotation: where a justification goes: ``"column"`` (a third
            column, ``&& \\text{...}``) or ``"inline"`` (after the formula,
            ``\\quad \\text{(...)}``).
        numbering: number the steps ``(1)``, ``(2)``... with ``\\tag`` in
            ``align``/``align*``, or as a text label in ``aligned``.
        math_in_text: keep the ``$...$`` math of a justification inside
            ``\\text{...}`` (LaTeX); ``False`` closes the text around it
            (``\\text{words} e^{-c} \\text{words}``), which MathJax and KaTeX
            show without extensions.
        symbol_names: extra ``Symbol -> LaTeX`` spellings, merged over the
            notation table of :mod:`derive.transformer.notation`.

    Raises:
        InputError: a value outside the choices above.
    """

    environment: str = "align*"
    justifications: bool = True
    annotation: str = "column"
    numbering: bool = False
    math_in_text: bool = True
    symbol_names: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.environment not in _ENVIRONMENTS:
            raise InputError(f"environment {self.environment!r} is not one of {', '.join(_ENVIRONMENTS)}")
        if self.annotation not in _ANNOTATIONS:
            raise InputError(f"annotation {self.annotation!r} is not one of {', '.join(_ANNOTATIONS)}")
        for name in ("justifications", "numbering", "math_in_text"):
            if not isinstance(getattr(self, name), bool):
                raise InputError(f"{name} must be True or False, got {getattr(self, name)!r}")
        if not isinstance(self.symbol_names, dict):
            raise InputError("symbol_names must be a dict mapping sympy symbols to LaTeX")


@dataclass(frozen=True)
class SelectionSettings:
    """Which formula of a derivation to show: options shared by the SVG and MathML renderers.

    Attributes:
        what: ``"chain"`` (every step), ``"claim"`` (``start R end``) or
            ``"step"`` (step number ``step`` alone, after the previous expression).
        step: the 1-based step shown when ``what="step"``.
        justifications: show the justifications beside the steps.
        symbol_names: extra ``Symbol -> LaTeX`` spellings.

    Raises:
        InputError: a value outside these choices.
    """

    what: str = "chain"
    step: int = 1
    justifications: bool = True
    symbol_names: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.what not in _WHAT:
            raise InputError(f"what {self.what!r} is not one of {', '.join(_WHAT)}")
        if not isinstance(self.justifications, bool):
            raise InputError(f"justifications must be True or False, got {self.justifications!r}")


def step_pair(derivation: Derivation, index: int) -> tuple[Any, Step]:
    """The expression before step ``index`` (1-based) and the step.

    Raises:
        InputError: ``index`` is not between 1 and the number of steps.
    """
    if isinstance(index, bool) or not isinstance(index, int) or not 1 <= index <= len(derivation.steps):
        raise InputError(f"{derivation.name} has steps 1..{len(derivation.steps)}, not {index!r}")
    prev = derivation.start if index == 1 else derivation.steps[index - 2].expr
    return prev, derivation.steps[index - 1]


def checked_settings(cls: type, settings: dict[str, Any]) -> Any:
    """Build the frozen settings dataclass ``cls`` from keyword ``settings``.

    Raises:
        InputError: an unknown setting (the message lists the known ones) or a bad value.
    """
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(settings) - known)
    if unknown:
        raise InputError(f"unknown {cls.__name__} setting(s): {', '.join(unknown)}; "
                         f"known: {', '.join(sorted(known))}")
    return cls(**settings)


def expr_latex(expr: Any, symbol_names: dict | None = None) -> str:
    """LaTeX of one expression, using the project's notation table; a fraction in an exponent is written
    with a slash (``10000^{- 2 i / d}``), since a stacked one there is too small to read."""
    import sympy as sp

    from ..transformer.notation import latex_names

    names = latex_names()
    if symbol_names:
        names.update(symbol_names)
    # bound symbols too (summation indices such as the pair index i_pair), not only free ones
    present = expr.atoms(sp.Symbol) if isinstance(expr, sp.Basic) else set()
    spelled = {getattr(s, "name", None) for s in present}  # by name too: see DisplayLatexPrinter._print_Symbol
    used = {s: n for s, n in names.items() if s in present or getattr(s, "name", None) in spelled}
    from .layout import fold_exponent_fractions
    from .order import display_latex

    return fold_exponent_fractions(display_latex(expr, symbol_names=used))


def escape_text(text: str) -> str:
    r"""Escape ``text`` for ``\text{...}`` or a LaTeX paragraph, keeping ``$...$`` math.

    Special characters are escaped and the Unicode symbols of :data:`UNICODE_TEX`
    become their LaTeX forms, so that the result compiles with plain pdflatex.
    Bare pseudo-TeX (``d_k``, ``e^{s_j}``) is typeset as math (:func:`~derive.render.textmath.mark_math`).
    """
    import re

    from .textmath import mark_math

    out = []
    parts = mark_math(text).split("$")
    for k, part in enumerate(parts):
        if k % 2 == 1:  # math: only its non-ASCII symbols change (ω -> \omega), for pdflatex
            part = re.sub("(\\w)\u0302", r"\\hat{\1}", part)  # x̂ (x + combining circumflex) -> \hat{x}
            out.append("$" + "".join(_math_char(ch) for ch in part) + "$")
            continue
        for ch, rep in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("#", r"\#"),
                        ("_", r"\_"), ("{", r"\{"), ("}", r"\}"), ("^", r"\^{}"), ("~", r"\~{}")):
            part = part.replace(ch, rep)
        part = re.sub("(\\w)\u0302", r"\\^{\1}", part)  # x̂ in text: the accent \^{x}
        out.append("".join(_plain(ch) for ch in part))
    return "".join(out)


def text_and_math(text: str) -> str:
    r"""Words with ``$...$`` math as LaTeX math: ``\text{words} math \text{words}``.

    For converters that cannot nest math inside ``\text`` (MathML, SVG);
    braces and backslashes of the words are dropped.
    """
    out = []
    for k, part in enumerate(text.split("$")):
        if k % 2:
            out.append(part)
        elif part:
            words = part.replace("\\", "").replace("{", "").replace("}", "")
            out.append(rf"\text{{{words}}}")
    return " ".join(out)


def _annotation(step: Step, number: int | None, s: LatexSettings) -> str:
    label = f"({number})" if number is not None and s.numbering and s.environment == "aligned" else ""
    words = step.justification if s.justifications else ""
    if not (label or words):
        return ""
    text = " ".join(p for p in (label, words) if p) if label or s.annotation == "column" else f"({words})"
    if s.math_in_text:
        text = rf"\text{{{escape_text(text)}}}"
    else:
        text = text_and_math(text)
    return (" && " if s.annotation == "column" else r" \quad ") + text


def step_line(step: Step, settings: LatexSettings, number: int | None = None) -> str:
    """One line of the chain: ``&= expr``, its annotation and its tag."""
    from .order import shown_expr

    line = f"&{REL_TEX[step.relation]} {expr_latex(shown_expr(step), settings.symbol_names)}"
    line += _annotation(step, number, settings)
    if settings.numbering and number is not None and settings.environment != "aligned":
        line += rf" \tag{{{number}}}"
    return line


#: Above this rough width (in symbols) the start expression gets a line of its own.
START_ALONE_WIDTH = 60


def visible_length(tex: str) -> int:
    """Rough printed width of LaTeX math, in symbols (a command counts as one, braces as none)."""
    t = re.sub(r"\\(left|right|begin\{\w+\*?\}|end\{\w+\*?\}|text|mathrm|operatorname)", "", tex)
    t = re.sub(r"\\[a-zA-Z]+", "x", t)
    return len(re.sub(r"[{}\s^_&]", "", t))


def start_alone(start_tex: str, first_tex: str) -> bool:
    """Whether the chain should show its start on a line of its own (``start`` then ``= e_1``)."""
    return visible_length(start_tex) + visible_length(first_tex) > START_ALONE_WIDTH


def chain_lines(derivation: Derivation, s: LatexSettings) -> list[str]:
    """The lines of the chain: the start expression on the first one, or alone above when long."""
    from .order import shown_expr

    start = expr_latex(derivation.start, s.symbol_names)
    first = step_line(derivation.steps[0], s, 1)
    if start_alone(start, expr_latex(shown_expr(derivation.steps[0]), s.symbol_names)):
        lines = [f"&{start}", first]
    else:
        lines = [start + " " + first]
    lines += [step_line(st, s, k) for k, st in enumerate(derivation.steps[1:], 2)]
    return lines


def derivation_latex(derivation: Derivation, **settings: Any) -> str:
    r"""The derivation's chain as a LaTeX environment.

    Args:
        derivation: what to render.
        settings: keyword arguments, the fields of :class:`LatexSettings` (``environment``,
            ``justifications``, ``annotation``, ``numbering``, ``symbol_names``).

    Returns:
        For ``environment="align*"``: ``\begin{align*} start &= e_1 ... \end{align*}``;
        lines are separated by ``\\`` and a newline.

    Raises:
        InputError: an unknown setting or value.
    """
    s = checked_settings(LatexSettings, settings)
    body = " \\\\\n".join(chain_lines(derivation, s))
    return f"\\begin{{{s.environment}}}\n{body}\n\\end{{{s.environment}}}"


def step_latex(derivation: Derivation, index: int, **settings: Any) -> str:
    """Step ``index`` (1-based) alone: ``previous R expr``, with its justification.

    Raises:
        InputError: ``index`` is not between 1 and the number of steps, or a bad setting.
    """
    s = checked_settings(LatexSettings, settings)
    prev, step = step_pair(derivation, index)
    line = f"{expr_latex(prev, s.symbol_names)} {step_line(step, s, index)}"
    return f"\\begin{{{s.environment}}}\n{line}\n\\end{{{s.environment}}}"


def claim_latex(derivation: Derivation, symbol_names: dict | None = None) -> str:
    """The claim alone, ``start R end``, as LaTeX math without an environment."""
    from .order import shown_expr

    rel = REL_TEX[derivation.relation]
    end = shown_expr(derivation.steps[-1])
    return f"{expr_latex(derivation.start, symbol_names)} {rel} {expr_latex(end, symbol_names)}"


def definitions_latex(derivation: Derivation, symbol_names: dict | None = None) -> list[str]:
    """Each definition ``lhs = rhs`` of the derivation as LaTeX math."""
    return [f"{expr_latex(lhs, symbol_names)} = {expr_latex(rhs, symbol_names)}"
            for lhs, rhs in derivation.definitions]


def fit_to_width(content: str, math: bool = True, max_height: str = "", center: bool = True) -> str:
    r"""Display ``content`` centred, shrunk only if it is wider than the line (or taller than ``max_height``).

    Args:
        content: an ``aligned`` block (``math=True``) or a ``tabular`` (``math=False``).
        math: typeset ``content`` in display-style math.
        max_height: a LaTeX length the box's total height may not exceed,
            e.g. ``"0.6\textheight"`` on a slide; empty for no limit.
        center: in a ``center`` environment; else in a plain group, where it stands.

    Uses ``\resizebox`` (graphicx, which Beamer loads) and the scratch box 0
    inside the group.
    """
    box = rf"\sbox0{{$\displaystyle {content}$}}" if math else rf"\sbox0{{{content}}}"
    # each shrink is written to the log ("derive-fit: width <natural> <target>") so tests can read the scale
    lines = [box, r"\ifdim\wd0>\linewidth\typeout{derive-fit: width \the\dimexpr\wd0\relax\space\the\linewidth}"
             r"\sbox0{\resizebox{\linewidth}{!}{\usebox0}}\fi"]
    if max_height:
        lines += [rf"\dimen0={max_height}\dimen2=\ht0\advance\dimen2 by \dp0",
                  r"\ifdim\dimen2>\dimen0"
                  r"\typeout{derive-fit: height \the\dimexpr\dimen2\relax\space\the\dimexpr\dimen0\relax}"
                  r"\sbox0{\resizebox*{!}{\dimen0}{\usebox0}}\fi"]
    if center:
        return "\n".join([r"\begin{center}", *lines, r"\usebox0", r"\end{center}"])
    return "{" + "\n".join([*lines, r"\usebox0}"])


def korean_preamble(text: str) -> list[str]:
    r"""``\usepackage{kotex}`` when ``text`` holds Korean letters, else nothing.

    ko.TeX's ``kotex`` typesets UTF-8 Hangul under pdflatex with the free Nanum Type 1 fonts (Debian:
    ``texlive-lang-korean``); the formulas keep Computer Modern.
    """
    from ..i18n import has_hangul

    return [r"\usepackage{kotex}"] if has_hangul(text) else []


def latex_document(body: str, title: str = "") -> str:
    """A complete ``article`` around ``body`` (amsmath, graphicx, booktabs), for pdflatex (with ``kotex``
    when the text is Korean)."""
    head = [r"\documentclass{article}", *korean_preamble(title + body), r"\usepackage{amsmath,amssymb,graphicx}",
            r"\usepackage{booktabs}", r"\usepackage[margin=2cm,landscape]{geometry}", r"\begin{document}"]
    if title:
        head.append(rf"\section*{{{escape_text(title)}}}")
    return "\n".join([*head, body, r"\end{document}", ""])
