"""`check --fix` and the server's fixAll choose the same edits for the same findings (both run
fixcheck.fix_pass): where two preferred fixes touch, both apply the more severe one and leave the other for
the next round (the next `--fix` pass, the next fixAll request)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsp_support import apply, diagnostics, edits_for, open_doc, replace_all
from lsprotocol import types

from hf_cache_lint.cli_support import fixer
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.fixcheck import file_recheck

HEAD = ('from transformers import AutoModelForCausalLM\n\n'
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n')
# On 5.24: HFC005 (Error) removes `use_model_defaults=` from the end of `"sliding_window"`, exactly where
# HFC006's replacement of that literal (a Hint) ends: the two edits touch.
TEXT = HEAD + 'out = model.generate(max_new_tokens=5, cache_implementation="sliding_window", use_model_defaults=True)\n'
FIRST = HEAD + 'out = model.generate(max_new_tokens=5, cache_implementation="sliding_window")\n'
SECOND = HEAD + 'out = model.generate(max_new_tokens=5, cache_implementation="static")\n'
FIX_ALL = "source.fixAll.hf-cache-lint"


def cli_fix(text: str, passes: int, path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(fixer, "MAX_PASSES", passes)
    (fixed,), _ = fixer.fix_cells([text], file_recheck(str(path), None, Context(target=Target.of("5.24.0"))))
    return fixed


async def fix_all(client, uri: str, text: str, version: int) -> str:  # type: ignore[no-untyped-def]
    found = await diagnostics(client, uri, version=version, where=lambda d: bool(d))
    action, = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri), found[0].range, types.CodeActionContext(list(found), only=[FIX_ALL])))
    return apply(text, edits_for(action.edit, uri), client.encoding)


async def test_fix_all_and_each_fix_pass_take_the_same_edits(start, uri, tmp_path, monkeypatch):  # type: ignore[no-untyped-def]
    client = await start({"transformersVersion": "5.24.0"})
    open_doc(client, uri, TEXT)
    first = await fix_all(client, uri, TEXT, version=1)
    assert first == cli_fix(TEXT, 1, tmp_path / "script.py", monkeypatch) == FIRST
    replace_all(client, uri, first, version=2)
    second = await fix_all(client, uri, first, version=2)
    assert second == cli_fix(TEXT, 2, tmp_path / "script.py", monkeypatch) == SECOND
