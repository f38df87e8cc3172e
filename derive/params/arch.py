"""The architecture description that parameter counts are computed from.

:class:`Architecture` names every choice that changes how many weights a
Transformer holds, with the field's standard names. It holds Python ints only
(no floats, no sympy), so counts stay exact at any size; the weight shapes
built from it live in :mod:`derive.params.shapes`.

Sources of the defaults: the original Transformer (Vaswani et al. 2017):
attention projections are plain matrices (§3.2.2, no biases), the FFN has
biases (§3.3, eq. 2), LayerNorm with γ and β after each sub-layer (§3.1, Ba
et al. 2016), sinusoidal positions (§3.5), FFN with ReLU.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..exceptions import InputError

#: Position schemes and whether they hold parameters.
POSITIONS = ("learned", "sinusoidal", "sinusoidal_table", "rotary", "relative_bias", "none")
#: Normalisation layers: LayerNorm has γ (and β when ``norm_bias``), RMSNorm γ only.
NORMS = ("layernorm", "rmsnorm")
#: FFN types: two matrices (ReLU, GELU, SiLU) or three (gated: SwiGLU, GeGLU).
FFNS = ("relu", "gelu", "silu", "swiglu", "geglu")
GATED_FFNS = ("swiglu", "geglu")

_SIZE_FIELDS = ("d_model", "n_heads", "d_ff", "n_layers")
_OPTIONAL_SIZE_FIELDS = ("n_kv_heads", "head_dim", "vocab_size", "max_position_embeddings", "decoder_n_heads",
                         "decoder_d_ff", "decoder_vocab_size", "word_embed_proj_dim")
_COUNT_FIELDS = ("n_decoder_layers", "type_vocab_size", "position_offset", "n_experts",
                 "experts_per_token")  # may be 0
_FLAGS = ("embedding_norm", "attention_bias", "mlp_bias", "norm_bias", "final_norm",
          "tie_word_embeddings", "share_encoder_decoder_embeddings", "lm_head", "lm_head_bias",
          "lm_head_transform", "pooler", "per_stack_embeddings", "causal", "stack_token_tables",
          "lm_head_linear_bias")


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: Every size is below this (10^100): the counts of the largest sizes still print as exact integers.
MAX_SIZE = 10**100


def check_int(name: str, value: object, minimum: int = 1) -> int:
    """``value`` as an int ≥ ``minimum``; anything else (float, str, bool) is rejected as data.

    Raises:
        InputError: ``value`` is not an ``int`` (``True``, ``768.0`` and ``"768"``
            are refused), is below ``minimum`` or is not below :data:`MAX_SIZE`.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        kind = "a positive integer" if minimum >= 1 else f"an integer ≥ {minimum}"
        raise InputError(f"{name} must be {kind}, got {_shown(value)}")
    if value < minimum:
        kind = "a positive integer" if minimum >= 1 else f"an integer ≥ {minimum}"
        raise InputError(f"{name} must be {kind}, got {_shown(value)}")
    if value >= MAX_SIZE:  # counts stay printable (Python refuses to print integers of over 4300 digits)
        exponent = len(str(value)) - 1 if value.bit_length() < 14_000 else int(value.bit_length() * 0.30103)
        raise InputError(f"{name} must be below 10^100, got about 10^{exponent}")
    return value


