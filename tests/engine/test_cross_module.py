"""Facts from the workspace's other modules: imported models and configs, cached per file version."""

from __future__ import annotations

import os
from pathlib import Path

from tests.engine.conftest import Checker, lines

MODELS = ("from transformers import AutoModelForCausalLM, GenerationConfig\n"
          'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
          'model.generation_config.cache_implementation = "static"\n'
          'cfg = GenerationConfig(cache_implementation="offloaded")\n')


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_model_configured_in_another_module(check: Checker, tmp_path: Path) -> None:
    write(tmp_path, "pkg/__init__.py", "")
    models = write(tmp_path, "pkg/models.py", MODELS)
    code = ("from transformers import DynamicCache\nfrom pkg.models import model\n\n"
            "def reply(inputs):\n    return model.generate(**inputs, past_key_values=DynamicCache())\n")
    [f] = check(code, name="pkg/serve.py")
    assert f.span.start.line == 5
    assert f.related[0].path == str(models) and f.related[0].span.start.line == 3


def test_relative_import_of_a_config(check: Checker, tmp_path: Path) -> None:
    write(tmp_path, "pkg/models.py", MODELS)
    code = ("from transformers import DynamicCache\nfrom .models import cfg, model\n"
            "out = model.generate(generation_config=cfg, past_key_values=DynamicCache(), cache_implementation=None)\n"
            "out = model.generate(generation_config=cfg, past_key_values=DynamicCache())\n")
    assert lines(check(code, name="pkg/serve.py")) == [4]


def test_a_changed_module_is_analysed_again(check: Checker, tmp_path: Path) -> None:
    models = write(tmp_path, "models.py", MODELS)
    code = "from transformers import DynamicCache\nfrom models import model\nmodel.generate(past_key_values=DynamicCache())\n"
    assert lines(check(code)) == [3]
    models.write_text(MODELS.replace('"static"', "None"))
    st = models.stat()
    os.utime(models, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    assert check(code) == []


def test_an_import_cycle_terminates(check: Checker, tmp_path: Path) -> None:
    write(tmp_path, "a.py", "from b import thing\nfrom transformers import AutoModelForCausalLM\n"
          'model = AutoModelForCausalLM.from_pretrained("x")\n')
    write(tmp_path, "b.py", "from a import model\nthing = 1\n")
    code = "from transformers import DynamicCache\nfrom a import model\nmodel.generate(past_key_values=DynamicCache(), cache_implementation='static')\n"
    assert lines(check(code)) == [3]


def test_stdlib_and_library_imports_are_not_looked_up(check: Checker, tmp_path: Path) -> None:
    write(tmp_path, "json.py", MODELS)  # shadows nothing: `json` is the standard library's
    code = "from transformers import DynamicCache\nfrom json import model\nmodel.generate(past_key_values=DynamicCache())\n"
    assert check(code) == []


def test_extra_paths_are_import_roots_for_workspace_modules(tmp_path: Path) -> None:
    """A src/ layout: `pkg` lives in src/, found only when src is an extra import root (`extraPaths`)."""
    from hf_cache_lint.checking.source import check_source
    from hf_cache_lint.engine.environment.context import Context, resolve_context

    write(tmp_path, "src/pkg/__init__.py", "")
    write(tmp_path, "src/pkg/models.py", MODELS)
    code = "from transformers import DynamicCache\nfrom pkg.models import model\nmodel.generate(past_key_values=DynamicCache())\n"
    path = write(tmp_path, "app/serve.py", code)

    def hfc001(ctx: Context) -> list[int]:
        return lines([f for f in check_source(code, str(path), context=ctx).findings if f.code == "HFC001"])

    assert hfc001(resolve_context(workspace=tmp_path)) == []
    assert hfc001(resolve_context(workspace=tmp_path, extra_paths=["src"])) == [3]
    # Outside the workspace an entry is dropped: the analysis reads nothing beyond it.
    assert resolve_context(workspace=tmp_path / "app", extra_paths=["../src"]).extra_paths == ()
