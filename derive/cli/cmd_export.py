"""``derive export``: formulas for slides and documents (LaTeX, Beamer, reveal.js, Marp, SVG, PNG, MathML)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .common import add_lang_option, add_module_option, load

#: format -> file extension
FORMATS = {"latex": "tex", "beamer": "tex", "revealjs": "md", "marp": "md", "svg": "svg", "png": "png",
           "mathml": "html"}
_IMAGES = ("svg", "png")
_STANDALONE = ("latex", "beamer", "mathml")


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export", help="write derivations as LaTeX, Beamer, Markdown slides, SVG/PNG or MathML",
        description="Render derivations for slides and documents. Text formats go to stdout or to -o FILE; "
                    "images need -o (a directory when there are several). Files are written atomically and "
                    "never overwritten without --force. Exit 2 on bad input.")
    p.add_argument("names", nargs="*", metavar="NAME", help="derivations to export (see 'derive list')")
    p.add_argument("--all", action="store_true",
                   help="export every registered derivation (a whole deck, in the book's chapter order)")
    p.add_argument("--chapter", metavar="NAME", help="export one chapter of the book (e.g. attention, "
                   "worked-example; the names of docs/chapters/)")
    p.add_argument("--format", "-f", required=True, choices=tuple(FORMATS), help="output format")
    p.add_argument("--standalone", action="store_true",
                   help="a complete document (latex: article; beamer: presentation; mathml: HTML page)")
    p.add_argument("--no-justifications", action="store_true", help="leave out the justification of each step")
    p.add_argument("--claim", action="store_true", help="only the claim (start and end), not the chain "
                   "(latex, svg, png, mathml)")
    p.add_argument("--step", type=int, metavar="N", help="only step N (1-based) after the expression before it "
                   "(latex, svg, png, mathml)")
    p.add_argument("--numbered", action="store_true", help="number the steps (latex)")
    p.add_argument("--output", "-o", metavar="FILE_OR_DIR",
                   help="file to write, or an existing directory (one file per derivation for images)")
    p.add_argument("--params", action="append", default=[], metavar="PRESET",
                   help="also add the parameter table of this preset (see 'derive params --list-presets'; "
                        "repeatable; latex, beamer, revealjs, marp)")
    p.add_argument("--force", action="store_true", help="overwrite existing files")
    p.add_argument("--check", action="store_true",
                   help="verify the derivations first and export nothing (exit 1) unless every step is proved")
    add_module_option(p)
    add_lang_option(p)
    p.set_defaults(run=run)


def _params_tables(fmt: str, presets: list[str]) -> list[str]:
    """One parameter table per preset, laid out by :mod:`derive.render.params_table` for ``fmt``."""
    from ..params import get_preset
    from ..params.budget import budget
    from ..params.summary import breakdown
    from ..render.latex import escape_text, fit_to_width
    from ..render.params_table import budget_latex_table, budget_markdown_table, latex_table, markdown_table

    out = []
    for name in presets:
        preset = get_preset(name)
        rows = breakdown(preset.arch)
        b = budget(preset.arch)
        title = f"Parameters of {preset.name}"
        title2 = f"Compute and memory of {preset.name} ({b.flops.context:,} tokens of context, estimates)"
        if fmt == "latex":
            out.append(latex_table(rows, caption=f"{title} ({preset.source})"))
            out.append(budget_latex_table(b))
        elif fmt == "beamer":
            out.append("\n".join([r"\begin{frame}", rf"\frametitle{{{escape_text(title)}}}",
                                   fit_to_width(latex_table(rows), math=False),
                                   rf"{{\scriptsize Source: {escape_text(preset.source)}}}", r"\end{frame}"]))
            out.append("\n".join([r"\begin{frame}", rf"\frametitle{{{escape_text(title2)}}}",
                                   fit_to_width(budget_latex_table(b), math=False), r"\end{frame}"]))
        else:
            out.append(f"## {title}\n\n{markdown_table(rows)}\n\nSource: {preset.source}\n")
            out.append(f"## {title2}\n\n{budget_markdown_table(b)}\n")
    return out


def _text(fmt: str, ds: list, args: argparse.Namespace, book: list | None = None) -> str:
    """The export as text; ``book``: ``[(chapter title, derivations), ...]`` for a deck in chapters."""
    just = not args.no_justifications
    tables = _params_tables(fmt, args.params)
    if fmt == "latex":
        from ..render.latex import claim_latex, derivation_latex, escape_text, fit_to_width, latex_document, step_latex

        parts = []
        for d in ds:
            if args.claim:
                math = f"\\begin{{equation*}}\n{claim_latex(d)}\n\\end{{equation*}}"
            elif args.step is not None:
                math = step_latex(d, args.step, justifications=just, numbering=args.numbered)
            elif args.standalone and not args.numbered:  # a whole document: shrink chains wider than the page
                math = fit_to_width(derivation_latex(d, justifications=just, environment="aligned"))
            else:
                math = derivation_latex(d, justifications=just, numbering=args.numbered)
            head = f"\\section*{{{escape_text(d.title)}}}" if args.standalone else f"% {d.name}: {d.title}"
            parts.append(f"{head}\n{math}")
        body = "\n\n".join(parts + tables)
        return latex_document(body) if args.standalone else body + "\n"
    if fmt == "beamer":
        from ..render.beamer import beamer_deck, beamer_frame

        if book:
            return beamer_deck([], justifications=just, extra_frames=tables, chapters=book)
        if args.standalone or args.all:
            if len(ds) == 1 and not tables:
                return beamer_frame(ds[0], standalone=True, justifications=just)
            return beamer_deck(ds, justifications=just, extra_frames=tables)
        return "\n".join([*(beamer_frame(d, justifications=just) for d in ds), *tables])
    if fmt in ("revealjs", "marp"):
        from ..render.slides_md import slides_markdown

        if book:
            return slides_markdown([], flavour=fmt, justifications=just, extra_slides=tables, chapters=book)
        return slides_markdown(ds, flavour=fmt, justifications=just, extra_slides=tables)
    from ..render.mathml import derivation_mathml, mathml_document

    what = _what(args)
    if args.standalone:
        return mathml_document(ds, justifications=just, what=what, step=args.step or 1)
    return "\n".join(derivation_mathml(d, justifications=just, what=what, step=args.step or 1) for d in ds) + "\n"


def _what(args: argparse.Namespace) -> str:
    return "claim" if args.claim else ("step" if args.step is not None else "chain")


def _image(fmt: str, d, args: argparse.Namespace) -> bytes:
    from ..render.svg import derivation_svg, svg_to_png

    svg = derivation_svg(d, justifications=not args.no_justifications, what=_what(args), step=args.step or 1)
    return svg.encode("utf-8") if fmt == "svg" else svg_to_png(svg)


def _targets(fmt: str, names: list[str], args: argparse.Namespace) -> list[Path] | None:
    """Where to write: None for stdout, else one path (text) or one per derivation (images)."""
    from ..exceptions import InputError

    ext = FORMATS[fmt]
    if args.output is None:
        if fmt == "png" or (fmt == "svg" and len(names) > 1):
            raise InputError(f"--format {fmt} {'of several derivations ' if len(names) > 1 else ''}"
                             "needs -o " + ("DIR" if len(names) > 1 else "FILE_OR_DIR"))
        return None
    if not args.output.strip():
        raise InputError("-o/--output is empty; give a file or directory name")
    out = Path(args.output)
    if fmt in _IMAGES and len(names) > 1:
        if out.exists() and not out.is_dir():
            raise InputError(f"{out}: is a file; several images need -o DIRECTORY")
        if not out.exists():
            if not out.parent.is_dir():
                raise InputError(f"{out}: directory {out.parent} does not exist")
            out.mkdir()
        return [out / f"{n}.{ext}" for n in names]
    if args.output.endswith(("/", os.sep)) and not out.is_dir():  # "out/" names a directory, never a file "out"
        raise InputError(f"{args.output}: no such directory")
    if out.is_dir():
        stem = names[0] if len(names) == 1 else "derive-deck"
        return [out / f"{stem}.{ext}"]
    return [out]


def run(args: argparse.Namespace) -> int:
    from .. import registry
    from ..exceptions import InputError
    from .common import write_atomic

    user = load(args)
    if sum((bool(args.all), bool(args.names), args.chapter is not None)) > 1:
        raise InputError("give derivation names, --all or --chapter, one of them")
    names = registry.names() if args.all else list(args.names) or user
    book = None
    if args.all or args.chapter is not None:
        from ..chapters import book as in_book
        from ..chapters import chapter

        if args.chapter is not None:
            wanted = chapter(args.chapter)  # an unknown chapter fails here
            book = [(c, members) for c, members in in_book(registry.names()) if c is wanted]
            if not book:
                raise InputError(f"chapter {args.chapter!r} presents no registered derivation")
        else:
            book = in_book(names)
        names = [n for _, members in book for n in members]
    if args.params and args.format not in ("latex", "beamer", "revealjs", "marp"):
        raise InputError(f"--params applies to latex, beamer, revealjs and marp, not to {args.format}")
    if args.params:
        from ..params import get_preset

        for preset in args.params:
            get_preset(preset)  # unknown presets fail before any work
    if not names and not args.params:
        raise InputError("name at least one derivation (see 'derive list') or use --all")
    for name in names:
        registry.entry(name)  # unknown names fail before any work
    fmt = args.format
    if args.standalone and fmt not in _STANDALONE:
        raise InputError(f"--standalone applies to {', '.join(_STANDALONE)}, not to {fmt}")
    for flag, used in (("--claim", args.claim), ("--step", args.step is not None)):
        if used and fmt not in ("latex", "svg", "png", "mathml"):
            raise InputError(f"{flag} applies to latex, svg, png and mathml, not to {fmt}")
    if args.claim and args.step is not None:
        raise InputError("give --claim or --step, not both")
    if args.numbered and fmt != "latex":
        raise InputError(f"--numbered applies to latex, not to {fmt}")
    targets = _targets(fmt, names, args)
    for t in targets or []:
        if t.exists() and not args.force:
            raise InputError(f"{t}: already exists; use --force to overwrite it")
    ds = [registry.get(n) for n in names]
    if args.check:
        from ..batch import verify_many
        from .progress import Progress

        # one line per verified derivation on stderr (stdout may carry the export), from the cache when unchanged
        with Progress(len(ds) if len(ds) > 1 else 0, stream=sys.stderr) as progress:
            reports = verify_many(ds, progress=lambda r, cached: progress.done(r, cached=cached))
        failed = [r.name for r in reports if not r.ok]
        if failed:
            print(f"derive: not exported: not every step is proved in {', '.join(failed)} "
                  "(see 'derive check')", file=sys.stderr)
            return 1
    from ..i18n import localize, translate

    ds = [localize(d) for d in ds]  # verified as written (above); shown in --lang
    if fmt in _IMAGES:
        import time

        blobs = []
        for k, d in enumerate(ds, 1):
            began = time.perf_counter()
            blobs.append(_image(fmt, d, args))
            if len(ds) > 1:  # several images take a while: one progress line each, on stderr
                print(f"[{k}/{len(ds)}] {d.name} ({time.perf_counter() - began:.1f} s)", file=sys.stderr, flush=True)
        if targets is None:  # one SVG to stdout
            sys.stdout.write(blobs[0].decode("utf-8"))
            return 0
        for t, blob in zip(targets, blobs, strict=True):
            write_atomic(t, blob, force=args.force)
            print(f"wrote {t}")
        return 0
    by_name = {d.name: d for d in ds}
    deck = [(translate(c.title), [by_name[n] for n in members]) for c, members in book] \
        if book and fmt in ("beamer", "revealjs", "marp") else None
    text = _text(fmt, ds, args, deck)
    if targets is None:
        sys.stdout.write(text)
        return 0
    write_atomic(targets[0], text.encode("utf-8"), force=args.force)
    print(f"wrote {targets[0]}")
    return 0
