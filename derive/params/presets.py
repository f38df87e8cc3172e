"""Named architectures with their sources: lectures, papers and model cards.

Each :class:`Preset` pairs an :class:`~derive.params.arch.Architecture` with
where its sizes come from and, when the source prints one, the parameter
count it reports, so a report can show the reported figure beside the exact
count and say why they differ.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..exceptions import InputError
from .arch import Architecture, llama_ffn_hidden


@dataclass(frozen=True)
class Preset:
    """A named architecture.

    Attributes:
        name: the preset's name (``derive params --preset NAME``).
        arch: the architecture.
        source: where the sizes come from (paper and table, or model card).
        reported: the count the source prints (text as printed, e.g. ``"65M"``), if any.
        notes: choices made and why the exact count differs from ``reported``.
    """

    name: str
    arch: Architecture
    source: str
    reported: str = ""
    notes: tuple[str, ...] = ()


def _lecture(n_layers: int) -> Architecture:
    # lecture 000, STEP 6: attention without biases, FFN with biases, two LayerNorms, no embeddings
    return Architecture(d_model=512, n_heads=8, d_ff=2048, n_layers=n_layers, position="sinusoidal", causal=False,
                        name=f"lecture encoder ({n_layers} layer{'s' if n_layers > 1 else ''})")


def _vaswani(name: str, d: int, h: int, d_ff: int) -> Architecture:
    # §3.1 encoder-decoder, §3.4 one shared 37k BPE table for both embeddings and the pre-softmax layer
    return Architecture(d_model=d, n_heads=h, d_ff=d_ff, n_layers=6, n_decoder_layers=6, vocab_size=37000,
                        position="sinusoidal", lm_head=True, tie_word_embeddings=True, name=name)


def _gpt2(name: str, d: int, n_layers: int, h: int) -> Architecture:
    # HF GPT2LMHeadModel: learned positions (1024), biases everywhere, Pre-LN with final LayerNorm, tied head
    return Architecture(d_model=d, n_heads=h, d_ff=4 * d, n_layers=n_layers, vocab_size=50257, position="learned",
                        max_position_embeddings=1024, attention_bias=True, final_norm=True, ffn="gelu",
                        lm_head=True, tie_word_embeddings=True, name=name)


def _gpt3(name: str, d: int, n_layers: int, h: int, head_dim: int | None = None) -> Architecture:
    # Brown et al. 2020, §2.1: GPT-2's architecture, context 2048, d_ff = 4·d_model, 50257-token BPE
    return replace(_gpt2(name, d, n_layers, h), max_position_embeddings=2048, head_dim=head_dim)


def _bert(name: str, d: int, n_layers: int, h: int) -> Architecture:
    # HF BertModel: word + position (512) + token-type (2) embeddings, embedding LayerNorm, pooler
    return Architecture(d_model=d, n_heads=h, d_ff=4 * d, n_layers=n_layers, vocab_size=30522, position="learned",
                        max_position_embeddings=512, type_vocab_size=2, embedding_norm=True, attention_bias=True,
                        ffn="gelu", pooler=True, causal=False, name=name)


def _llama(name: str, d: int, n_layers: int, h: int, d_ff: int, n_kv: int | None = None,
           vocab: int = 32000) -> Architecture:
    # Touvron et al. 2023: Pre-RMSNorm, SwiGLU, rotary positions, no biases, untied output layer
    return Architecture(d_model=d, n_heads=h, n_kv_heads=n_kv, d_ff=d_ff, n_layers=n_layers, vocab_size=vocab,
                        position="rotary", attention_bias=False, mlp_bias=False, norm="rmsnorm", final_norm=True,
                        ffn="swiglu", lm_head=True, tie_word_embeddings=False, name=name)


_GPT3_NOTE = ("Brown et al. 2020, Table 2.1 lists n_params, n_layers, d_model, n_heads and d_head; "
              "d_ff = 4·d_model and n_ctx = 2048 (§2.1). Embeddings tied, GPT-2 layer layout.")

_PRESETS: tuple[Preset, ...] = (
    Preset("lecture-layer", _lecture(1), "lecture 000, STEP 6 (d_model 512, h 8, d_ff 2048)", "3,150,336",
           ("Attention without biases, FFN with biases, two LayerNorms (γ, β); no embeddings.",)),
    Preset("lecture-encoder", _lecture(6), "lecture 000, STEP 6: six encoder layers", "18,902,016",
           ("The encoder stack only: no embeddings, no decoder.",)),
    Preset("transformer-base", _vaswani("Transformer base", 512, 8, 2048),
           "Vaswani et al. 2017, Table 3 (base: N 6, d_model 512, d_ff 2048, h 8)", "65M",
           ("Counted: one 37,000-token table shared by encoder input, decoder input and output (§3.4, §5.1), "
            "sinusoidal positions, attention projections without biases, FFN with biases, Post-LN (no final norm).",
            "Exact: 63,045,632 (≈63.0M) against the reported 65M. The paper states neither the exact vocabulary "
            "('about 37000') nor its counting convention. A separate encoder table would add 18,944,000 (≈82M in all), "
            "so sharing is consistent with the table; the remaining 1,954,368 are 3,817 rows of a 512-wide table.",
            "The two reported figures cannot both be met by one vocabulary: base would need ≈40,800 rows and big "
            "≈35,900 (big is 1,171,648 above its 213M). The reported counts are rounded estimates.")),
    Preset("transformer-big", _vaswani("Transformer big", 1024, 16, 4096),
           "Vaswani et al. 2017, Table 3 (big: N 6, d_model 1024, d_ff 4096, h 16)", "213M",
           ("Same conventions as transformer-base. Exact: 214,171,648 (≈214.2M) against the reported 213M; "
            "the difference is 1,144 rows of a 1024-wide table, within the vagueness of 'about 37000' tokens.",)),
    Preset("gpt2", _gpt2("GPT-2 small", 768, 12, 12), "HF model card openai-community/gpt2 (config.json)", "124M"),
    Preset("gpt2-medium", _gpt2("GPT-2 medium", 1024, 24, 16), "HF model card openai-community/gpt2-medium", "355M"),
    Preset("gpt2-large", _gpt2("GPT-2 large", 1280, 36, 20), "HF model card openai-community/gpt2-large", "774M"),
    Preset("gpt2-xl", _gpt2("GPT-2 XL", 1600, 48, 25), "HF model card openai-community/gpt2-xl", "1.5B"),
    Preset("bert-base", _bert("BERT base", 768, 12, 12),
           "Devlin et al. 2019, §3 (L 12, H 768, A 12); HF bert-base-uncased config.json", "110M",
           ("Counted as BertModel: encoder with pooler, no masked-LM head.",)),
    Preset("bert-large", _bert("BERT large", 1024, 24, 16),
           "Devlin et al. 2019, §3 (L 24, H 1024, A 16); HF bert-large-uncased config.json", "340M",
           ("Counted as BertModel: encoder with pooler, no masked-LM head.",)),
    Preset("gpt3-small", _gpt3("GPT-3 Small", 768, 12, 12), "Brown et al. 2020, Table 2.1", "125M", (_GPT3_NOTE,)),
    Preset("gpt3-medium", _gpt3("GPT-3 Medium", 1024, 24, 16), "Brown et al. 2020, Table 2.1", "350M",
           (_GPT3_NOTE,)),
    Preset("gpt3-large", _gpt3("GPT-3 Large", 1536, 24, 16), "Brown et al. 2020, Table 2.1", "760M", (_GPT3_NOTE,)),
    Preset("gpt3-xl", _gpt3("GPT-3 XL", 2048, 24, 16), "Brown et al. 2020, Table 2.1", "1.3B",
           (_GPT3_NOTE, "Table 2.1 lists n_heads 24 with d_head 128, but 24·128 = 3072 ≠ d_model 2048. Chosen: "
                        "d_model 2048 with 16 heads of 128 (h·d_head = d_model). Since 4·d_model² does not depend "
                        "on h, any head count with h·d_head = 2048 gives the same total; keeping 24 heads of 128 "
                        "(attention width 3072) would give 1,517,123,584 ≈ 1.5B, further from 1.3B.")),
    Preset("gpt3-2.7b", _gpt3("GPT-3 2.7B", 2560, 32, 32), "Brown et al. 2020, Table 2.1", "2.7B", (_GPT3_NOTE,)),
    Preset("gpt3-6.7b", _gpt3("GPT-3 6.7B", 4096, 32, 32), "Brown et al. 2020, Table 2.1", "6.7B", (_GPT3_NOTE,)),
    Preset("gpt3-13b", _gpt3("GPT-3 13B", 5120, 40, 40), "Brown et al. 2020, Table 2.1", "13.0B",
           (_GPT3_NOTE, "Table 2.1 prints d_model 5140, which 40 heads of 128 do not make (40·128 = 5120) and 40 "
                        "does not divide (5140/40 = 128.5). Chosen: d_model 5120 = 40·128.")),
    Preset("gpt3-175b", _gpt3("GPT-3 175B", 12288, 96, 96), "Brown et al. 2020, Table 2.1", "175.0B",
           (_GPT3_NOTE, "Lecture 002 estimates 12·12288²·96 ≈ 1.74·10¹¹ from the layers' matrices alone.")),
    Preset("t5-small", Architecture(d_model=512, n_heads=8, head_dim=64, d_ff=2048, n_layers=6, n_decoder_layers=6,
                                    vocab_size=32128, position="relative_bias", attention_bias=False, mlp_bias=False,
                                    norm="rmsnorm", final_norm=True, lm_head=True, name="T5 small"),
           "Raffel et al. 2020, §3.1 and Table 14; HF google-t5/t5-small config.json", "60M",
           ("Counted as T5ForConditionalGeneration: one token table shared by encoder, decoder and the tied "
            "output layer; T5's LayerNorm has γ only (counted as RMSNorm); one relative-bias table per stack.",)),
    Preset("llama-7b", _llama("LLaMA 7B", 4096, 32, 32, llama_ffn_hidden(4096)),
           "Touvron et al. 2023, Table 2; HF huggyllama/llama-7b config.json", "6.7B",
           ("d_ff = 11008: ⌊2·4·4096/3⌋ = 10922 rounded up to a multiple of 256.",)),
    Preset("llama-13b", _llama("LLaMA 13B", 5120, 40, 40, llama_ffn_hidden(5120)),
           "Touvron et al. 2023, Table 2; HF huggyllama/llama-13b config.json", "13.0B",
           ("d_ff = 13824: ⌊2·4·5120/3⌋ = 13653 rounded up to a multiple of 256.",)),
    Preset("llama2-70b", _llama("Llama 2 70B", 8192, 80, 64, 28672, n_kv=8),
           "Touvron et al. 2023b (Llama 2), §2.2 (GQA); HF meta-llama/Llama-2-70b-hf config.json", "70B",
           ("GQA with 8 key/value heads for 64 query heads; d_ff 28672 from the model card "
            "(ffn_dim_multiplier 1.3, multiple_of 4096).",)),
    Preset("mistral-7b", _llama("Mistral 7B", 4096, 32, 32, 14336, n_kv=8),
           "Jiang et al. 2023, Table 1; HF mistralai/Mistral-7B-v0.1 config.json", "7B",
           ("GQA with 8 key/value heads for 32 query heads.",)),
)

#: Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 config.json): Mistral-7B attention, 8 SwiGLU experts, top-2.
MIXTRAL_8X7B = replace(_llama("Mixtral 8x7B", 4096, 32, 32, 14336, n_kv=8), n_experts=8, experts_per_token=2,
                       max_position_embeddings=32768)

_FAMILIES: tuple[Preset, ...] = (
    Preset("mixtral-8x7b", MIXTRAL_8X7B, "Jiang et al. 2024, §2; HF mistralai/Mixtral-8x7B-v0.1 config.json",
           "46.7B",
           ("Mixture of experts: 8 SwiGLU experts per layer, 2 per token; 12,879,925,248 active parameters "
            "(Jiang et al. 2024 report 13B active).",)),
    Preset("falcon-7b", Architecture(d_model=4544, n_heads=71, n_kv_heads=1, d_ff=4 * 4544, n_layers=32,
                                     vocab_size=65024, position="rotary", max_position_embeddings=2048,
                                     attention_bias=False, mlp_bias=False, final_norm=True, norms_per_layer=1,
                                     ffn="gelu", lm_head=True, tie_word_embeddings=True, name="Falcon-7B"),
           "HF tiiuae/falcon-7b config.json", "7B",
           ("Multi-query attention (one K/V head of 64), parallel attention and FFN behind one LayerNorm, "
            "tied head; 6,921,720,704 as FalconForCausalLM on the meta device.",)),
    Preset("gemma-2b", replace(_llama("Gemma 2B", 2048, 18, 8, 16384, n_kv=1, vocab=256000), head_dim=256,
                               ffn="geglu", tie_word_embeddings=True, max_position_embeddings=8192),
           "HF google/gemma-2b config.json", "2B",
           ("GeGLU FFN, MQA with heads of 256, tied 256,000-token embedding (a fifth of the model).",)),
    Preset("qwen2-0.5b", replace(_llama("Qwen2-0.5B", 896, 24, 14, 4864, n_kv=2, vocab=151936),
                                 attention_bias=True, attention_out_bias=False, tie_word_embeddings=True,
                                 max_position_embeddings=131072),
           "HF Qwen/Qwen2-0.5B config.json", "0.5B",
           ("Biases on Q, K and V but not on the output projection; tied head.",)),
    Preset("flan-t5-small", Architecture(d_model=512, n_heads=6, head_dim=64, d_ff=1024, n_layers=8,
                                         n_decoder_layers=8, vocab_size=32128, position="relative_bias",
                                         attention_bias=False, mlp_bias=False, norm="rmsnorm", final_norm=True,
                                         ffn="geglu", lm_head=True, tie_word_embeddings=False,
                                         name="Flan-T5 small"),
           "Chung et al. 2022 (T5 v1.1 layout); HF google/flan-t5-small config.json", "80M",
           ("T5 v1.1 layout: gated GELU FFN, untied LM head; 76,961,152 as T5ForConditionalGeneration with "
            "transformers 4.57 on the meta device (transformers 5 forces a tied head: 60,511,616).",)),
)

PRESETS: dict[str, Preset] = {p.name: p for p in (*_PRESETS, *_FAMILIES)}

#: Other spellings accepted for a preset name.
ALIASES = {"gpt2-small": "gpt2", "bert-base-uncased": "bert-base", "bert-large-uncased": "bert-large",
           "llama-2-70b": "llama2-70b", "mistral": "mistral-7b",
           "lecture": "lecture-layer"}


def get_preset(name: str) -> Preset:
    """The preset called ``name`` (or an alias of it).

    Raises:
        InputError: unknown name; the message lists the presets.
    """
    key = ALIASES.get(name, name)
    try:
        return PRESETS[key]
    except KeyError:
        raise InputError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}") from None
