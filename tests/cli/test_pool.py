"""The pool (cli_support/runner.py, pool.py): every file's whole pipeline runs in the workers, and the report,
its order and the result cache are exactly those of --jobs 1."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from cli_helpers import CLEAN, CONFLICT, CONFLICT_FIXED, RunFn, notebook, write

from hf_cache_lint.cli_support import cache as cache_mod
from hf_cache_lint.cli_support import pool, runner

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the parent's patches reach the workers through fork")


@pytest.fixture
def pooled(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """A pool even for small files, in several chunks; the pools started and the files checked in THIS
    process (a worker's calls land in its own copy of the list, never here)."""
    seen: dict[str, list[str]] = {"pools": [], "here": []}
    monkeypatch.setattr(runner, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(runner, "BYTES_PER_WORKER", 1)
    monkeypatch.setattr(runner, "CHUNK", 2)
    real_run, real_pipeline = pool.run, runner._pipeline

    def run(*args: object, **kwargs: object) -> object:
        seen["pools"].append("pool")
        return real_run(*args, **kwargs)  # type: ignore[arg-type]

    def pipeline(source: object, *args: object, **kwargs: object) -> object:
        seen["here"].append(source.display)  # type: ignore[attr-defined]
        return real_pipeline(source, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pool, "run", run)
    monkeypatch.setattr(runner, "_pipeline", pipeline)
    return seen


def tree(project: Path) -> list[Path]:
    return [
        write(project / "a_conflict.py", CONFLICT),
        write(project / "b_clean.py", CLEAN),
        write(project / "c_plain.py", "x = 1\n"),
        write(project / "d_syntax.py", CONFLICT + "def broken(:\n    pass\n"),
        write(project / "e_latin.py", b"# caf\xe9\nmodel.generate()\n"),
        write(project / "f_notebook.ipynb", notebook(("code", CONFLICT), ("markdown", "# notes\n"))),
        write(project / "g_fixed.py", CONFLICT_FIXED),
        write(project / "h_conflict.py", CONFLICT + "\n" + CONFLICT.splitlines()[-1] + "\n"),
    ]


@pytest.mark.parametrize("fmt", ["json", "text"])
def test_the_pool_reports_exactly_what_one_process_does(run: RunFn, project: Path, pooled: dict[str, list[str]],
                                                          fmt: str) -> None:
    tree(project)
    serial = run("check", "--format", fmt, "--jobs", "1", "--no-cache")
    assert pooled["pools"] == [] and len(pooled["here"]) == 8
    parallel = run("check", "--format", fmt, "--jobs", "2", "--no-cache")
    assert pooled["pools"] == ["pool"] and len(pooled["here"]) == 8  # none of them checked here this time
    assert (parallel.out, parallel.err, parallel.code) == (serial.out, serial.err, serial.code)
    assert "a_conflict.py" in serial.out and "h_conflict.py" in serial.out and "f_notebook.ipynb" in serial.out
    assert "d_syntax.py" in serial.out + serial.err and "e_latin.py" in serial.err
    fixed = {}
    for jobs in ("1", "2"):
        paths = tree(project)  # written afresh before each --fix
        r = run("check", "--format", fmt, "--jobs", jobs, "--no-cache", "--fix")
        fixed[jobs] = (r.out, r.err, r.code, [p.read_bytes() for p in paths])
    assert fixed["1"] == fixed["2"]
    assert b"cache_implementation=None" in fixed["2"][3][0] and fixed["2"][3][0] != CONFLICT.encode()


def settle(paths: list[Path], by: int = 10) -> None:
    for path in paths:
        old = path.stat().st_mtime_ns - by * cache_mod.RACY_NS
        os.utime(path, ns=(old, old))


def test_a_pooled_cold_run_fills_the_cache_the_parent_answers_from(run: RunFn, project: Path,
                                                                   pooled: dict[str, list[str]]) -> None:
    paths = [p for p in tree(project) if p.name not in ("d_syntax.py", "e_latin.py")]  # errors: never cached
    (project / "d_syntax.py").unlink()
    (project / "e_latin.py").unlink()
    settle(paths)
    expected = run("check", "--format", "json", "--jobs", "1", "--no-cache").out
    pooled["here"].clear()
    assert run("check", "--format", "json", "--jobs", "2").out == expected
    assert pooled["pools"] == ["pool"] and pooled["here"] == []  # cold: every file in the workers
    # Warm: every file answered by its stat in the parent: nothing left for a pool or for this process.
    assert run("check", "--format", "json", "--jobs", "2").out == expected
    assert pooled["pools"] == ["pool"] and pooled["here"] == []
    # Same content, another stat: the workers find the digest in their copy of the cache; the parent asks
    # its own, whose entries learn the new stat, so the next run answers from the stats alone again.
    settle(paths, by=20)
    assert run("check", "--format", "json", "--jobs", "2").out == expected
    assert pooled["pools"] == ["pool", "pool"] and pooled["here"] == []
    assert run("check", "--format", "json", "--jobs", "2").out == expected
    assert pooled["pools"] == ["pool", "pool"] and pooled["here"] == []
    # A content change after all that: checked again (in a worker), and the new result reported.
    write(project / "g_fixed.py", CONFLICT)
    settle([project / "g_fixed.py"])
    again = run("check", "--format", "json", "--jobs", "2", "--no-cache").out
    assert again != expected and run("check", "--format", "json", "--jobs", "2").out == again
