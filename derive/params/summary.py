"""Reports: per-component rows, totals with and without embeddings, memory.

:func:`breakdown` is what the docs, slides and the command line render
(see :mod:`derive.render.params_table`); :func:`summarize` adds the totals,
the Kaplan et al. (2020) non-embedding count and the memory per dtype.
Counts are exact ints; shares are exact fractions; nothing goes through a float.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

from ..exceptions import InputError
from .arch import Architecture
from .shapes import Component, components

#: Bytes per parameter of each storage type.
DTYPE_BYTES: dict[str, int] = {"fp32": 4, "bf16": 2, "fp16": 2, "int8": 1}

#: The non-embedding convention used for :attr:`Summary.non_embedding`.
NON_EMBEDDING_CONVENTION = (
    "Kaplan et al. 2020 (§2.1): N excludes the vocabulary and position embeddings; here the token, "
    "position and token-type tables, T5's relative position bias, and an untied output projection onto "
    "the vocabulary (with its bias) are excluded; norms, pooler and LM-head transform are kept."
)


@dataclass(frozen=True)
class Row:
    """One line of a parameter table.

    Attributes:
        key: stable id of the component (``"ffn"``, ``"decoder.cross_attention"``).
        component: words for the table (``"FFN (relu)"``).
        group: ``"embedding"``, ``"position"``, ``"attention"``, ``"cross-attention"``, ``"ffn"``, ``"norm"``
            or ``"head"``.
        formula: parameters of one copy as plain text (``"4·d_model²"``).
        latex: the same formula in LaTeX (notation table spellings).
        per_copy: parameters of one copy (exact int).
        copies: how many copies (layers), 1 for components outside the layers.
        count: ``per_copy × copies`` (exact int).
        share: ``count / total`` (exact fraction; 0 when the total is 0).
        embedding: excluded from the non-embedding count.
        shapes: the weight shapes of one copy, e.g. ``(("W_Q", (512, 512)), ...)``.
    """

    key: str
    component: str
    group: str
    formula: str
    latex: str
    per_copy: int
    copies: int
    count: int
    share: Fraction
    embedding: bool
    shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()


def _display_subs(arch: Architecture) -> dict[Any, Any]:
    """Defaults written out in formulas: d_k = d_model/h, h_kv = h (MHA)."""
    from ..transformer.notation import sym

    subs: dict[Any, Any] = {}
    if arch.head_dim is None:
        subs[sym("d_k")] = sym("d_model") / sym("n_heads")
    if arch.n_kv_heads is None:
        subs[sym("n_kv_heads")] = sym("n_heads")
    return subs


def plain_formula(expr: Any) -> str:
    """A sympy count as plain text: ``4*d_model**2 + 4*d_model`` → ``4·d_model² + 4·d_model``."""
    import sympy as sp

    text = sp.sstr(expr, order="grlex")
    for k, sup in (("**2", "²"), ("**3", "³")):
        text = text.replace(k, sup)
    return text.replace("*", "·")


def component_formula(arch: Architecture, comp: Component) -> tuple[str, str]:
    """``(plain text, LaTeX)`` of one copy's count, with the defaults of ``arch`` written out."""
    import sympy as sp

    from ..render.latex import expr_latex

    expr = sp.expand(comp.symbolic_per_copy().xreplace(_display_subs(arch)))
    return plain_formula(expr), expr_latex(expr)


def breakdown(arch: Architecture, *, formulas: bool = True) -> list[Row]:
    """The parameter table of ``arch``: one :class:`Row` per component, in model order.

    Args:
        arch: the architecture.
        formulas: build the symbolic formula of each row (imports sympy); with
            ``False`` the formula fields are empty and nothing symbolic is done.

    Returns:
        Rows whose ``count`` fields sum to the total number of parameters.
    """
    dims = arch.dims()
    comps = components(arch)
    total = sum(c.count(dims) for c in comps)
    rows = []
    for c in comps:
        text, tex = component_formula(arch, c) if formulas else ("", "")
        n = c.count(dims)
        rows.append(Row(c.key, c.label, c.group, text, tex, c.per_copy(dims), c.n_copies(dims), n,
                        Fraction(n, total) if total else Fraction(0), c.embedding,
                        tuple((w.name, w.axis_sizes(dims)) for w in c.weights)))
    return rows


def memory(n_params: int, dtype: str) -> int:
    """Bytes to store ``n_params`` parameters as ``dtype`` (fp32 4, bf16/fp16 2, int8 1 byte each).

    Raises:
        InputError: unknown dtype.
    """
    try:
        return n_params * DTYPE_BYTES[dtype]
    except KeyError:
        raise InputError(f"unknown dtype {dtype!r}; one of {', '.join(DTYPE_BYTES)}") from None


