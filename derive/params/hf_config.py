"""Hugging Face ``config.json`` files → :class:`~derive.params.arch.Architecture`.

The file is read as JSON and nothing else: no network, no code from the
model's repository, no ``eval`` of any value. Every size must be a JSON
integer; a string such as ``"__import__('os')"`` or ``"768"`` is refused as
data, as are floats, booleans and ``NaN``.

Supported ``model_type`` values and the classes counted (from ``architectures``;
the base model when the file names none):

========  =====================================================================
gpt2      GPT2Model, GPT2LMHeadModel
bert      BertModel (pooler), BertForMaskedLM (prediction head, no pooler)
llama     LlamaModel, LlamaForCausalLM
mistral   MistralModel, MistralForCausalLM
t5        T5Model, T5ForConditionalGeneration, T5EncoderModel
========  =====================================================================

Key names and defaults follow the ``transformers`` configuration classes
(``GPT2Config``, ``BertConfig``, ``LlamaConfig``, ``MistralConfig``, ``T5Config``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..exceptions import InputError
from .arch import Architecture, check_int

#: Largest config file read (bytes); real ones are a few kB.
MAX_BYTES = 1_000_000

_REQUIRED = object()


@dataclass(frozen=True)
class LoadedConfig:
    """An architecture read from a ``config.json``.

    Attributes:
        arch: the architecture counted.
        model_type: the file's ``model_type``.
        counted_class: the ``transformers`` class whose parameters are counted.
        notes: what the class includes (pooler, tied head...) and defaults used.
    """

    arch: Architecture
    model_type: str
    counted_class: str
    notes: tuple[str, ...]


class _Config:
    """Typed access to the keys of one config, with errors that name the key."""

    def __init__(self, data: dict, model_type: str, source: str) -> None:
        self.data, self.model_type, self.source = data, model_type, source

    def _missing(self, key: str) -> InputError:
        return InputError(f"{self.source}: missing required key {key!r} for model_type {self.model_type!r}")

    def size(self, key: str, default: Any = _REQUIRED) -> Any:
        value = self.data.get(key, default)
        if value is _REQUIRED:
            raise self._missing(key)
        if value is None:
            return None
        try:
            return check_int(key, value)
        except InputError as exc:
            raise InputError(f"{self.source}: {exc}") from None

    def flag(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if not isinstance(value, bool):
            raise InputError(f"{self.source}: {key} must be true or false, got {value!r:.60}")
        return value

    def text(self, key: str, default: str) -> str:
        value = self.data.get(key, default)
        if not isinstance(value, str):
            raise InputError(f"{self.source}: {key} must be a string, got {value!r:.60}")
        return value


def _gpt2(c: _Config, cls: str) -> tuple[dict, list[str]]:
    d = c.size("n_embd")
    inner = c.size("n_inner", None)
    kw = dict(d_model=d, n_heads=c.size("n_head"), d_ff=inner or 4 * d, n_layers=c.size("n_layer"),
              vocab_size=c.size("vocab_size"), position="learned", max_position_embeddings=c.size("n_positions"),
              attention_bias=True, final_norm=True, ffn="gelu", lm_head=cls == "GPT2LMHeadModel",
              tie_word_embeddings=c.flag("tie_word_embeddings", True))
    notes = [] if inner else ["n_inner is null: d_ff = 4·n_embd"]
    return kw, notes


def _bert(c: _Config, cls: str) -> tuple[dict, list[str]]:
    if c.text("position_embedding_type", "absolute") != "absolute":
        raise InputError(f"{c.source}: position_embedding_type {c.data['position_embedding_type']!r:.40} "
                         "is not supported (only 'absolute')")
    mlm = cls == "BertForMaskedLM"
    kw = dict(d_model=c.size("hidden_size"), n_heads=c.size("num_attention_heads"),
              d_ff=c.size("intermediate_size"), n_layers=c.size("num_hidden_layers"),
              vocab_size=c.size("vocab_size"), position="learned",
              max_position_embeddings=c.size("max_position_embeddings"),
              type_vocab_size=c.size("type_vocab_size", 2), embedding_norm=True, attention_bias=True, ffn="gelu",
              pooler=not mlm, lm_head=mlm, lm_head_transform=mlm, lm_head_bias=mlm,
              tie_word_embeddings=c.flag("tie_word_embeddings", True))
    notes = (["BertForMaskedLM: no pooler; prediction head = dense + LayerNorm + decoder bias, "
              "decoder weight tied to the word embedding"] if mlm else ["BertModel: includes the pooler"])
    return kw, notes


def _llama(c: _Config, cls: str) -> tuple[dict, list[str]]:
    kw = dict(d_model=c.size("hidden_size"), n_heads=c.size("num_attention_heads"),
              n_kv_heads=c.size("num_key_value_heads", None), head_dim=c.size("head_dim", None),
              d_ff=c.size("intermediate_size"), n_layers=c.size("num_hidden_layers"),
              vocab_size=c.size("vocab_size"), position="rotary",
              attention_bias=c.flag("attention_bias", False), mlp_bias=c.flag("mlp_bias", False),
              norm="rmsnorm", final_norm=True, ffn="swiglu", lm_head=cls.endswith("ForCausalLM"),
              tie_word_embeddings=c.flag("tie_word_embeddings", False))
    return kw, []


_T5_FFN = {"relu": "relu", "gelu": "gelu", "gated-gelu": "geglu", "gated-silu": "swiglu"}


def _t5(c: _Config, cls: str) -> tuple[dict, list[str]]:
    proj = c.text("feed_forward_proj", "relu")
    if proj not in _T5_FFN:
        raise InputError(f"{c.source}: feed_forward_proj {proj!r:.40} is not supported; one of {', '.join(_T5_FFN)}")
    n_layers = c.size("num_layers")
    n_dec = c.size("num_decoder_layers", None) or n_layers
    kw = dict(d_model=c.size("d_model"), n_heads=c.size("num_heads"), head_dim=c.size("d_kv"),
              d_ff=c.size("d_ff"), n_layers=n_layers, n_decoder_layers=0 if cls == "T5EncoderModel" else n_dec,
              vocab_size=c.size("vocab_size"), position="relative_bias",
              relative_attention_num_buckets=c.size("relative_attention_num_buckets", 32),
              attention_bias=False, mlp_bias=False, norm="rmsnorm", final_norm=True, ffn=_T5_FFN[proj],
              lm_head=cls == "T5ForConditionalGeneration", tie_word_embeddings=c.flag("tie_word_embeddings", True))
    return kw, ["relative position bias: one table of buckets × heads per stack (first layer's self-attention)"]


#: model_type -> (mapper, supported classes; the first is the base model).
MODEL_TYPES: dict[str, tuple[Callable[[_Config, str], tuple[dict, list[str]]], tuple[str, ...]]] = {
    "gpt2": (_gpt2, ("GPT2Model", "GPT2LMHeadModel")),
    "bert": (_bert, ("BertModel", "BertForMaskedLM")),
    "llama": (_llama, ("LlamaModel", "LlamaForCausalLM")),
    "mistral": (_llama, ("MistralModel", "MistralForCausalLM")),
    "t5": (_t5, ("T5Model", "T5ForConditionalGeneration", "T5EncoderModel")),
}


def from_dict(data: Any, source: str = "config") -> LoadedConfig:
    """Map a parsed ``config.json`` object to the architecture of the class it names.

    Raises:
        InputError: not an object, missing or unsupported ``model_type`` (the
            message lists the supported ones), an unsupported class, a missing
            required key (named), or a size that is not a positive JSON integer.
    """
    if not isinstance(data, dict):
        raise InputError(f"{source}: a config.json must hold a JSON object, got {type(data).__name__}")
    supported = ", ".join(MODEL_TYPES)
    if "model_type" not in data:
        raise InputError(f"{source}: missing required key 'model_type'; supported model types: {supported}")
    model_type = data["model_type"]
    if not isinstance(model_type, str) or model_type not in MODEL_TYPES:
        raise InputError(f"{source}: unsupported model_type {model_type!r:.60}; supported model types: {supported}")
    mapper, classes = MODEL_TYPES[model_type]
    archs = data.get("architectures")
    notes = []
    if archs is None:
        cls = classes[0]
        notes.append(f"no 'architectures' in the file: counted the base model {cls}")
    elif not (isinstance(archs, list) and archs and all(isinstance(a, str) for a in archs)):
        raise InputError(f"{source}: architectures must be a non-empty list of class names")
    else:
        cls = archs[0]
        if cls not in classes:
            raise InputError(f"{source}: class {cls!r:.60} is not supported for model_type {model_type!r}; "
                             f"supported: {', '.join(classes)}")
    kw, more = mapper(_Config(data, model_type, source), cls)
    name = data.get("_name_or_path")
    label = f"{cls} ({name})" if isinstance(name, str) and name and len(name) < 100 else cls
    try:
        arch = Architecture(**kw, name=label)
    except InputError as exc:
        raise InputError(f"{source}: {exc}") from None
    if arch.lm_head:
        notes.append("LM head tied to the token embedding" if arch.tie_word_embeddings else "LM head untied")
    return LoadedConfig(arch, model_type, cls, tuple(notes + more))


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed")


def load_config(path: str | Path) -> LoadedConfig:
    """Read a local ``config.json`` and map it (see :func:`from_dict`).

    Raises:
        InputError: missing or unreadable file, not UTF-8, malformed JSON
            (with line and column), ``NaN``/``Infinity``, or any error of :func:`from_dict`.
    """
    p = Path(path)
    try:
        if p.exists() and not p.is_dir() and not p.is_file():  # /dev/zero, a pipe: would read forever or block
            raise InputError(f"{p}: not a regular file (a device, pipe or socket); expected a config.json file")
        with p.open("rb") as fh:
            raw = fh.read(MAX_BYTES + 1)  # never more, whatever stat says
        if len(raw) > MAX_BYTES:
            raise InputError(f"{p}: larger than {MAX_BYTES:,} bytes; not a config.json")
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise InputError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{p}: is a directory; expected a config.json file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{p}: cannot read: {exc}") from None
    try:
        data = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{p}: malformed JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except ValueError as exc:
        if "integer string conversion" in str(exc):  # Python's limit on the digits of an integer in text
            raise InputError(f"{p}: malformed JSON: a number of more than 4300 digits") from None
        raise InputError(f"{p}: malformed JSON: {exc}") from None
    except RecursionError:  # [[[...]]] deeper than the parser's stack
        raise InputError(f"{p}: malformed JSON: nested too deeply for a config.json") from None
    try:
        return from_dict(data, str(p))
    except RecursionError:  # a value nested just below the parser's limit, shown in a message
        raise InputError(f"{p}: malformed JSON: nested too deeply for a config.json") from None
