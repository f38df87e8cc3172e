"""``derive params``: exact parameter counts of a preset, a config.json or given sizes."""

from __future__ import annotations

import argparse
import re
from typing import Any

_DIGITS = re.compile(r"^\+?[0-9]{1,100}$")

#: (option, Architecture field, help)
SIZE_OPTIONS = (
    ("--d-model", "d_model", "width of the residual stream"),
    ("--n-heads", "n_heads", "query heads"),
    ("--d-ff", "d_ff", "FFN hidden width"),
    ("--n-layers", "n_layers", "layers (encoder, or the only stack)"),
    ("--n-kv-heads", "n_kv_heads", "key/value heads (GQA; default n-heads)"),
    ("--head-dim", "head_dim", "width of one head (default d-model / n-heads)"),
    ("--n-decoder-layers", "n_decoder_layers", "decoder layers with cross-attention (encoder-decoder)"),
    ("--vocab-size", "vocab_size", "token vocabulary (default: no embedding counted)"),
    ("--max-position-embeddings", "max_position_embeddings", "rows of a learned position table"),
)
FLAG_OPTIONS = (
    ("--attention-bias", "attention_bias", "biases on Q, K, V, O"),
    ("--mlp-bias", "mlp_bias", "biases in the FFN"),
    ("--final-norm", "final_norm", "a norm after the last layer"),
    ("--lm-head", "lm_head", "a projection onto the vocabulary"),
    ("--tie-word-embeddings", "tie_word_embeddings", "LM head shares the token embedding"),
)
CHOICE_OPTIONS = (
    ("--ffn", "ffn", ("relu", "gelu", "swiglu", "geglu")),
    ("--norm", "norm", ("layernorm", "rmsnorm")),
    ("--position", "position", ("learned", "sinusoidal", "rotary", "relative_bias", "none")),
)


def _size(text: str) -> int:
    """A size from the command line: decimal digits only (no floats, no expressions)."""
    if not _DIGITS.match(text.strip()):
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text[:40]!r}")
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text[:40]!r}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "params", help="exact parameter count of a model",
        description="Count the parameters of a preset, a Hugging Face config.json, or given sizes: per-component "
                    "formulas, totals with and without embeddings, memory per dtype. Sizes given with a preset or "
                    "config override it.")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--preset", metavar="NAME", help="a named architecture (see --list-presets)")
    src.add_argument("--config", metavar="FILE", help="a local Hugging Face config.json (read as JSON only)")
    src.add_argument("--list-presets", action="store_true", help="list the presets with their sources")
    for opt, field, text in SIZE_OPTIONS:
        p.add_argument(opt, dest=field, type=_size, metavar="N", help=text)
    for opt, field, choices in CHOICE_OPTIONS:
        p.add_argument(opt, dest=field, choices=choices)
    for opt, field, text in FLAG_OPTIONS:
        p.add_argument(opt, dest=field, action=argparse.BooleanOptionalAction, default=None, help=text)
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="a JSON object; 'total' is the exact integer count")
    out.add_argument("--latex", action="store_true", help="a booktabs table (needs \\usepackage{booktabs})")
    out.add_argument("--markdown", action="store_true", help="a Markdown table")
    from ..params.summary import DTYPE_BYTES

    p.add_argument("--dtype", choices=tuple(DTYPE_BYTES),
                   help="memory of the weights for this dtype only (default: all); also the KV cache's dtype "
                        "(default bf16)")
    p.add_argument("--context", type=_size, metavar="N",
                   help="context length for FLOPs and the KV cache (default: the model's max_position_embeddings, "
                        "else 2048)")
    p.add_argument("--batch", type=_size, metavar="B", default=1, help="sequences in the KV cache (default 1)")
    p.set_defaults(run=run)


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    names = [f for _, f, _ in SIZE_OPTIONS] + [f for _, f, _ in FLAG_OPTIONS] + [f for _, f, _ in CHOICE_OPTIONS]
    return {f: getattr(args, f) for f in names if getattr(args, f) is not None}


def _architecture(args: argparse.Namespace) -> tuple[Any, dict[str, Any]]:
    from dataclasses import replace

    from ..exceptions import InputError
    from ..params import Architecture, get_preset
    from ..params.hf_config import load_config

    over = _overrides(args)
    info: dict[str, Any] = {}
    if args.preset:
        preset = get_preset(args.preset)
        arch = preset.arch
        info = {"preset": preset.name, "source": preset.source, "reported": preset.reported,
                "preset_notes": list(preset.notes)}
    elif args.config:
        loaded = load_config(args.config)
        arch = loaded.arch
        info = {"config": args.config, "model_type": loaded.model_type, "counted_class": loaded.counted_class,
                "config_notes": list(loaded.notes)}
    else:
        missing = [opt for opt, f, _ in SIZE_OPTIONS[:4] if f not in over]
        if missing:
            raise InputError(f"give {', '.join(missing)} (or --preset NAME / --config FILE / --list-presets)")
        return Architecture(**over), info
    if over:
        arch = replace(arch, **over)
        info["overridden"] = sorted(over)
        info.pop("reported", None)  # the source's figure is for the unmodified model
    return arch, info


