"""HFC007 on names a tabled model module or the top level lost (engine/interpreter/removed_model_names.py, the release
table's `name:transformers.models.<x>.modeling_<x>.*` and `export:` facts): imports, reads through an alias or the
dotted path, patches of a removed class's `forward`; silence for stores onto the module, compat code, names every
release has and names no release had; the lists the screens use agree with the table and the generator."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from hf_cache_lint.checking.source import analyse
from hf_cache_lint.engine.environment import releases, releases_models
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.text.prefilter import EXPORT_STEMS, might_use_removed_api
from hf_cache_lint.rules import ALL_RULES

HFC007 = next(r for r in ALL_RULES if r.code == "HFC007")
ROOT = Path(__file__).resolve().parents[2]
LLAMA = "transformers.models.llama.modeling_llama"


def found(code: str, version: str) -> list[tuple[int, str, str]]:
    analysis = analyse(code, "example.py", Context(target=Target.of(version)))
    return [(f.span.start.line, f.message, f.severity.name) for f in HFC007.check(analysis)]


def test_an_import_of_a_merged_attention_class_names_its_release_and_replacement() -> None:
    code = "from transformers.models.llama.modeling_llama import LlamaFlashAttention2, repeat_kv\n"
    assert found(code, "4.47.1") == []  # the last release that has it
    for version in ("4.48.0", "4.57.6", "5.24.0"):
        ((line, message, severity),) = found(code, version)
        assert line == 1 and severity == "ERROR"
        assert f"`{LLAMA}` in transformers {version} no longer has `LlamaFlashAttention2` (gone since 4.48.0)" \
            in message
        assert f"ImportError: cannot import name 'LlamaFlashAttention2' from '{LLAMA}'" in message
        assert "use `LlamaAttention` (from `transformers.models.llama.modeling_llama`)" in message


@pytest.mark.parametrize("code", [
    "from transformers.models.llama import modeling_llama\n\n\ndef patch(f):\n"
    "    modeling_llama.LlamaSdpaAttention.forward = f\n",
    "from transformers.models.llama import modeling_llama as ml\n\n\ndef patch(f):\n"
    "    ml.LlamaSdpaAttention.forward = f\n",
    "import transformers.models.llama.modeling_llama as ml\n\n\ndef patch(f):\n    ml.LlamaSdpaAttention.forward = f\n",
    "import transformers\n\n\ndef patch(f):\n    transformers.models.llama.modeling_llama.LlamaSdpaAttention.forward = f\n",
    "import transformers as tf\n\n\ndef patch(f):\n    attention = tf.models.llama.modeling_llama.LlamaSdpaAttention\n",
])
def test_a_read_of_a_removed_class_through_the_module_is_reported(code: str) -> None:
    ((line, message, _),) = found(code, "4.57.6")
    assert line == 5
    assert f"AttributeError: module '{LLAMA}' has no attribute 'LlamaSdpaAttention'" in message
    assert found(code, "4.47.1") == []


@pytest.mark.parametrize("code", [
    # a store onto the module raises nothing; a read after it finds what was stored
    "from transformers.models.llama import modeling_llama\nmodeling_llama.LlamaFlashAttention2 = object\n"
    "modeling_llama.LlamaFlashAttention2.forward = None\n",
    # compat code
    "try:\n    from transformers.models.llama.modeling_llama import LlamaSdpaAttention\nexcept ImportError:\n"
    "    LlamaSdpaAttention = None\n",
    "from transformers.models.llama import modeling_llama\nif hasattr(modeling_llama, 'LlamaSdpaAttention'):\n"
    "    modeling_llama.LlamaSdpaAttention.forward = None\n",
    "from transformers.models.llama import modeling_llama\ntry:\n    modeling_llama.LlamaSdpaAttention.forward = None\n"
    "except AttributeError:\n    pass\n",
    # names every release has, and a name no release had (not a removal: the table cannot say it was there)
    "from transformers.models.llama.modeling_llama import LlamaAttention, apply_rotary_pos_emb, repeat_kv\n",
    "from transformers.models.llama.modeling_llama import LlamaNoSuchAttention\n",
    "from transformers.models.llama import modeling_llama\nmodeling_llama.LlamaNoSuchAttention.forward = None\n",
    # a module the table does not read, and a project's own module of the same last name
    "from transformers.models.bert.modeling_bert import BertSdpaSelfAttention\n",
    "from mypkg import modeling_llama\nmodeling_llama.LlamaSdpaAttention.forward = None\n",
])
def test_silent(code: str) -> None:
    assert found(code, "5.24.0") == []


def test_a_re_export_points_to_the_module_that_defines_it() -> None:
    code = "from transformers.models.llama.modeling_llama import StaticCache\n"
    assert found(code, "4.51.3") == []
    ((_, message, _),) = found(code, "5.24.0")
    assert "(gone since 4.52.1)" in message
    assert "`from transformers.cache_utils import StaticCache`" in message


def test_a_removed_top_level_generation_export() -> None:
    code = "from transformers import BeamScorer, GenerationConfig\n"
    assert found(code, "4.57.6") == []
    ((_, message, _),) = found(code, "5.0.0")
    assert "transformers 5.0.0 no longer has `BeamScorer` (gone since 5.0.0)" in message
    assert "ImportError: cannot import name 'BeamScorer' from 'transformers' (.../transformers/__init__.py)" in message
    ((_, read, _),) = found("import transformers\nscorer = transformers.BeamScorer\n", "5.24.0")
    assert "AttributeError: module transformers has no attribute BeamScorer" in read


def test_a_name_removed_before_the_first_cache_removal_is_reported_at_its_release() -> None:
    """The walk is skipped below the first removal the tables know; the model names' own first one counts."""
    first = releases_models.first_model_removal()
    assert first < Version.parse("4.45.0")
    known = releases.known_releases()
    key = next(k for k, runs in releases.table().facts.items()
               if k.startswith(tuple(f"name:{m}." for m in releases_models.MODEL_NAME_MODULES))
               and any(known[known.index(r.last) + 1] == first for r in runs if r.last != known[-1]))
    module, _, name = key.removeprefix("name:").rpartition(".")
    assert found(f"from {module} import {name}\n", str(first))


