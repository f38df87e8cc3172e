"""``derive params``: presets, config files, sizes, output formats, bad input (one line, exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from derive.cli import main

DATA = Path(__file__).parent / "data"
SUPPORTED = ("bart, bert, falcon, gemma, gemma2, gpt2, gpt_neox, gptj, llama, marian, mistral, mixtral, opt, phi3, "
             "qwen2, t5")


def run(argv, capsys):
    """Exit status, stdout, stderr; argparse's usage errors exit through SystemExit."""
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_gpt2_json_total(capsys):
    code, out, _ = run(["params", "--preset", "gpt2", "--json"], capsys)
    assert code == 0
    assert '"total": 124439808' in out
    data = json.loads(out)
    assert data["non_embedding"] == 85_056_000 and data["preset"] == "gpt2"
    assert sum(c["count"] for c in data["components"]) == 124_439_808
    assert data["memory_bytes"]["bf16"] == 248_879_616


def test_default_table_lecture_layer(capsys):
    code, out, _ = run(["params", "--preset", "lecture-layer"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert any(line.startswith("self-attention") and "1,048,576" in line and "33.3 %" in line for line in lines)
    assert any(line.startswith("FFN (relu)") and "2,099,712" in line and "66.7 %" in line for line in lines)
    assert any(line.startswith("LayerNorm × 2") and "2,048" in line and "0.1 %" in line for line in lines)
    assert any(line.startswith("total") and "3,150,336" in line for line in lines)


def test_sizes_and_overrides(capsys):
    code, out, _ = run(["params", "--d-model", "512", "--n-heads", "8", "--d-ff", "2048", "--n-layers", "6",
                        "--json"], capsys)
    assert code == 0 and json.loads(out)["total"] == 18_902_016
    code, out, _ = run(["params", "--preset", "lecture-layer", "--n-heads", "16", "--json"], capsys)
    assert json.loads(out)["total"] == 3_150_336 and json.loads(out)["overridden"] == ["n_heads"]
    code, out, _ = run(["params", "--d-model", "512", "--n-heads", "8", "--d-ff", "2048", "--n-layers",
                        "1000000000000000000", "--json"], capsys)
    assert json.loads(out)["total"] == 3_150_336 * 10**18


def test_config_option_names_class(capsys):
    code, out, _ = run(["params", "--config", str(DATA / "gpt2-config.json")], capsys)
    assert code == 0 and "counted class: GPT2LMHeadModel" in out and "124,439,808" in out
    code, out, _ = run(["params", "--config", str(DATA / "bert-base-uncased-config.json"), "--json"], capsys)
    data = json.loads(out)
    assert data["counted_class"] == "BertForMaskedLM" and data["total"] == 109_514_298


def test_latex_markdown_dtype_list(capsys):
    code, out, _ = run(["params", "--preset", "lecture-encoder", "--latex"], capsys)
    assert code == 0 and r"\toprule" in out and r"18{,}902{,}016" in out and r"\bottomrule" in out
    code, out, _ = run(["params", "--preset", "lecture-layer", "--markdown"], capsys)
    assert "| self-attention | $4 d_{\\text{model}}^{2}$ | 1 | 1,048,576 | 33.3 % |" in out
    code, out, _ = run(["params", "--preset", "llama-7b", "--dtype", "bf16"], capsys)
    assert "memory bf16" in out and "13,476,831,232" in out and "memory fp32" not in out
    code, out, _ = run(["params", "--list-presets"], capsys)
    assert code == 0 and "gpt2 " in out and "124,439,808" in out and "Table 2.1" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--d-model", "512", "--n-heads", "7", "--d-ff", "2048", "--n-layers", "1"],
         "derive: error: n_heads = 7 does not divide d_model = 512; give head_dim explicitly"),
        (["--d-model", "512", "--n-heads", "8", "--n-kv-heads", "3", "--d-ff", "2048", "--n-layers", "1"],
         "derive: error: n_kv_heads = 3 does not divide n_heads = 8"),
        (["--d-model", "512.5", "--n-heads", "8", "--d-ff", "2048", "--n-layers", "1"],
         "derive params: error: argument --d-model: must be a positive integer, got '512.5'"),
        (["--d-model", "0", "--n-heads", "8", "--d-ff", "2048", "--n-layers", "1"],
         "derive params: error: argument --d-model: must be a positive integer, got '0'"),
        (["--d-model", "__import__('os').system('x')", "--n-heads", "8", "--d-ff", "1", "--n-layers", "1"],
         "derive params: error: argument --d-model: must be a positive integer, got \"__import__('os').system('x')\""),
        (["--d-model", "512"], "derive: error: give --n-heads, --d-ff, --n-layers (or --preset NAME / --config FILE "
                               "/ --list-presets)"),
        (["--preset", "gpt5"], "derive: error: unknown preset 'gpt5'; presets: lecture-layer,"),
    ],
)
def test_bad_input_one_line_exit_2(argv, message, capsys):
    code, out, err = run(["params", *argv], capsys)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1 and "Traceback" not in err


