"""The result cache, as Ruff's: a file's findings are reused while nothing they depend on changed.

One JSON file per (tool build, Python, settings, target version, workspace, current folder) under
`.hf_cache_lint_cache/<version>/`, mapping each checked file (its printed path: relative to the current
folder, which is in the key, or absolute as given) to the stat and the hash of its content, the
fingerprints of everything its check consulted (workspace modules an import resolved to, and every
candidate it probed on the way; checkpoint folders and their generation_config.json / config.json; hub
cache snapshots: see engine/environment/deps.py) and its findings. An entry is used only when the content hash and
every fingerprint still match, so a changed, created or deleted dependency is a miss, never a stale
result. A folder the cache creates gets its own `.gitignore` (`*`); one that was there already (the user's
`~/.cache/...`, or any folder a repository named) is never given one: a `*` there could hide a whole
dotfiles repository from git.

The folder a project names (`cache-dir` in its pyproject, or a committed `.hf_cache_lint_cache` symlink) must
resolve inside the project root: a repository must not make a check (a pre-commit hook, CI) write in `$HOME`
or a sibling folder. Such a folder is refused with a warning and the run goes on without a cache. Only the
user's own environment (HF_CACHE_LINT_CACHE_DIR) puts it anywhere.

Every file is read as the analysis reads (engine/environment/reads.py): the index and the fingerprinted dependencies are
regular files under a size cap, never a FIFO (which would hang the run) or a device (`/dev/zero` would grow the
process until the OOM killer ended it); a dependency outside the allowed roots is fingerprinted by its stat and
resolved path, not read.

The index is compact because a warm run reads all of it: an entry is one JSON list
`[size, mtime_ns, inode, content hash, deps, result]` (the stat null while not trusted, see RACY_NS), and a
file without findings, cells or notes, the common case, has result 0. A run where every file hits writes
nothing; a run that only learned that a file's stat can now be trusted rewrites the index once.

Two runs may share the folder: each writes a whole new file next to the old one and renames it into
place (os.replace is atomic), so a reader sees the old file or the new one, never half of either; the
last writer wins and the other's new entries are simply recomputed next time. Anything unreadable
(a truncated file, a foreign format, an entry of the wrong shape) is a miss and gets rewritten.
Entries are plain JSON, never pickle: the folder sits in the workspace, and loading it must not run code.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hf_cache_lint import __version__
from hf_cache_lint.engine.base.findings import (
    SAFE,
    CheckResult,
    Edit,
    Finding,
    Fix,
    Position,
    Related,
    Severity,
    Span,
)
from hf_cache_lint.engine.environment import deps as engine_deps
from hf_cache_lint.engine.environment.confine import inside, real
from hf_cache_lint.engine.environment.reads import read_bounded
from hf_cache_lint.settings import Settings

if TYPE_CHECKING:
    from hf_cache_lint.engine.environment.context import Context

try:  # the module hashlib takes blake2b from: hashlib itself loads OpenSSL (~5 ms), which only digest() needs
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - a Python without it
    from hashlib import blake2b

FOLDER = ".hf_cache_lint_cache"
DIR_ENV = "HF_CACHE_LINT_CACHE_DIR"
OFF_ENV = "HF_CACHE_LINT_NO_CACHE"
FORMAT = 2  # 2: the compact list entries (1: one object per entry)
# The index of a big tree is a few MB (an entry is a hash, its dependencies' fingerprints and its findings); a
# larger one is not ours to trust, and reading it whole cost 4x its size in memory: a miss, then rewritten.
MAX_INDEX_BYTES = 64 * 1024 * 1024
# A dependency is a module (the analysis reads up to 2 MiB of one) or a json file (1 MiB): one larger is refused
# by the analysis, so its stat stands for it (a change of size or time is still a miss).
MAX_FINGERPRINT_BYTES = 4 * 1024 * 1024


# A file whose stat (size, mtime, inode) matches the entry's is taken as unchanged without reading it,
# as git's index does; to stay clear of "racy" writes (two writes within one mtime tick), the stat is
# only trusted when the file was last written well before the entry (RACY_NS).
RACY_NS = 2_000_000_000


def digest(data: bytes) -> str:
    import hashlib  # a run answered from stats never hashes a file

    return hashlib.sha256(data).hexdigest()[:32]  # sha256: hardware-assisted, about 2x blake2b here


def stat_key(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ino]


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """The version, and the size and mtime of every file of the package (an edited checkout is a new tool)."""
    root = Path(__file__).resolve().parents[1]
    h = blake2b(f"{__version__}|{FORMAT}|{sys.version}".encode(), digest_size=16)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".json", ".md")):
                st = os.stat(os.path.join(dirpath, name))
                h.update(f"{dirpath}/{name}|{st.st_size}|{st.st_mtime_ns}\n".encode())
    return h.hexdigest()


def fingerprint(path: str, roots: tuple[str, ...] | None = None) -> str:
    """What a dependency looks like now: a file's content hash, a folder's listing, or absent. A FIFO, a device,
    a file over MAX_FINGERPRINT_BYTES, or (with `roots`) anything outside them, resolved: its kind, stat and
    resolved path, never its content (engine/environment/reads.py)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return "-"
    if roots is not None and not inside(path, roots):
        return "o:" + digest(f"{real(path)}|{st.st_mode}|{st.st_size}|{st.st_mtime_ns}|{st.st_ino}".encode())
    if stat.S_ISDIR(st.st_mode):
        try:
            listing = sorted((e.name, e.stat(follow_symlinks=False).st_mtime_ns) for e in os.scandir(path))
        except OSError:
            return "d?"
        return "d:" + digest(repr(listing).encode())
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FINGERPRINT_BYTES:
        return f"s:{stat.S_IFMT(st.st_mode)}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"
    data = read_bounded(path, MAX_FINGERPRINT_BYTES)
    return "f?" if data is None else "f:" + digest(data)