def test_the_removed_generation_exports_are_the_table_s() -> None:
    known = releases.known_releases()
    derived = sorted(key.removeprefix("export:transformers.") for key, runs in releases.table().facts.items()
                     if key.startswith("export:") and any(r.value.startswith("generation") for r in runs)
                     and runs[-1].last != known[-1])
    assert derived == sorted(releases_models.REMOVED_GENERATION_EXPORTS)
    for name in derived:  # the prefilter's first look finds each of them
        assert any(stem in name for stem in EXPORT_STEMS), name
        assert might_use_removed_api(f"from transformers import {name}\n")


def test_the_families_are_the_generator_s() -> None:
    sys.path.insert(0, str(ROOT / "scripts"))
    import release_table

    assert release_table.MODEL_NAME_FAMILIES == releases_models.MODEL_NAME_FAMILIES
    for module in releases_models.MODEL_NAME_MODULES:  # each module's names are in the table
        assert any(key.startswith(f"name:{module}.") for key in releases.table().facts), module
        assert might_use_removed_api(f"from {module} import X\n")


def test_an_undecided_version_test_is_compat_code() -> None:
    """A project's own version helper the analysis cannot decide (verl): the else branch is for old releases."""
    code = ("from transformers.models.llama import modeling_llama\nfrom mypkg import at_least\n"
            "if at_least(min_version='4.48.0'):\n    from transformers.models.llama.modeling_llama import LlamaAttention\n"
            "else:\n    from transformers.models.llama.modeling_llama import LlamaFlashAttention2 as LlamaAttention\n"
            "if not is_transformers_version_greater('4.48'):\n    modeling_llama.LlamaSdpaAttention.forward = None\n")
    assert found(code, "5.24.0") == []
    # Any other undecided condition keeps the finding, as a Warning naming it.
    ((_, message, severity),) = found("import os\nif os.environ.get('FLASH'):\n"
                                      "    from transformers.models.llama.modeling_llama import LlamaFlashAttention2\n",
                                      "5.24.0")
    assert severity == "WARNING" and "only if `os.environ.get('FLASH')` holds" in message


def test_a_rotary_embedding_built_as_4_4x_took_it() -> None:
    """`init:` of the tabled model modules' rotary embeddings: the exact TypeError of the target (oracle: 4.57.6,
    5.19.0, 5.24.0), and the release of the signature that rejects the call."""
    pre = ("from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding\n"
           "from transformers import LlamaConfig\nconfig = LlamaConfig()\n")
    keyword = pre + "rotary = LlamaRotaryEmbedding(64, max_position_embeddings=2048)\n"
    assert found(keyword, "4.47.1") == []
    ((_, message, _),) = found(keyword, "4.57.6")
    assert "TypeError: LlamaRotaryEmbedding.__init__() got an unexpected keyword argument 'max_position_embeddings'" \
        in message
    positional = pre + "rotary = LlamaRotaryEmbedding(64, 2048, 10000)\n"
    ((_, message, _),) = found(positional, "4.57.6")
    assert "TypeError: LlamaRotaryEmbedding.__init__() takes from 2 to 3 positional arguments but 4 were given" \
        in message and "(since 4.48.0)" in message
    ((_, message, _),) = found(positional, "5.24.0")
    assert "takes 2 positional arguments but 4 were given" in message
    device = pre + "rotary = LlamaRotaryEmbedding(config=config, device='cpu')\n"
    assert found(device, "5.18.0") == []
    ((_, message, _),) = found(device, "5.19.0")
    assert "got an unexpected keyword argument 'device'" in message
    assert found(pre + "rotary = LlamaRotaryEmbedding(config=config)\n", "5.24.0") == []
    # A project's own class of that name is its own.
    assert found("import transformers\nfrom mypkg.rope import LlamaRotaryEmbedding\n"
                 "rotary = LlamaRotaryEmbedding(64, max_position_embeddings=2048)\n", "5.24.0") == []
