"""The language server resolves its target as the CLI does (engine/environment/target_plan.py) and says which: in the
`hfCacheLint/status` notification the VS Code status item shows, and in its log (issue 30 item 3)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types


def fake_venv(folder: Path, version: str) -> None:
    dist = folder / "lib" / "python3.11" / "site-packages" / f"transformers-{version}.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: transformers\nVersion: {version}\n")
    (folder / "pyvenv.cfg").write_text("home = /usr/bin\ninclude-system-site-packages = false\n")


async def logged(client, text: str) -> str:  # type: ignore[no-untyped-def]
    """The last log message holding `text`: waits for the next `window/logMessage` until one does (no sleep)."""
    async def first() -> str:
        while True:
            hits = [m.message for m in client.log_messages if text in m.message]
            if hits:
                return hits[-1]
            await client.wait_for_notification(types.WINDOW_LOG_MESSAGE)

    try:
        return await asyncio.wait_for(first(), timeout=10)
    except TimeoutError:
        raise AssertionError([m.message for m in client.log_messages]) from None


async def test_the_folders_venv_is_the_target_and_is_said(start, tmp_path: Path) -> None:
    fake_venv(tmp_path / ".venv", "4.57.6")
    client = await start()
    status = await client.wait_for_notification("hfCacheLint/status")
    assert (status.transformersVersion, status.versionSource) == ("4.57.6", "environment")
    assert status.target == "transformers 4.57.6 (installed in .venv)"
    assert await logged(client, "checking against") == "hf-cache-lint: checking against transformers 4.57.6 " \
                                                       "(installed in .venv)"


async def test_a_declared_range_names_the_release_the_editor_checks(start, tmp_path: Path) -> None:
    (tmp_path / "requirements.txt").write_text("transformers>=4.45,<5\n")
    client = await start()
    status = await client.wait_for_notification("hfCacheLint/status")
    assert status.transformersVersion == "4.57.6"
    assert status.target == ("transformers 4.57.6 (the newest release `transformers>=4.45,<5` (requirements.txt) "
                             "admits)")
    # The completion of cache_implementation values follows it: 4.x has no "paged".
    uri = (tmp_path / "t.py").as_uri()
    text = 'model.generate(cache_implementation="")\n'
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    result = await client.text_document_completion_async(
        types.CompletionParams(types.TextDocumentIdentifier(uri), types.Position(0, text.index('"') + 1)))
    labels = {i.label for i in result.items}
    assert "dynamic_full" in labels and "paged" not in labels


async def test_a_pyproject_setting_is_named_as_such(start, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.hf-cache-lint]\ntransformers-version = "5.0.0"\n')
    fake_venv(tmp_path / ".venv", "4.57.6")  # the setting wins over the installed one
    client = await start()
    status = await client.wait_for_notification("hfCacheLint/status")
    assert status.target == "transformers 5.0.0 (transformers-version in pyproject.toml [tool.hf-cache-lint])"
