"""Baseline model definitions for figure 3: the weight shapes of GPT-2 small, LLaMA-7B and GPT-3 175B.

Written the way the reference implementations lay out their weights (Hugging Face GPT2Model with a
tied LM head; LlamaForCausalLM with an untied head), independently of :mod:`derive.params`, so the
allocation baselines also cross-check derive's exact counts.
"""

from __future__ import annotations

CONFIGS = {
    # name: (kind, d_model, n_layers, n_heads, d_ff, vocab_size, n_positions)
    "gpt2": ("gpt", 768, 12, 12, 3072, 50257, 1024),
    "llama-7b": ("llama", 4096, 32, 32, 11008, 32000, 0),
    "gpt3-175b": ("gpt", 12288, 96, 96, 4 * 12288, 50257, 2048),
}


def shapes(name: str) -> list[tuple[str, tuple[int, ...]]]:
    """(parameter name, shape) of every weight of the named model."""
    kind, d, n_layers, _, d_ff, vocab, n_pos = CONFIGS[name]
    out: list[tuple[str, tuple[int, ...]]] = []
    if kind == "gpt":
        out += [("wte", (vocab, d)), ("wpe", (n_pos, d))]
        for i in range(n_layers):
            p = f"h.{i}."
            out += [(p + "ln_1.weight", (d,)), (p + "ln_1.bias", (d,)),
                    (p + "attn.c_attn.weight", (d, 3 * d)), (p + "attn.c_attn.bias", (3 * d,)),
                    (p + "attn.c_proj.weight", (d, d)), (p + "attn.c_proj.bias", (d,)),
                    (p + "ln_2.weight", (d,)), (p + "ln_2.bias", (d,)),
                    (p + "mlp.c_fc.weight", (d, d_ff)), (p + "mlp.c_fc.bias", (d_ff,)),
                    (p + "mlp.c_proj.weight", (d_ff, d)), (p + "mlp.c_proj.bias", (d,))]
        out += [("ln_f.weight", (d,)), ("ln_f.bias", (d,))]
    else:
        out.append(("embed_tokens", (vocab, d)))
        for i in range(n_layers):
            p = f"layers.{i}."
            out += [(p + f"self_attn.{w}_proj.weight", (d, d)) for w in "qkvo"]
            out += [(p + "mlp.gate_proj.weight", (d_ff, d)), (p + "mlp.up_proj.weight", (d_ff, d)),
                    (p + "mlp.down_proj.weight", (d, d_ff)),
                    (p + "input_layernorm.weight", (d,)), (p + "post_attention_layernorm.weight", (d,))]
        out += [("norm.weight", (d,)), ("lm_head.weight", (vocab, d))]
    return out


def total(name: str) -> int:
    """Parameter count from the shapes (exact int)."""
    n = 0
    for _, shape in shapes(name):
        size = 1
        for s in shape:
            size *= s
        n += size
    return n
