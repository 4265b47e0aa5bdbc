"""One file that kills its worker process (out of memory, a crash in C) or runs out of memory costs that
file only: the other files' results are kept, whatever the parallelism."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from cli_helpers import CONFLICT, write

from hf_cache_lint.checking import files as api
from hf_cache_lint.cli_support import runner
from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.engine.base.findings import CheckResult
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.settings import Settings

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the patched check reaches the workers through fork")


def _sources(root: Path, n: int) -> list[SourceFile]:
    out = []
    for i in range(n):
        path = write(root / f"f{i}.py", CONFLICT)
        out.append(SourceFile(path, f"f{i}.py"))
    return out


@pytest.mark.parametrize("failure", ["exit", "memory"])
def test_a_dying_worker_costs_its_file_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: str) -> None:
    sources = _sources(tmp_path, 12)
    real = api.check_data

    def check_data(data: bytes, path: Path, settings: Settings | None = None, context: Context | None = None,
                   display: str | None = None, use_gate: bool = True) -> CheckResult:
        if display == "f3.py":
            if failure == "exit":
                os._exit(9)  # as the kernel's OOM killer would end it: no exception, no cleanup
            raise MemoryError
        return real(data, path, settings, context, display=display, use_gate=use_gate)

    monkeypatch.setattr(api, "check_data", check_data)  # the forked workers inherit it
    monkeypatch.setattr(runner, "POOL_MIN_BYTES", 0)  # a pool even for these small files
    monkeypatch.setattr(runner, "BYTES_PER_WORKER", 1)
    results = runner.check_files(sources, Settings(), Context(), jobs=2)
    assert [r.path for r in results] == [s.display for s in sources]
    bad = results[3]
    assert bad.findings == () and bad.error is not None
    assert bad.error.message == ("the analysis process died (out of memory or a crash); file skipped"
                                 if failure == "exit" else "out of memory while analysing")
    assert all(r.error is None and [f.code for f in r.findings if f.code == "HFC001"] == ["HFC001"]
               for i, r in enumerate(results) if i != 3)
