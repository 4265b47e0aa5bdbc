"""The server's start-up (lsp/startup.py): the collector's thresholds come back, the warm-up always ends, and
dataclasses' methods taken from `ClassCode`'s file are the ones dataclasses compiles.

In-process: the pytest-lsp suite starts the real server (`python -m hf_cache_lint.lsp`) for everything else.
"""

from __future__ import annotations

import dataclasses
import gc
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from hf_cache_lint.lsp import startup


@pytest.fixture
def collector(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Whatever a test does to the collector is undone (thresholds, frozen objects); start-up's file of
    dataclasses' code goes to a temporary folder, not the package's __pycache__."""
    monkeypatch.setattr(startup, "CLASS_CODE", tmp_path / "dataclass_code.bin")
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    startup._saved = None


def test_the_deferral_ends_with_its_block_when_no_warm_up_ran(collector: None) -> None:
    gc.set_threshold(700, 10, 10)
    with startup.deferred_old_collections():
        assert gc.get_threshold() == startup.START_THRESHOLDS
    assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_freeze_count() == 0


def test_the_warm_up_freezes_and_restores_the_thresholds(collector: None) -> None:
    gc.set_threshold(700, 10, 10)
    done = threading.Event()
    with startup.deferred_old_collections():
        startup.warm_engine(done)
        assert done.is_set()
        assert gc.get_threshold() == (700, 10, 10)  # restored by the warm-up, not by the end of the block
        assert gc.get_freeze_count() > 0
        assert "hf_cache_lint.rules" in sys.modules  # the one-line check reached the rules


def test_a_failing_warm_up_still_ends_the_start_up(collector: None, monkeypatch: pytest.MonkeyPatch,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    from hf_cache_lint.lsp import documents

    def boom() -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr(documents, "warm_up", boom)
    gc.set_threshold(700, 10, 10)
    done = threading.Event()
    with startup.deferred_old_collections():
        startup.warm_engine(done)  # logs, never raises: the handshake goes on
        assert done.is_set() and gc.get_threshold() == (700, 10, 10)
    assert "warming the engine failed" in caplog.text


def test_serve_leaves_the_collector_as_it_found_it(collector: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hf-cache-lint serve` in-process with a server that returns (as tests run it): no deferral left behind."""
    from hf_cache_lint import cli

    fake = types.ModuleType("hf_cache_lint.lsp.server")
    fake.start = lambda **kw: None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "hf_cache_lint.lsp.server", fake)
    gc.set_threshold(700, 10, 10)
    assert cli.main(["serve"]) == 0
    assert gc.get_threshold() == (700, 10, 10)


def test_request_modules_are_imported_on_the_engine_thread_until_it_warmed_them(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A hover or code action before `warm_requests` finished imports behind the warm-up, on the engine thread
    (two threads importing the same modules can deadlock); after it, the handler imports nothing there."""
    import asyncio
    import importlib

    from hf_cache_lint.lsp.server import HfCacheLintServer

    server = HfCacheLintServer()
    threads: list[str] = []

    def recording(name: str) -> types.ModuleType:
        threads.append(threading.current_thread().name)
        return types.ModuleType(name)

    monkeypatch.setattr(importlib, "import_module", recording)
    try:
        asyncio.run(server.imported("hf_cache_lint.lsp.hover"))
        assert len(threads) == 1 and threads[0].startswith("hf-cache-lint-engine"), threads
        startup.warm_requests(server.requests_warmed)  # the real warm-up (not patched: `from ... import`)
        assert server.requests_warmed.is_set()
        asyncio.run(server.imported("hf_cache_lint.lsp.hover"))
        assert len(threads) == 1, threads
    finally:
        server.engine.shutdown()
        server.big_engine.shutdown()


def _classes() -> list[type]:
    """Dataclasses of every kind start-up builds (frozen, ordered, defaults, factories, ClassVar, keyword-only)."""
    from typing import ClassVar

    @dataclasses.dataclass(frozen=True)
    class Frozen:
        a: int
        b: str = "x"
        c: tuple[int, ...] = ()
        k: ClassVar[int] = 3

    @dataclasses.dataclass(order=True)
    class Ordered:
        a: int
        b: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, eq=False, repr=False)
    class Plain:
        a: object = None

    @dataclasses.dataclass(frozen=True)
    class Child(Frozen):
        d: float = 0.5

    return [Frozen, Ordered, Plain, Child]


def _methods(classes: list[type]) -> list[tuple[str, str, types.CodeType]]:
    return [(c.__name__, name, f.__code__) for c in classes for name, f in sorted(vars(c).items())
            if isinstance(f, types.FunctionType)]


def test_class_code_builds_the_classes_dataclasses_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same code objects with it (first compiled, then read back from its file) as without it: the test
    fails if the compile inherits this module's `from __future__ import annotations` (the methods' `-> None`
    annotations would become strings), or if a text were answered with another text's code."""
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    plain = _methods(_classes())
    path = tmp_path / "code.bin"
    first = startup.ClassCode(path)
    first.install()
    try:
        compiled = _methods(_classes())
    finally:
        first.uninstall()
    assert "exec" not in vars(dataclasses)
    assert compiled == plain and first.compiled > 0
    again = startup.ClassCode(path)
    assert again.known and set(again.known) == set(first.used)
    again.install()
    try:
        read = _methods(_classes())
        assert again.compiled == 0  # every method from the file
    finally:
        again.uninstall()
    assert read == plain
    frozen = _classes()[0](1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        frozen.a = 2  # type: ignore[misc]


@pytest.mark.parametrize("content", [b"", b"garbage", b"\x00" * 64, None], ids=["empty", "garbage", "zeros", "list"])
def test_class_code_ignores_a_file_it_cannot_use(tmp_path: Path, content: bytes | None) -> None:
    """Empty, garbage, another Python's (its magic number) or a marshalled non-dict: compiled as without it."""
    import marshal
    from importlib.util import MAGIC_NUMBER

    path = tmp_path / "code.bin"
    path.write_bytes(content if content is not None else MAGIC_NUMBER + marshal.dumps(["not", "a", "dict"]))
    code = startup.ClassCode(path)
    assert code.known == {}
    code.install()
    try:
        built = _methods(_classes())
    finally:
        code.uninstall()
    assert built == _methods(_classes()) and code.compiled > 0  # the second built without it


def test_class_code_writes_no_file_where_python_writes_no_bytecode(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "code.bin"
    code = startup.ClassCode(path)
    code.install()
    _classes()
    code.uninstall()
    assert code.compiled > 0 and not path.exists()
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    code = startup.ClassCode(path)
    code.install()
    _classes()
    code.uninstall()
    assert path.exists()


def test_start_up_installs_class_code_until_its_end(collector: None) -> None:
    with startup.deferred_old_collections():
        assert isinstance(vars(dataclasses).get("exec"), startup.ClassCode)
        _classes()
    assert "exec" not in vars(dataclasses) and startup._class_code is None
