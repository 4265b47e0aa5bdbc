"""Fetching settings from the client and re-linting when they change (the merge rules are in settings.py)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types

from hf_cache_lint.lsp import diagnostics
from hf_cache_lint.lsp.server import HfCacheLintServer
from hf_cache_lint.lsp.settings import SECTION, FolderConfig, build, editor_mapping, trusted

log = logging.getLogger(__name__)


def register_for_changes(ls: HfCacheLintServer) -> None:
    """Ask for didChangeConfiguration when the client registers it dynamically (VS Code does).

    Not awaited: pytest-lsp 1.0.1 never answers client/registerCapability (docs/editors.md), and
    nothing here depends on the answer.
    """
    registrations = []
    if ls.supports("workspace.did_change_configuration.dynamic_registration"):
        registrations.append(types.Registration(
            id="hf-cache-lint-configuration", method=types.WORKSPACE_DID_CHANGE_CONFIGURATION))
    if ls.supports("workspace.did_change_watched_files.dynamic_registration"):
        # Files the analysis reads besides the open documents: settings and checkpoint configs.
        registrations.append(types.Registration(
            id="hf-cache-lint-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=[
                types.FileSystemWatcher(glob_pattern=g) for g in WATCHED])))
    if registrations:
        ls.client_register_capability(types.RegistrationParams(registrations))


def _folders(ls: HfCacheLintServer) -> list[str | None]:
    folders: list[str | None] = [None, *ls.workspace.folders]
    if ls.workspace.root_uri and ls.workspace.root_uri not in folders:
        folders.append(ls.workspace.root_uri)
    return folders


async def _pull_editor_settings(ls: HfCacheLintServer, folders: list[str | None]) -> None:
    items = [types.ConfigurationItem(scope_uri=f, section=SECTION) for f in folders]
    try:
        values = await ls.workspace_configuration_async(types.ConfigurationParams(items))
    except Exception as exc:  # a client that fails the request keeps the settings it had
        log.warning("workspace/configuration failed: %s", exc)
        return
    for folder, value in zip(folders, values or [], strict=False):
        ls.state.editor[folder] = editor_mapping(value)


STATUS = "hfCacheLint/status"
WATCHED = ("**/pyproject.toml", "**/generation_config.json")


def report_status(ls: HfCacheLintServer, configs: dict[str | None, FolderConfig]) -> None:
    """Tell the client which transformers version is targeted and why, and which interpreter the server
    analyses with (`null` when it runs none: an untrusted workspace). VS Code shows it in the status bar."""
    first = next((f for f in configs if f is not None), None)
    context = configs[first].context
    target = context.describe_target()  # "transformers 4.57.6 (installed in .venv)": what and from where
    ls.protocol.notify(STATUS, {"transformersVersion": str(context.target),
                                "versionSource": context.version_source,
                                "interpreter": context.interpreter,
                                "restricted": context.restricted,
                                "target": target})
    ls.window_log_message(types.LogMessageParams(types.MessageType.Info, f"hf-cache-lint: checking against {target}"))


def show_notes(ls: HfCacheLintServer, configs: dict[str | None, FolderConfig]) -> None:
    """Warnings about the settings (an ignored pyproject `interpreter`), once each per session."""
    for note in dict.fromkeys(n for c in configs.values() for n in c.notes):
        if note not in ls.state.shown_notes:
            ls.state.shown_notes.add(note)
            log.warning("%s", note)
            ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"hf-cache-lint: {note}"))


async def refresh(ls: HfCacheLintServer, pushed: Any = None, initial: bool = False, files: bool = False) -> None:
    """Re-read every folder's settings; when anything changed (or `files` did), re-resolve and re-lint.

    Engine runs wait while this reads (see `HfCacheLintServer.settings_ready`), so a pull that
    arrives right after didChangeConfiguration already sees the new settings.
    """
    ls.settings_ready.clear()
    folders = _folders(ls)
    if ls.supports("workspace.configuration"):
        await _pull_editor_settings(ls, folders)
    elif pushed is not None:  # an old client pushes the settings in didChangeConfiguration
        ls.state.editor[None] = editor_mapping(pushed)
    init = editor_mapping(ls.state.init_options)
    is_trusted = trusted(ls.state.init_options) and trusted(init)
    loop = asyncio.get_running_loop()
    configs: dict[str | None, FolderConfig] = {}
    for folder in folders:
        layers = [init, ls.state.editor.get(None, {}), ls.state.editor.get(folder, {}) if folder else {}]
        try:  # resolving the target version may run the interpreter: keep it off the loop
            configs[folder] = await loop.run_in_executor(ls.engine, build, ls.folder_path(folder), layers,
                                                         is_trusted)
        except Exception as exc:
            ls.log_error(f"settings for {folder or 'the workspace'} failed: {exc!r}")
            configs[folder] = build(None, [], is_trusted)
    # A changed generation_config.json changes findings without changing any setting.
    changed = files or configs != ls.state.folders
    ls.state.folders = configs
    if changed:
        ls.state.generation += 1
    ls.settings_ready.set()  # runs held back while settings were being read start now
    report_status(ls, configs)
    show_notes(ls, configs)
    if changed and not initial:
        diagnostics.relint_all(ls)
