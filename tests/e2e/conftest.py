"""Fixtures for the real-editor tests; every test here is marked `e2e`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from harness import ARTIFACTS


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