def run_key(settings: Settings, context: Context) -> str:
    """Everything outside the files that a result depends on, as one hash.

    The current folder too: the engine names the files it reads as the printed path does (relative to it),
    so the dependency paths of an entry, and any path in its findings, mean what they mean from there.
    """
    parts = {
        "tool": tool_fingerprint(),
        "settings": asdict(settings),
        "target": str(context.target),
        "workspace": str(context.workspace),
        "cwd": os.getcwd(),
        "hub": str(context.hf_hub_cache),
        "interpreter": context.interpreter,
        "version_source": context.version_source,
    }
    return blake2b(json.dumps(parts, sort_keys=True, default=str).encode(), digest_size=16).hexdigest()


class FolderRefused(Exception):
    """The cache folder a project file or symlink names leads outside the project: the message says where."""


def cache_folder(root: Path, setting: str | None) -> Path:
    """HF_CACHE_LINT_CACHE_DIR (anywhere: the user's own), else the `cache-dir` setting (relative to the config's
    folder), else the default. Raises FolderRefused when the folder from the project (its setting, or a symlink
    on the way, the version folder's included) resolves outside `root`."""
    env = os.environ.get(DIR_ENV)
    if env:
        return Path(env)
    if setting:
        p = Path(setting).expanduser()
        folder, named = (p if p.is_absolute() else root / p), f"cache-dir = {setting!r}"
    else:
        folder, named = root / FOLDER, FOLDER
    if not inside(folder / __version__, (root,)):
        raise FolderRefused(f"the cache folder {named} leads outside the project ({real(folder / __version__)} "
                            f"is not under {real(root)}): running without a cache; set {DIR_ENV} to put it "
                            "elsewhere")
    return folder


def disabled_by_env() -> bool:
    return os.environ.get(OFF_ENV, "").strip().lower() not in ("", "0", "false", "no")


