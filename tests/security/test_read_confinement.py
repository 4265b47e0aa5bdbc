"""Reads stay inside the workspace folders and the Hugging Face cache.

Each escape is checked against a control that the same code does read inside the workspace, so a test
cannot pass because the checkpoint was never looked at. For the CLI the workspace is the project root
(the pyproject.toml folder, else the current folder) plus the folders given on the command line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rawlsp import REPO, RawClient, extension_launch

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.checkpoints import MAX_JSON_BYTES
from hf_cache_lint.engine.environment.context import Context

STATIC = json.dumps({"cache_implementation": "static", "transformers_version": "4.50.3"})


def code_for(checkpoint: str) -> str:
    return ("from transformers import AutoModelForCausalLM, DynamicCache\n\n"
            f"model = AutoModelForCausalLM.from_pretrained({checkpoint!r})\n"
            "out = model.generate(past_key_values=DynamicCache())\n")


def codes(ws: Path, code: str, name: str = "main.py") -> list[str]:
    path = ws / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(code)
    context = Context(workspace=ws, hf_hub_cache=ws.parent / "no-hub-cache")
    return [f.code for f in check_source(code, str(path), context=context).findings if f.code == "HFC001"]


def checkpoint(folder: Path, text: str = STATIC) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "generation_config.json").write_text(text)
    return folder


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    return tmp_path / "ws"


def test_a_checkpoint_inside_the_workspace_is_read(ws: Path) -> None:  # the control for all below
    checkpoint(ws / "ckpt")
    assert codes(ws, code_for("./ckpt")) == ["HFC001"]
    assert codes(ws, code_for(str(ws / "ckpt"))) == ["HFC001"]


def test_dot_dot_out_of_the_workspace_is_not_followed(ws: Path) -> None:
    checkpoint(ws.parent / "elsewhere")
    checkpoint(ws / "sub" / "inner")
    assert codes(ws, code_for("../elsewhere")) == []
    assert codes(ws, code_for("../../elsewhere"), "sub/deeper/main.py") == []
    assert codes(ws, code_for("../inner"), "sub/x/main.py") == ["HFC001"]  # `..` that stays inside


def test_an_absolute_path_outside_is_not_read(ws: Path) -> None:
    outside = checkpoint(ws.parent / "abs")
    assert codes(ws, code_for(str(outside))) == []


def test_tilde_is_not_expanded(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = ws.parent / "home"
    checkpoint(home / "models" / "m")
    monkeypatch.setenv("HOME", str(home))
    assert codes(ws, code_for("~/models/m")) == []
    checkpoint(ws / "~" / "models" / "m")  # what transformers would open: a folder named "~"
    assert codes(ws, code_for("~/models/m")) == ["HFC001"]


def test_a_generation_config_symlinked_out_of_the_workspace_is_not_read(ws: Path) -> None:
    secret = ws.parent / "secret.json"
    secret.write_text(STATIC)
    (ws / "ckpt").mkdir()
    (ws / "ckpt" / "generation_config.json").symlink_to(secret)
    assert codes(ws, code_for("./ckpt")) == []
    inner = ws / "real.json"
    inner.write_text(STATIC)
    (ws / "ckpt" / "generation_config.json").unlink()
    (ws / "ckpt" / "generation_config.json").symlink_to(inner)  # a symlink within the workspace is fine
    assert codes(ws, code_for("./ckpt")) == ["HFC001"]


def test_a_checkpoint_folder_symlinked_out_is_not_read(ws: Path) -> None:
    (ws / "ckpt").symlink_to(checkpoint(ws.parent / "out"), target_is_directory=True)
    assert codes(ws, code_for("./ckpt")) == []


def test_hub_cache_snapshots_are_read_through_their_blob_symlinks(tmp_path: Path) -> None:
    hub = tmp_path / "hub"
    repo = hub / "models--org--tiny"
    (repo / "blobs").mkdir(parents=True)
    (repo / "blobs" / "abc").write_text(STATIC)
    snap = repo / "snapshots" / "rev1"
    snap.mkdir(parents=True)
    (snap / "generation_config.json").symlink_to("../../blobs/abc")
    ws = tmp_path / "ws"
    ws.mkdir()
    code = code_for("org/tiny")
    (ws / "main.py").write_text(code)
    found = check_source(code, str(ws / "main.py"), context=Context(workspace=ws, hf_hub_cache=hub)).findings
    assert [f.code for f in found if f.code == "HFC001"] == ["HFC001"]
    (snap / "generation_config.json").unlink()
    (snap / "generation_config.json").symlink_to(tmp_path / "outside.json")  # out of the cache
    (tmp_path / "outside.json").write_text(STATIC)
    found = check_source(code, str(ws / "main.py"), context=Context(workspace=ws, hf_hub_cache=hub)).findings
    assert [f.code for f in found if f.code == "HFC001"] == []


def test_a_huge_generation_config_is_not_read(ws: Path) -> None:
    padding = " " * (MAX_JSON_BYTES + 1)
    checkpoint(ws / "big", STATIC[:-1] + "," + padding + '"x": 1}')
    assert codes(ws, code_for("./big")) == []
    checkpoint(ws / "small", STATIC[:-1] + "," + " " * 1000 + '"x": 1}')
    assert codes(ws, code_for("./small")) == ["HFC001"]


IMPORTER = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
            "from helper import CFG\n\n"
            'model = AutoModelForCausalLM.from_pretrained("m")\n'
            "out = model.generate(past_key_values=DynamicCache(), generation_config=CFG)\n")
HELPER = 'from transformers import GenerationConfig\n\nCFG = GenerationConfig(cache_implementation="static")\n'


def test_an_imported_module_symlinked_out_is_not_read(ws: Path) -> None:
    (ws / "helper.py").write_text(HELPER)
    assert codes(ws, IMPORTER) == ["HFC001"]  # control: the workspace module is followed
    (ws / "helper.py").unlink()
    (ws.parent / "helper.py").write_text(HELPER)
    (ws / "helper.py").symlink_to(ws.parent / "helper.py")
    assert codes(ws, IMPORTER) == []


def test_a_relative_import_above_the_workspace_is_not_read(ws: Path) -> None:
    (ws.parent / "helper.py").write_text(HELPER)
    code = IMPORTER.replace("from helper import CFG", "from ..helper import CFG")
    assert codes(ws, code) == []


def test_symlink_loops_hang_neither_the_engine_nor_the_cli(ws: Path) -> None:
    (ws / "loop").symlink_to(ws / "loop")
    (ws / "a").mkdir()
    (ws / "a" / "back").symlink_to(ws, target_is_directory=True)
    (ws / "helper.py").symlink_to(ws / "helper.py")
    assert codes(ws, code_for("./loop").replace("model.generate", "import helper\nmodel.generate")) == []
    (ws / "main.py").write_text(code_for("meta-llama/Llama-3.2-1B").replace(
        "DynamicCache())", 'DynamicCache(), cache_implementation="static")'))
    env = {**os.environ, "PYTHONPATH": str(REPO / "server"), "HF_HUB_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "-m", "hf_cache_lint", "check", "--jobs", "1", "--no-cache",
                             "--select", "HFC001", "--format", "json", str(ws)],
                            cwd=ws.parent, env=env, capture_output=True, text=True, timeout=120)
    assert [(f["code"], Path(f["filename"]).name) for f in json.loads(result.stdout)] == [("HFC001", "main.py")]


def test_cli_walk_skips_files_symlinked_out_of_the_project(ws: Path) -> None:
    (ws / "pyproject.toml").write_text("[tool.hf-cache-lint]\n")
    bad = ws.parent / "outside.py"
    bad.write_text(code_for("meta-llama/Llama-3.2-1B").replace("DynamicCache())",
                                                             'DynamicCache(), cache_implementation="static")'))
    (ws / "pkg").mkdir()
    (ws / "pkg" / "linked.py").symlink_to(bad)
    (ws / "pkg" / "inner.py").symlink_to(ws / "pkg" / "real.py")
    (ws / "pkg" / "real.py").write_text(bad.read_text())
    env = {**os.environ, "PYTHONPATH": str(REPO / "server"), "HF_HUB_OFFLINE": "1"}
    result = subprocess.run([sys.executable, "-m", "hf_cache_lint", "check", "--jobs", "1", "--no-cache",
                             "--select", "HFC001", "--format", "json", "."],
                            cwd=ws, env=env, capture_output=True, text=True, timeout=120)
    files = {f["filename"] for f in json.loads(result.stdout)}
    assert files == {"pkg/inner.py"}, (result.stdout, result.stderr)  # real.py is the same file, checked once


def test_the_server_survives_a_workspace_of_symlink_loops(ws: Path) -> None:
    (ws / "loop").symlink_to(ws / "loop")
    (ws / "helper.py").symlink_to(ws / "helper.py")
    (ws / "d").mkdir()
    (ws / "d" / "up").symlink_to(ws, target_is_directory=True)
    argv, cwd = extension_launch()
    client = RawClient(argv, cwd, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    try:
        client.initialize(ws, {"transformersVersion": "5.23.0"})
        code = code_for("./loop").replace("DynamicCache())", 'DynamicCache(), cache_implementation="static")')
        uri = client.open(ws / "main.py", "import helper\nfrom d.up.d.up import x\n" + code)
        found = client.diagnostics(uri)["params"]["diagnostics"]
        assert [d["code"] for d in found if d["code"] == "HFC001"] == ["HFC001"]
    finally:
        assert client.stop() == 0