def _list_presets() -> int:
    from ..params import PRESETS, count

    width = max(len(n) for n in PRESETS)
    for name, p in PRESETS.items():
        rep = f" (reported {p.reported})" if p.reported else ""
        print(f"{name.ljust(width)}  {count(p.arch):>17,}{rep.ljust(22)}  {p.source}")
    return 0


def _print_budget(b: Any) -> None:
    """FLOPs per token, KV cache and training memory: exact figures and estimates, with their conventions."""
    from ..params.flops import FLOPS_CONVENTION
    from ..params.memory import KV_CACHE_ASSUMPTIONS, TRAINING_ASSUMPTIONS
    from ..params.summary import human_bytes, sci

    f, kv = b.flops, b.kv
    where = {"--context": "--context", "max_position_embeddings": "the model's max_position_embeddings",
             "default": "default; --context N"}[b.context_source]
    print(f"per token at context {f.context:,} ({where}):")
    rows = [("FLOPs forward, exact from the shapes", f.forward),
            ("FLOPs forward, Kaplan 2N + 2·n_layers·n_ctx·d_attn", f.kaplan_forward),
            ("FLOPs training, exact × 3", f.training),
            ("FLOPs training, Kaplan 6N + 6·n_layers·n_ctx·d_attn", f.kaplan_training)]
    for label, n in rows:
        print(f"  {label:<52} {n:>22,}  ({sci(n)})")
    print(f"  {'KV cache ' + kv.dtype + ', per token':<52} {kv.per_token:>22,} bytes ({human_bytes(kv.per_token)})")
    if kv.per_source_token:
        print(f"  {'KV cache ' + kv.dtype + ', cross-attention per source token':<52} {kv.per_source_token:>22,}"
              f" bytes ({human_bytes(kv.per_source_token)})")
    label = f"KV cache {kv.dtype}, batch {kv.batch:,} × context {kv.context:,}" + (
        " (self + cross)" if kv.per_source_token else "")
    print(f"  {label:<52} {kv.total:>22,} bytes ({human_bytes(kv.total)})")
    print(f"training memory, mixed-precision Adam (16 bytes/parameter) {b.training_bytes:>22,} bytes "
          f"({human_bytes(b.training_bytes)})")
    print(f"estimate, FLOPs: {FLOPS_CONVENTION}")
    print(f"estimate, KV cache: {KV_CACHE_ASSUMPTIONS}")
    print(f"estimate, training memory: {TRAINING_ASSUMPTIONS}")


def run(args: argparse.Namespace) -> int:
    if args.list_presets:
        return _list_presets()
    from ..params.budget import DEFAULT_KV_DTYPE, budget
    from ..params.summary import NON_EMBEDDING_CONVENTION, human, human_bytes, sci, summarize
    from ..render.params_table import budget_latex_table, budget_markdown_table, latex_table, markdown_table, text_table
    from .common import print_json

    arch, info = _architecture(args)
    s = summarize(arch)
    b = budget(arch, args.context, args.batch, args.dtype or DEFAULT_KV_DTYPE)
    mem = {args.dtype: s.memory[args.dtype]} if args.dtype else s.memory
    if args.json:
        data = s.as_json()
        data["memory_bytes"] = mem
        print_json({**info, **data, **b.as_json()})
        return 0
    if args.latex:
        print(latex_table(s.rows, caption=f"Parameters of {arch.name}: {s.total:,} in all"))
        print()
        print(budget_latex_table(b))
        return 0
    if args.markdown:
        print(markdown_table(s.rows))
        print()
        print(budget_markdown_table(b))
        return 0
    title = arch.name + (f" — preset {info['preset']}" if "preset" in info else "")
    if info.get("overridden"):
        title += " with " + ", ".join(f"{k}={getattr(arch, k)}" for k in info["overridden"]) + " (modified)"
    print(title)
    for key in ("source", "counted_class", "model_type"):
        if info.get(key):
            print(f"{key.replace('_', ' ')}: {info[key]}")
    print()
    print(text_table(s.rows))
    print()
    print(f"total          {s.total:>22,}  ({human(s.total)})" + (
        f", reported {info['reported']}" if info.get("reported") else ""))
    print(f"non-embedding  {s.non_embedding:>22,}  ({human(s.non_embedding)})")
    print(f"embedding      {s.embedding:>22,}  ({human(s.embedding)})")
    print(f"12·d²·layers   {s.rule_of_thumb:>22,}  ({sci(s.rule_of_thumb)}; rule of thumb, layers only)")
    for dtype, size in mem.items():
        print(f"memory {dtype:<7} {size:>22,} bytes ({human_bytes(size)})")
    if b.active != b.total:
        print(f"active         {b.active:>22,}  ({human(b.active)}; per token: {arch.experts_per_token} of "
              f"{arch.n_experts} experts)")
    print()
    _print_budget(b)
    print()
    print(f"non-embedding convention: {NON_EMBEDDING_CONVENTION}")
    for note in s.notes + info.get("preset_notes", []) + info.get("config_notes", []):
        print(f"note: {note}")
    return 0
