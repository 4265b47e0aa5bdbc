"""The security tests' shared fixture: a raw client on a server started as the extension starts it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rawlsp import RawClient, start_server


@pytest.fixture
def client(tmp_path: Path) -> Iterator[RawClient]:
    """Initialized on transformers 5.23.0, killed after the test."""
    c = start_server()
    c.initialize(tmp_path, {"transformersVersion": "5.23.0"})
    yield c
    c.kill()
