"""A file on disk checked: read (within a size limit), decoded as Python source, then a module or a notebook."""

from __future__ import annotations

from pathlib import Path

from hf_cache_lint.checking.notebooks import check_ipynb
from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import CheckResult, FileError
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.text.text import UndecodableError, decode_source
from hf_cache_lint.settings import Settings

MAX_BYTES = 20 * 1024 * 1024


def check_file(path: Path, settings: Settings | None = None, context: Context | None = None,
               display: str | None = None) -> CheckResult:
    """Read and check one .py or .ipynb file; unreadable input becomes a FileError, never an exception."""
    name = display or str(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            return CheckResult(name, error=FileError(name, f"larger than {MAX_BYTES // 2**20} MiB, skipped"))
        data = path.read_bytes()
    except OSError as exc:
        return CheckResult(name, error=FileError(name, f"cannot read: {exc.strerror or exc}"))
    return check_data(data, path, settings, context, name)


def check_data(data: bytes, path: Path, settings: Settings | None = None, context: Context | None = None,
               display: str | None = None, use_gate: bool = True, keep_tree: str | None = None) -> CheckResult:
    """check_file on bytes already read (the CLI's cache hashed exactly these). `use_gate`: check_source's
    (False: the caller already asked the gate of this text and it passed). `keep_tree`: check_source's, for a
    module (a notebook's cells are parsed joined, under no key)."""
    name = display or str(path)
    if len(data) > MAX_BYTES:
        return CheckResult(name, error=FileError(name, f"larger than {MAX_BYTES // 2**20} MiB, skipped"))
    try:
        text = decode_source(data)
    except UndecodableError as exc:
        return CheckResult(name, error=FileError(name, str(exc)))
    if path.suffix == ".ipynb":
        return check_ipynb(text, name, settings, context)
    return check_source(text, name, settings, context, use_gate=use_gate, keep_tree=keep_tree)
