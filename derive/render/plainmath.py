r"""Math written as plain text, found and marked up: ``Σ_(s≤t) 4·h·d_k`` -> TeX, ``n_layers`` -> code.

Docstrings and generated reports are read as plain text too, so they write math with Unicode where it has
a sign (``Σ``, ``μ``, ``²``, ``≤``) and ASCII ``_``/``^`` for the rest (``E[x_i] = μ``, ``e^(i·p·θ_i)``).
:func:`mark_plain` finds such math in a piece of text:

* a run of math (tokens with a subscript or a superscript and the operators, brackets and single letters
  between them: ``(Σ_i f_i)² = Σ_i Σ_j f_i f_j``) is one piece of math, converted by :func:`to_tex`;
* a name with underscores (``n_layers``, ``vocab_size``, ``false_rejection``) is code, as the notation page
  writes configuration names; the widths ``d_model``, ``d_ff`` and one- or two-letter indices are math.

:func:`mark_markdown` marks a MyST line (``$…$`` and backticks); ``derive.sphinxext.docstring_math``
marks docstrings (reST roles). Nothing is evaluated: the text is only re-spelled.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: Unicode signs and their TeX
_TEX = {"Σ": r"\sum", "Π": r"\prod", "·": r"\cdot ", "×": r"\times ", "−": "-", "→": r"\to ", "↦": r"\mapsto ",
        "≤": r"\le ", "≥": r"\ge ", "≠": r"\ne ", "≈": r"\approx ", "∂": r"\partial ", "∞": r"\infty ",
        "∈": r"\in ", "±": r"\pm ", "⊙": r"\odot ", "√": r"\sqrt ", "ᵀ": r"^{\top}", "…": r"\ldots ",
        "α": r"\alpha ", "β": r"\beta ", "γ": r"\gamma ", "δ": r"\delta ", "ε": r"\varepsilon ",
        "ζ": r"\zeta ", "η": r"\eta ", "θ": r"\theta ", "κ": r"\kappa ", "λ": r"\lambda ", "μ": r"\mu ",
        "ν": r"\nu ", "ξ": r"\xi ", "π": r"\pi ", "ρ": r"\rho ", "σ": r"\sigma ", "τ": r"\tau ", "φ": r"\phi ",
        "χ": r"\chi ", "ψ": r"\psi ", "ω": r"\omega ", "Γ": r"\Gamma ", "Δ": r"\Delta ", "Θ": r"\Theta ",
        "Λ": r"\Lambda ", "Ξ": r"\Xi ", "Φ": r"\Phi ", "Ψ": r"\Psi ", "Ω": r"\Omega ", "ℓ": r"\ell ",
        "_": "_", "^": "^", "{": "{", "}": "}", "%": r"\%", "#": r"\#", "&": r"\&", "$": r"\$"}
_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻ⁿⁱ", "0123456789+-ni", strict=True))
#: words that are operators in math
_OPERATORS = {"lim", "max", "min", "exp", "log", "ln", "sin", "cos", "tanh", "det", "sup", "inf", "arg"}
_LETTERS = r"A-Za-zα-ωΑ-ΩℓΣΠ"
#: one script: _ or ^ followed by a {group}, a (group), or a run of letters and digits (a minus sign allowed)
_SCRIPT = r"[_^](?:\{[^{}`]*\}|\([^()`]*(?:\([^()`]*\)[^()`]*)*\)|[−-]?[A-Za-z0-9α-ω]+)"
#: a token with scripts: a base of one to three letters, a Greek letter, Σ or digits, then scripts
_ATOM = re.compile(rf"(?<![\w\\])(?:[{_LETTERS}]+|\d+|\))(?:{_SCRIPT}|[²³¹⁰-⁹ᵀ])*?{_SCRIPT}(?:{_SCRIPT}|[²³¹⁰-⁹ᵀ])*"
                   r"(?![\w{(])")
#: a name of code: words joined by underscores, at least one of them two letters long (n_layers, d_model)
_NAME = re.compile(r"(?<![\w\\.-])[A-Za-z][A-Za-z0-9-]*(?:_[A-Za-z0-9-]+)+(?<!-)(?![\w(])")
#: what may stand between two math tokens of one run (signs, brackets, digits, single letters, spaces)
_BETWEEN = re.compile(rf"(?:[\s()\[\]|+\-−=·×/≤≥<>→↦≈≠,²³ᵀ∂∞0-9.]|(?<![A-Za-zα-ω])[{_LETTERS}](?![A-Za-zα-ω])"
                      rf"|\b(?:{'|'.join(_OPERATORS)})\b)*")
#: widths of the field written as math: d_model, d_ff, d_k (the notation page's convention)
_MATH_NAMES = re.compile(r"d_[A-Za-z]+|[A-Za-z]_(?:[A-Za-z]|[0-9]+|[ijklmnpqrst]{2}|kv)")


def _is_code_name(token: str) -> bool:
    """``n_layers``, ``vocab_size``, ``false_rejection``: code; ``d_model``, ``x_i``, ``W_K``, ``g_ij``: math."""
    return not _MATH_NAMES.fullmatch(token)


def _words(text: str) -> str:
    r"""A multi-letter word inside math as an operator (``\lim``) or upright text (``\mathrm{digits}``)."""
    def word(m: re.Match) -> str:
        w = m.group()
        if w in _OPERATORS:
            return "\\" + w + " "
        return rf"\mathrm{{{w}}}" if len(w) > 1 else w
    return re.sub(r"(?<![\\A-Za-z])[A-Za-z]{2,}", word, text)


def to_tex(text: str) -> str:
    r"""Plain-text math as TeX: ``Σ_(s≤t) 4·h`` -> ``\sum_{s\le t} 4\cdot h``; ``d_model`` -> ``d_{\text{model}}``."""
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch in "_^":
            j = i + 1
            if j < len(text) and text[j] in "({":
                close = {"(": ")", "{": "}"}[text[j]]
                depth, k = 0, j
                while k < len(text):
                    depth += text[k] == text[j]
                    depth -= text[k] == close
                    k += 1
                    if depth == 0:
                        break
                body, i = text[j + 1:k - 1], k
            else:
                m = re.compile(r"[−-]?[A-Za-z0-9α-ω]+").match(text, j)
                body, i = (m.group(), m.end()) if m else ("", j)
            if ch == "_" and re.fullmatch(r"[A-Za-z]{3,}", body):
                out.append(rf"_{{\text{{{body}}}}}")
            elif re.fullmatch(r"[A-Za-z0-9]{1,2}", body):
                out.append(f"{ch}{{{body}}}")  # indices: g_ij, δ_jl
            else:
                out.append(f"{ch}{{{to_tex(body) if len(body) > 1 else _TEX.get(body, body)}}}")
        elif ch in _SUPERSCRIPT or ch in "²³¹":
            m = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻ⁿⁱ]+").match(text, i)
            out.append("^{" + "".join(_SUPERSCRIPT[c] for c in m.group()) + "}")
            i = m.end()
        elif re.match(r"[A-Za-z]", ch):
            m = re.compile(r"[A-Za-z]+").match(text, i)
            out.append(_words(m.group()))
            i = m.end()
        else:
            out.append(_TEX.get(ch, ch))
            i += 1
    return re.sub(r" +", " ", "".join(out)).strip()


def _balanced(s: str) -> bool:
    depth = 0
    for ch in s:
        depth += ch in "(["
        depth -= ch in ")]"
        if depth < 0:
            return False
    return depth == 0


def _trim(run: str) -> str:
    """A run without spaces, commas or full stops at its ends and without an unmatched outer bracket."""
    while True:
        before = run
        run = run.strip(" ,.;:").rstrip("([").lstrip(")]")
        if run.startswith(("(", "[")) and not _balanced(run):
            run = run[1:]
        if run.endswith((")", "]")) and not _balanced(run):
            run = run[:-1]
        if run.startswith("=") or run.endswith(("=", "+", "−", "-", "·", "→")):
            run = run.strip("=+−-·→ ")
        if run == before:
            return run


def mark_plain(text: str, markup: Callable[[str, str], str]) -> str:
    """``text`` with its plain-text math runs and code names marked by ``markup(kind, body)``: ``kind`` is
    ``"math"`` (``body`` in TeX) or ``"code"``."""
    spans: list[tuple[int, int, str]] = []
    for m in _NAME.finditer(text):
        if _is_code_name(m.group()):
            spans.append((m.start(), m.end(), "code"))
    taken = [(a, b) for a, b, _ in spans]
    atoms = [m for m in _ATOM.finditer(text) if not any(a < m.end() and m.start() < b for a, b in taken)]
    # join atoms whose gap holds only signs, brackets, digits and single letters into runs
    runs: list[list[int]] = []
    for m in atoms:
        if runs and _BETWEEN.fullmatch(text[runs[-1][1]:m.start()]) and "  " not in text[runs[-1][1]:m.start()]:
            runs[-1][1] = m.end()
        else:
            runs.append([m.start(), m.end()])
    for start, end in runs:
        # grow over neighbouring signs and single letters ("(Σ_i f_i)² = Σ_i …", "f_j (x)")
        left = re.search(rf"(?:[(\[]|(?<![\w])[{_LETTERS}](?=[\[(]))*$", text[:start])
        right = _GROW.match(text, end)
        a = left.start() if left else start
        b = right.end() if right else end
        b = min([b, *(x for x, _, kind in spans if kind == "code" and x >= end)])
        piece = _trim(text[a:b])
        if piece and _balanced(piece):
            a = text.index(piece, a)
            spans.append((a, a + len(piece), "math"))
        else:  # brackets that open in one run and close in another: each token on its own
            spans.extend((m.start(), m.end(), "math") for m in atoms if start <= m.start() < end)
    spans.sort()
    out, last = [], 0
    for a, b, kind in spans:
        if a < last:
            continue
        out.append(text[last:a])
        body = text[a:b]
        out.append(markup(kind, body if kind == "code" else to_tex(body)))
        last = b
    out.append(text[last:])
    return "".join(out)


#: what a run may take after its last token: as between tokens, but no comma (it ends a formula in a list)
_GROW = re.compile(_BETWEEN.pattern.replace(",", "", 1))

#: protected pieces of a MyST line: code, math, links
_MD_PROTECTED = re.compile(r"`[^`]*`|\$[^$]*\$|\[[^\]]*\]\([^)]*\)|https?://\S+|<[^>]+>")


def _md_markup(kind: str, body: str) -> str:
    return f"${body}$" if kind == "math" else f"`{body}`"


def mark_markdown(text: str) -> str:
    """A MyST line with its plain-text math as ``$…$`` and its code names as code; code, math and links stay.

    >>> mark_markdown("peak RSS at d_k = 512 with OPENBLAS_L2_SIZE unset")
    'peak RSS at $d_{k} = 512$ with `OPENBLAS_L2_SIZE` unset'
    """
    out, last = [], 0
    for m in _MD_PROTECTED.finditer(text):
        out += [mark_plain(text[last:m.start()], _md_markup), m.group()]
        last = m.end()
    out.append(mark_plain(text[last:], _md_markup))
    return "".join(out)
