"""No code of a workspace environment runs when it is the analysed interpreter (issue 33, item 3, jedi's half).

`--interpreter .venv/bin/python`, or a trusted VS Code workspace whose Python extension selected `.venv`: at
abca28d jedi started that interpreter as its environment subprocess, whose `site` ran the venv's `.pth` files and
`sitecustomize`, and imported a C extension from its site-packages to infer a receiver (its PyInit ran). jedi now
infers in the server's process, over the environment's sys.path as read from its files (site-packages, the path
lines of its `.pth` files), and imports a compiled module only from the server's own sys.path outside the
workspace. The markers (tests/security/marker_venv.py) fire in the controls, so the checks can fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from marker_venv import FANCYLIB, compiler, fired, make

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context

USES_EXTENSION = ("import fakeext\nfrom transformers import DynamicCache\n\n"
                  "def run(engine: fakeext.Engine):\n"
                  '    return engine.generate(past_key_values=DynamicCache(), cache_implementation="static")\n'
                  "other = fakeext.make()\n"
                  'other.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')
USES_FANCYLIB = ("import fancylib\nfrom transformers import DynamicCache\n\n"
                 "def run(engine: fancylib.Engine):\n"
                 '    return engine.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')

needs_cc = pytest.mark.skipif(compiler() is None, reason="no C compiler to build the marker extension")


@pytest.fixture
def env(tmp_path: Path) -> tuple[Path, Path, Path]:
    ws, markers = tmp_path / "ws", tmp_path / "markers"
    ws.mkdir()
    python = make(ws, markers)
    return ws, markers, python


def hfc001(ws: Path, code: str, interpreter: Path | None) -> list[str]:
    path = ws / "user.py"
    path.write_text(code)
    ctx = Context(workspace=ws, interpreter=None if interpreter is None else str(interpreter))
    return [f.code for f in check_source(code, str(path), context=ctx).findings if f.code == "HFC001"]


@needs_cc
def test_the_markers_fire_when_the_environment_runs(env: tuple[Path, Path, Path]) -> None:
    """The control: starting the venv's python (even `-I`) runs the .pth and sitecustomize; importing the
    extension runs its PyInit."""
    ws, markers, python = env
    subprocess.run([str(python), "-I", "-c", "pass"], check=True, cwd=ws)
    assert fired(markers) == ["pth", "sitecustomize"]
    subprocess.run([str(python), "-c", "import fakeext"], check=True, cwd=ws)
    assert fired(markers) == ["extension", "pth", "sitecustomize"]


@needs_cc
def test_jedi_over_a_workspace_venv_runs_none_of_its_code(env: tuple[Path, Path, Path]) -> None:
    ws, markers, python = env
    hfc001(ws, USES_EXTENSION, python)  # the receivers are unknown to the interpreter: jedi is asked
    assert fired(markers) == []
    assert "fakeext" not in sys.modules


def test_jedi_still_reads_the_environment_from_its_files(env: tuple[Path, Path, Path]) -> None:
    """What the subprocess gave, without it: a library installed only in the analysed venv refutes a receiver."""
    ws, markers, python = env
    assert hfc001(ws, USES_FANCYLIB, None) == ["HFC001"]
    assert hfc001(ws, USES_FANCYLIB, python) == []
    assert fired(markers) == []


def test_a_pth_path_line_is_followed_and_its_import_line_never_run(env: tuple[Path, Path, Path],
                                                                   tmp_path: Path) -> None:
    """An editable install is a `.pth` path line: jedi finds the library there; `import` lines are skipped."""
    ws, markers, python = env
    src = tmp_path / "editable-src"
    src.mkdir()
    (src / "editlib.py").write_text(FANCYLIB)
    purelib = next((ws / ".venv" / "lib").glob("python3*/site-packages"))
    (purelib / "__editable__.editlib.pth").write_text(f"{src}\nimport os; open({str(markers / 'pth2')!r}, 'w')\n")
    code = USES_FANCYLIB.replace("fancylib", "editlib")
    assert hfc001(ws, code, None) == ["HFC001"]
    assert hfc001(ws, code, python) == []
    assert fired(markers) == []


@needs_cc
@pytest.mark.parametrize("setting", [True, False], ids=["version-set", "version-from-the-venv"])
def test_no_marker_in_a_cli_run(env: tuple[Path, Path, Path], setting: bool) -> None:
    """The CLI with `--interpreter .venv/bin/python`, end to end: neither jedi (test_jedi_over_a_workspace_venv_runs_
    none_of_its_code) nor the version probe (read from the venv's files, engine/environment/environments.py) starts it."""
    ws, markers, python = env
    (ws / "user.py").write_text(USES_EXTENSION)
    if setting:
        (ws / "pyproject.toml").write_text('[tool.hf-cache-lint]\ntransformers-version = "5.23.0"\n')
    repo = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-m", "hf_cache_lint", "check", "--no-cache", "--interpreter",
                             str(python), "user.py"], cwd=ws, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(repo / "server"), "HF_HUB_OFFLINE": "1"})
    assert result.returncode in (0, 1), result.stderr
    assert fired(markers) == []
