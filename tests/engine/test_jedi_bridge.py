"""jedi runs against the analysed interpreter: a library installed only there settles a receiver."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context

CODE = ("import fancylib\nfrom transformers import DynamicCache\n\n"
        "def run(engine: fancylib.Engine):\n"
        '    return engine.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')


@pytest.fixture(scope="module")
def venv_python(tmp_path_factory: pytest.TempPathFactory) -> str:
    root = tmp_path_factory.mktemp("env")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig;print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    (Path(purelib) / "fancylib.py").write_text("class Engine:\n    def generate(self, **kw):\n        return kw\n")
    assert "fancylib" not in sysconfig.get_paths()["purelib"]
    return str(python)


def findings(tmp_path: Path, interpreter: str | None) -> list[str]:
    path = tmp_path / "user.py"
    path.write_text(CODE)
    ctx = Context(workspace=tmp_path, interpreter=interpreter)
    return [f.code for f in check_source(CODE, str(path), context=ctx).findings if f.code == "HFC001"]


def test_without_the_library_the_receiver_counts_as_a_model(tmp_path: Path) -> None:
    assert findings(tmp_path, None) == ["HFC001"]


def test_with_the_library_in_the_analysed_environment_jedi_refutes_it(tmp_path: Path, venv_python: str) -> None:
    assert findings(tmp_path, venv_python) == []


def test_refutation_covers_every_rule_not_only_hfc001(tmp_path: Path, venv_python: str) -> None:
    code = ("import fancylib\nfrom transformers import DynamicCache\n\n"
            "def run(engine: fancylib.Engine):\n"
            "    return engine.generate(past_key_values=(1, 2), cache_implementation='statik')\n")
    path = tmp_path / "other.py"
    path.write_text(code)
    seen = [f.code for f in check_source(code, str(path), context=Context(workspace=tmp_path)).findings]
    refuted = check_source(code, str(path), context=Context(workspace=tmp_path, interpreter=venv_python)).findings
    assert seen and refuted == ()


def test_extra_paths_let_jedi_find_a_vendored_library(tmp_path: Path) -> None:
    """`extraPaths` reaches jedi too: with vendor/ as an import root, jedi sees fancylib.Engine and refutes."""
    from hf_cache_lint.engine.environment.context import resolve_context

    (tmp_path / "vendor").mkdir()
    (tmp_path / "vendor" / "fancylib.py").write_text("class Engine:\n    def generate(self, **kw):\n        return kw\n")
    (tmp_path / "app").mkdir()
    path = tmp_path / "app" / "user.py"
    path.write_text(CODE)

    def hfc001(extra: list[str]) -> list[str]:
        ctx = resolve_context(workspace=tmp_path, extra_paths=extra)
        return [f.code for f in check_source(CODE, str(path), context=ctx).findings if f.code == "HFC001"]

    assert hfc001([]) == ["HFC001"]
    assert hfc001(["vendor"]) == []
