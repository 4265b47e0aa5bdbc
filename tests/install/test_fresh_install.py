"""The README's first command as a new user runs it: a clean copy of the tree, a fresh venv, a plain
(non-editable) install, then `hf-cache-lint check examples/`; plus `hf-cache-lint rule HFC001` and a
`serve` stdio handshake against that installed copy (not the repository's sources)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from install_support import FIGURES, Installed, run_timed, user_env
from stdio_lsp import handshake

# Every example demonstrates HFC001 except the one that shows the clean way (examples/clean_prefix_reuse.py).
HFC001_EXAMPLES = {
    "examples/chat_session.py", "examples/compile_then_prefix_cache.py", "examples/generation_config_inherits.py",
    "examples/kwargs_reused.py", "examples/local_checkpoint/continue_chat.py", "examples/same_call.py",
    "examples/server.py", "examples/static_cache_notebook.ipynb", "examples/text_pipeline.py",
}


def test_install_is_plain_not_editable(installed: Installed) -> None:
    env = user_env(bin_dir=installed.venv.bin)
    where = subprocess.run(["python3", "-c", "import hf_cache_lint, pygls, lsprotocol; print(hf_cache_lint.__file__)"],
                           cwd=installed.tree.parent, env=env, capture_output=True, text=True, check=True)
    location = Path(where.stdout.strip())
    assert installed.venv.root in location.parents and "site-packages" in location.parts, location
    assert shutil.which("hf-cache-lint", path=env["PATH"]) == str(installed.venv.bin / "hf-cache-lint")


def test_readme_check_examples(installed: Installed) -> None:
    assert installed.steps[1:] == ["hf-cache-lint check examples/"], installed.steps  # the README's promise
    env = user_env(bin_dir=installed.venv.bin)
    proc, seconds = run_timed(installed.steps[1], cwd=installed.tree, env=env, shell=True)
    FIGURES["hf-cache-lint check examples/"] = f"{seconds:.1f}s"
    assert proc.returncode == 1, f"exit {proc.returncode} (1 = findings):\n{proc.stdout}\n{proc.stderr}"
    assert "internal error" not in proc.stderr and proc.stderr == "", proc.stderr
    assert "HFC001" in proc.stdout, proc.stdout

    findings = json.loads(subprocess.run(["hf-cache-lint", "check", "examples/", "--format", "json"],
                                         cwd=installed.tree, env=env, capture_output=True, text=True).stdout)
    assert {f["filename"] for f in findings if f["code"] == "HFC001"} == HFC001_EXAMPLES
    assert all(f["severity"] == "error" for f in findings if f["code"] == "HFC001")


def test_installed_copy_finds_what_the_sources_find(installed: Installed, tmp_path: Path) -> None:
    """Packaging changes nothing: the same JSON from the installed copy and from the tree's sources (the same
    venv's Python; separate copies of examples/ so no result cache is shared)."""
    env = user_env(bin_dir=installed.venv.bin)
    runs = []
    for name, extra in (("installed", {}), ("sources", {"PYTHONPATH": str(installed.tree / "server")})):
        work = tmp_path / name
        shutil.copytree(installed.tree / "examples", work / "examples")
        proc = subprocess.run(["python3", "-m", "hf_cache_lint", "check", "examples/", "--format", "json"],
                              cwd=work, env={**env, **extra}, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 1, proc.stderr
        runs.append(json.loads(proc.stdout.replace(str(work), "<work>")))
    assert runs[0] == runs[1]


def test_rule_hfc001_prints_its_docs(installed: Installed) -> None:
    env = user_env(bin_dir=installed.venv.bin)
    proc = subprocess.run(["hf-cache-lint", "rule", "HFC001"], cwd=installed.tree, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    docs = (installed.tree / "server/hf_cache_lint/rules/hfc001_cache_conflict/docs.md").read_text("utf-8")
    assert proc.stdout.startswith("# HFC001 cache-conflict")
    assert docs.strip().splitlines()[-1] in proc.stdout  # the whole docs.md, down to its last line


def test_serve_handshake_from_the_plain_install(installed: Installed, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    shutil.copy(installed.tree / "examples" / "same_call.py", workspace / "same_call.py")
    env = user_env(bin_dir=installed.venv.bin)
    result = handshake([str(installed.venv.bin / "hf-cache-lint"), "serve"], env, workspace,
                       workspace / "same_call.py")
    FIGURES["serve handshake, installed copy (start to HFC001)"] = f"{result['seconds']:.2f}s"
    assert result["init"]["serverInfo"]["name"] == "hf-cache-lint"
    assert "HFC001" in {d["code"] for d in result["diagnostics"]}
    assert result["exit_code"] == 0, result["stderr"]
