"""Settings per workspace folder: pyproject, then initializationOptions, then `workspace/configuration`.

Later sources win only for the keys they set (`Settings.merged` ignores absent and None values),
which is what "editor settings win over pyproject only where the user set them" needs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hf_cache_lint.engine.environment.context import Context, resolve_context
from hf_cache_lint.settings import Settings

SECTION = "hfCacheLint"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FolderConfig:
    """What one workspace folder analyses with, and what the user should be told about it."""

    settings: Settings
    context: Context
    notes: tuple[str, ...] = ()
    root: Path | None = None  # the folder: `exclude` and `per-file-ignores` patterns are relative to it


def trusted(init_options: Mapping[str, Any]) -> bool:
    """Whether the client says the workspace is trusted (`workspaceTrusted` in initializationOptions).

    Only the client can say it: never pyproject nor workspace/configuration. Clients with no notion of
    trust (Neovim, Emacs, Vim) send nothing: the workspace is the user's own choice to open, trusted.
    """
    return init_options.get("workspaceTrusted", True) is not False


def editor_mapping(data: Any) -> Mapping[str, Any]:
    """Accept `{"hfCacheLint": {...}}`, `{"settings": {...}}` or the flat mapping itself."""
    if not isinstance(data, Mapping):
        return {}
    for key in (SECTION, "settings"):
        inner = data.get(key)
        if isinstance(inner, Mapping):
            return editor_mapping(inner) if key == "settings" else inner
    return data


def pyproject_settings(folder: Path | None) -> tuple[Settings, tuple[str, ...]]:
    """`[tool.hf-cache-lint]` of the folder's pyproject.toml (read by pyproject.py, as the CLI reads it), else
    defaults; and the warnings about it (an `interpreter` key, which is never used: a cloned repository must not
    pick a program for the server to run; each invalid key, dropped while the valid ones are kept). A file that
    is not TOML is ignored here, and said so (the CLI stops on either)."""
    if folder is None:
        return Settings(), ()
    try:  # imported here: TOML parsing is not on the server's start path (settings are read after `initialized`)
        from hf_cache_lint.pyproject import ConfigError, settings_at
    except ImportError:  # Python 3.10 without tomli (a broken install): run with the defaults, not fail
        return Settings(), ()
    try:
        return settings_at(folder)
    except (ConfigError, OSError) as exc:
        return Settings(), (f"ignoring pyproject settings: {exc}",)


def build(folder: Path | None, layers: Iterable[Mapping[str, Any]], trusted: bool = True) -> FolderConfig:
    """Merge the layers over pyproject and resolve the target version (runs the interpreter, when trusted)."""
    settings, notes = pyproject_settings(folder)
    origin = "transformers-version in pyproject.toml [tool.hf-cache-lint]"
    for layer in layers:
        # Key by key: a bad value (an unknown code) drops that key alone, and the user is told (show_notes).
        for key, value in layer.items():
            try:
                merged = settings.merged({key: value})
            except (ValueError, TypeError) as exc:
                notes += (f"ignoring the editor setting {key!r}: {exc}",)
                continue
            if merged.transformers_version != settings.transformers_version:
                origin = "the transformersVersion setting"
            settings = merged
    # The target: the setting, else the transformers installed (the interpreter's environment, the active venv,
    # the folder's .venv, the server's own), else the folder's requirement files; all read, nothing run.
    context = resolve_context(transformers_version=settings.transformers_version,
                              interpreter=settings.interpreter, workspace=folder, extra_paths=settings.extra_paths,
                              restricted=not trusted, setting_origin=origin)
    log.info("%s: %s", folder or "no folder", context.describe_target())
    return FolderConfig(settings, context, notes, folder)


def folder_of(uri: str, folders: Iterable[str]) -> str | None:
    """The innermost workspace folder uri containing `uri` (cells: the notebook's uri)."""
    best: str | None = None
    for folder in folders:
        prefix = folder.rstrip("/") + "/"
        if uri.startswith(prefix) and (best is None or len(folder) > len(best)):
            best = folder
    return best


def config_for(folders: Mapping[str | None, FolderConfig], init_options: Mapping[str, Any], uri: str) -> FolderConfig:
    """What `uri` analyses with: its folder's config, else the one outside any folder, else the defaults (trusted
    as the client says)."""
    folder = folder_of(uri, [f for f in folders if f is not None])
    return folders.get(folder) or folders.get(None) or build(None, [], trusted(init_options))
