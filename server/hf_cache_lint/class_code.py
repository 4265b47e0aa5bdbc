"""`dataclasses`' generated methods compiled once per text, not once per process start (`ClassCode`).

Every frozen dataclass builds its `__init__`, `__repr__`, `__eq__`, `__hash__`, `__setattr__` and `__delattr__` by
compiling their text when its class is created: ~570 functions of the ~100 classes a check imports, at every start
of a process. The language server's start (lsp/startup.py) and a CLI run (cli.py, for `check`) take them from a
file of code objects keyed by that exact text instead, as Python takes a module's code from its .pyc. A top-level
module of its own so that both front ends use one implementation (tests/engine/test_layers.py: neither imports the
other's package).
"""

from __future__ import annotations

import builtins
import marshal
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from types import CodeType
from typing import Any


class ClassCode:
    """`dataclasses`' generated methods compiled once per text, not once per start: while installed, the name `exec`
    in the `dataclasses` module (every version from 3.10 to 3.13 builds its methods with `exec(txt, globals, ns)`)
    is this object, which executes the code object compiled from that exact text, read from `path` or compiled
    here. The same text compiles to the same code (`compile` with the flags `exec` gives it from `dataclasses`:
    none), so a class is built exactly as without it. The file is this package's compiled code, as a .pyc is: it
    lives in the package's __pycache__, is written only where Python would write bytecode, and holds what the last
    start that compiled anything used (a text no longer generated drops out then); a file of another Python, or
    one that does not read back as text -> code, is not used."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.known: dict[str, CodeType] = {}
        self.used: dict[str, CodeType] = {}
        self.compiled = 0
        try:
            data = path.read_bytes()
            if data[:len(MAGIC_NUMBER)] == MAGIC_NUMBER:
                known = marshal.loads(data[len(MAGIC_NUMBER):])
                if isinstance(known, dict):
                    self.known = {k: v for k, v in known.items() if isinstance(k, str) and isinstance(v, CodeType)}
        except (OSError, ValueError, EOFError, TypeError):
            pass  # none yet, or unreadable: compiled as without this

    def __call__(self, source: Any, globals: Any = None, locals: Any = None, /, **kwargs: Any) -> None:
        import dataclasses

        if globals is None:  # what `exec` would take from its caller, dataclasses' own frame
            globals = vars(dataclasses)
        if isinstance(source, str):
            code = self.known.get(source)
            if code is None:
                code = compile(source, "<string>", "exec", dont_inherit=True)
                self.compiled += 1
            self.used[source] = code
            source = code
        builtins.exec(source, globals, locals, **kwargs)

    def install(self) -> None:
        import dataclasses

        vars(dataclasses)["exec"] = self

    def uninstall(self) -> None:
        """Back to the builtin; the file written (whole, then renamed into place) if anything was compiled."""
        import dataclasses

        if vars(dataclasses).get("exec") is self:
            del vars(dataclasses)["exec"]
        if not self.compiled or sys.dont_write_bytecode:
            return
        try:
            self.path.parent.mkdir(exist_ok=True)
            part = self.path.with_name(f"{self.path.name}.{os.getpid()}")
            part.write_bytes(MAGIC_NUMBER + marshal.dumps(self.used))
            os.replace(part, self.path)
        except OSError:
            pass  # a read-only install: compiled at every start, as before


def code_file(package: Path) -> Path:
    """Where the front end living in the folder `package` keeps its file: its __pycache__, named for this Python
    (`dataclass_code.<cache tag>.bin`). One file per front end: each holds the texts its own process used, so the
    server's start and a CLI run do not drop each other's."""
    return package / "__pycache__" / f"dataclass_code.{sys.implementation.cache_tag}.bin"


@contextmanager
def class_code(path: Path) -> Iterator[ClassCode | None]:
    """`ClassCode` of `path` installed for the block (None where Python has no cache tag: no .pyc either), the file
    written at its end if anything was compiled. A process forked inside (the CLI's pool) keeps it installed: what
    it compiles is used there and not written."""
    if sys.implementation.cache_tag is None:
        yield None
        return
    code = ClassCode(path)
    code.install()
    try:
        yield code
    finally:
        code.uninstall()
