"""scripts/release_table.py: the shipped table is what the releases' sources say, and regenerating is deterministic.

Each release's facts are read again from its wheel (.cache/wheels/, `python3 scripts/release_table.py --download`)
or, where the wheel is absent, from the oracle's install of that release (.cache/oracle/tf-X/transformers: the
same .py files, which CI builds anyway), so under CI=true these run without fetching ~100 wheels. The full
regeneration (`release_table.py --check`, every release) takes minutes and is a maintainer's command.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from hf_cache_lint.engine.environment import releases

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "scripts"))
import release_table  # noqa: E402
from release_behaviours import BEHAVIOURS  # noqa: E402

ORACLE = Path(os.environ.get("ORACLE_DIR") or ROOT / ".cache" / "oracle")
CHECKED = ("4.57.6", "5.23.0", "5.24.0")  # the oracle's releases, which CI installs


def source(version: str) -> release_table.Release:
    wheel = release_table.wheel(version)
    if wheel.exists():
        return release_table.Release(version, wheel)
    tree = ORACLE / f"tf-{version}"
    if (tree / "transformers" / "__init__.py").exists():
        return release_table.Release(version, tree)
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"neither the wheel nor the oracle install of transformers {version} (scripts/setup-oracle.sh)")
    pytest.skip(f"no wheel or oracle install of transformers {version}")


def shipped() -> dict[str, Any]:
    return dict(json.loads((ROOT / "server" / "hf_cache_lint" / "data" / "releases.json").read_text()))


@pytest.mark.parametrize("version", CHECKED)
def test_the_shipped_rows_are_what_the_release_says(version: str) -> None:
    read = release_table.release_facts(source(version))
    table = releases.table()
    # `build` keeps a `tuple_forward:` class only where some release says it raises (or it is an Auto head): the
    # others, read here, are in no row of the table at all.
    read = {k: v for k, v in read.items() if not k.startswith("tuple_forward:") or k in table.facts}
    at = {key: got for key in table.facts if (got := releases.value(key, version)) is not None}
    assert at == read, {k: (at.get(k), read.get(k)) for k in set(at) | set(read) if at.get(k) != read.get(k)}


def test_regenerating_the_same_releases_gives_the_same_text() -> None:
    sources = {v: source(v) for v in CHECKED}
    first = release_table.dump(release_table.build(sources, check_evidence=False))
    again = release_table.dump(release_table.build({v: source(v) for v in CHECKED}, check_evidence=False))
    assert first == again
    parsed = json.loads(first)
    assert parsed["releases"] == list(CHECKED)
    # One fact a line, keys sorted: a regeneration diffs by fact.
    lines = [line for line in first.splitlines() if line.startswith('    "') and '": [[' in line]
    keys = [json.loads("{" + line.rstrip(",") + "}").popitem()[0] for line in lines]
    assert keys == sorted(keys) and len(keys) == len(parsed["facts"])


def test_runs_cover_consecutive_releases_only() -> None:
    names = ["a", "b", "c", "d", "e"]
    assert release_table.runs(["x", "x", None, "x", "y"], names) == [["a", "b", "x"], ["d", "d", "x"],
                                                                      ["e", "e", "y"]]
    assert release_table.runs([None, None, None, None, None], names) == []


def test_the_behaviours_are_shipped_as_written() -> None:
    table = shipped()
    assert [b["id"] for b in table["behaviours"]] == [b["id"] for b in BEHAVIOURS]
    for entry, written in zip(table["behaviours"], BEHAVIOURS, strict=True):
        assert {k: v for k, v in entry.items() if k != "evidence"} == {
            k: v for k, v in written.items() if k != "evidence"}
        assert written["evidence"]["file"] in entry["evidence"]


def test_evidence_range_finds_the_first_release(tmp_path: Path) -> None:
    def tree(version: str, text: str) -> release_table.Release:
        root = tmp_path / version / "transformers"
        root.mkdir(parents=True)
        (root / "__init__.py").write_text("")
        (root / "cache_utils.py").write_text(text)
        return release_table.Release(version, tmp_path / version)

    sources = {"1.0.0": tree("1.0.0", "old"), "1.1.0": tree("1.1.0", "old\nnew"), "1.2.0": tree("1.2.0", "new"),
               "1.3.0": tree("1.3.0", "old")}
    f = "transformers/cache_utils.py"
    assert release_table.evidence_range(sources, {"file": f, "contains": "new"}) == ("1.1.0", "1.3.0")
    assert release_table.evidence_range(sources, {"file": f, "lacks": "old"}) == ("1.2.0", "1.3.0")
    assert release_table.evidence_range(sources, {"file": f, "contains": "never"}) == (None, None)


def test_the_shipped_table_holds_every_wheel_present() -> None:
    table = shipped()
    wheels = release_table.local_sources()
    if not wheels:
        pytest.skip("no wheels in .cache/wheels (python3 scripts/release_table.py --download)")
    assert set(wheels) <= set(table["releases"]), set(wheels) - set(table["releases"])


def test_a_generation_module_s_names_are_read_private_ones_too() -> None:
    """Every name the generation modules bind is a `name:` fact: 4.57.6 has `GreedySearchOutput` (and the package
    serves `GreedySearchDecoderOnlyOutput` lazily), 5.23.0 has neither; `_crop_past_key_values` is private and was
    there up to 4.53.3 (the shipped table: the oracle's releases lack it)."""
    old = release_table.release_facts(source("4.57.6"))
    new = release_table.release_facts(source("5.23.0"))
    assert old["name:transformers.generation.utils.GreedySearchOutput"] == "value"
    assert old["name:transformers.generation.utils.GreedySearchDecoderOnlyOutput"] == "alias(GenerateDecoderOnlyOutput)"
    assert old["name:transformers.generation.GreedySearchDecoderOnlyOutput"] == \
        "import(.utils.GreedySearchDecoderOnlyOutput)"
    for key in ("name:transformers.generation.utils.GreedySearchOutput",
                "name:transformers.generation.GreedySearchDecoderOnlyOutput",
                "name:transformers.generation.candidate_generator._crop_past_key_values"):
        assert key not in new
    for facts in (old, new):  # what every release has, a private function included
        assert facts["name:transformers.generation.utils.GenerateDecoderOnlyOutput"].startswith("class(")
        assert facts["name:transformers.generation.candidate_generator.AssistedCandidateGenerator"].startswith("class(")
    # A top-level export served from `generation` is an `export:` fact.
    assert new["export:transformers.GenerationConfig"] == "generation"
    crop = "name:transformers.generation.candidate_generator._crop_past_key_values"
    assert releases.value(crop, "4.53.3") == "def" and releases.value(crop, "4.54.0") is None
    assert str(releases.gone_since(crop, "5.24.0")) == "4.54.0"


def test_what_a_module_binds_skips_type_checking_imports() -> None:
    tree = release_table.ast.parse(
        "from typing import TYPE_CHECKING\nimport torch.nn as nn\nif TYPE_CHECKING:\n    from ..x import Only\n"
        "if is_sklearn_available():\n    from sklearn.metrics import roc_curve\nfrom ..cache_utils import Cache\n"
        "try:\n    from .y import A\nexcept ImportError:\n    A = None\nB = A\nC, D = 1, 2\nx[0] = 1\n"
        "def _helper(): pass\nclass Out(Base): pass\n")
    assert dict(release_table._bound(tree.body)) == {
        "Cache": "import(..cache_utils.Cache)", "A": "value",
        "B": "alias(A)", "C": "value", "D": "value", "_helper": "def", "Out": "class(Base)"}


def test_a_model_module_s_names_are_read_optional_ones_marked() -> None:
    """Every name a tabled model module binds is a `name:` fact (private helpers, constants, re-exports too): 4.57.6's
    modeling_llama has `LlamaAttention` and `repeat_kv` but no `LlamaFlashAttention2` (the shipped table: to
    4.47.1); a name bound under an `if`/`try` is `optional:` (bound only where an optional library is)."""
    for version in ("4.57.6", "5.23.0"):
        facts = release_table.release_facts(source(version))
        llama = "name:transformers.models.llama.modeling_llama."
        assert facts[llama + "LlamaAttention"].startswith("class(")
        assert facts[llama + "repeat_kv"] == "def"
        assert llama + "LlamaFlashAttention2" not in facts
        assert llama + "__all__" not in facts  # no import names it
        assert any(k.startswith("name:transformers.models.whisper.modeling_whisper.") for k in facts)
    flash = "name:transformers.models.llama.modeling_llama.LlamaFlashAttention2"
    assert releases.value(flash, "4.47.1") == "class(LlamaAttention)" and releases.value(flash, "4.48.0") is None
    tree = release_table.ast.parse(
        "from ...cache_utils import Cache\nif is_flash_attn_available():\n    from ...x import _flash\n"
        "try:\n    from ...y import Z\nexcept ImportError:\n    Z = None\n__all__ = ['A']\nclass A(B): pass\n")
    assert dict(release_table._model_bound(tree.body)) == {
        "Cache": "import(...cache_utils.Cache)", "_flash": "optional:import(...x._flash)",
        "Z": "optional:value", "A": "class(B)"}


_HELPER = '''
class G:
    def _initial(self, seq_length, model_kwargs):
        if "cache_position" in model_kwargs and model_kwargs["cache_position"] is not None:
            return model_kwargs
        model_kwargs["cache_position"] = seq_length
        return model_kwargs

    def _maybe(self, seq_length, model_kwargs):
        if seq_length:
            return model_kwargs
        model_kwargs["cache_position"] = seq_length
        return model_kwargs

    def _sample(self, input_ids, **model_kwargs):
        model_kwargs = self._initial(3, model_kwargs)
        self.prepare_inputs_for_generation(input_ids, **model_kwargs)

    def _other(self, input_ids, **model_kwargs):
        model_kwargs = self._maybe(3, model_kwargs)
        self.prepare_inputs_for_generation(input_ids, **model_kwargs)
'''


def test_a_key_the_helper_always_stores_rides_in_the_spread() -> None:
    # 4.43-4.57's `_get_initial_cache_position`: `cache_position` in `model_kwargs` on every call of the hook; a
    # helper with a return before the store that does not test for the key stores it only sometimes
    import ast
    cls = ast.parse(_HELPER).body[0]
    assert isinstance(cls, ast.ClassDef)
    fns = {f.name: f for f in cls.body if isinstance(f, ast.FunctionDef)}
    assert release_table._stored_keys(fns["_initial"], "model_kwargs") == ["cache_position"]
    assert release_table._stored_keys(fns["_maybe"], "model_kwargs") == []
    call = next(n for n in ast.walk(fns["_sample"]) if isinstance(n, ast.Call) and
                getattr(n.func, "attr", "") == "prepare_inputs_for_generation")
    stored = {"model_kwargs": ["cache_position"]}
    assert release_table._call_shape(call, False, {}, stored) == "args=1 spread=cache_position"
    assert release_table._call_shape(call, False, {}) == "args=1 spread"


def test_a_layer_class_s_instance_names_are_read_through_its_bases() -> None:
    """`attr:` facts: what an instance of a tabled family's attention or decoder layer has from its class chain below
    `nn.Module` ("init": set on `self` in `__init__`): 4.4x Llama attention's `num_heads` (to 4.47.1 in the shipped
    table, none from 4.48.0, as the oracle's probe checks at 4.57.6 and 5.x), `scaling` from 4.48.0; a subclass in
    the module has its base's; a base nobody can read leaves the class untabled."""
    llama = "attr:transformers.models.llama.modeling_llama.LlamaAttention."
    assert releases.value(llama + "num_heads", "4.47.1") == "init"
    assert releases.value(llama + "num_heads", "4.48.0") is None
    assert releases.value(llama + "scaling", "4.48.0") == "init"
    assert releases.value(llama + "forward", "5.24.0") == "def"
    sdpa = "attr:transformers.models.llama.modeling_llama.LlamaSdpaAttention."
    assert releases.value(sdpa + "num_heads", "4.47.1") == "init"  # `class LlamaSdpaAttention(LlamaAttention)`
    for version in ("4.57.6", "5.24.0"):
        facts = release_table.release_facts(source(version))
        assert facts[llama + "q_proj"] == "init" and llama + "num_heads" not in facts
        assert facts["attr:transformers.models.llama.modeling_llama.LlamaDecoderLayer.self_attn"] == "init"
    tree = release_table.ast.parse(
        "class A(nn.Module):\n    n = 1\n    def __init__(self, c):\n        self.k = c\n"
        "    def later(self):\n        self.m = 2\n    @property\n    def p(self): return 1\n"
        "class B(A):\n    def __init__(self, c):\n        super().__init__(c)\n        self.j = 3\n"
        "class C(Unknown):\n    pass\n")
    classes = {n.name: n for n in tree.body if isinstance(n, release_table.ast.ClassDef)}
    assert release_table._layer_names(classes["B"], classes) == {
        "n": "classattr", "k": "init", "later": "def", "m": "attr", "p": "property", "j": "init"}
    assert release_table._layer_names(classes["C"], classes) is None