def notes(arch: Architecture) -> list[str]:
    """What holds no parameters and why (sinusoidal/rotary positions, a tied head)."""
    out = []
    if arch.position in ("sinusoidal", "rotary"):
        out.append(f"positions: {arch.position}, computed, no parameters")
    if arch.lm_head and arch.tie_word_embeddings:
        out.append("LM head tied to the token embedding: no extra parameters")
    if arch.encoder_decoder and arch.share_encoder_decoder_embeddings and arch.vocab_size:
        out.append("encoder and decoder keep their own token tables beside the shared one (untied, as transformers "
                   "5 builds it)" if arch.stack_token_tables else "encoder and decoder share one token embedding")
    return out


@dataclass(frozen=True)
class Summary:
    """Totals and table of one architecture.

    Attributes:
        arch: the architecture.
        rows: :func:`breakdown`.
        total: all parameters (exact int).
        embedding: parameters in embedding rows (see :data:`NON_EMBEDDING_CONVENTION`).
        non_embedding: ``total - embedding``.
        memory: dtype -> bytes for ``total``.
        notes: components without parameters and why.
        rule_of_thumb: 12·d_model² per layer (16·d_model² per decoder layer with cross-attention), the
            leading term of the layer count without embeddings (lecture 002, §7; Kaplan et al. 2020, §2.1).
    """

    arch: Architecture
    rows: list[Row]
    total: int
    embedding: int
    non_embedding: int
    memory: dict[str, int]
    notes: list[str] = field(default_factory=list)
    rule_of_thumb: int = 0

    def as_json(self) -> dict[str, Any]:
        """A JSON-ready dict; counts are ints (exact), shares are ``"p/q"`` fractions and a percentage."""
        return {
            "name": self.arch.name,
            "total": self.total,
            "non_embedding": self.non_embedding,
            "embedding": self.embedding,
            "non_embedding_convention": NON_EMBEDDING_CONVENTION,
            "rule_of_thumb_12d2": self.rule_of_thumb,
            "memory_bytes": self.memory,
            "components": [
                {"key": r.key, "component": r.component, "group": r.group, "formula": r.formula, "latex": r.latex,
                 "per_copy": r.per_copy, "copies": r.copies, "count": r.count, "embedding": r.embedding,
                 "share": f"{r.share.numerator}/{r.share.denominator}", "percent": percent(r.share),
                 "shapes": {name: list(shape) for name, shape in r.shapes}}
                for r in self.rows
            ],
            "notes": self.notes,
            "architecture": self.arch.as_dict(),
        }


def summarize(arch: Architecture, *, formulas: bool = True) -> Summary:
    """Rows, totals (with and without embeddings) and memory at every dtype of :data:`DTYPE_BYTES`."""
    rows = breakdown(arch, formulas=formulas)
    total = sum(r.count for r in rows)
    emb = sum(r.count for r in rows if r.embedding)
    return Summary(arch, rows, total, emb, total - emb, {d: memory(total, d) for d in DTYPE_BYTES}, notes(arch),
                   rule_of_thumb(arch))


def rule_of_thumb(arch: Architecture) -> int:
    """12·d_model²·n_layers (+ 16·d_model² per decoder layer of an encoder–decoder), exact int.

    The leading term of a layer with d_ff = 4·d_model and d_k = d_model/h (see the derivation
    ``params.layer-approximation``); it ignores embeddings, biases, norms and the actual d_ff.
    """
    return 12 * arch.d_model**2 * arch.n_layers + 16 * arch.d_model**2 * arch.n_decoder_layers


def percent(share: Fraction, decimals: int = 1) -> str:
    """``share`` as a percentage rounded half-up, e.g. ``Fraction(1048576, 3150336)`` → ``"33.3"``."""
    value = Decimal(share.numerator * 100) / Decimal(share.denominator) if share.denominator else Decimal(0)
    return str(value.quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP))


def human(n: int) -> str:
    """A short form of a count: ``124439808`` → ``"124.4M"``, ``6738415616`` → ``"6.74B"`` (half-up)."""
    if abs(n) >= 10**15:
        return f"{Decimal(n):.3e}".replace("e+", "e")
    for scale, suffix, digits in ((10**12, "T", 2), (10**9, "B", 2), (10**6, "M", 1), (10**3, "k", 1)):
        if abs(n) >= scale:
            value = (Decimal(n) / Decimal(scale)).quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
            return f"{value}{suffix}"
    return str(n)


def human_bytes(n: int) -> str:
    """Bytes in GiB/MiB with two decimals (exact division, half-up)."""
    if n >= 2**50:
        return f"{Decimal(n):.3e} B".replace("e+", "e")
    for scale, suffix in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if n >= scale:
            value = (Decimal(n) / Decimal(scale)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
            return f"{value} {suffix}"
    return f"{n} B"


def sci(n: int, digits: int = 3) -> str:
    """``n`` in scientific notation with ``digits`` significant digits, half-up: ``173946175488`` → ``"1.74e11"``."""
    if n == 0:
        return "0"
    exp = len(str(abs(n))) - 1
    mant = (Decimal(n) / Decimal(10) ** exp).quantize(Decimal(1).scaleb(-(digits - 1)), rounding=ROUND_HALF_UP)
    if abs(mant) >= 10:
        mant, exp = mant / 10, exp + 1
    return f"{mant}e{exp}"
