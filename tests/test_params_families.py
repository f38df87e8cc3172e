"""Every model family on a real config.json: exact totals against the checked-in table, and against
transformers on the meta device where transformers and torch are installed."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from derive.params.allocate import allocated_count
from derive.params.hf_config import MODEL_TYPES, load_config
from derive.params.shapes import active_count, count

DATA = Path(__file__).parent / "data"
EXPECTED = json.loads((DATA / "expected_param_counts.json").read_text())
FILES = sorted(EXPECTED)


def test_table_covers_every_family_and_says_how():
    families = {load_config(DATA / f).model_type for f in FILES}
    assert families == set(MODEL_TYPES)
    for entry in EXPECTED.values():
        assert entry["obtained"] and entry["meta_device"] and isinstance(entry["total"], int)


@pytest.mark.parametrize("file", FILES)
def test_total_equals_the_table(file):
    loaded = load_config(DATA / file)
    entry = EXPECTED[file]
    assert loaded.counted_class == entry["class"]
    assert count(loaded.arch) == entry["total"]
    assert active_count(loaded.arch) == entry.get("active", entry["total"])


def test_mixtral_total_and_active():
    arch = load_config(DATA / "configs/mixtral-8x7b-config.json").arch
    expert = 3 * 4096 * 14336
    assert count(arch) == 46_702_792_704
    assert count(arch) - active_count(arch) == 32 * (8 - 2) * expert
    assert active_count(arch) == 12_879_925_248


def test_t5_v1_1_is_gated_and_untied():
    arch = load_config(DATA / "configs/flan-t5-small-config.json").arch
    assert arch.ffn == "geglu" and arch.lm_head and not arch.tie_word_embeddings
    assert count(arch) - count(replace(arch, tie_word_embeddings=True)) == 32128 * 512


@pytest.mark.parametrize("file", FILES)
def test_small_variant_allocates_to_the_count(file):
    """The same layout at toy sizes: arrays built per head (allocate.py) hold as many scalars as counted."""
    a = load_config(DATA / file).arch
    small = replace(a, d_model=16, n_heads=4, head_dim=None if a.head_dim is None else 8, d_ff=24, n_layers=2,
                    n_kv_heads=None if a.n_kv_heads is None else (1 if a.kv_heads == 1 else 2),
                    n_decoder_layers=min(a.n_decoder_layers, 3), vocab_size=50,
                    max_position_embeddings=None if a.max_position_embeddings is None else 12)
    assert allocated_count(small) == count(small)


def _meta_count(path: Path) -> tuple[int, str]:
    import torch
    import transformers

    cfg = transformers.AutoConfig.from_pretrained(path)
    cls = getattr(transformers, cfg.architectures[0])
    with torch.device("meta"):
        model = cls(cfg)
    return sum(p.numel() for p in model.parameters()), transformers.__version__


@pytest.mark.parametrize("file", FILES)
def test_against_transformers_on_the_meta_device(file):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    loaded = load_config(DATA / file)
    n, version = _meta_count(DATA / file)
    expected = count(loaded.arch)
    if loaded.model_type == "t5" and not loaded.arch.tie_word_embeddings and int(version.split(".")[0]) >= 5:
        # transformers 5 forces T5Config.tie_word_embeddings = True: one vocab_size × d_model table fewer
        expected -= loaded.arch.vocab_size * loaded.arch.d_model
    assert n == expected, f"{file}: transformers {version} counts {n:,}, derive {expected:,}"


@pytest.mark.parametrize("preset, file", [
    ("mixtral-8x7b", "configs/mixtral-8x7b-config.json"), ("falcon-7b", "configs/falcon-7b-config.json"),
    ("gemma-2b", "configs/gemma-2b-config.json"), ("qwen2-0.5b", "configs/qwen2-0.5b-config.json"),
    ("flan-t5-small", "configs/flan-t5-small-config.json"),
])
def test_family_presets_equal_their_config_files(preset, file):
    from derive.params import get_preset

    arch = get_preset(preset).arch
    assert count(arch) == EXPECTED[file]["total"] == count(load_config(DATA / file).arch)
    assert active_count(arch) == EXPECTED[file].get("active", EXPECTED[file]["total"])
