"""Session fixtures for the install tests: one clean copy of the tree, one fresh venv with the README's plain
install in it, one sdist + wheel built from another clean copy. All offline (see install_support)."""

from __future__ import annotations

import sys

import pytest
from install_support import (
    FIGURES,
    Built,
    Installed,
    clean_copy,
    readme_install,
    require_wheelhouse,
    run_timed,
    user_env,
)


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A clean copy, a fresh venv, then the README's first step exactly as written, in that venv's shell."""
    done, seconds = readme_install(tmp_path_factory.mktemp("readme-install"))
    FIGURES["fresh-venv install (offline wheelhouse)"] = f"{seconds:.1f}s  ({done.steps[0]})"
    return done


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """`python -m build`: the sdist, then the wheel built FROM that sdist (so both must carry every file)."""
    require_wheelhouse()
    tree = clean_copy(tmp_path_factory.mktemp("build-clone"))
    out = tmp_path_factory.mktemp("dist")
    proc, seconds = run_timed([sys.executable, "-m", "build", "--outdir", str(out), str(tree)],
                              cwd=tree, env=user_env())
    assert proc.returncode == 0, f"python -m build failed:\n{proc.stdout}\n{proc.stderr}"
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    FIGURES["wheel"] = f"{wheel.name} {wheel.stat().st_size / 1024:.0f} KiB (sdist {sdist.stat().st_size / 1024:.0f} KiB)"
    FIGURES["python -m build (sdist + wheel)"] = f"{seconds:.1f}s"
    return Built(sdist, wheel)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for name, value in FIGURES.items():
        terminalreporter.write_line(f"install: {name}: {value}")
