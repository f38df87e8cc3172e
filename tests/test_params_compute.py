"""FLOPs, KV cache and training memory: the numbers `derive params` prints are the derivations' closed forms
evaluated at the config's sizes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy as sp

from derive import check as verify
from derive.cli import main
from derive.kernel.lemmas import Lemma
from derive.params.flops import attention_blocks, symbolic_forward_flops
from derive.params.hf_config import load_config
from derive.params.shapes import symbol_values
from derive.registry import get
from derive.transformer.notation import sym

DATA = Path(__file__).parent / "data"
FILES = sorted(json.loads((DATA / "expected_param_counts.json").read_text()))
NEW = ["params.flops-kaplan", "params.flops-training", "params.flops-exact", "params.moe-active",
       "params.kv-cache-token", "params.kv-cache", "params.kv-cache-gqa", "params.adam-memory"]
S = {n: sym(n) for n in ("n_params", "n_layers", "n_ctx", "n_heads", "d_k", "n_kv_heads", "bytes_per_value",
                         "batch_size")}


def cli_json(capsys, *argv):
    assert main(["params", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("name", NEW)
def test_new_derivations_proved(catalog, name):
    report = verify(get(name))
    assert report.ok, report
    assert all(s.verdict.name == "PROVED" for s in report.steps)
    # plain identities or a checked use of a proved law (the kernel's Lemma), no substitution rule
    assert all(s.rule is None or isinstance(s.rule, Lemma) for s in get(name).steps)


@pytest.mark.parametrize("file", FILES)
@pytest.mark.parametrize("context, batch, dtype", [(1, 1, "bf16"), (4096, 8, "fp32")])
def test_cli_numbers_are_the_derivations_evaluated(catalog, capsys, file, context, batch, dtype):
    arch = load_config(DATA / file).arch
    out = cli_json(capsys, "--config", str(DATA / file), "--context", str(context), "--batch", str(batch),
                   "--dtype", dtype)
    f, kv, tm = out["flops_per_token"], out["kv_cache"], out["training_memory"]
    values = {**symbol_values(arch), S["n_ctx"]: sp.Integer(context)}
    assert f["context"] == context == kv["context"]
    # exact forward: the shape-table expression that starts params.flops-exact
    assert f["forward"] == symbolic_forward_flops(arch).xreplace(values)
    if (arch.ffn, arch.gated, arch.attention_bias, arch.n_experts, arch.tie_word_embeddings, arch.encoder_decoder) == (
            "swiglu", True, False, 0, False, False):  # the LLaMA layout of params.flops-exact
        assert f["forward"] == get("params.flops-exact").end.xreplace(values)
    # training = 3 × forward, Kaplan: 6N + 6·n_layers·n_ctx·d_attn with N non-embedding (active)
    train = get("params.flops-training").end
    factor = train.coeff(S["n_params"]) / 2
    assert factor == 3 and f["training"] == factor * f["forward"]
    kap = {S["n_params"]: f["kaplan_n"], S["n_layers"]: attention_blocks(arch), S["n_ctx"]: context,
           S["n_heads"]: arch.n_heads, S["d_k"]: arch.d_head}
    assert f["kaplan_training"] == train.xreplace(kap)
    assert f["kaplan_forward"] == (train / 3).xreplace(kap)
    # KV cache
    per_layers = arch.n_decoder_layers if arch.encoder_decoder else (arch.n_layers if arch.causal else 0)
    kvv = {S["n_layers"]: per_layers, S["n_kv_heads"]: arch.kv_heads, S["d_k"]: arch.d_head,
           S["bytes_per_value"]: {"bf16": 2, "fp32": 4}[dtype], S["batch_size"]: batch, S["n_ctx"]: context}
    assert kv["bytes_per_token"] == get("params.kv-cache-token").end.xreplace(kvv)
    cross = {**kvv, S["n_layers"]: arch.n_decoder_layers}
    assert kv["cross_attention_bytes_per_source_token"] == get("params.kv-cache-token").end.xreplace(cross)
    assert kv["bytes"] == get("params.kv-cache").end.xreplace(kvv) + get("params.kv-cache").end.xreplace(cross)
    # training memory
    assert tm["bytes"] == get("params.adam-memory").end.xreplace({S["n_params"]: out["total"]})
    assert tm["bytes_per_parameter"] == sum(tm["parts"].values()) == 16


def test_mixtral_active_is_the_derivation(catalog, capsys):
    file = DATA / "configs/mixtral-8x7b-config.json"
    out = cli_json(capsys, "--config", str(file))
    assert out["active_parameters"] == get("params.moe-active").end.xreplace(symbol_values(load_config(file).arch))
    assert out["active_parameters"] == 12_879_925_248 and out["total"] == 46_702_792_704


def test_known_figures(capsys):
    llama = cli_json(capsys, "--preset", "llama-7b", "--context", "2048", "--dtype", "fp16")
    assert llama["context_source"] == "--context"
    assert llama["flops_per_token"]["forward"] == 14_287_896_576
    assert llama["kv_cache"]["bytes_per_token"] == 524_288 and llama["kv_cache"]["bytes"] == 2**30
    assert llama["training_memory"]["bytes"] == 16 * 6_738_415_616
    falcon = cli_json(capsys, "--config", str(DATA / "configs/falcon-7b-config.json"))
    assert falcon["kv_cache"]["bytes_per_token"] == 2 * 32 * 1 * 64 * 2  # MQA: one K/V head
    assert falcon["context"] == 2048 and falcon["context_source"] == "max_position_embeddings"
    bert = cli_json(capsys, "--preset", "bert-base")
    assert bert["kv_cache"]["bytes"] == 0 and bert["context_source"] == "max_position_embeddings"


def test_text_output_shows_estimates_and_exact(capsys):
    assert main(["params", "--preset", "gpt2", "--context", "1024"]) == 0
    out = capsys.readouterr().out
    assert "per token at context 1,024 (--context):" in out
    assert any(line.strip().startswith("FLOPs forward, exact from the shapes") for line in out.splitlines())
    assert "FLOPs forward, Kaplan 2N + 2·n_layers·n_ctx·d_attn" in out
    assert "estimate, KV cache:" in out and "estimate, training memory:" in out


@pytest.mark.parametrize("argv, message", [
    (["--preset", "gpt2", "--context", "0"], "argument --context: must be a positive integer, got '0'"),
    (["--preset", "gpt2", "--batch", "1.5"], "argument --batch: must be a positive integer, got '1.5'"),
])
def test_bad_context_batch_exit_2(capsys, argv, message):
    try:
        code = main(["params", *argv])
    except SystemExit as exc:
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_sphinx_and_slides_tables_show_the_same_figures():
    from docutils import nodes

    from derive.params import get_preset
    from derive.params.budget import budget
    from derive.render.params_table import budget_latex_table, budget_markdown_table
    from derive.sphinxext.params import breakdown_table

    arch = get_preset("mistral-7b").arch
    b = budget(arch, 4096, 8)
    text = "\n".join(n.astext() for n in breakdown_table("mistral-7b", context=4096, batch=8))
    assert "16,368,271,360" in text and "4,294,967,296 B (4.00 GiB)" in text and "context of 4,096 tokens" in text
    assert f"{b.training_bytes:,} B" in text
    assert not any(isinstance(n, nodes.table) and "derive-budget" in n["classes"]
                   for n in breakdown_table("mistral-7b", budget=False))
    md = budget_markdown_table(b)
    assert "| forward FLOPs per token, exact (n_ctx = 4,096) | $2 W_{\\text{mat}} + 4 N n_{\\text{ctx}} h d_k$ | " \
           "16,368,271,360 (1.64e10) |" in md
    assert r"16{,}368{,}271{,}360" in budget_latex_table(b)


def test_check_accepts_a_glob_of_the_params_derivations(capsys):
    assert main(["check", "--no-cache", "--no-numeric", "params.*"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in NEW) and "params.attention " in out
    try:
        code = main(["check", "nothing.*"])
    except SystemExit as exc:
        code = exc.code
    assert code == 2 and capsys.readouterr().err == "derive: error: no derivation matches 'nothing.*'\n"
