"""LSP method -> handler. Each handler is a line or two; the work is in the feature modules.

pygls injects the server only into a first parameter named `ls` (docs/editors.md), hence the names. The
modules of requests that come later (code actions, hover, completion) are imported by their handler, so
start-up reads only what `initialize` and the first diagnostics need (lsp/documents.py warms the rest).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from lsprotocol import types

from hf_cache_lint.lsp import config, diagnostics, notebook, upgrade
from hf_cache_lint.lsp.kinds import KINDS
from hf_cache_lint.lsp.server import HfCacheLintServer


def register(server: HfCacheLintServer) -> None:
    feature = server.feature

    @feature(types.INITIALIZE)
    def initialize(ls: HfCacheLintServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.warm_up()
        ls.state.init_options = params.initialization_options if isinstance(
            params.initialization_options, Mapping) else {}

    @feature(types.INITIALIZED)
    async def initialized(ls: HfCacheLintServer, params: types.InitializedParams) -> None:
        config.register_for_changes(ls)
        await config.refresh(ls, initial=True)

    @feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: HfCacheLintServer, params: types.DidChangeConfigurationParams) -> None:
        await config.refresh(ls, pushed=params.settings)

    @feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def did_change_folders(ls: HfCacheLintServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        await config.refresh(ls)

    @feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def did_change_files(ls: HfCacheLintServer, params: types.DidChangeWatchedFilesParams) -> None:
        await config.refresh(ls, files=True)

    @feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: HfCacheLintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.mark_saved(params.text_document.uri)
        diagnostics.schedule(ls, params.text_document.uri, debounce=False)

    @feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: HfCacheLintServer, params: types.DidChangeTextDocumentParams) -> None:
        if ls.config_for(params.text_document.uri).settings.run == "onType":
            diagnostics.schedule(ls, params.text_document.uri)

    @feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: HfCacheLintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.mark_saved(params.text_document.uri)
        diagnostics.schedule(ls, params.text_document.uri, debounce=False)

    @feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: HfCacheLintServer, params: types.DidCloseTextDocumentParams) -> None:
        diagnostics.clear(ls, params.text_document.uri)

    @feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def nb_open(ls: HfCacheLintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        notebook.opened(ls, params)

    @feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def nb_change(ls: HfCacheLintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        notebook.changed(ls, params)

    @feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def nb_save(ls: HfCacheLintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        notebook.saved(ls, params)

    @feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def nb_close(ls: HfCacheLintServer, params: types.DidCloseNotebookDocumentParams) -> None:
        notebook.closed(ls, params)

    # interFileDependencies: an edit in one notebook cell changes the diagnostics of the others.
    @feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
        identifier="hf-cache-lint", inter_file_dependencies=True, workspace_diagnostics=False))
    async def document_diagnostic(ls: HfCacheLintServer, params: types.DocumentDiagnosticParams) -> Any:
        return await diagnostics.pull(ls, params)

    @feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=KINDS))
    async def code_action(ls: HfCacheLintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        unit = ls.unit_for(params.text_document.uri)
        if unit is not None and ls.too_big(unit) is not None:
            return []  # not analysed, nothing to fix: and no split of its lines on the event loop
        await ls.imported("hf_cache_lint.lsp.actions")
        from hf_cache_lint.lsp import actions

        return await actions.code_actions(ls, params)

    @server.command(upgrade.COMMAND)
    async def upgrade_check(ls: HfCacheLintServer, uri: str, version: str) -> list[dict[str, Any]]:
        return await upgrade.upgrade_check(ls, uri, version)

    @feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: HfCacheLintServer, params: types.HoverParams) -> types.Hover | None:
        await ls.imported("hf_cache_lint.lsp.hover")
        from hf_cache_lint.lsp import hover

        return await hover.hover(ls, params)

    @feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=['"', "'", "="]))
    async def on_completion(ls: HfCacheLintServer, params: types.CompletionParams) -> types.CompletionList | None:
        await ls.imported("hf_cache_lint.lsp.completion")
        from hf_cache_lint.lsp import completion

        return await completion.completion(ls, params)
