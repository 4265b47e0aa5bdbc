"""Concurrent runs stay correct: CLI runs sharing a home directory, the pool's workers, and the server next
to a CLI never share jedi's on-disk cache (parso writes its pickles non-atomically), and a jedi failure
never turns into a finding.

Every file here calls `.generate` on a workspace class that jedi must recognise (the interpreter cannot see
the parameter's type): a failed inference used to leave the call looking like a model's, with false
HFC001 findings. Each paired run must report nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from rawlsp import REPO, RawClient, extension_launch

from hf_cache_lint.checking import jedi_bridge
from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context

ENGINES = "class Engine:\n    def generate(self, *args, **kwargs):\n        return args\n"


def user(i: int) -> str:
    return ("from transformers import DynamicCache\n"
            "from engines import Engine\n\n\n"
            f"def run{i}(engine: Engine, x):\n"
            '    return engine.generate(x, past_key_values=DynamicCache(), cache_implementation="static")\n')


@pytest.fixture
def project(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "engines.py").write_text(ENGINES)
    for i in range(6):
        (ws / f"use{i}.py").write_text(user(i))
    return ws


def cli(ws: Path, home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"),
           "PYTHONPATH": str(REPO / "server"), "HF_HUB_OFFLINE": "1"}
    return subprocess.Popen([sys.executable, "-m", "hf_cache_lint", "check", "--no-cache", "--jobs", "2",
                             "--interpreter", sys.executable, "--select", "HFC001", "."],
                            cwd=ws, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def test_paired_cli_runs_sharing_a_home_agree_and_find_nothing(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    results = []
    for _ in range(3):
        pair = [cli(project, home), cli(project, home)]
        results += [finish(p) for p in pair]
    for code, out, err in results:
        assert code == 0 and "HFC001" not in out, (out, err)
        assert "jedi inference failed" not in err, err
    assert not (home / ".cache" / "jedi").exists()  # nothing shared: each process had its own cache


def test_the_server_next_to_a_cli_run(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    argv, cwd = extension_launch()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache"), "HF_HUB_OFFLINE": "1"}
    client = RawClient(argv, cwd, env=env)
    try:
        client.initialize(project, {"interpreter": sys.executable, "transformersVersion": "5.23.0"})
        runs = [cli(project, home), cli(project, home)]
        uris = [client.open(project / f"use{i}.py") for i in range(6)]
        with ThreadPoolExecutor(2) as pool:
            outcomes = list(pool.map(finish, runs))
        published = [client.diagnostics(u)["params"]["diagnostics"] for u in uris]
    finally:
        assert client.stop() == 0
    assert published == [[]] * 6
    assert [(code, "HFC001" in out) for code, out, _ in outcomes] == [(0, False), (0, False)]


def test_a_jedi_failure_is_unknown_never_a_finding(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = ("from transformers import DynamicCache\n\n"
            "def run(engine, x):\n"
            '    return engine.generate(x, past_key_values=DynamicCache(), cache_implementation="static")\n')
    path = project / "plain.py"
    path.write_text(code)
    context = Context(workspace=project)
    # jedi works and knows nothing about `engine`: it counts as a model (the control).
    assert [f.code for f in check_source(code, str(path), context=context).findings if f.code == "HFC001"]

    def broken(*args: object, **kwargs: object) -> None:
        raise EOFError("Ran out of input")  # what a half-written parso pickle gives

    import jedi

    monkeypatch.setattr(jedi, "Script", broken)
    assert [f.code for f in check_source(code, str(path), context=context).findings if f.code == "HFC001"] == []


def test_each_process_has_its_own_jedi_cache_folder() -> None:
    mine = jedi_bridge.private_cache_dir()
    assert os.path.isdir(mine) and not mine.startswith(os.path.expanduser("~"))
    other = subprocess.run([sys.executable, "-c", "from hf_cache_lint.checking import jedi_bridge as j; "
                            "import os; d = j.private_cache_dir(); print(d, os.path.isdir(d))"],
                           env={**os.environ, "PYTHONPATH": str(REPO / "server")},
                           capture_output=True, text=True, check=True).stdout.split()
    assert other[0] != mine and other[1] == "True"
    assert not os.path.exists(other[0])  # removed when that process ended
