"""Hugging Face ``config.json`` files → :class:`~derive.params.arch.Architecture`.

The file is read as JSON and nothing else: no network, no code from the
model's repository, no ``eval`` of any value. Every size must be a JSON
integer; a string such as ``"__import__('os')"`` or ``"768"`` is refused as
data, as are floats, booleans and ``NaN``.

Supported ``model_type`` values and the classes counted (from ``architectures``;
the base model when the file names none):

==========  ===================================================================
gpt2        GPT2Model, GPT2LMHeadModel
bert        BertModel (pooler), BertForMaskedLM (prediction head, no pooler)
llama       LlamaModel, LlamaForCausalLM
mistral     MistralModel, MistralForCausalLM
mixtral     MixtralModel, MixtralForCausalLM (mixture of experts: total and active)
qwen2       Qwen2Model, Qwen2ForCausalLM (biases on Q, K, V only)
phi3        Phi3Model, Phi3ForCausalLM (fused qkv_proj and gate_up_proj)
gemma       GemmaModel, GemmaForCausalLM (GeGLU, tied head)
gemma2      Gemma2Model, Gemma2ForCausalLM (four RMSNorms per layer)
gpt_neox    GPTNeoXModel, GPTNeoXForCausalLM (Pythia)
gptj        GPTJModel, GPTJForCausalLM (parallel block, one LayerNorm, head bias)
falcon      FalconModel, FalconForCausalLM (multi-query or grouped, parallel block)
opt         OPTModel, OPTForCausalLM (position table with 2 offset rows)
bart        BartModel, BartForConditionalGeneration
marian      MarianModel, MarianMTModel (frozen sinusoidal tables)
t5          T5Model, T5ForConditionalGeneration, T5EncoderModel (T5, T5 v1.1, Flan-T5)
==========  ===================================================================

Key names and defaults follow the ``transformers`` configuration classes
(``GPT2Config``, ``BertConfig``, ``LlamaConfig``, ``MistralConfig``, ``MixtralConfig``,
``Qwen2Config``, ``Phi3Config``, ``GemmaConfig``, ``Gemma2Config``, ``GPTNeoXConfig``, ``GPTJConfig``,
``FalconConfig``, ``OPTConfig``, ``BartConfig``, ``MarianConfig``, ``T5Config``), and the weights
counted follow their ``modeling_*.py`` modules; each total is checked against the class built on
torch's meta device (``tests/data/expected_param_counts.json``, and 96 seeded random configs of the 16
families in ``tests/data/hf_random/counts.json``).

Conventions: those of **transformers 5** (:data:`TRANSFORMERS_CONVENTIONS`, checked against 5.24.0).
Where transformers 4 (4.57) built the same file otherwise, the counted notes say so and by how much:

* an untied BART or Marian with shared embeddings (``tie_word_embeddings: false``): transformers 5 keeps
  ``shared``, ``encoder.embed_tokens`` and ``decoder.embed_tokens`` as three tables (and an untied
  ``lm_head``); transformers 4 pointed both stacks at ``shared``;
* an untied ``BertForMaskedLM``: transformers 5's ``decoder`` is a Linear with its own bias beside the
  head's ``bias`` (two vocabulary-sized biases); transformers 4 linked them (one);
* Marian with ``share_encoder_decoder_embeddings: false``: transformers 5's decoder table has
  ``decoder_vocab_size`` rows; transformers 4 copied the encoder's table (``vocab_size`` rows) for it;
* T5 v1.1 / Flan-T5 (gated FFN, ``tie_word_embeddings: false``) is the one exception: counted with the
  separate ``lm_head`` the checkpoints store, as transformers 4 builds it; transformers 5 forces
  ``T5Config.tie_word_embeddings`` to true and builds a tied head (vocab_size·d_model fewer).

Marian's ``decoder_vocab_size`` (with ``share_encoder_decoder_embeddings: false``), OPT's
``word_embed_proj_dim`` ≠ ``hidden_size`` (``project_in``/``project_out``) and BART/Marian with different
encoder and decoder head counts or FFN widths are counted. What is still refused is refused with a
message naming the key and value that are not supported.
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

#: The transformers version whose model classes the counts follow (checked on the meta device).
TRANSFORMERS_CONVENTIONS = "transformers 5 (checked against 5.24.0)"

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


def _no_cross_attention(c: _Config) -> None:
    """GPT-2 and BERT grow a cross-attention block in every layer with ``add_cross_attention``: not counted."""
    if c.flag("add_cross_attention", False):
        raise InputError(f"{c.source}: add_cross_attention true (a cross-attention block in every layer of a "
                         f"{c.model_type} model) is not supported")


def _gpt2(c: _Config, cls: str) -> tuple[dict, list[str]]:
    _no_cross_attention(c)
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
    _no_cross_attention(c)
    mlm = cls == "BertForMaskedLM"
    tied = c.flag("tie_word_embeddings", True)
    kw = dict(d_model=c.size("hidden_size"), n_heads=c.size("num_attention_heads"),
              d_ff=c.size("intermediate_size"), n_layers=c.size("num_hidden_layers"),
              vocab_size=c.size("vocab_size"), position="learned",
              max_position_embeddings=c.size("max_position_embeddings"),
              type_vocab_size=c.size("type_vocab_size", 2), embedding_norm=True, attention_bias=True, ffn="gelu",
              pooler=not mlm, lm_head=mlm, lm_head_transform=mlm, lm_head_bias=mlm,
              lm_head_linear_bias=mlm and not tied, tie_word_embeddings=tied, causal=False)
    if not mlm:
        notes = ["BertModel: includes the pooler"]
    elif tied:
        notes = ["BertForMaskedLM: no pooler; prediction head = dense + LayerNorm + decoder bias, "
                 "decoder weight tied to the word embedding"]
    else:
        v = kw["vocab_size"]
        notes = ["BertForMaskedLM, untied: no pooler; prediction head = dense + LayerNorm, a decoder Linear "
                 "with its own weight and bias, and the head's separate bias parameter (transformers 5: two "
                 f"vocabulary-sized biases; transformers 4 linked them into one, {v:,} fewer)"]
    return kw, notes


def _llama(c: _Config, cls: str, **changes: Any) -> tuple[dict, list[str]]:
    kw = dict(d_model=c.size("hidden_size"), n_heads=c.size("num_attention_heads"),
              n_kv_heads=c.size("num_key_value_heads", None), head_dim=c.size("head_dim", None),
              d_ff=c.size("intermediate_size"), n_layers=c.size("num_hidden_layers"),
              vocab_size=c.size("vocab_size"), position="rotary",
              max_position_embeddings=c.size("max_position_embeddings", None),
              attention_bias=c.flag("attention_bias", False), mlp_bias=c.flag("mlp_bias", False),
              norm="rmsnorm", final_norm=True, ffn="swiglu", lm_head=cls.endswith("ForCausalLM"),
              tie_word_embeddings=c.flag("tie_word_embeddings", False))
    kw.update(changes)
    return kw, []


def _mixtral(c: _Config, cls: str) -> tuple[dict, list[str]]:
    kw, notes = _llama(c, cls, n_experts=c.size("num_local_experts", 8),
                       experts_per_token=c.size("num_experts_per_tok", 2), mlp_bias=False)
    return kw, notes + [f"mixture of experts: {kw['n_experts']} SwiGLU experts per layer, "
                        f"{kw['experts_per_token']} used per token; router d_model × n_experts without bias"]


def _qwen2(c: _Config, cls: str) -> tuple[dict, list[str]]:
    # Qwen2Attention: q_proj, k_proj, v_proj with bias=True, o_proj with bias=False
    kw, notes = _llama(c, cls, attention_bias=True, attention_out_bias=False)
    return kw, notes + ["biases on Q, K and V, none on the output projection"]


def _phi3(c: _Config, cls: str) -> tuple[dict, list[str]]:
    # Phi3: qkv_proj = d × (h + 2·h_kv)·d_k and gate_up_proj = d × 2·d_ff, no biases: the llama count
    kw, notes = _llama(c, cls, attention_bias=False, mlp_bias=False)
    return kw, notes + ["fused qkv_proj (d_model × (h + 2·h_kv)·d_k) and gate_up_proj (d_model × 2·d_ff) "
                        "counted as their parts"]


def _gemma(c: _Config, cls: str) -> tuple[dict, list[str]]:
    kw, notes = _llama(c, cls, head_dim=c.size("head_dim", 256), ffn="geglu",
                       tie_word_embeddings=c.flag("tie_word_embeddings", True))
    return kw, notes + ["RMSNorm weights stored as 1 + γ (one d_model vector each)"]


def _gemma2(c: _Config, cls: str) -> tuple[dict, list[str]]:
    kw, notes = _gemma(c, cls)
    kw["norms_per_layer"] = 4
    return kw, notes + ["four RMSNorms per layer: before and after attention and the FFN"]


def _gpt_neox(c: _Config, cls: str) -> tuple[dict, list[str]]:
    # GPTNeoXLayer: input_layernorm, post_attention_layernorm, query_key_value (fused, with bias),
    # dense, dense_h_to_4h and dense_4h_to_h (with biases); final_layer_norm; embed_out without bias
    bias = c.flag("attention_bias", True)
    kw = dict(d_model=c.size("hidden_size"), n_heads=c.size("num_attention_heads"),
              d_ff=c.size("intermediate_size"), n_layers=c.size("num_hidden_layers"),
              vocab_size=c.size("vocab_size"), position="rotary",
              max_position_embeddings=c.size("max_position_embeddings", None),
              attention_bias=bias, mlp_bias=True, final_norm=True, ffn="gelu",
              lm_head=cls == "GPTNeoXForCausalLM", tie_word_embeddings=c.flag("tie_word_embeddings", False))
    return kw, ["fused query_key_value (d_model × 3·d_model) counted as W_Q, W_K, W_V"]


def _gptj(c: _Config, cls: str) -> tuple[dict, list[str]]:
    # GPTJBlock: one ln_1 feeds attention and MLP in parallel; q/k/v/out_proj without bias;
    # fc_in, fc_out with bias; ln_f; lm_head with bias
    d = c.size("n_embd")
    inner = c.size("n_inner", None)
    kw = dict(d_model=d, n_heads=c.size("n_head"), d_ff=inner or 4 * d, n_layers=c.size("n_layer"),
              vocab_size=c.size("vocab_size"), position="rotary", max_position_embeddings=c.size("n_positions", None),
              attention_bias=False, mlp_bias=True, final_norm=True, norms_per_layer=1, ffn="gelu",
              lm_head=cls == "GPTJForCausalLM", lm_head_bias=cls == "GPTJForCausalLM",
              tie_word_embeddings=c.flag("tie_word_embeddings", False))
    notes = ["parallel block: one LayerNorm per layer feeds attention and the FFN"]
    return kw, notes + ([] if inner else ["n_inner is null: d_ff = 4·n_embd"])


def _falcon(c: _Config, cls: str) -> tuple[dict, list[str]]:
    d = c.size("n_embed") if "hidden_size" not in c.data and "n_embed" in c.data else c.size("hidden_size")
    h = c.size("num_attention_heads")
    new_arch = c.flag("new_decoder_architecture", False)
    if new_arch:
        kv = c.size("num_kv_heads", None) or h
    else:
        kv = 1 if c.flag("multi_query", True) else h
    parallel = c.flag("parallel_attn", True)
    n_ln = c.size("num_ln_in_parallel_attn", None) or (2 if new_arch else 1)
    norms = 2 if not parallel else (2 if n_ln == 2 else 1)
    bias = c.flag("bias", False)
    kw = dict(d_model=d, n_heads=h, n_kv_heads=kv, d_ff=c.size("ffn_hidden_size", None) or 4 * d,
              n_layers=c.size("num_hidden_layers"), vocab_size=c.size("vocab_size"),
              position="none" if c.flag("alibi", False) else "rotary",
              max_position_embeddings=c.size("max_position_embeddings", None),
              attention_bias=bias, mlp_bias=bias, final_norm=True, norms_per_layer=norms, ffn="gelu",
              lm_head=cls == "FalconForCausalLM", tie_word_embeddings=c.flag("tie_word_embeddings", True))
    kind = "multi-query (one K/V head)" if kv == 1 else ("grouped-query" if kv < h else "multi-head")
    return kw, [f"{kind} attention, fused query_key_value counted as W_Q, W_K, W_V",
                f"{norms} LayerNorm{'s' if norms > 1 else ''} per layer"
                + (" (parallel attention and FFN)" if parallel else "")]


def _activation(c: _Config, key: str, default: str) -> str:
    act = c.text(key, default)
    if "relu" in act:
        return "relu"
    if act in ("silu", "swish"):
        return "silu"
    return "gelu"


def _opt(c: _Config, cls: str) -> tuple[dict, list[str]]:
    d = c.size("hidden_size")
    proj = c.size("word_embed_proj_dim", None) or d
    if not c.flag("layer_norm_elementwise_affine", True):
        raise InputError(f"{c.source}: layer_norm_elementwise_affine false (LayerNorm without weights) is not "
                         "supported")
    pre_ln = c.flag("do_layer_norm_before", True)
    kw = dict(d_model=d, n_heads=c.size("num_attention_heads"), d_ff=c.size("ffn_dim"),
              n_layers=c.size("num_hidden_layers"), vocab_size=c.size("vocab_size"), position="learned",
              max_position_embeddings=c.size("max_position_embeddings"), position_offset=2,
              word_embed_proj_dim=proj if proj != d else None,
              attention_bias=c.flag("enable_bias", True), mlp_bias=c.flag("enable_bias", True),
              final_norm=pre_ln and not c.flag("_remove_final_layer_norm", False),
              ffn=_activation(c, "activation_function", "relu"), lm_head=cls == "OPTForCausalLM",
              tie_word_embeddings=c.flag("tie_word_embeddings", True))
    notes = ["learned positions: max_position_embeddings + 2 rows (OPT's offset of 2)"]
    if proj != d:
        notes.append(f"word_embed_proj_dim {proj} ≠ hidden_size {d}: token table vocab_size × {proj}, project_in "
                     f"{proj} × {d} and project_out {d} × {proj} without biases; the LM head projects from {proj}")
    return kw, notes


def _seq2seq(c: _Config, cls: str, notes: list[str], share: bool = True, **changes: Any) -> dict:
    """BART and Marian: encoder and decoder sizes, token tables as transformers 5 builds them, biases everywhere.

    Appends to ``notes`` what differs from the symmetric, tied layout.
    """
    heads, dec_heads = c.size("encoder_attention_heads"), c.size("decoder_attention_heads")
    ffn, dec_ffn = c.size("encoder_ffn_dim"), c.size("decoder_ffn_dim")
    tied = c.flag("tie_word_embeddings", True)
    if c.size("d_model") % dec_heads:
        raise InputError(f"{c.source}: decoder_attention_heads = {dec_heads} does not divide d_model = "
                         f"{c.size('d_model')}")
    kw = dict(d_model=c.size("d_model"), n_heads=heads, d_ff=ffn,
              decoder_n_heads=dec_heads if dec_heads != heads else None,
              decoder_d_ff=dec_ffn if dec_ffn != ffn else None,
              n_layers=c.size("encoder_layers"), n_decoder_layers=c.size("decoder_layers"),
              vocab_size=c.size("vocab_size"), max_position_embeddings=c.size("max_position_embeddings"),
              per_stack_embeddings=True, attention_bias=True, mlp_bias=True,
              ffn=_activation(c, "activation_function", "gelu"),
              lm_head=cls.endswith(("ConditionalGeneration", "MTModel")),
              share_encoder_decoder_embeddings=share, stack_token_tables=share and not tied,
              tie_word_embeddings=tied)
    kw.update(changes)
    if dec_heads != heads:
        notes.append(f"encoder {heads} heads, decoder {dec_heads}: each stack's heads split d_model, so the "
                     "weights are the same as with equal counts")
    if dec_ffn != ffn:
        notes.append(f"FFN width: encoder {ffn}, decoder {dec_ffn}")
    if share and not tied:
        table = kw["vocab_size"] * kw["d_model"] + (kw.get("decoder_vocab_size") or kw["vocab_size"]) * kw["d_model"]
        notes.append("untied: shared, encoder.embed_tokens and decoder.embed_tokens are three tables, as transformers "
                     f"5 builds them (transformers 4 pointed both stacks at the shared table: {table:,} fewer)")
    return kw


def _bart(c: _Config, cls: str) -> tuple[dict, list[str]]:
    notes = ["encoder and decoder each have a learned position table of max_position_embeddings + 2 rows "
             "and an embedding LayerNorm", "final_logits_bias is a buffer, not a parameter"]
    kw = _seq2seq(c, cls, notes, position="learned", position_offset=2, embedding_norm=True)
    return kw, notes


def _marian(c: _Config, cls: str) -> tuple[dict, list[str]]:
    share = c.flag("share_encoder_decoder_embeddings", True)
    vocab = c.size("vocab_size")
    dec_vocab = c.size("decoder_vocab_size", None) or vocab
    notes = ["positions: sinusoids stored as a frozen max_position_embeddings × d_model table in each stack, "
             "counted as parameters (as transformers does) though never trained",
             "final_logits_bias is a buffer, not a parameter"]
    kw = _seq2seq(c, cls, notes, share=share, position="sinusoidal_table",
                  decoder_vocab_size=dec_vocab if dec_vocab != vocab else None)
    if not share:
        gap = (dec_vocab - vocab) * kw["d_model"]
        notes.append(f"share_encoder_decoder_embeddings false: encoder table {vocab:,} rows, decoder table "
                     f"{dec_vocab:,} rows (decoder_vocab_size); the LM head projects onto the decoder's "
                     f"{dec_vocab:,}" + (", tied to the decoder table" if kw["tie_word_embeddings"] else "")
                     + ("" if not gap else f" (transformers 4 copied the encoder's table for the decoder, "
                                           f"{vocab:,} rows: {gap:+,} here)"))
    elif dec_vocab != vocab:
        notes.append(f"decoder_vocab_size {dec_vocab:,} ≠ vocab_size {vocab:,} with shared embeddings: "
                     + ("the decoder's table is tied to the shared one" if kw["tie_word_embeddings"] else
                        "the decoder's own table has decoder_vocab_size rows; the LM head projects onto vocab_size"))
    return kw, notes


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
              lm_head=cls == "T5ForConditionalGeneration", tie_word_embeddings=c.flag("tie_word_embeddings", True),
              causal=cls != "T5EncoderModel")
    notes = ["relative position bias: one table of buckets × heads per stack (first layer's self-attention)"]
    if proj.startswith("gated") and not kw["tie_word_embeddings"] and kw["lm_head"]:
        notes.append("T5 v1.1 / Flan-T5 layout: gated FFN and a separate lm_head, as the checkpoints store it "
                     "(transformers 5 ties the head whatever the file says: vocab_size·d_model fewer)")
    return kw, notes


#: model_type -> (mapper, supported classes; the first is the base model).
MODEL_TYPES: dict[str, tuple[Callable[[_Config, str], tuple[dict, list[str]]], tuple[str, ...]]] = {
    "gpt2": (_gpt2, ("GPT2Model", "GPT2LMHeadModel")),
    "bert": (_bert, ("BertModel", "BertForMaskedLM")),
    "llama": (_llama, ("LlamaModel", "LlamaForCausalLM")),
    "mistral": (_llama, ("MistralModel", "MistralForCausalLM")),
    "mixtral": (_mixtral, ("MixtralModel", "MixtralForCausalLM")),
    "qwen2": (_qwen2, ("Qwen2Model", "Qwen2ForCausalLM")),
    "phi3": (_phi3, ("Phi3Model", "Phi3ForCausalLM")),
    "gemma": (_gemma, ("GemmaModel", "GemmaForCausalLM")),
    "gemma2": (_gemma2, ("Gemma2Model", "Gemma2ForCausalLM")),
    "gpt_neox": (_gpt_neox, ("GPTNeoXModel", "GPTNeoXForCausalLM")),
    "gptj": (_gptj, ("GPTJModel", "GPTJForCausalLM")),
    "falcon": (_falcon, ("FalconModel", "FalconForCausalLM")),
    "opt": (_opt, ("OPTModel", "OPTForCausalLM")),
    "bart": (_bart, ("BartModel", "BartForConditionalGeneration")),
    "marian": (_marian, ("MarianModel", "MarianMTModel")),
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
    supported = ", ".join(sorted(MODEL_TYPES))
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
    conventions = f"counted as {TRANSFORMERS_CONVENTIONS} builds {cls}"
    if model_type == "t5" and arch.lm_head and not arch.tie_word_embeddings:  # the one exception (module doc)
        conventions = (f"counted as the checkpoint stores {cls} and transformers 4 builds it (a separate lm_head); "
                       f"not as {TRANSFORMERS_CONVENTIONS}, which ties the head")
    return LoadedConfig(arch, model_type, cls, (conventions, *notes, *more))


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
