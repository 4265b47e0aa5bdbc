"""The pre-commit hook, run for real: `pre-commit try-repo` on a clean copy of this repository, in a scratch
git repository. pre-commit builds the hook's environment with pip from the repository (offline: PIP_NO_INDEX
and PIP_FIND_LINKS point it at set-up's wheelhouse)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from install_support import FIGURES, REPO, clean_copy, require_wheelhouse, run_timed, user_env

CLEAN = '''from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2")
out = model.generate(max_new_tokens=8)
'''


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    require_wheelhouse()
    pytest.importorskip("pre_commit", reason="pre-commit is a test dependency: pip install -e '.[test]'")
    repo = clean_copy(tmp_path_factory.mktemp("hook-repo"))
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, check=True, capture_output=True,
                         text=True).stdout.strip()
    return repo, rev


@pytest.fixture(scope="session")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A user's project: one file that fails at run time with HFC001's error, one that does not."""
    work = tmp_path_factory.mktemp("scratch")
    shutil.copy(REPO / "examples" / "same_call.py", work / "conflict.py")
    (work / "clean.py").write_text(CLEAN, encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run(["git", "add", "-A"], cwd=work, check=True)
    return work


def try_repo(hook_repo: tuple[Path, str], scratch: Path, home: Path, file: str) -> tuple[int, str, float]:
    repo, rev = hook_repo
    env = user_env(PRE_COMMIT_HOME=str(home), VIRTUALENV_NO_PERIODIC_UPDATE="1", PRE_COMMIT_COLOR="never")
    proc, seconds = run_timed([sys.executable, "-m", "pre_commit", "try-repo", str(repo), "hf-cache-lint",
                               "--ref", rev, "--files", file], cwd=scratch, env=env)
    return proc.returncode, proc.stdout + proc.stderr, seconds


def test_hook_fails_on_a_conflict_and_passes_a_clean_file(hook_repo: tuple[Path, str], scratch: Path,
                                                          tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path_factory.mktemp("pre-commit-home")
    code, out, seconds = try_repo(hook_repo, scratch, home, "conflict.py")
    FIGURES["pre-commit try-repo (hook env built offline + run)"] = f"{seconds:.1f}s"
    assert code == 1, out
    assert "hf-cache-lint" in out and "Failed" in out, out
    assert "conflict.py:9:32: HFC001" in out, out

    code, out, _ = try_repo(hook_repo, scratch, home, "clean.py")
    assert code == 0, out
    assert "Passed" in out and "HFC001" not in out, out
