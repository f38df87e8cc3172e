"""The book's chapters, in the book's order, and which derivations each one presents.

One home for the order of the site's chapters (``docs/index.md``'s toctree) and their members (the
``{derivation}`` / ``{derivations}`` directives of ``docs/chapters/*.md``): the slide decks
(``derive export --all``, ``--chapter NAME``) read it, and ``tests/test_chapters.py`` checks it against
the pages, so the two cannot drift apart. A chapter's members are glob patterns over registered names
(:func:`fnmatch.fnmatchcase`), each group with the patterns it leaves out, in the order of the page;
every registered derivation that no chapter names falls into :data:`MORE`, after them.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from .exceptions import InputError


@dataclass(frozen=True)
class Chapter:
    """One chapter of the book.

    Attributes:
        name: the page's name under ``docs/chapters/`` (``"attention"``), what ``--chapter`` takes.
        title: the page's heading, plain text.
        groups: ``((patterns, excluded), ...)`` in the page's order; each group lists the registered names
            matching a pattern and no excluded one, sorted (as a ``{derivations}`` directive does).
    """

    name: str
    title: str
    groups: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]

    def members(self, names: list[str]) -> list[str]:
        """The names of ``names`` this chapter presents, in its order, each once."""
        out: list[str] = []
        for patterns, excluded in self.groups:
            for name in sorted(names):
                if name not in out and any(fnmatch.fnmatchcase(name, p) for p in patterns) \
                        and not any(fnmatch.fnmatchcase(name, x) for x in excluded):
                    out.append(name)
        return out


def _one(*names: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (names, ())


_GRADIENTS = ("softmax-cross-entropy", "example-cross-entropy", "layernorm-jacobian", "layernorm-vjp",
              "rmsnorm-jacobian", "rmsnorm-vjp", "example-layernorm-jacobian", "layernorm-grad-orthogonal-ones",
              "layernorm-grad-along-xhat", "layernorm-grad-orthogonal-xhat", "rmsnorm-grad-along-xhat",
              "rmsnorm-grad-orthogonal-xhat", "attention-dv", "attention-da", "attention-ds", "attention-dq",
              "attention-dk")
_INIT = ("linear-variance", "xavier-average", "xavier-uniform", "example-xavier-512-2048", "relu-second-moment",
         "he-variance", "residual-growth", "gpt2-residual-scaling")

#: the chapters in the book's order (docs/index.md); the last one gathers what no other chapter names
CHAPTERS: tuple[Chapter, ...] = (
    Chapter("attention", "Scaled dot-product attention and the variance argument",
            ((("attention.*",), ("attention.*gqa*",)),)),
    Chapter("softmax", "Softmax, temperature and numerical stability", (_one("softmax.*"),)),
    Chapter("multihead", "Multi-head attention: the dimension arithmetic",
            ((("multihead.*",), ("multihead.*gqa*", "multihead.*kv*")),)),
    Chapter("positional", "Positional encoding", (_one("positional.*"),)),
    Chapter("block", "Residual connections, LayerNorm and the feed-forward network",
            ((("residual.*",), ("residual.*pre-ln*", "residual.*post-ln*")),
             (("norms.*",), ("norms.*rms*", "norms.*pre-ln*", "norms.*post-ln*")),
             (("ffn.*",), ("ffn.*gelu*", "ffn.*swish*", "ffn.*swiglu*", "ffn.*glu*")))),
    Chapter("worked-example", "A whole block, worked by hand", ((("example.*",), ("example.exercise-*",)),)),
    Chapter("parameters", "Counting parameters", (_one("params.*"),)),
    Chapter("modern-variants", "Modern variants: Pre-LN, RMSNorm, SwiGLU, GQA",
            (_one("norms.*pre-ln*", "norms.*post-ln*", "residual.*pre-ln*", "residual.*post-ln*"),
             _one("norms.*rms*"), _one("ffn.*gelu*", "ffn.*swish*", "ffn.*swiglu*", "ffn.*glu*"),
             _one("multihead.*gqa*", "multihead.*kv*", "attention.*gqa*"))),
    Chapter("gradients", "Gradients: cross-entropy, normalisation and attention",
            tuple(_one(f"gradients.{n}") for n in _GRADIENTS)),
    Chapter("initialisation", "Initialisation and signal propagation", tuple(_one(f"init.{n}") for n in _INIT)),
    Chapter("positions-beyond", "Positions beyond sinusoids: RoPE, ALiBi and the causal mask",
            tuple(_one(n) for n in ("rope.relative-dot-product", "rope.norm-preserved", "rope.example",
                                    "alibi.weight-ratio", "alibi.slopes-geometric", "alibi.row-shift",
                                    "alibi.example", "mask.causal-prefix", "mask.first-token",
                                    "mask.fully-masked-fill"))),
    Chapter("efficient-attention", "Efficient attention: online softmax, KV cache, GQA",
            (_one("efficient.online-softmax-step", "efficient.online-softmax-merge",
                  "efficient.online-softmax-output"), _one("efficient.online-softmax-example"),
             _one("efficient.kv-cache-flops", "efficient.no-cache-flops"), _one("efficient.decoding-intensity"))),
    Chapter("scaling", "Scaling arithmetic: C = 6·N·D and the compute-optimal split",
            (_one("scaling.training-compute"),
             _one("scaling.budget-exponents", "scaling.equal-exponents", "scaling.fixed-ratio-split"),
             _one("scaling.chinchilla-example"))),
)

#: where a derivation that no chapter presents goes (a user's own, for instance), after the book's chapters
MORE = Chapter("more", "More derivations", ())


def chapter(name: str) -> Chapter:
    """The chapter called ``name`` (see :data:`CHAPTERS`).

    Raises:
        InputError: no chapter has that name (the message lists them).
    """
    for c in (*CHAPTERS, MORE):
        if c.name == name:
            return c
    raise InputError(f"unknown chapter {name!r}; chapters: {', '.join(c.name for c in CHAPTERS)}")


def book(names: list[str]) -> list[tuple[Chapter, list[str]]]:
    """``names`` grouped by chapter in the book's order, ``[(chapter, [name, ...]), ...]``: each name once, in
    the first chapter that presents it, the rest in ``more``; chapters with none of ``names`` left out."""
    seen: set[str] = set()
    out: list[tuple[Chapter, list[str]]] = []
    for c in (*CHAPTERS, MORE):
        members = [n for n in c.members(names) if n not in seen] if c.groups else \
            [n for n in sorted(names) if n not in seen]
        seen.update(members)
        if members:
            out.append((c, members))
    return out
