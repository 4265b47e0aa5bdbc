"""HFC004 on a checkpoint's generation_config.json: reported at the from_pretrained call that reads it."""

from __future__ import annotations

from pathlib import Path

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

CODE = """from transformers import AutoModelForCausalLM, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")
model = AutoModelForCausalLM.from_pretrained("./ckpt")
out = model.generate(**tokenizer("Hello", return_tensors="pt"), max_new_tokens=5)
"""


def _findings(tmp_path: Path, value: str, version: str = "5.24.0") -> list:  # type: ignore[type-arg]
    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "generation_config.json").write_text(
        f'{{\n  "bos_token_id": 1,\n  "cache_implementation": "{value}"\n}}\n')
    path = tmp_path / "example.py"
    path.write_text(CODE)
    ctx = Context(target=Target.of(version), workspace=tmp_path)
    return [f for f in check_source(CODE, str(path), context=ctx).findings if f.code == "HFC004"]


def test_invalid_json_value_is_reported_at_the_from_pretrained_call(tmp_path: Path) -> None:
    (f,) = _findings(tmp_path, "statc")
    assert (f.span.start.line, f.span.start.column) == (4, 8)  # `AutoModelForCausalLM.from_pretrained("./ckpt")`
    assert f.span.end.line == 4
    assert "Invalid `cache_implementation` (statc)" in f.message
    assert 'did you mean "static"?' in f.message
    assert f.related and f.related[0].path and f.related[0].path.endswith("generation_config.json")
    assert f.related[0].span.start.line == 3
    assert f.fixes == ()  # the json is another file: nothing to apply here


def test_valid_json_value_is_not_reported(tmp_path: Path) -> None:
    assert _findings(tmp_path, "static") == []


def test_deprecated_json_value_is_not_reported(tmp_path: Path) -> None:
    # Only the checkpoint's author can rename it; the model still loads and generates.
    assert _findings(tmp_path, "sliding_window") == []


def test_json_value_valid_in_4x_only(tmp_path: Path) -> None:
    (tmp_path / "v5").mkdir()
    (tmp_path / "v4").mkdir()
    assert len(_findings(tmp_path / "v5", "dynamic_full", "5.23.0")) == 1
    assert _findings(tmp_path / "v4", "dynamic_full", "4.57.6") == []
