"""pytest-lsp fixtures: the server in a subprocess, driven with replayed VS Code / Neovim capabilities."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsp_support import CLIENTS, SERVER_COMMAND, SERVER_DIR, RecordingClient, make_client
from lsprotocol import types
from pytest_lsp import ClientServerConfig, client_capabilities

ENV = {**os.environ, "PYTHONPATH": os.pathsep.join(
    p for p in (str(SERVER_DIR), os.environ.get("PYTHONPATH", "")) if p)}

NOTEBOOKS = types.NotebookDocumentClientCapabilities(
    synchronization=types.NotebookDocumentSyncClientCapabilities(execution_summary_support=False))

Start = Callable[..., Awaitable[RecordingClient]]


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client,
                                              server_env=ENV), params=CLIENTS)
async def raw_client(lsp_client: RecordingClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    lsp_client.profile = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


# Push-only clients (docs/editors.md): Neovim 0.7 (ALE and eglot behave alike); Emacs 29 offers UTF-32 first.
@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER_COMMAND, client_factory=make_client,
                                              server_env=ENV), params=["neovim@v0.7.0", "emacs"])
async def push_client(lsp_client: RecordingClient, request: pytest.FixtureRequest) -> AsyncIterator[None]:
    lsp_client.profile = request.param  # type: ignore[attr-defined]
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
def start(raw_client: RecordingClient, tmp_path: Path) -> Start:
    """Initialise the session; tests pick init options and whether the client does notebooks."""
    return starter(raw_client, tmp_path)


@pytest.fixture
def start_push_only(push_client: RecordingClient, tmp_path: Path) -> Start:
    return starter(push_client, tmp_path)


def starter(raw_client: RecordingClient, tmp_path: Path) -> Start:
    async def go(options: dict[str, Any] | None = None, notebooks: bool = False) -> RecordingClient:
        caps = client_capabilities(raw_client.profile)  # type: ignore[attr-defined]
        if notebooks:  # none of pytest-lsp's presets declares notebook support (docs/editors.md)
            caps.notebook_document = NOTEBOOKS
        folder = types.WorkspaceFolder(uri=tmp_path.as_uri(), name="ws")
        result = await raw_client.initialize_session(types.InitializeParams(
            capabilities=caps, root_uri=folder.uri, workspace_folders=[folder],
            initialization_options={"debounceMs": 0, **(options or {})}))
        encoding = result.capabilities.position_encoding or "utf-16"
        raw_client.encoding = str(getattr(encoding, "value", encoding))
        raw_client.init_result = result  # type: ignore[attr-defined]
        return raw_client

    return go


@pytest.fixture
def uri(tmp_path: Path) -> str:
    return (tmp_path / "script.py").as_uri()