# -- (de)serialising results: explicit, so a crafted file can only ever be a miss -----------------
def _span(s: Span) -> list[int]:
    return [s.start.line, s.start.column, s.end.line, s.end.column]


def _unspan(v: Any) -> Span:
    a, b, c, d = (int(x) for x in v)
    return Span(Position(a, b), Position(c, d))


def encode(result: CheckResult) -> dict[str, Any] | int:
    """The result as JSON data; 0 for the common one, nothing found and no cells or notes."""
    if not (result.findings or result.cell_starts or result.notes):
        return 0
    return {
        "findings": [{
            "code": f.code, "name": f.name, "message": f.message, "severity": f.severity.value,
            "span": _span(f.span), "story": str(f.story),
            "fixes": [{"title": x.title, "preferred": x.preferred, "applicability": x.applicability,
                       "edits": [[_span(e.span), e.content] for e in x.edits]} for x in f.fixes],
            "related": [[_span(r.span), r.message, r.path] for r in f.related],
            "tags": list(f.tags),
        } for f in result.findings],
        "cell_starts": list(result.cell_starts),
        "notes": list(result.notes),
    }


def decode(data: Any, path: str) -> CheckResult:
    if data == 0 and type(data) is int:  # not False, which also equals 0
        return CheckResult(path)
    findings = tuple(Finding(
        code=str(f["code"]), name=str(f["name"]), message=str(f["message"]), severity=Severity(f["severity"]),
        span=_unspan(f["span"]), story=str(f["story"]),
        fixes=tuple(Fix(str(x["title"]), tuple(Edit(_unspan(s), str(c)) for s, c in x["edits"]),
                        bool(x["preferred"]), str(x.get("applicability", SAFE))) for x in f["fixes"]),
        related=tuple(Related(_unspan(s), str(m), None if p is None else str(p)) for s, m, p in f["related"]),
        tags=tuple(str(t) for t in f.get("tags", ())),
    ) for f in data["findings"])
    return CheckResult(path, findings, cell_starts=tuple(int(x) for x in data["cell_starts"]),
                       notes=tuple(str(n) for n in data.get("notes", ())))


