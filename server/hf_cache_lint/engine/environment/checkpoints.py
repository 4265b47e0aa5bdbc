"""A checkpoint's generation_config.json: a local folder, the Hugging Face cache, or the shipped table.

Never the network. Files are read only inside the allowed roots (workspace, the analysed file's
folder, the hub cache; engine/environment/confine.py): a checkpoint path or a file in it that leads outside (`../..`,
an absolute path, a symlink) is not read. A json file is read only up to MAX_JSON_BYTES (real ones are a
few hundred bytes), each at most once per (path, mtime).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

from hf_cache_lint.engine.base.findings import Position, Span
from hf_cache_lint.engine.environment import deps
from hf_cache_lint.engine.environment.confine import inside
from hf_cache_lint.engine.environment.reads import read_bounded

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
MAX_JSON_BYTES = 1024 * 1024


@dataclass(frozen=True)
class CheckpointConfig:
    """What a checkpoint's generation config says about caches."""

    cache_implementation: str | None
    source: str  # "local" | "hub-cache" | "hub-default"
    path: str | None = None  # the json file (None for the shipped table)
    span: Span | None = None  # the value's place inside the json
    transformers_version: str | None = None
    architecture: str | None = None  # config.json "architectures"[0], when found


@lru_cache(maxsize=256)
def _read_json(path: str, mtime: float) -> tuple[dict[str, object] | None, str]:
    raw = read_bounded(path, MAX_JSON_BYTES)
    if raw is None:
        return None, ""
    try:
        text = raw.decode("utf-8")
        data = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None, ""
    return (data if isinstance(data, dict) else None), text


def _load(path: Path, roots: tuple[Path, ...]) -> tuple[dict[str, object] | None, str]:
    deps.note(path)
    if not inside(path, roots):  # a symlink out of the checkpoint's allowed place
        return None, ""
    try:
        return _read_json(str(path), path.stat().st_mtime)
    except OSError:
        return None, ""


def _value_span(text: str, key: str) -> Span | None:
    m = re.search(rf'"{re.escape(key)}"\s*:\s*("[^"]*"|null)', text)
    if not m:
        return None
    before = text[: m.start(1)]
    line = before.count("\n") + 1
    col = len(before) - (before.rfind("\n") + 1)
    return Span(Position(line, col), Position(line, col + len(m.group(1))))


def _from_folder(folder: Path, source: str, roots: tuple[Path, ...]) -> CheckpointConfig | None:
    gen = folder / "generation_config.json"
    deps.note(gen)
    deps.note(folder / "config.json")
    data, text = _load(gen, roots) if gen.is_file() else (None, "")
    cfg, _ = _load(folder / "config.json", roots) if (folder / "config.json").is_file() else (None, "")
    if data is None and cfg is None:
        return None
    arch = None
    archs = cfg.get("architectures") if cfg else None
    if isinstance(archs, list) and archs:
        arch = str(archs[0])
    ci = data.get("cache_implementation") if data else None
    return CheckpointConfig(
        cache_implementation=ci if isinstance(ci, str) else None,
        source=source,
        path=str(gen) if data is not None else None,
        span=_value_span(text, "cache_implementation") if data is not None else None,
        transformers_version=str(data.get("transformers_version")) if data and data.get("transformers_version") else None,
        architecture=arch,
    )


@lru_cache(maxsize=1)
def _hub_defaults() -> dict[str, str | None]:
    raw = json.loads(resources.files("hf_cache_lint").joinpath("data/hub_defaults.json").read_text("utf-8"))
    return {k: v for k, v in raw.items() if not k.startswith("_")}


# The paths a lookup probes, made once per checkpoint and folder: an editor buffer that loads a model looks it up
# at every keystroke, and building the Path objects cost more than the stat calls themselves. Only the names are
# kept, never what the disk said: every lookup asks the disk again.
@lru_cache(maxsize=1024)
def _candidates(checkpoint: str, base_dirs: tuple[Path, ...]) -> tuple[Path, ...]:
    return (Path(checkpoint),) if Path(checkpoint).is_absolute() else tuple(b / checkpoint for b in base_dirs)


@lru_cache(maxsize=1024)
def _snapshots(hub_cache: Path, checkpoint: str) -> Path:
    return hub_cache / ("models--" + checkpoint.replace("/", "--")) / "snapshots"


def _local_folder(folder: Path, roots: tuple[Path, ...]) -> bool:
    """`inside(folder, roots) and folder.is_dir()`, with one stat first: a hub id is no folder here nearly always,
    and `inside` resolves every component of the path and of each root (a dozen lstat calls on each keystroke of an
    editor buffer that loads a model). An error `is_dir` would raise (not one it reads as "no folder": a missing
    component, a loop) gets the expression as it is, so it behaves as it always did."""
    try:
        is_dir = stat.S_ISDIR(os.stat(folder).st_mode)
    except OSError as exc:
        if exc.errno not in _NO_FOLDER:
            return inside(folder, roots) and folder.is_dir()
        return False
    except ValueError:  # a NUL in the name: is_dir says False
        return False
    return is_dir and inside(folder, roots)


# The errors pathlib's is_dir reads as False (3.10-3.13 `_IGNORED_ERRNOS`); it raises any other.
_NO_FOLDER = frozenset({errno.ENOENT, errno.ENOTDIR, errno.EBADF, errno.ELOOP})


def lookup(checkpoint: str, *, base_dirs: tuple[Path, ...], roots: tuple[Path, ...],
           hub_cache: Path | None) -> CheckpointConfig | None:
    """The generation config a `from_pretrained(checkpoint)` would load, as far as it can be seen.

    A local folder outside `roots` (`../../elsewhere`, `/abs/path`, a symlink out) is not read: nothing
    is said about it (the shipped table is for hub ids only).
    """
    for folder in _candidates(checkpoint, base_dirs):
        deps.note(folder)
        if _local_folder(folder, roots):
            return _from_folder(folder, "local", roots)
    if not _HUB_ID.match(checkpoint):
        return None
    if hub_cache is not None:
        repo = _snapshots(hub_cache, checkpoint)
        deps.note(repo)
        if repo.is_dir():
            # Snapshot files are symlinks into the cache's own blobs/: the cache is their only root.
            for snap in sorted(repo.iterdir(), key=lambda p: p.stat().st_mtime, reverse=True):
                found = _from_folder(snap, "hub-cache", (hub_cache,))
                if found is not None:
                    return found
    lowered = checkpoint.lower()
    for prefix, value in _hub_defaults().items():
        if lowered.startswith(prefix):
            return CheckpointConfig(cache_implementation=value, source="hub-default")
    return None
