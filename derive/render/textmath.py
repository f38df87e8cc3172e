r"""Words with math: find the math in a derivation's text, and show ``$...$`` math as Unicode.

Titles, summaries, assumptions, notes and justifications mark math with
``$...$``. Older text writes some of it bare (``d_k``, ``PE_{pos,2i}``,
``e^{s_j}``); :func:`mark_math` puts such tokens between dollars, so that every
surface renders them as math rather than printing an underscore and braces.

:func:`unicode_text` is for the terminal: ``$\sqrt{d_k}$`` becomes ``√d_k``,
``$\sigma^2$`` becomes ``σ²``, ``\frac{a}{b}`` becomes ``a/b``.
"""

from __future__ import annotations

import re

#: a bare identifier with a subscript or superscript, outside ``$...$``: d_k, d_model, n_kv_heads, PE_{pos,2i},
#: W^O, e^{s_j}, x_i^2; a longer name with underscores (n_kv_heads, vocab_size) is a name, not math
_BARE = re.compile(r"(?<![\w$\\])((?:[^\W\d_]{1,3}|\d+)(?=[_^])(?:_(?:\{[^{}$]*\}|[A-Za-z0-9]+))?"
                   r"(?:\^(?:\{[^{}$]*\}|[A-Za-z0-9]+))?)(?![A-Za-z0-9_^{])")

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
          "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
          "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
          "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π", "Sigma": "Σ",
          "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω"}
_SYMBOLS = {"cdot": "·", "times": "×", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "ne": "≠", "neq": "≠",
            "approx": "≈", "to": "→", "in": "∈", "infty": "∞", "sum": "Σ", "prod": "Π", "partial": "∂",
            "nabla": "∇", "pm": "±", "odot": "⊙", "otimes": "⊗", "sim": "∼", "propto": "∝", "ldots": "…",
            "cdots": "⋯", "dots": "…", "top": "ᵀ", "mathbb": "", "quad": "  ", "qquad": "    ", ",": " ",
            ";": " ", "!": "", "left": "", "right": "", "bigl": "", "bigr": "", "Bigl": "", "Bigr": "",
            "lVert": "‖", "rVert": "‖", "langle": "⟨", "rangle": "⟩", "max": "max", "min": "min", "exp": "exp",
            "log": "log", "ln": "ln", "sin": "sin", "cos": "cos", "tanh": "tanh", "mid": "|", "Rightarrow": "⇒",
            "forall": "∀", "exists": "∃", "ell": "ℓ", "circ": "∘", "cap": "∩", "cup": "∪", "R": "ℝ",
            "mp": "∓", "int": "∫", "|": "‖", "lvert": "|", "rvert": "|",
            "det": "det", "lim": "lim", "arg": "arg", "colon": ":", "lbrace": "{", "rbrace": "}",
            "triangleq": "≜", "equiv": "≡", "vert": "|", "Vert": "‖", "setminus": "∖", "subset": "⊂",
            "varnothing": "∅", "emptyset": "∅", "mapsto": "↦", "star": "⋆", "ast": "∗", "neg": "¬",
            "gg": "≫", "ll": "≪", "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋"}
#: operator names written as words: a space after them separates them from their argument (max z)
_FUNCTIONS = {"max", "min", "exp", "log", "ln", "sin", "cos", "tan", "tanh", "det", "lim", "arg", "sup", "inf",
              "operatorname", "text", "mathrm"}
#: accents written over one letter: \hat{x} -> x̂
_ACCENT = {"hat": "\u0302", "bar": "\u0304", "tilde": "\u0303", "dot": "\u0307", "vec": "\u20d7",
           "widehat": "\u0302", "overline": "\u0304"}
