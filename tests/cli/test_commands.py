"""`rule`, `serve`, `--version`, usage errors, and the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import CONFLICT, CONFLICT_COL, CONFLICT_ROW, TARGET, RunFn, write

from hf_cache_lint import __version__
from hf_cache_lint.rules import ALL_RULES, BY_CODE


def test_version(run: RunFn) -> None:
    r = run("--version")
    assert (r.code, r.out) == (0, f"hf-cache-lint {__version__}\n")


def test_rule_prints_the_full_docs(run: RunFn) -> None:
    r = run("rule", "HFC001")
    assert (r.code, r.out) == (0, BY_CODE["HFC001"].full_docs())
    assert r.out.startswith("# HFC001 cache-conflict\n")


def test_rule_code_is_case_insensitive(run: RunFn) -> None:
    assert run("rule", "hfc001").out == BY_CODE["HFC001"].full_docs()


def test_rule_all_lists_codes_names_and_summaries(run: RunFn) -> None:
    r = run("rule", "--all")
    assert r.code == 0
    lines = r.out.splitlines()
    assert len(lines) == len(ALL_RULES)
    for line, rule in zip(lines, ALL_RULES, strict=True):
        code, name, summary = line.split(maxsplit=2)
        assert (code, name, summary) == (rule.code, rule.name, rule.summary)


def test_unknown_rule_is_a_usage_error(run: RunFn) -> None:
    r = run("rule", "HFC999")
    assert r.code == 2 and r.out == ""
    assert r.err == "hf-cache-lint: error: unknown rule 'HFC999' (known: " + ", ".join(BY_CODE) + ")\n"


def test_rule_needs_a_code_or_all(run: RunFn) -> None:
    assert run("rule").code == 2
    assert run("rule", "HFC001", "--all").code == 2


def test_no_command_and_unknown_command_are_usage_errors(run: RunFn) -> None:
    assert run().code == 2
    r = run("lint")
    assert r.code == 2 and "invalid choice" in r.err


def test_help_exits_0_and_documents_exit_status(run: RunFn) -> None:
    r = run("check", "--help")
    assert r.code == 0
    assert "exit status:" in r.out and "could not be checked" in r.out


def test_serve_calls_the_language_server(run: RunFn, monkeypatch: pytest.MonkeyPatch) -> None:
    import types

    calls: list[dict[str, object]] = []
    fake = types.ModuleType("hf_cache_lint.lsp.server")
    fake.start = lambda **kw: calls.append(kw)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "hf_cache_lint.lsp.server", fake)
    assert run("serve").code == 0
    assert run("serve", "--tcp", "--host", "0.0.0.0", "--port", "9000").code == 0
    assert calls == [{"tcp": False, "host": "127.0.0.1", "port": 2087},
                     {"tcp": True, "host": "0.0.0.0", "port": 9000}]


def test_serve_without_pygls_says_how_to_install(run: RunFn, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(sys.modules, "hf_cache_lint.lsp.server", raising=False)
    monkeypatch.setitem(sys.modules, "pygls", None)  # makes `import pygls` raise ImportError
    monkeypatch.setitem(sys.modules, "lsprotocol", None)
    r = run("serve")
    assert r.code == 2
    # Whichever of the two the server module imports first is the one named.
    assert r.err in (f"hf-cache-lint: error: the language server needs {m}, a dependency missing here: "
                     "pip install --force-reinstall hf-cache-lint\n"
                     for m in ("pygls", "lsprotocol"))


def test_internal_error_is_one_line_and_exit_2(run: RunFn, monkeypatch: pytest.MonkeyPatch,
                                               project: Path) -> None:
    from hf_cache_lint.cli_support import check_cmd

    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("kaput")

    monkeypatch.setattr(check_cmd, "discover", boom)
    r = run("check")
    assert (r.code, r.err) == (2, "hf-cache-lint: internal error: RuntimeError: kaput\n")


def test_a_failing_file_is_isolated(run: RunFn, monkeypatch: pytest.MonkeyPatch, project: Path) -> None:
    from hf_cache_lint.checking import files as api

    real = api.check_data

    def flaky(data: bytes, path: Path, *args: object, **kwargs: object) -> object:
        if path.name == "bad.py":
            raise KeyError("oops")
        return real(data, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "check_data", flaky)
    write(project / "bad.py", CONFLICT)
    write(project / "good.py", CONFLICT)
    r = run("check", "--format", "json")
    assert [(f["filename"], f["code"]) for f in r.json()] == [("good.py", "HFC001"), ("bad.py", None)]
    assert r.err == "bad.py: error: internal error: KeyError: 'oops'\n"
    assert r.code == 1


def test_parallel_and_serial_runs_give_the_same_report(run: RunFn, project: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from hf_cache_lint.cli_support import runner

    for i in range(40):
        write(project / f"m{i:02}.py", CONFLICT if i % 3 == 0 else "x = 1\nmodel.generate()\n")
    serial = run("check", "--format", "json", "--jobs", "1", "--no-cache")
    # 40 small files are not worth a pool by default: make them worth two workers
    monkeypatch.setattr(runner, "POOL_MIN_BYTES", 0)
    monkeypatch.setattr(runner, "BYTES_PER_WORKER", 1)
    assert runner.workers_for([100] * 40, 2) == 2
    parallel = run("check", "--format", "json", "--jobs", "2", "--no-cache")
    assert serial.out == parallel.out
    assert len(serial.json()) == 14


@pytest.mark.parametrize(("load", "expected"), [(0.0, 4), (1.5, 4), (3.2, 2), (4.0, 1), (12.0, 1)])
def test_the_default_pool_leaves_out_only_busy_cpus(load: float, expected: int, monkeypatch: pytest.MonkeyPatch) -> None:
    from hf_cache_lint.cli_support import runner

    monkeypatch.setattr(runner.os, "sched_getaffinity", lambda _pid: {0, 1, 2, 3}, raising=False)
    monkeypatch.setattr(runner.os, "getloadavg", lambda: (load, load, load))
    assert runner.default_jobs() == expected


def test_console_script_runs_check_end_to_end(tmp_path: Path) -> None:
    script = shutil.which("hf-cache-lint")
    cmd = [script] if script else [sys.executable, "-m", "hf_cache_lint"]
    write(tmp_path / "demo.py", CONFLICT)
    proc = subprocess.run([*cmd, "check", "--format", "json", "--transformers-version", TARGET, "demo.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 1, proc.stderr
    [f] = json.loads(proc.stdout)
    assert (f["filename"], f["location"]) == ("demo.py", {"row": CONFLICT_ROW, "column": CONFLICT_COL})
    assert proc.stderr == ""


def test_python_dash_m_runs_the_cli(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "hf_cache_lint", "--version"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert (proc.returncode, proc.stdout) == (0, f"hf-cache-lint {__version__}\n")


def test_logging_setup_is_undone_after_main(run: RunFn, project: Path) -> None:
    import logging

    log = logging.getLogger("hf_cache_lint")
    before = (list(log.handlers), log.level, log.propagate)
    write(project / "demo.py", CONFLICT)
    run("check")
    assert (list(log.handlers), log.level, log.propagate) == before


def test_engine_log_records_print_as_one_line_without_traceback(run: RunFn, project: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from hf_cache_lint.rules import ALL_RULES

    rule = ALL_RULES[0]

    def broken(analysis: object) -> list[object]:
        raise ValueError("bad rule")

    monkeypatch.setattr(rule, "check", broken)
    write(project / "demo.py", CONFLICT)
    r = run("check", "--select", rule.code, "demo.py")
    assert r.err == f"hf-cache-lint: error: rule {rule.code} failed on demo.py: ValueError: bad rule\n"
    assert r.code == 0


def test_format_names_match_the_formats() -> None:
    from hf_cache_lint.cli import FORMAT_NAMES
    from hf_cache_lint.cli_support.formats import FORMATS

    assert tuple(FORMATS) == FORMAT_NAMES


def test_version_and_help_do_not_load_the_engine() -> None:
    code = ("import sys; from hf_cache_lint.cli import main; main(['--version']); "
            "print(sorted(m for m in sys.modules if m.startswith('hf_cache_lint.engine') or m == 'parso'))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert proc.stdout.splitlines()[-1] == "[]"