def test_bad_config_files_exit_2(tmp_path, capsys):
    cases = {
        '{"model_type": "gpt2",': "malformed JSON",
        '{"model_type": "mamba"}': "unsupported model_type 'mamba'; supported model types: " + SUPPORTED,
        '{"model_type": "bert", "hidden_size": 768}': "missing required key 'num_attention_heads' for model_type "
                                                      "'bert'",
    }
    for k, (text, message) in enumerate(cases.items()):
        f = tmp_path / f"c{k}.json"
        f.write_text(text)
        code, out, err = run(["params", "--config", str(f)], capsys)
        assert code == 2 and out == "" and message in err and err.count("\n") == 1



def test_renderers_escape_and_total():
    from derive.params import breakdown, get_preset
    from derive.render.params_table import latex_table, markdown_table, text_table

    rows = breakdown(get_preset("transformer-base").arch)
    tex = latex_table(rows, caption="Base: 100% & more", label="tab:base")
    assert r"\caption{Base: 100\% \& more}" in tex and r"\label{tab:base}" in tex
    assert r"decoder LayerNorm $\times$ 3 & $6 d_{\text{model}}$ & 6 & 18{,}432 & 0.0\,\% \\" in tex
    assert r"Total & & & 63{,}045{,}632 & 100.0\,\% \\" in tex
    assert markdown_table(rows).splitlines()[-1] == "| **total** | | | **63,045,632** | 100.0 % |"
    plain = text_table(rows, formulas=False)
    assert "formula" not in plain and plain.splitlines()[-1].split()[:2] == ["total", "63,045,632"]


def test_overridden_preset_says_so_and_drops_the_reported_figure(capsys):
    from derive.cli import main

    assert main(["params", "--preset", "gpt2", "--d-model", "1536"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "GPT-2 small — preset gpt2 with d_model=1536 (modified)"
    assert "reported 124M" not in out
    assert main(["params", "--preset", "gpt2"]) == 0
    assert "reported 124M" in capsys.readouterr().out


def test_unsupported_family_one_line_exit_2(tmp_path, capsys):
    f = tmp_path / "config.json"
    f.write_text('{"model_type": "rwkv", "architectures": ["RwkvForCausalLM"]}')
    code, out, err = run(["params", "--config", str(f)], capsys)
    assert code == 2 and out == ""
    assert err == f"derive: error: {f}: unsupported model_type 'rwkv'; supported model types: {SUPPORTED}\n"


@pytest.mark.parametrize("file, cls, total", [
    ("configs/mixtral-8x7b-config.json", "MixtralForCausalLM", "46,702,792,704"),
    ("configs/opus-mt-en-de-config.json", "MarianMTModel", "74,410,496"),
    ("configs/flan-t5-small-config.json", "T5ForConditionalGeneration", "76,961,152"),
])
def test_new_families_on_the_command_line(file, cls, total, capsys):
    code, out, _ = run(["params", "--config", str(DATA / file)], capsys)
    assert code == 0 and f"counted class: {cls}" in out
    assert any(line.startswith("total") and total in line for line in out.splitlines())