#: \mathbb letters
_BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "Q": "ℚ", "C": "ℂ", "E": "𝔼"}
_SUP = dict(zip("0123456789+-=()niT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀ", strict=True))
_SUB = dict(zip("0123456789+-=()aeijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
_SUP["−"], _SUB["−"] = "⁻", "₋"


def mark_math(text: str) -> str:
    """``text`` with bare pseudo-TeX tokens (``d_k``, ``PE_{pos,2i}``, ``e^{s_j}``) put between ``$``.

    Text already between dollars is left alone; an odd number of ``$`` leaves the whole text alone.
    """
    parts = text.split("$")
    if len(parts) % 2 == 0:
        return text
    for k in range(0, len(parts), 2):
        parts[k] = _BARE.sub(_marked, parts[k])
    return "$".join(parts)


def _marked(m: re.Match) -> str:
    """A bare token as math, except a configuration name such as ``n_ctx`` or ``n_heads`` (a word after
    ``_`` is math only for the widths ``d_model``, ``d_ff``)."""
    token = m.group(1)
    word = re.fullmatch(r"([^\W\d_]+)_([A-Za-z]{2,})", token)
    if word and word.group(1) != "d" and word.group(2) not in ("ij", "ji"):
        return token
    return "$" + _tex_name(token) + "$"


def _tex_name(token: str) -> str:
    r"""``d_model`` -> ``d_{\text{model}}``; ``d_k`` stays."""
    return re.sub(r"(?<![^\W\d_]|\\)([^\W\d_]+)_([A-Za-z]{2,})(?![A-Za-z])",
                  lambda m: (rf"{m.group(1)}_{{{m.group(2)}}}" if m.group(2) in ("ij", "ji")
                             else rf"{m.group(1)}_{{\text{{{m.group(2)}}}}}"),
                  token)


def _group(tex: str, i: int) -> tuple[str, int]:
    """The group starting at ``tex[i]`` (``{...}`` or one character/command) and the index after it."""
    if i >= len(tex):
        return "", i
    if tex[i] == "{":
        depth, j = 0, i
        while j < len(tex):
            depth += tex[j] == "{"
            depth -= tex[j] == "}"
            j += 1
            if depth == 0:
                break
        return tex[i + 1:j - 1], j
    if tex[i] == "\\":
        m = re.compile(r"\\([A-Za-z]+|.)").match(tex, i)
        return m.group(), m.end()
    return tex[i], i + 1


def _script(body: str, table: dict[str, str], mark: str) -> str:
    plain = tex_unicode(body)
    if plain == "ᵀ" and mark == "^":
        return plain
    if plain and all(ch in table for ch in plain):
        return "".join(table[ch] for ch in plain)
    return f"{mark}{plain}" if len(plain) == 1 else f"{mark}({plain})"


def _wrap(s: str) -> str:
    return f"({s})" if re.search(r"[ +\-·/]", s.strip()) else s


def tex_unicode(tex: str) -> str:
    r"""Simple LaTeX math as Unicode text: ``\frac{a}{b}`` -> ``a/b``, ``x^{2}`` -> ``x²``, ``\sqrt{d}`` -> ``√d``."""
    out, i = [], 0
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            m = re.compile(r"\\([A-Za-z]+|.)").match(tex, i)
            name, i = m.group(1), m.end()
            if (name.isalpha() and tex[i:i + 1] == " " and (m.start() == 0 or tex[m.start() - 1] != " ")
                    and name not in _FUNCTIONS and not re.match(r" [-+=<>]", tex[i:i + 2])):
                i += 1  # the space ending a control word: q\cdot k is q·k, a \cdot b stays a · b, \max z stays,
                # \varphi + i stays φ + i
            if name in ("frac", "dfrac", "tfrac"):
                a, i = _group(tex, i)
                b, i = _group(tex, i)
                a, b = tex_unicode(a), tex_unicode(b)
                out.append(f"{_wrap(a)}/{_wrap(b)}")
            elif name == "sqrt":
                a, i = _group(tex, i)
                a = tex_unicode(a)
                out.append("√" + (a if len(a) <= 1 or re.fullmatch(r"\w+(_\w+)?|[\w₀-₉ₐ-ₜ]+", a) else f"({a})"))
            elif name in ("text", "mathrm", "operatorname", "mathit", "mathbf", "mathcal", "boldsymbol", "textrm",
                          "mathtt", "texttt", "textit", "textbf", "mathsf"):
                a, i = _group(tex, i)
                out.append(tex_unicode(a) if name not in ("text", "textrm", "texttt", "mathtt") else
                           a.replace("\\_", "_").replace("\\", ""))
            elif name == "mathbb":
                a, i = _group(tex, i)
                out.append("".join(_BLACKBOARD.get(c, c) for c in a))
            elif name in _ACCENT:
                a, i = _group(tex, i)
                a = tex_unicode(a)
                out.append(a + _ACCENT[name] if len(a) == 1 else f"{name}({a})")
            elif name == "begin":
                env, i = _group(tex, i)
                end = tex.find(r"\end{" + env + "}", i)
                end = len(tex) if end < 0 else end
                body, i = tex[i:end], min(len(tex), end + len(r"\end{" + env + "}"))
                rows = [r for r in re.split(r"\\\\", body) if r.strip()]
                out.append("[" + "; ".join(" ".join(tex_unicode(c).strip() for c in r.split("&")) for r in rows)
                           + "]")
            elif name in _GREEK:  # after an operator word, a space: cos φ, not cosφ
                out.append((" " if out and out[-1].strip() in _FUNCTIONS else "") + _GREEK[name])
            elif name in _SYMBOLS:
                word = _SYMBOLS[name]
                # an operator word after a letter or digit: a space between (cos a cos b, not cos acos b)
                out.append(" " + word if word.isalpha() and out and out[-1][-1:].isalnum() else word)
            elif name in "{}_%&$#":
                out.append(name)
            else:
                out.append(name)
        elif ch == "^":
            body, i = _group(tex, i + 1)
            sup = _script(body, _SUP, "^")
            if sup.startswith("^") and out and out[-1] == "e" and (len(out) < 2 or not out[-2][-1:].isalpha()):
                out[-1] = f"exp({tex_unicode(body)})"  # e^(z_j − c) reads better as exp(zⱼ − c)
            else:
                out.append(sup)
        elif ch == "_":
            body, i = _group(tex, i + 1)
            plain = tex_unicode(body)
            if plain and all(c in _SUB for c in plain):
                out.append("".join(_SUB[c] for c in plain))
            else:
                # UnicodeMath's linear form where Unicode has no subscript letter: T_c, n_ctx, n_kv_heads, δ_ab,
                # and a subscript that is more than a word between parentheses: x_(π(j))
                out.append(f"_{plain}" if re.fullmatch(r"[\w,]+", plain) else f"_({plain})")
        elif ch in "{}":
            i += 1
        elif ch == "-":
            out.append("−")
            i += 1
        elif ch == "~":
            out.append(" ")
            i += 1
        else:
            out.append(ch)
            i += 1
    return re.sub(r" +(?=[⌉⌋])|(?<=[⌈⌊]) +", "", re.sub(r" {2,}", " ", "".join(out)))


def unicode_text(text: str) -> str:
    """Words with ``$...$`` math (marked or bare) as plain Unicode for the terminal."""
    parts = mark_math(text).split("$")
    if len(parts) % 2 == 0:
        return text
    return "".join(tex_unicode(p) if k % 2 else re.sub(r"(?<=\w)\*(?=\w)", "·", p) for k, p in enumerate(parts))