class ResultCache:
    """The entries of one run key; `get` before checking a file, `put` after, `save` once at the end."""

    def __init__(self, folder: Path, settings: Settings, context: Context) -> None:
        self.folder = folder
        self.key = run_key(settings, context)
        self.file = folder / __version__ / f"{self.key}.json"
        # Where a dependency's content may be read for its fingerprint: where the analysis reads (the workspace,
        # its import roots, the hub cache; engine/environment/confine.py) and the current folder the printed paths start in.
        found = (context.workspace, context.hf_hub_cache, *context.extra_paths)
        self.roots = (os.getcwd(), *(str(p) for p in found if p is not None))
        self.entries = self._read()
        self.changed: dict[str, list[Any]] = {}
        self.hits = 0
        self._now: dict[str, str] = {}  # fingerprints taken this run (many files share a dependency)

    def fingerprint(self, path: str) -> str:
        if path not in self._now:
            self._now[path] = self._by_stat(path) or fingerprint(path, self.roots)
        return self._now[path]

    def _by_stat(self, path: str) -> str | None:
        """A dependency that is itself a checked file whose entry trusts its stat, and the stat still matches:
        the entry's content hash is its fingerprint, without reading it (a package's modules import each
        other: most dependencies of a tree are files of the same tree). "-" when it is absent."""
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return "-"  # = fingerprint(path)
        entry = self.entries.get(os.path.normpath(path))
        if (stat.S_ISREG(st.st_mode) and type(entry) is list and len(entry) == 6 and entry[:3] == stat_key(st)
                and isinstance(entry[3], str)):
            return "f:" + entry[3]
        return None

    def for_run(self, settings: Settings, context: Context) -> ResultCache:
        """This cache when it was made for these settings and context, else the one that was (same folder):
        a caller checking the same files for another target (--upgrade-to) must not get this target's."""
        return self if run_key(settings, context) == self.key else ResultCache(self.folder, settings, context)

    def _read(self) -> dict[str, Any]:
        raw = read_bounded(self.file, MAX_INDEX_BYTES)  # a FIFO, a device or a huge file there: a miss
        if raw is None:
            return {}
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            return {}
        if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
            return {}
        files: dict[str, Any] = data["files"]
        return files

    def _valid(self, entry: list[Any], display: str) -> CheckResult | None:
        try:
            if entry[4] and any(self.fingerprint(str(p)) != fp for p, fp in entry[4]):
                return None
            result = decode(entry[5], display)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError):
            return None  # a corrupt entry: checked again, and rewritten by put()
        self.hits += 1
        return result

    def get_by_stat(self, display: str, st: os.stat_result) -> CheckResult | None:
        """The result when the file's stat says it is the content the entry was made from."""
        entry = self.entries.get(display)
        if (type(entry) is not list or len(entry) != 6 or entry[0] != st.st_size or entry[1] != st.st_mtime_ns
                or entry[2] != st.st_ino):  # an entry whose stat is not trusted has None there
            return None
        if not entry[4] and entry[5] == 0 and type(entry[5]) is int:  # the common entry, in short
            self.hits += 1
            return CheckResult(display)
        return self._valid(entry, display)

    def get(self, display: str, content: str, st: os.stat_result | None = None) -> CheckResult | None:
        """The result when the entry was made from content with this hash. `st`, the stat taken before the
        file was read: when the entry does not trust it yet and it is settled now, the entry takes it, so the
        next run answers from the stat without reading the file."""
        entry = self.entries.get(display)
        if type(entry) is not list or len(entry) != 6 or entry[3] != content:
            return None
        result = self._valid(entry, display)
        if result is not None and st is not None and _settled(st) and entry[:3] != stat_key(st):
            self.changed[display] = [*stat_key(st), *entry[3:]]
        return result

    def put(self, display: str, content: str, st: os.stat_result | None, deps: Iterable[str],
            result: CheckResult) -> None:
        """Remember `result` for `content` (`st`: the file's stat taken before it was read)."""
        deps = set(deps)
        if result.error is not None or engine_deps.VOLATILE in deps:
            return  # unreadable now may be readable next time; jedi's inputs cannot be fingerprinted
        trusted = stat_key(st) if st is not None and _settled(st) else [None, None, None]
        self.changed[display] = [*trusted, content, sorted([p, self.fingerprint(p)] for p in deps), encode(result)]

    def save(self) -> None:
        """Write the entries (merged over what another run may have written meanwhile); never raises.
        Nothing is written when nothing changed: a warm run only reads."""
        if not self.changed:
            return
        try:
            if _created(self.folder):  # only a folder made here gets a `.gitignore`, never one that was there
                _atomic_write(self.folder / ".gitignore", b"# Automatically created by hf-cache-lint.\n*\n")
            self.file.parent.mkdir(exist_ok=True)
            files = {**self._read(), **self.changed}
            _atomic_write(self.file, json.dumps({"format": FORMAT, "files": files}, separators=(",", ":")).encode())
        except OSError:
            pass  # a read-only or full disk costs the next run its speed, not this run its result


def _created(folder: Path) -> bool:
    """Make `folder` (and its parents) unless something is there already; whether this call made it."""
    if os.path.lexists(folder):
        return False
    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        folder.mkdir()
    except FileExistsError:  # another run made it meanwhile: that run writes the .gitignore
        return False
    return True


def _settled(st: os.stat_result) -> bool:
    """Whether the file was last written long enough ago for its stat to stand for its content (RACY_NS)."""
    return st.st_mtime_ns < time.time_ns() - RACY_NS


def _atomic_write(path: Path, data: bytes) -> None:
    import tempfile  # only a run that writes needs it

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