def llama_ffn_hidden(d_model: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None) -> int:
    """The SwiGLU hidden width of LLaMA: ⌊2·4·d_model/3⌋ rounded up to a multiple of ``multiple_of``.

    Follows the reference implementation (Touvron et al. 2023, ``FeedForward``
    in Meta's ``llama/model.py``): ``hidden = int(2 * 4 * d_model / 3)``, times
    ``ffn_dim_multiplier`` when given, then rounded up to ``multiple_of``.
    Integer arithmetic only when no multiplier is given.

    Returns:
        The hidden width in units (e.g. 11008 at d_model = 4096, 13824 at 5120).
    """
    d_model = check_int("d_model", d_model)
    multiple_of = check_int("multiple_of", multiple_of)
    hidden = (2 * 4 * d_model) // 3
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * (-(-hidden // multiple_of))


@dataclass(frozen=True)
class Architecture:
    """What a Transformer is made of, as far as its parameter count is concerned.

    All sizes are counts of units (ints); parameters are counted in units of
    one scalar weight. Validation happens on construction.

    Attributes:
        d_model: width of the residual stream (units).
        n_heads: number of query heads.
        d_ff: hidden width of the feed-forward network (units); for a gated FFN
            the width of each of the two input projections.
        n_layers: layers in the encoder of an encoder–decoder model, or in the
            single stack of an encoder-only or decoder-only model.
        n_kv_heads: key/value heads; ``None`` means ``n_heads`` (MHA); 1 is MQA
            (Shazeer 2019), anything between is GQA (Ainslie et al. 2023). Must divide ``n_heads``.
        head_dim: width of one head; ``None`` means ``d_model / n_heads``, which
            must then be an integer (Vaswani et al. 2017, §3.2.2).
        n_decoder_layers: layers of the decoder of an encoder–decoder model;
            each has self-attention, cross-attention and an FFN (Vaswani et al.
            2017, §3.1). 0 for a model with one stack.
        decoder_n_heads: heads of the decoder's attention when it differs from the encoder's (BART's
            ``decoder_attention_heads``); ``None`` means ``n_heads``. Needs ``head_dim`` unset: each
            stack's heads then split d_model, so h·d_k = d_model in both and the weights do not change.
        decoder_d_ff: FFN width of the decoder when it differs from the encoder's (``decoder_ffn_dim``);
            ``None`` means ``d_ff``.
        decoder_vocab_size: rows of the decoder's own token table (Marian's ``decoder_vocab_size``);
            ``None`` means ``vocab_size``. With unshared embeddings the LM head projects onto it too.
        vocab_size: token vocabulary; ``None`` means no token embedding is
            counted (e.g. a bare layer).
        position: ``"learned"`` (a table of ``max_position_embeddings`` × d_model,
            GPT-2, BERT), ``"sinusoidal"`` (no parameters, Vaswani et al. 2017,
            §3.5 — the default), ``"rotary"`` (no parameters, LLaMA),
            ``"relative_bias"`` (T5: a table of buckets × heads per stack), ``"sinusoidal_table"``
            (Marian: the sinusoids stored as a frozen ``max_position_embeddings`` × d_model table, which
            ``transformers`` counts as parameters although they are not trained), ``"none"`` (e.g. ALiBi).
        max_position_embeddings: rows of the learned position table (positions); for other schemes the
            longest context of the model, if known (used as the default context of FLOP and KV-cache figures).
        position_offset: extra rows of the position table (OPT and BART keep 2 rows for an offset, so their
            table has max_position_embeddings + 2 rows).
        per_stack_embeddings: an encoder–decoder whose encoder and decoder each have their own position
            table and embedding norm (BART, Marian); otherwise one of each for the model.
        relative_attention_num_buckets: rows of T5's relative bias table (default 32, Raffel et al. 2020).
        type_vocab_size: rows of the token-type (segment) table; 0 for none, 2 in BERT.
        embedding_norm: a norm right after the embeddings (BERT).
        attention_bias: biases on the Q, K, V and output projections (default off, as in §3.2.2).
        attention_out_bias: a bias on the output projection W_O; ``None`` means as ``attention_bias``
            (Qwen2 has biases on Q, K, V only).
        mlp_bias: biases in the FFN (default on, as in §3.3).
        norm: ``"layernorm"`` (γ, and β when ``norm_bias``; default) or ``"rmsnorm"`` (γ only).
        norm_bias: LayerNorm has β (default on); ignored for RMSNorm.
        final_norm: one norm after the last layer of each stack (Pre-LN models; default off, as in
            the Post-LN original).
        norms_per_layer: norms in each layer of a single-stack model; ``None`` means one per sub-layer
            (2). 1 for a parallel block with one shared norm (GPT-J, Falcon-7B), 4 for Gemma 2 (a norm
            before and after each sub-layer); 0 for a bare layer (Kaplan et al. 2020, Table 1 counts none).
        ffn: ``"relu"`` (default), ``"gelu"`` or ``"silu"`` (two matrices), ``"swiglu"`` or ``"geglu"``
            (three).
        n_experts: experts of a mixture-of-experts FFN in every layer (Mixtral: 8), each an FFN of
            width d_ff, with a router of d_model × n_experts; 0 for a dense FFN.
        experts_per_token: experts each token is routed to (Mixtral: 2); the *active* parameters count
            only these.
        causal: self-attention of the (decoder) stack is causal, so generation keeps a KV cache;
            ``False`` for an encoder-only model (BERT).
        tie_word_embeddings: the LM head reuses the token embedding (Press & Wolf 2017; §3.4 of
            Vaswani et al. 2017); default on.
        share_encoder_decoder_embeddings: encoder and decoder use one token table (default on).
        stack_token_tables: an encoder–decoder with a shared table whose encoder and decoder still hold
            their own token tables, untied from it (transformers 5 builds an untied BART or Marian so:
            ``shared``, ``encoder.embed_tokens`` and ``decoder.embed_tokens`` are three tables; transformers 4
            pointed both stacks at ``shared``).
        word_embed_proj_dim: width of the token table when it differs from d_model (OPT-350m): the
            embedding is vocab_size × word_embed_proj_dim, ``project_in`` (word_embed_proj_dim × d_model) and
            ``project_out`` (d_model × word_embed_proj_dim) map in and out, and the LM head projects from
            word_embed_proj_dim. ``None`` means d_model (no projections).
        lm_head: the model ends in a projection onto the vocabulary (default off).
        lm_head_bias: that projection has a bias of ``vocab_size``.
        lm_head_linear_bias: an untied projection onto the vocabulary has a bias of its own besides
            ``lm_head_bias`` (BertForMaskedLM in transformers 5: ``decoder`` is a Linear with a bias and the
            head keeps a separate ``bias`` parameter, which only tying links).
        lm_head_transform: BERT's masked-LM transform before the projection (dense d_model × d_model
            with bias, then a norm).
        pooler: BERT's pooler (dense d_model × d_model with bias).
        name: a label for reports.
    """

    d_model: int
    n_heads: int
    d_ff: int
    n_layers: int
    n_kv_heads: int | None = None
    head_dim: int | None = None
    n_decoder_layers: int = 0
    decoder_n_heads: int | None = None
    decoder_d_ff: int | None = None
    decoder_vocab_size: int | None = None
    vocab_size: int | None = None
    position: str = "sinusoidal"
    max_position_embeddings: int | None = None
    position_offset: int = 0
    per_stack_embeddings: bool = False
    relative_attention_num_buckets: int = 32
    type_vocab_size: int = 0
    embedding_norm: bool = False
    attention_bias: bool = False
    attention_out_bias: bool | None = None
    mlp_bias: bool = True
    norm: str = "layernorm"
    norm_bias: bool = True
    final_norm: bool = False
    norms_per_layer: int | None = None
    ffn: str = "relu"
    n_experts: int = 0
    experts_per_token: int = 0
    causal: bool = True
    tie_word_embeddings: bool = True
    share_encoder_decoder_embeddings: bool = True
    stack_token_tables: bool = False
    word_embed_proj_dim: int | None = None
    lm_head: bool = False
    lm_head_bias: bool = False
    lm_head_linear_bias: bool = False
    lm_head_transform: bool = False
    pooler: bool = False
    name: str = "custom"

    def __post_init__(self) -> None:
        for f in _SIZE_FIELDS:
            check_int(f, getattr(self, f))
        for f in _OPTIONAL_SIZE_FIELDS:
            if getattr(self, f) is not None:
                check_int(f, getattr(self, f))
        for f in _COUNT_FIELDS:
            check_int(f, getattr(self, f), minimum=0)
        check_int("relative_attention_num_buckets", self.relative_attention_num_buckets)
        if self.norms_per_layer is not None:
            check_int("norms_per_layer", self.norms_per_layer, minimum=0)
            if self.n_decoder_layers:
                raise InputError("norms_per_layer is for a model with one stack (the decoder of an "
                                 "encoder-decoder has one norm per sub-layer)")
        if self.attention_out_bias is not None and not isinstance(self.attention_out_bias, bool):
            raise InputError(f"attention_out_bias must be true, false or null, got {_shown(self.attention_out_bias)}")
        if self.n_experts and not 1 <= self.experts_per_token <= self.n_experts:
            raise InputError(f"experts_per_token must be between 1 and n_experts = {self.n_experts}, "
                             f"got {self.experts_per_token}")
        if not self.n_experts and self.experts_per_token:
            raise InputError("experts_per_token needs n_experts (a mixture-of-experts FFN)")
        for f in _FLAGS:
            if not isinstance(getattr(self, f), bool):
                raise InputError(f"{f} must be true or false, got {_shown(getattr(self, f))}")
        for f, allowed in (("position", POSITIONS), ("norm", NORMS), ("ffn", FFNS)):
            if getattr(self, f) not in allowed:
                raise InputError(f"{f} must be one of {', '.join(allowed)}; got {_shown(getattr(self, f))}")
        if self.head_dim is None and self.d_model % self.n_heads:
            raise InputError(f"n_heads = {self.n_heads} does not divide d_model = {self.d_model}; "
                             "give head_dim explicitly")
        if self.n_heads % self.kv_heads:
            raise InputError(f"n_kv_heads = {self.kv_heads} does not divide n_heads = {self.n_heads}")
        if self.position in ("learned", "sinusoidal_table") and self.max_position_embeddings is None:
            raise InputError(f"position {self.position!r} needs max_position_embeddings")
        if self.per_stack_embeddings and not self.n_decoder_layers:
            raise InputError("per_stack_embeddings is for an encoder-decoder (n_decoder_layers > 0)")
        if (self.lm_head or self.lm_head_transform) and self.vocab_size is None:
            raise InputError("an LM head needs vocab_size")
        if self.lm_head_transform and not self.lm_head:
            raise InputError("lm_head_transform needs lm_head")
        for f in ("decoder_n_heads", "decoder_d_ff", "decoder_vocab_size"):
            if getattr(self, f) is not None and not self.n_decoder_layers:
                raise InputError(f"{f} is for an encoder-decoder (n_decoder_layers > 0)")
        if self.decoder_n_heads is not None:
            if self.head_dim is not None or self.n_kv_heads is not None:
                raise InputError("decoder_n_heads needs head_dim and n_kv_heads unset (each stack's heads split "
                                 "d_model)")
            if self.d_model % self.decoder_n_heads:
                raise InputError(f"decoder_n_heads = {self.decoder_n_heads} does not divide d_model = "
                                 f"{self.d_model}")
        if self.decoder_vocab_size is not None and self.vocab_size is None:
            raise InputError("decoder_vocab_size needs vocab_size")
        if self.stack_token_tables and not (self.n_decoder_layers and self.share_encoder_decoder_embeddings
                                            and self.vocab_size is not None):
            raise InputError("stack_token_tables is for an encoder-decoder with a shared token table")
        if self.word_embed_proj_dim is not None and (self.vocab_size is None or self.n_decoder_layers):
            raise InputError("word_embed_proj_dim needs vocab_size and a model with one stack")
        if self.lm_head_linear_bias and not (self.lm_head and not self.tie_word_embeddings):
            raise InputError("lm_head_linear_bias is for an untied LM head")

    # resolved sizes ---------------------------------------------------------
    @property
    def kv_heads(self) -> int:
        """``n_kv_heads``, or ``n_heads`` when not given (MHA)."""
        return self.n_heads if self.n_kv_heads is None else self.n_kv_heads

    @property
    def d_head(self) -> int:
        """``head_dim``, or ``d_model // n_heads`` when not given."""
        return self.d_model // self.n_heads if self.head_dim is None else self.head_dim

    @property
    def gated(self) -> bool:
        """True for a three-matrix FFN (SwiGLU, GeGLU)."""
        return self.ffn in GATED_FFNS

    @property
    def encoder_decoder(self) -> bool:
        return self.n_decoder_layers > 0

    @property
    def projected(self) -> bool:
        """The token table is narrower or wider than d_model (OPT's project_in/project_out)."""
        return self.word_embed_proj_dim is not None and self.word_embed_proj_dim != self.d_model

    @property
    def head_uses_decoder_vocab(self) -> bool:
        """The LM head projects onto the decoder's vocabulary (unshared encoder-decoder embeddings)."""
        return self.encoder_decoder and not self.share_encoder_decoder_embeddings

    @property
    def head_vocab(self) -> int:
        """Rows of the vocabulary the LM head projects onto (0 without a vocabulary)."""
        d = self.dims()
        return d["decoder_vocab_size"] if self.head_uses_decoder_vocab else d["vocab_size"]

    @property
    def embed_dim(self) -> int:
        """Width of the token table: ``word_embed_proj_dim`` or d_model."""
        return self.word_embed_proj_dim or self.d_model

    @property
    def out_bias(self) -> bool:
        """Whether W_O has a bias: ``attention_out_bias``, or ``attention_bias`` when not given."""
        return self.attention_bias if self.attention_out_bias is None else self.attention_out_bias

    @property
    def position_table(self) -> bool:
        """The positions are a stored table (learned, or Marian's frozen sinusoids)."""
        return self.position in ("learned", "sinusoidal_table")

    def dims(self) -> dict[str, int]:
        """Every size a weight shape may use, resolved to ints (name -> units)."""
        return {
            "d_model": self.d_model, "n_heads": self.n_heads, "n_kv_heads": self.kv_heads,
            "head_dim": self.d_head, "d_ff": self.d_ff, "n_layers": self.n_layers,
            "n_decoder_layers": self.n_decoder_layers, "vocab_size": self.vocab_size or 0,
            "max_position_embeddings": self.max_position_embeddings or 0,
            "type_vocab_size": self.type_vocab_size,
            "relative_attention_num_buckets": self.relative_attention_num_buckets,
            "position_offset": self.position_offset, "n_experts": self.n_experts,
            "experts_per_token": self.experts_per_token,
            "decoder_d_ff": self.d_ff if self.decoder_d_ff is None else self.decoder_d_ff,
            "decoder_vocab_size": (self.decoder_vocab_size or self.vocab_size or 0),
            "word_embed_proj_dim": self.word_embed_proj_dim or self.d_model,
        }

    def as_dict(self) -> dict[str, object]:
        """The fields as a plain dict (for JSON)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}
