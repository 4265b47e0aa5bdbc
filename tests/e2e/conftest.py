"""Fixtures for the real-editor tests; every test here is marked `e2e`."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from harness import ARTIFACTS, REPO
from install_support import readme_install  # on sys.path from harness

# test_code_server.py opens the shadow workspace of tests/security (shadow_workspace.py, rawlsp.py).
sys.path.insert(0, str(REPO / "tests" / "security"))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture
def artifacts(request: pytest.FixtureRequest) -> Path:
    """A per-test folder for logs and results, kept after the run (tests/e2e/artifacts is gitignored)."""
    folder = ARTIFACTS / str(request.node.name)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    return folder


@pytest.fixture(scope="session")
def user_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin folder of a fresh venv with the README's install in it: Neovim, Emacs and Vim start the server a
    user has (`hf-cache-lint serve` from the wheel pip built), as code-server runs the one the .vsix bundles."""
    installed, _ = readme_install(tmp_path_factory.mktemp("user-install"))
    return installed.venv.bin


@pytest.fixture(scope="session")
def vsix(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension as users get it: HFC_VSIX, or built now with scripts/build-vsix.sh."""
    if os.environ.get("HFC_VSIX"):
        return Path(os.environ["HFC_VSIX"]).resolve()
    out = tmp_path_factory.mktemp("vsix")
    env = dict(os.environ, HFC_VSIX_OUT=str(out))
    subprocess.run(
        ["bash", str(REPO / "scripts" / "build-vsix.sh")], cwd=REPO, env=env, check=True, timeout=900
    )
    (built,) = out.glob("*.vsix")
    return built
