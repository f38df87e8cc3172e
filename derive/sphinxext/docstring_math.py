r"""Docstring math typeset on the API page: ``x_i``, ``Σ_(s≤t)``, ``10^(−2i/d_model)`` as math, names as code.

The package's docstrings are read in a terminal too (``help(derive.sums)``), so they write their math as
plain text: Unicode where it has a sign (``Σ``, ``μ``, ``²``, ``≤``) and ASCII ``_``/``^`` for the
rest (``E[x_i] = μ``, ``e^(i·p·θ_i)``). On the site that ASCII would be shown raw. This extension rewrites
each docstring autodoc reads, after napoleon, into reST with inline math:

* a run of math (tokens with a subscript or a superscript and the operators, brackets and single letters
  between them: ``(Σ_i f_i)² = Σ_i Σ_j f_i f_j``) becomes one ``:math:`` role, in TeX;
* a code name with underscores (``n_layers``, ``vocab_size``, ``false_rejection``) becomes inline code,
  as the notation page writes it; a width of the field (``d_model``, ``d_ff``) is math, :math:`d_{\text{model}}`;
* code, roles, literal blocks, doctests and field names are left as they are.

It also shows the parameter names of a field list ("Parameters: **false_rejection** – …") as code.

Used by the derive site (``docs/conf.py`` lists ``derive.sphinxext.docstring_math``); ``setup`` returns
``parallel_read_safe``. Source: the convention is derive's own; the reST rules for inline markup next to
other characters are docutils' (a ``\ `` escape separates markup from a neighbouring character).
"""

from __future__ import annotations

import re
from typing import Any

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
_NAME = re.compile(r"(?<![\w\\.])[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+(?![\w(])")
#: what may stand between two math tokens of one run (signs, brackets, digits, single letters, spaces)
_BETWEEN = re.compile(rf"(?:[\s()\[\]|+\-−=·×/≤≥<>→↦≈≠,²³ᵀ∂∞0-9.]|(?<![A-Za-zα-ω])[{_LETTERS}](?![A-Za-zα-ω])"
                      rf"|\b(?:{'|'.join(_OPERATORS)})\b)*")
#: protected pieces of a reST line: inline code, roles, default-role text, links, substitutions
_PROTECTED = re.compile(r"``.+?``|:[\w:+.-]+:`[^`]*`|`[^`]*`_{0,2}|https?://\S+|\|[^|\s][^|]*\||\*\*[^*]+\*\*")
#: a field list's head (":param name:", ":raises Error:") is never rewritten
_FIELD = re.compile(r"^\s*:[^:`]+:")
#: widths of the field written as math: d_model, d_ff, d_k (the notation page's convention)
_MATH_NAMES = re.compile(r"d_[A-Za-z]+|[A-Za-z]_(?:[A-Za-z0-9]|[0-9]{2}|[ijklmnpqrst]{2}|kv)")


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


def _markup(kind: str, body: str) -> str:
    r"""Inline markup that stands apart from any neighbour: ``\ :math:`…`\ ``."""
    inner = f":math:`{body}`" if kind == "math" else f"``{body}``"
    return rf"\ {inner}\ "


def _plain(text: str) -> str:
    """One unprotected piece of a line, with its math and code names marked."""
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
        right = _BETWEEN.match(text, end)
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
        out.append(_markup(kind, body if kind == "code" else to_tex(body)))
        last = b
    out.append(text[last:])
    return "".join(out)


def rewrite_line(line: str) -> str:
    """One line of a docstring (reST) with its plain-text math and code names marked up."""
    head = _FIELD.match(line)
    start = head.end() if head else 0
    out, last = [line[:start]], start
    for m in _PROTECTED.finditer(line, start):
        out.append(_plain(line[last:m.start()]))
        out.append(m.group())
        last = m.end()
    out.append(_plain(line[last:]))
    return "".join(out)


_BORDER = re.compile(r"^(\s*)=+(?:\s+=+)+\s*$")


def _table(rows: list[str]) -> list[str]:
    """A simple reST table (``====  ====`` borders) with its cells rewritten and its columns widened to fit."""
    border = next(r for r in rows if _BORDER.match(r))
    indent = _BORDER.match(border).group(1)
    bounds = [(m.start(), m.end()) for m in re.finditer(r"=+", border)]
    cells: list[list[str] | None] = []
    for row in rows:
        if _BORDER.match(row) or not row.strip():
            cells.append(None)
            continue
        starts = [a for a, _ in bounds] + [None]
        cells.append([rewrite_line(row[a:b].strip() if b else row[a:].strip())
                      for a, b in zip(starts[:-1], starts[1:], strict=True)])
    widths = [max([len(c[k]) for c in cells if c] + [b - a]) for k, (a, b) in enumerate(bounds)]
    out = []
    for row, c in zip(rows, cells, strict=True):
        if c is None:
            out.append(indent + "  ".join("=" * w for w in widths) if _BORDER.match(row) else row)
        else:
            out.append((indent + "  ".join(x.ljust(w) for x, w in zip(c, widths, strict=True))).rstrip())
    return out


def rewrite(lines: list[str]) -> None:
    """Rewrite a docstring's lines in place; literal blocks, doctests and directives' heads stay."""
    state: list = [None, False]  # indent of an open literal block (or None), inside a doctest
    k = 0
    while k < len(lines):
        if state == [None, False] and _BORDER.match(lines[k]):  # a simple table: borders, head and rows
            end, borders = k, 0
            while end < len(lines) and (lines[end].strip() or borders < 2):
                borders += bool(_BORDER.match(lines[end]))
                end += 1
            lines[k:end] = _table(lines[k:end])
            k = end
            continue
        _rewrite_one(lines, k, state)
        k += 1


def _rewrite_one(lines: list[str], k: int, state: list) -> None:
    """Line ``k`` of :func:`rewrite`; ``state`` is [indent of an open literal block or None, inside a doctest]."""
    line = lines[k]
    literal_indent, doctest = state
    indent = len(line) - len(line.lstrip())
    stripped = line.strip()
    if literal_indent is not None:
        if stripped and indent <= literal_indent:
            state[0] = literal_indent = None
        else:
            return
    if doctest:
        if not stripped:
            state[1] = False
        return
    if stripped.startswith(">>>"):
        state[1] = True
        return
    if stripped.startswith(".."):
        if re.match(r"\.\.\s+(code-block|code|math|literalinclude|highlight|sourcecode|doctest)\b", stripped):
            state[0] = indent
        return
    if stripped.endswith("::"):
        lines[k] = rewrite_line(line[:-2]) + "::" if stripped != "::" else line
        state[0] = indent
        return
    lines[k] = rewrite_line(line)


def _process_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    rewrite(lines)


def _field_names_as_code(app: Any, doctree: Any, docname: str) -> None:
    """A parameter's name in a field list ("**false_rejection** – …") shown as code, as in the signature."""
    from docutils import nodes
    from sphinx import addnodes

    for node in list(doctree.findall(addnodes.literal_strong)):
        if "_" in node.astext():
            node.replace_self(nodes.strong("", "", nodes.literal(node.astext(), node.astext())))


def setup(app: Any) -> dict[str, Any]:
    from .. import __version__

    app.setup_extension("sphinx.ext.autodoc")
    app.connect("autodoc-process-docstring", _process_docstring, priority=700)
    app.connect("doctree-resolved", _field_names_as_code)
    return {"version": __version__, "parallel_read_safe": True, "parallel_write_safe": True}
