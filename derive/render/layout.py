r"""Long formulas laid out in lines of a given width, for every surface that shows a chain.

sympy prints an expression on one line however long it is. This module
breaks the LaTeX of a wide expression into lines no wider than a budget (in
``em``, estimated by :func:`tex_width`):

* a sum is split at its ``+`` and ``-`` signs (each term is printed by sympy's
  own LaTeX printer, in the order sympy would print it);
* an operator or a product around one wide argument, ``N \left(a + b + \dots\right)``
  or ``\operatorname{ReLU}\left(\dots\right)``, keeps its name on the first line
  and its bracket, now ``\Bigl(`` ... ``\Bigr)``, around the broken argument;
* an explicit matrix is never cut: it stays on one line, a long entry broken
  inside its cell; a matrix wider than the line has its wide entries named
  (``\xi_3``) and given in the "where" list (:func:`name_repeats` with ``budget``);
* a large subexpression that repeats across a chain is named once (``\xi_1``)
  and given in a "where" list (:func:`name_repeats`).

:func:`tex_width` is an estimate, not a typesetter: it follows the structure of
the LaTeX (a fraction is as wide as its wider part, a superscript is 0.7 of its
size, a matrix the sum of its widest entries) with average glyph widths of a
math font. It errs on the wide side.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

#: widths in em of single characters (anything else: 0.55)
_CHAR_EM = {**dict.fromkeys("+-=<>", 1.25), **dict.fromkeys("()[]|", 0.4), ",": 0.45, ".": 0.3,
            "/": 0.5, "!": 0.3, "'": 0.3, ":": 0.55, ";": 0.45, " ": 0.0, "~": 0.33}
_CMD_EM = {"quad": 1.0, "qquad": 2.0, ",": 0.17, ":": 0.22, ";": 0.28, "!": -0.17, " ": 0.3,
           "cdot": 0.5, "cdots": 1.3, "ldots": 1.3, "dots": 1.3, "le": 1.3, "ge": 1.3, "leq": 1.3, "geq": 1.3,
           "approx": 1.3, "ne": 1.3, "to": 1.3, "times": 1.3, "sum": 1.5, "prod": 1.5, "int": 0.8,
           "infty": 1.0, "partial": 0.6, "mathbb": 0.0, "left": 0.0, "right": 0.0, "Bigl": 0.0, "Bigr": 0.0,
           "bigl": 0.0, "bigr": 0.0, "middle": 0.0, "displaystyle": 0.0, "textstyle": 0.0, "limits": 0.0,
           "odot": 1.3, "otimes": 1.3, "pm": 1.3, "mp": 1.3, "in": 1.1, "max": 1.8, "min": 1.6, "log": 1.4,
           "exp": 1.5, "sin": 1.2, "cos": 1.3, "tanh": 2.0}
_TEXT_CMDS = {"text", "mathrm", "operatorname", "mathit", "mathbf", "textbf", "textit", "mathsf", "mathcal",
              "boldsymbol", "mathbb"}
_FRAC_CMDS = {"frac", "dfrac", "tfrac", "cfrac", "binom"}


class _Reader:
    def __init__(self, tex: str) -> None:
        self.s, self.i = tex, 0

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def command(self) -> str:
        """A control word after ``\\`` (or one symbol)."""
        m = re.compile(r"[A-Za-z]+|.").match(self.s, self.i)
        if not m:
            return ""
        self.i = m.end()
        return m.group()

    def group_text(self) -> str:
        """The text of the next ``{...}`` group (or next token), without its braces."""
        while self.peek() == " ":
            self.i += 1
        if self.peek() != "{":
            start = self.i
            if self.peek() == "\\":
                self.i += 1
                self.command()
            else:
                self.i += 1
            return self.s[start:self.i]
        depth, start = 0, self.i
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch == "\\":
                self.i += 2
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return self.s[start + 1:self.i - 1]
            self.i += 1
        return self.s[start + 1:]


def _split_top(text: str, sep: str) -> list[str]:
    """Split at ``sep`` (``&`` or ``\\\\``) outside braces and nested environments."""
    out, depth, env, start, i = [], 0, 0, 0, 0
    while i < len(text):
        if text.startswith(r"\begin", i):
            env += 1
        elif text.startswith(r"\end", i):
            env -= 1
        if text.startswith(sep, i) and depth == 0 and env == 0:
            out.append(text[start:i])
            i += len(sep)
            start = i
            continue
        ch = text[i]
        if ch == "\\" and not text.startswith(sep, i):
            i += 2
            continue
        depth += ch == "{"
        depth -= ch == "}"
        i += 1
    out.append(text[start:])
    return out


def _env_body(r: _Reader, name: str) -> str:
    """The body of ``\\begin{name} ... \\end{name}`` (the reader just after the name); the reader moves past the end."""
    end = r"\end{" + name + "}"
    depth, start = 1, r.i
    while r.i < len(r.s) and depth:
        if r.s.startswith(r"\begin{", r.i):
            depth += 1
        elif r.s.startswith(r"\end{", r.i):
            depth -= 1
            if depth == 0:
                break
        r.i += 1
    body = r.s[start:r.i]
    r.i += len(end)
    return body


def _environment(r: _Reader, name: str) -> float:
    """Width of ``\\begin{name} ... \\end{name}``: columns of their widest cells (one line for aligned)."""
    body = _env_body(r, name)
    if name.startswith("aligned") or name in ("gathered", "split"):
        rows = [tex_width(row.replace("&", " ")) for row in _split_top(body, r"\\")]
        return max(rows, default=0.0)
    rows = [[tex_width(c) for c in _split_top(row, "&")] for row in _split_top(body, r"\\")]
    ncols = max((len(row) for row in rows), default=0)
    cols = [max((row[k] for row in rows if k < len(row)), default=0.0) for k in range(ncols)]
    return sum(cols) + 1.0 * max(ncols - 1, 0) + 0.4


def tex_width(tex: str) -> float:
    """Estimated printed width of display-style LaTeX math, in em (see the module docstring)."""
    r, width = _Reader(tex), 0.0
    while r.i < len(r.s):
        ch = r.peek()
        if ch == "\\":
            r.i += 1
            cmd = r.command()
            if cmd in _FRAC_CMDS:
                a, b = r.group_text(), r.group_text()
                width += max(tex_width(a), tex_width(b)) * (0.75 if cmd == "tfrac" else 0.92) + 0.25
            elif cmd == "sqrt":
                if r.peek() == "[":
                    end = r.s.find("]", r.i)
                    r.i = end + 1 if end >= 0 else len(r.s)
                width += tex_width(r.group_text()) + 0.85
            elif cmd in _TEXT_CMDS:
                words = r.group_text()
                width += tex_width(words) if "\\" in words else 0.5 * len(words) + 0.1
            elif cmd == "begin":
                width += _environment(r, r.group_text())
            elif cmd in ("end", "tag"):
                r.group_text()
            elif cmd in ("left", "right", "Bigl", "Bigr", "bigl", "bigr", "middle", "Big", "big"):
                nxt = r.peek()
                if nxt == "\\":
                    r.i += 1
                    r.command()
                else:
                    r.i += 1
                width += 0.0 if nxt == "." else 0.45
            elif cmd in ("hspace", "phantom", "hphantom"):
                width += tex_width(r.group_text()) if "phantom" in cmd else 1.0
            else:
                width += _CMD_EM.get(cmd, 0.65)
        elif ch in "^_":
            r.i += 1
            width += 0.72 * tex_width(r.group_text())
        elif ch == "{":
            width += tex_width(r.group_text())
        elif ch in "}&":
            r.i += 1
        else:
            r.i += 1
            width += _CHAR_EM.get(ch, 0.5 if ch.isdigit() else 0.55)
    return width


# --- heights -----------------------------------------------------------------------------------------

#: (ascent, depth) in em of a plain symbol of display math
_PLAIN = (0.72, 0.22)
_AXIS = 0.25


def _env_height(r: _Reader, name: str, scale: float) -> tuple[float, float]:
    """Height of a ``matrix``/``aligned`` environment: its rows stacked, centred on the math axis."""
    body = _env_body(r, name)
    total = 0.0
    for row in _split_top(body, r"\\"):
        aligned = name.startswith("aligned") or name in ("gathered", "split")  # else an array: text style
        cells = [_height(c, scale, aligned) for c in _split_top(row, "&")] or [_PLAIN]
        total += max(max(h for h, _ in cells), 0.87 * scale) + max(max(d for _, d in cells), 0.37 * scale)
        total += 0.27 * scale if aligned else 0.0
    return total / 2 + _AXIS * scale, total / 2 - _AXIS * scale


def _fence_height(r: _Reader, scale: float, display: bool) -> tuple[float, float]:
    r"""``\left X ... \right Y`` (the reader just after ``\left``): the content, and delimiters a little taller."""
    if r.peek() == "\\":
        r.i += 1
        r.command()
    else:
        r.i += 1
    depth, start = 1, r.i
    while r.i < len(r.s):
        if r.s.startswith(r"\left", r.i) and not r.s[r.i + 5:r.i + 6].isalpha():
            depth += 1
        elif r.s.startswith(r"\right", r.i) and not r.s[r.i + 6:r.i + 7].isalpha():
            depth -= 1
            if depth == 0:
                break
        r.i += 1
    a = _height(r.s[start:r.i], scale, display)
    r.i += len(r"\right")
    if r.peek() == "\\":
        r.i += 1
        r.command()
    else:
        r.i += 1
    # TeX centres a stretched delimiter on the math axis and makes it nearly as tall as twice the
    # content's larger half (\delimiterfactor 901, \delimitershortfall 5 pt)
    half = max(a[0] - _AXIS * scale, a[1] + _AXIS * scale)
    size = max(1.8 * half, 2 * half - 0.45 * scale, 1.0 * scale) + 0.1 * scale
    return max(a[0], _AXIS * scale + size / 2), max(a[1], size / 2 - _AXIS * scale)


def _height(tex: str, scale: float = 1.0, display: bool = True) -> tuple[float, float]:
    """(ascent, depth) in em of LaTeX math: display style, or text style (``display=False``: inside a
    fraction, where a sum's limits go beside it); ``scale`` 1 for text size, 0.7 for scripts."""
    r = _Reader(tex)
    up, down = _PLAIN[0] * scale, _PLAIN[1] * scale
    last = (up, down)  # the box a following ^ or _ attaches to
    big_op = False
    while r.i < len(r.s):
        ch = r.peek()
        box = None
        if ch == "\\":
            r.i += 1
            cmd = r.command()
            if cmd in _FRAC_CMDS:
                inner = 0.75 if cmd == "tfrac" or not display else 1.0
                a = _height(r.group_text(), scale * inner, False)
                b = _height(r.group_text(), scale * inner, False)
                # TeX's shifts of numerator and denominator (display or text style), or the clearance at the bar
                up_shift, down_shift, gap = (0.68, 0.69, 0.12) if display else (0.39, 0.35, 0.05)
                box = (max(up_shift * scale + a[0], (_AXIS + gap) * scale + a[1] + a[0]),
                       max(down_shift * scale + b[1], (gap - _AXIS) * scale + b[0] + b[1]))
            elif cmd == "sqrt":
                if r.peek() == "[":
                    end = r.s.find("]", r.i)
                    r.i = end + 1 if end >= 0 else len(r.s)
                a = _height(r.group_text(), scale, display)
                tall = 0.1 * max(a[0] + a[1] - 1.0, 0.0)  # a taller radical sign: a bigger clearance
                box = (a[0] + (0.25 + tall) * scale, a[1] + (0.1 + tall) * scale)
            elif cmd in ("sum", "prod", "int", "bigcup", "bigcap"):
                box, big_op = ((1.0 * scale, 0.55 * scale), True) if display else ((0.75 * scale, 0.3 * scale), False)
                last = box
                up, down = max(up, box[0]), max(down, box[1])
                continue
            elif cmd == "substack":
                rows = _split_top(r.group_text(), r"\\")
                hs = [_height(x, scale, False) for x in rows]
                total = sum(h + d for h, d in hs)
                box = (hs[0][0] if hs else 0.0, total - (hs[0][0] if hs else 0.0))
            elif cmd == "begin":
                box = _env_height(r, r.group_text(), scale)
            elif cmd == "left":
                box = _fence_height(r, scale, display)
            elif cmd in ("lim", "max", "min", "sup", "inf", "argmax") and display:
                box, big_op = _PLAIN, True  # limits below in display style
                box = (box[0] * scale, box[1] * scale)
                last = box
                up, down = max(up, box[0]), max(down, box[1])
                continue
            elif cmd in ("Bigl", "Bigr", "Big", "biggl", "biggr", "bigg", "Biggl", "Biggr", "Bigg"):
                size = {"Big": 1.8, "bigg": 2.4, "Bigg": 3.0}[cmd.rstrip("lr")]
                box = (size / 2 + _AXIS, size / 2 - _AXIS)
            elif cmd in _TEXT_CMDS:
                words = r.group_text()
                box = _height(words, scale, display) if "\\" in words else (_PLAIN[0] * scale, _PLAIN[1] * scale)
            elif cmd in ("overline", "hat", "bar", "tilde", "vec", "widehat"):
                a = _height(r.group_text(), scale, display)
                box = (a[0] + 0.2 * scale, a[1])
            elif cmd in ("end", "tag", "hspace", "color", "textcolor"):
                r.group_text()
                continue
            elif cmd == "limits":
                continue
            else:
                continue  # a symbol or a delimiter: plain size
        elif ch in "^_":
            r.i += 1
            a = _height(r.group_text(), scale * 0.7, False)
            if big_op:  # limits above and below a display sum
                if ch == "^":
                    up = max(up, last[0] + 0.15 * scale + a[0] + a[1])
                else:
                    down = max(down, last[1] + 0.15 * scale + a[0] + a[1])
            elif ch == "^":
                up = max(up, max(last[0] - 0.25 * scale, 0.36 * scale) + a[0] + 0.0 * a[1])
            else:
                down = max(down, max(last[1], 0.15 * scale) + a[1] + max(a[0] - 0.5 * scale, 0.0))
            continue
        elif ch == "{":
            box = _height(r.group_text(), scale, display)
        else:
            r.i += 1
            if ch in " &}":
                continue
            big_op = False
            last = (_PLAIN[0] * scale, _PLAIN[1] * scale)
            continue
        big_op = False
        last = box
        up, down = max(up, box[0]), max(down, box[1])
    return up, down


def tex_height(tex: str) -> float:
    """Estimated height (ascent + depth) of display-style LaTeX math, in em; a plain line is about 0.94."""
    up, down = _height(tex)
    return up + down


# --- small exponents ---------------------------------------------------------------------------------


def _matching(tex: str, start: int) -> int:
    """Index just after the group that opens with ``{`` at ``start``."""
    depth, i = 0, start
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            i += 2
            continue
        depth += ch == "{"
        depth -= ch == "}"
        i += 1
        if depth == 0:
            return i
    return len(tex)


def _depth(tex: str) -> int:
    """Braces opened and not closed in ``tex`` (escaped braces do not count)."""
    t = tex.replace(r"\{", "").replace(r"\}", "")
    return t.count("{") - t.count("}")


def _slash(part: str) -> str:
    simple = re.fullmatch(r"\s*[-\w\\{}\s]*\s*", part) and not re.search(r"[+\-]", part.strip().lstrip("-"))
    return part.strip() if simple else rf"\left({part.strip()}\right)"


def _fold(exponent: str) -> str:
    r"""``\frac{a}{b}`` inside an exponent as ``a / b`` (a stacked fraction there is about 5 px tall)."""
    out, i = [], 0
    while True:
        j = exponent.find(r"\frac{", i)
        if j < 0:
            out.append(exponent[i:])
            return "".join(out)
        k = _matching(exponent, j + 5)
        if k >= len(exponent) or exponent[k] != "{":
            out.append(exponent[i:k])
            i = k
            continue
        m = _matching(exponent, k)
        num, den = _fold(exponent[j + 6:k - 1]), _fold(exponent[k + 1:m - 1])
        out.append(exponent[i:j] + f"{_slash(num)} / {_slash(den)}")
        i = m


def fold_exponent_fractions(tex: str) -> str:
    r"""Every ``^{...}`` whose group holds ``\frac`` written with a slash: ``10000^{- 2 i / d}``."""
    out, i = [], 0
    while True:
        j = tex.find("^{", i)
        if j < 0:
            out.append(tex[i:])
            return "".join(out)
        k = _matching(tex, j + 1)
        group = tex[j + 2:k - 1]
        out.append(tex[i:j] + "^{" + (_fold(group) if r"\frac" in group else fold_exponent_fractions(group)) + "}")
        i = k


# --- line breaking -----------------------------------------------------------------------------------


class Breaker:
    """Break the LaTeX of sympy expressions into lines of at most ``budget`` em.

    Args:
        budget: the widest line, in em (:func:`tex_width`).
        symbol_names: ``Symbol -> LaTeX`` spellings for sympy's printer.
    """

    def __init__(self, budget: float, symbol_names: dict | None = None) -> None:
        from .order import DisplayLatexPrinter as LatexPrinter  # the author's order (derive.render.order)

        self.budget = budget
        self.printer = LatexPrinter({"symbol_names": symbol_names or {}})
        self._tex: dict[Any, str] = {}

    def tex(self, expr: Any) -> str:
        """The LaTeX of ``expr`` (remembered: a broken line prints its parts again)."""
        try:
            return self._tex[expr]
        except (KeyError, TypeError):
            pass
        out = fold_exponent_fractions(self.printer.doprint(expr))
        try:
            self._tex[expr] = out
        except TypeError:  # an unhashable expression (a mutable matrix)
            pass
        return out

    def lines(self, expr: Any, budget: float | None = None) -> list[str]:
        """The lines of ``expr``; the 2nd and later lines of a sum start with their sign (``+ x``, ``- y``)."""
        import sympy as sp

        budget = self.budget if budget is None else budget
        whole = self.tex(expr)
        if tex_width(whole) <= budget or not isinstance(expr, sp.Basic) or not expr.args:
            return [whole]
        if isinstance(expr, (sp.Add, sp.MatAdd)):
            return self._sum(expr, budget)
        if isinstance(expr, sp.MatrixBase):
            return self._matrix(expr, budget)
        if whole.startswith(r"\left[\,") and r"\;\middle|\;" in whole and len(expr.args) > 1:
            return self._blocks(expr, budget)
        return self._around(expr, whole, budget)

    def _blocks(self, expr: Any, budget: float) -> list[str]:
        r"""Blocks side by side, ``[A | B]``, one block per line (a ``\middle|`` cannot span lines)."""
        lines: list[str] = []
        for k, block in enumerate(expr.args):
            sub = self.lines(block, budget - 2.0)
            sub[0] = (r"\Bigl[\," if k == 0 else r"\;\Big|\; ") + sub[0]
            lines += sub
        lines[-1] += r"\,\Bigr]"
        return lines

    def _sum(self, expr: Any, budget: float) -> list[str]:
        import sympy as sp

        p = self.printer
        terms = p._as_ordered_terms(expr) if isinstance(expr, sp.Add) else list(expr.args)
        pieces: list[tuple[str, Any]] = []
        for k, term in enumerate(terms):
            sign = ""
            if k and isinstance(expr, sp.Add) and term.could_extract_minus_sign():
                sign, term = "- ", -term
            elif k:
                sign = "+ "
            pieces.append((sign, term))
        lines: list[str] = []
        for sign, term in pieces:
            text = self.tex(term)
            if isinstance(expr, sp.Add) and p._needs_add_brackets(term):
                text = rf"\left({text}\right)"
            piece = sign + text
            if lines and tex_width(lines[-1] + " " + piece) <= budget:
                lines[-1] += " " + piece
            elif tex_width(piece) <= budget:
                lines.append(piece)
            else:
                sub = self.lines(term, budget - 1.5)
                if isinstance(expr, sp.Add) and p._needs_add_brackets(term):
                    sub = [r"\Bigl(" + sub[0], *sub[1:-1], sub[-1] + r"\Bigr)"] if len(sub) > 1 else \
                        [rf"\left({sub[0]}\right)"]
                sub[0] = sign + sub[0]
                lines += sub
        return lines

    def _around(self, expr: Any, whole: str, budget: float) -> list[str]:
        """An expression around its widest argument: name and bracket on the first line, the argument broken."""
        import sympy as sp

        if isinstance(expr, sp.Mul):
            num, den = sp.fraction(expr, exact=True)
            if den != 1 and isinstance(num, sp.Add):  # a wide numerator: 1/den times the broken sum
                sub = self.lines(num, budget - 3.0)
                if len(sub) > 1:
                    head = rf"\frac{{1}}{{{self.tex(den)}}} \Bigl("
                    return [head + sub[0], *sub[1:-1], sub[-1] + r"\Bigr)"]
        args = sorted(expr.args, key=lambda a: -len(self.tex(a)))
        for arg in args[:1]:
            inner = self.tex(arg)
            if whole.count(inner) != 1:
                break
            prefix, suffix = whole.split(inner)
            if _depth(prefix) != 0 or _depth(suffix) != 0 or r"\begin" in prefix:
                break  # inside a fraction or an environment: a line cannot end there
            for left, right in ((r"\left(", r"\right)"), (r"\left[", r"\right]"), (r"\left\{", r"\right\}")):
                if prefix.endswith(left) and suffix.startswith(right):
                    prefix = prefix[:-len(left)] + r"\Bigl" + left[len(r"\left"):]
                    suffix = r"\Bigr" + right[len(r"\right"):] + suffix[len(right):]
                    break
            if any(t.count(r"\left") != t.count(r"\right") or r"\middle" in t for t in (prefix, suffix)):
                break  # a \left ... \right pair cannot span lines
            sub = self.lines(arg, budget - max(tex_width(prefix), tex_width(suffix), 1.0))
            if len(sub) == 1:
                break
            return [prefix + sub[0], *sub[1:-1], sub[-1] + suffix]
        return [whole]

    def _matrix(self, m: Any, budget: float) -> list[str]:
        r"""A matrix is never cut into blocks of columns (a ``\right.`` ... ``\left.`` pair reads as stacked
        fractions): one line, its entries broken inside their cells; a matrix still too wide should have its
        wide entries named first (:func:`name_repeats` with ``budget``)."""
        cols = max(m.cols, 1)
        cells = [[self._cell(m[i, j], (budget - 1.0) / cols) for j in range(m.cols)] for i in range(m.rows)]
        body = r" \\ ".join(" & ".join(row) for row in cells)
        return [rf"\left[\begin{{matrix}}{body}\end{{matrix}}\right]"]

    def _cell(self, entry: Any, budget: float) -> str:
        lines = self.lines(entry, budget - 2.0)
        if len(lines) == 1:
            return lines[0]
        return r"\begin{aligned}&" + r" \\ &\quad ".join(lines) + r"\end{aligned}"


def aligned_lines(lines: list[str], relation: str = "", indent: str = r"\quad") -> list[str]:
    """Rows of an ``aligned`` block for one step: ``&= line 1``, then ``&\\quad line 2`` ..."""
    out = [f"&{relation} {lines[0]}".rstrip() if relation else f"&{lines[0]}"]
    out += [f"&{indent} {line}" for line in lines[1:]]
    return out


# --- repeated subexpressions -------------------------------------------------------------------------


def name_repeats(exprs: list[Any], min_width: float = 10.0, limit: int = 6,
                 symbol_names: dict | None = None, entry_width: float | None = None,
                 matrices: bool = False, budget: float | None = None) -> tuple[list[Any], list[tuple[Any, Any]]]:
    r"""Name large subexpressions that occur at least twice in ``exprs`` (``\xi_1``, ``\xi_2`` ...; a matrix ``\Xi_k``).

    Args:
        exprs: the expressions of a chain (start and steps).
        min_width: only subexpressions at least this wide (em) are named.
        limit: at most this many names of repeated subexpressions.
        matrices: also name an explicit matrix that repeats (``\Xi_1``).
        entry_width: then also name each matrix entry still wider than this (em), so that a wide
            matrix shows its shape and the entry is given in full in the "where" list (``None``: no).
        budget: the widest line (em): an explicit matrix (or row vector) wider than this also has its
            entries wider than its share of the line named, so that it fits whole on one line
            (a matrix is never cut across lines).

    Returns:
        ``(new_exprs, [(name, value), ...])``: the expressions with the
        subexpressions replaced (unevaluated, so nothing is re-sorted) and
        the definitions in the order the names were given.
    """
    import sympy as sp
    from sympy.printing.latex import LatexPrinter

    printer = LatexPrinter({"symbol_names": symbol_names or {}})
    names: list[tuple[Any, Any]] = []
    current = list(exprs)
    for _ in range(limit):
        counts: dict[Any, int] = {}
        for e in current:
            if not isinstance(e, sp.Basic):
                continue
            for node in sp.preorder_traversal(e):
                explicit = matrices and isinstance(node, sp.ImmutableMatrix)
                if explicit or node.args and not isinstance(node, (sp.MatrixBase, sp.Tuple)) and node.is_commutative \
                        and not node.is_Number and not (isinstance(node, sp.Expr) and node.could_extract_minus_sign()):
                    counts[node] = counts.get(node, 0) + 1
        best, gain = None, 0.0
        for node, n in counts.items():
            if n < 2:
                continue
            w = tex_width(printer.doprint(node))
            if w >= min_width and (n - 1) * w > gain:
                best, gain = node, (n - 1) * w
        if best is None:
            break
        matrix = isinstance(best, sp.MatrixBase)
        same = 1 + sum(isinstance(n, sp.MatrixSymbol) == matrix for n, _ in names)  # numbered by kind
        name = sp.MatrixSymbol(f"Xi_{same}", *best.shape) if matrix else sp.Symbol(f"xi_{same}")
        with sp.evaluate(False):
            current = [_tidy(e.xreplace({best: name})) if isinstance(e, sp.Basic) else e for e in current]
            names = [(n, _tidy(v.xreplace({best: name}))) for n, v in names]
        names.append((name, best))
    if entry_width is not None or budget is not None:
        current, names = _name_entries(current, names, entry_width, printer, budget)
    # a sum rebuilt under evaluate(False) keeps the 1 of its orientation (Sum(1·f)): drop it from the named
    # values here, where rebuilding a scalar or an explicit matrix changes nothing else
    names = [(n, _tidy(v)) if isinstance(v, sp.Basic) and not v.has(sp.MatrixSymbol) else (n, v) for n, v in names]
    return current, names


def _name_entries(current: list[Any], names: list[tuple[Any, Any]], entry_width: float | None,
                  printer: Any, budget: float | None = None) -> tuple[list[Any], list[tuple[Any, Any]]]:
    """Name the matrix entries of ``current`` (and of the named values) wider than ``entry_width`` em and,
    in a formula wider than ``budget``, wider than their share of the line per column (the columns of every
    matrix in the same term of a sum count); in the order they appear."""
    import sympy as sp

    wide: list[Any] = []
    for e in [*current, *(v for _, v in names)]:
        if not isinstance(e, sp.Basic):
            continue
        too_wide = budget is not None and tex_width(printer.doprint(e)) > budget
        # a line holds one term of a sum: matrices side by side in one term (ReLU(A·B)·C) share its width
        for term in (e.args if isinstance(e, (sp.Add, sp.MatAdd)) else (e,)):
            mats = [n for n in sp.preorder_traversal(term) if isinstance(n, sp.MatrixBase)]
            columns = sum(m.cols for m in mats)
            for node in mats:
                most = float("inf") if entry_width is None else entry_width
                if too_wide:
                    most = min(most, max((budget - 2.0) / max(columns, 1) - 1.2, 2.0))
                wide += [x for x in node if x not in wide and tex_width(printer.doprint(x)) > most]
    if not wide:
        return current, names
    k = sum(not isinstance(n, sp.MatrixSymbol) for n, _ in names)
    new = {x: sp.Symbol(f"xi_{k + j}") for j, x in enumerate(wide, 1)}
    with sp.evaluate(False):
        current = [e.xreplace(new) if isinstance(e, sp.Basic) else e for e in current]
        names = [(n, v.xreplace(new) if isinstance(v, sp.Basic) else v) for n, v in names]
    return current, names + [(name, x) for x, name in new.items()]


def _tidy(expr: Any) -> Any:
    r"""Drop factors 1 that an unevaluated replacement leaves in products (``1 \xi_2``)."""
    import sympy as sp

    def one_free(e: Any) -> Any:
        factors = [a for a in e.args if a != 1]
        return factors[0] if len(factors) == 1 else sp.Mul(*factors, evaluate=False)

    return expr.replace(lambda e: isinstance(e, sp.Mul) and any(a == 1 for a in e.args), one_free)


#: the shared breakers (:func:`shared_breaker`), by width and spellings
_BREAKERS: dict[tuple, Breaker] = {}
#: a shared breaker that remembers more formulas than this is replaced (a long session's memory stays bounded)
BREAKER_MEMORY = 50_000


def shared_breaker(budget: float, symbol_names: dict) -> Breaker:
    """The process's :class:`Breaker` for ``budget`` and ``symbol_names``, with the TeX it has printed: a deck
    measures each formula for its height estimate, its chunk and its frame, and prints it once."""
    try:
        key = (budget, frozenset(symbol_names.items()))
        found = _BREAKERS.get(key)
    except TypeError:  # an unhashable spelling: a breaker of its own
        return Breaker(budget, symbol_names)
    if found is None or len(found._tex) > BREAKER_MEMORY:
        found = _BREAKERS[key] = Breaker(budget, symbol_names)
    return found


def remembered(function: Callable[[Any, Any], tuple]) -> Callable[[Any, Any], tuple]:
    """``function(derivation, settings)`` (a tuple of what the layout names in a derivation: expressions and
    lists) remembered per derivation, while it exists, and the settings' ``symbol_names``; each caller gets
    fresh lists. For the functions that frames, chunks and height estimates each ask again."""
    import functools
    import weakref

    memory: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    @functools.wraps(function)
    def wrapper(derivation: Any, settings: Any) -> tuple:
        try:
            key = frozenset(settings.symbol_names.items())
            found = memory.setdefault(derivation, {}).get(key)
        except TypeError:  # unhashable: not remembered
            return function(derivation, settings)
        if found is None:
            found = memory[derivation][key] = function(derivation, settings)
        return tuple(list(part) if isinstance(part, list) else part for part in found)

    return wrapper
