"""The result cache: hits when nothing changed, a miss for every kind of change, safe when shared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from cli_helpers import CONFLICT, CONFLICT_FIXED, Run, pyproject_text, write

from hf_cache_lint.cli_support import cache as cache_mod

RunFn = Callable[..., Run]

# A model configured in a workspace module and used here: the finding depends on helpers.py.
MAIN_IMPORTING = ("from transformers import DynamicCache\nfrom helpers import model\n"
                  "out = model.generate(past_key_values=DynamicCache())\n")
HELPERS = ("from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained('x')\n"
           "model.generation_config.cache_implementation = 'static'\n")
# A checkpoint folder read through from_pretrained: the finding depends on its generation_config.json.
MAIN_CKPT = ("from transformers import AutoModelForCausalLM\n"
             "model = AutoModelForCausalLM.from_pretrained('./ckpt')\nout = model.generate(max_new_tokens=5)\n")


@pytest.fixture
def engine_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the engine really checked (a cache hit never gets here)."""
    from hf_cache_lint.checking import files as api

    calls: list[str] = []
    real = api.check_data

    def counting(data: bytes, path: Path, *args: object, **kwargs: object) -> object:
        calls.append(path.name)
        return real(data, path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(api, "check_data", counting)
    return calls


def codes(r: Run) -> list[str]:
    return [f["code"] for f in r.json()]


def check(run: RunFn, *extra: str) -> Run:
    return run("check", "--format", "json", *extra)


def test_a_second_run_is_served_from_the_cache(run: RunFn, project: Path, engine_calls: list[str]) -> None:
    write(project / "a.py", CONFLICT)
    first = check(run)
    assert engine_calls == ["a.py"] and codes(first) == ["HFC001"]
    second = check(run)
    assert engine_calls == ["a.py"]  # not checked again
    assert second == first
    folder = project / cache_mod.FOLDER
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    (entry,) = (folder / cache_mod.__version__).glob("*.json")
    assert json.loads(entry.read_text())["format"] == cache_mod.FORMAT


def test_a_changed_file_is_checked_again_even_at_the_same_size_and_time(
        run: RunFn, project: Path, engine_calls: list[str]) -> None:
    path = write(project / "a.py", CONFLICT)
    assert codes(check(run)) == ["HFC001"]
    st = path.stat()
    same_size = CONFLICT.replace('"static"', '"sliced"')  # an invalid value (HFC004), same length
    assert len(same_size) == len(CONFLICT)
    write(path, same_size)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert codes(check(run)) == ["HFC004"]
    assert engine_calls == ["a.py", "a.py"]


def test_a_settled_file_is_recognised_by_its_stat_and_rehashed_when_it_changes(
        run: RunFn, project: Path, engine_calls: list[str]) -> None:
    path = write(project / "a.py", CONFLICT)
    old = path.stat().st_mtime_ns - 10 * cache_mod.RACY_NS
    os.utime(path, ns=(old, old))  # written long ago: the entry may trust the stat
    check(run)
    (entry_file,) = (project / cache_mod.FOLDER / cache_mod.__version__).glob("*.json")
    (entry,) = json.loads(entry_file.read_text())["files"].values()
    assert entry[:3] == cache_mod.stat_key(path.stat())  # [size, mtime_ns, inode, content, deps, result]
    write(path, CONFLICT_FIXED)  # a new mtime: the stat no longer matches, the content decides
    assert codes(check(run)) == []
    assert engine_calls == ["a.py", "a.py"]


def test_an_imported_workspace_module_is_a_dependency(run: RunFn, project: Path, engine_calls: list[str]) -> None:
    write(project / "main.py", MAIN_IMPORTING)
    helpers = write(project / "helpers.py", HELPERS)
    assert codes(check(run)) == ["HFC001"]
    write(helpers, HELPERS.replace("'static'", "None"))
    assert codes(check(run)) == []
    assert engine_calls.count("main.py") == 2
    check(run)
    assert engine_calls.count("main.py") == 2  # unchanged again: a hit


def test_a_module_that_appears_later_is_a_dependency(run: RunFn, project: Path) -> None:
    write(project / "main.py", MAIN_IMPORTING)
    assert codes(check(run)) == []  # helpers.py does not exist yet: nothing known about `model`
    write(project / "helpers.py", HELPERS)
    assert codes(check(run)) == ["HFC001"]


def test_a_generation_config_json_is_a_dependency(run: RunFn, project: Path, engine_calls: list[str]) -> None:
    write(project / "main.py", MAIN_CKPT)
    gen = write(project / "ckpt" / "generation_config.json", '{"cache_implementation": "static"}\n')
    assert codes(check(run)) == []
    write(gen, '{"cache_implementation": "statc"}\n')
    assert codes(check(run)) == ["HFC004"]
    gen.unlink()
    assert codes(check(run)) == []
    assert engine_calls == ["main.py"] * 3


def test_settings_are_part_of_the_key(run: RunFn, project: Path) -> None:
    write(project / "a.py", CONFLICT)
    assert codes(check(run)) == ["HFC001"]
    write(project / "pyproject.toml", pyproject_text('ignore = ["HFC001"]'))
    assert codes(check(run)) == []
    assert codes(check(run, "--select", "HFC001")) == ["HFC001"]


def test_the_target_version_is_part_of_the_key(run: RunFn, project: Path) -> None:
    # `cache=` is rejected before 5.24 (HFC003) and the keyword's own name from 5.24.
    write(project / "a.py", CONFLICT.replace('past_key_values=DynamicCache(), cache_implementation="static"',
                                             "cache=DynamicCache()"))
    assert codes(check(run)) == ["HFC003"]  # 5.23.0, pinned by the project
    assert codes(check(run, "--transformers-version", "5.24.0")) == []
    assert codes(check(run)) == ["HFC003"]


def test_the_tool_version_is_part_of_the_key(run: RunFn, project: Path, engine_calls: list[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / "a.py", CONFLICT)
    check(run)
    check(run)
    assert engine_calls == ["a.py"]
    monkeypatch.setattr(cache_mod, "tool_fingerprint", lambda: "another build")
    check(run)
    assert engine_calls == ["a.py", "a.py"]


def test_a_corrupt_cache_is_ignored_and_rewritten(run: RunFn, project: Path, engine_calls: list[str]) -> None:
    write(project / "a.py", CONFLICT)
    first = check(run)
    (entry_file,) = (project / cache_mod.FOLDER / cache_mod.__version__).glob("*.json")
    data = json.loads(entry_file.read_text())
    (key,) = data["files"]
    data["files"][key][5] = {"findings": [{"code": 1}]}  # a result of the wrong shape
    entry_file.write_text(json.dumps(data))
    assert check(run) == first
    entry_file.write_text('{"format": 1, "files": {"a.py": ')  # a truncated file
    assert check(run) == first
    assert engine_calls == ["a.py"] * 3
    assert check(run) == first  # rewritten whole: a hit again
    assert len(engine_calls) == 3


def test_no_cache_flag_setting_and_env(run: RunFn, project: Path, monkeypatch: pytest.MonkeyPatch,
                                       tmp_path: Path) -> None:
    write(project / "a.py", CONFLICT)
    check(run, "--no-cache")
    assert not (project / cache_mod.FOLDER).exists()
    write(project / "pyproject.toml", pyproject_text("cache = false"))
    check(run)
    assert not (project / cache_mod.FOLDER).exists()
    write(project / "pyproject.toml", pyproject_text('cache-dir = "build/lint-cache"'))
    check(run)
    assert (project / "build" / "lint-cache" / ".gitignore").is_file()
    monkeypatch.setenv(cache_mod.DIR_ENV, str(tmp_path / "elsewhere"))
    check(run)
    assert (tmp_path / "elsewhere" / ".gitignore").is_file()
    assert not (project / cache_mod.FOLDER).exists()


def test_a_bad_cache_setting_is_a_configuration_error(run: RunFn, project: Path) -> None:
    write(project / "pyproject.toml", pyproject_text('cache = "no"'))
    write(project / "a.py", CONFLICT)
    r = check(run)
    assert r.code == 2 and "'cache' must be true or false" in r.err


def test_fix_is_not_fooled_by_the_cache(run: RunFn, project: Path) -> None:
    path = write(project / "a.py", CONFLICT)
    check(run)
    check(run)  # cached: the finding (and its fix) comes from the cache entry
    fixed = run("check", "--fix", "--format", "json")
    assert fixed.code == 0 and fixed.json() == []
    assert path.read_text() == CONFLICT_FIXED
    assert codes(check(run)) == []
    write(path, CONFLICT)  # back to the conflict: the cache must not still say "fixed"
    assert codes(check(run)) == ["HFC001"]


def test_two_runs_can_share_the_cache(project: Path) -> None:
    for i in range(6):
        write(project / f"m{i}.py", CONFLICT if i % 2 else CONFLICT_FIXED)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, "-m", "hf_cache_lint", "check", "--format", "json", "--jobs", "1"]
    procs = [subprocess.Popen(cmd, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for _ in range(3)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [1, 1, 1], [e.decode() for _, e in outs]
    assert len({o for o, _ in outs}) == 1
    assert len(json.loads(outs[0][0])) == 3
    (entry_file,) = (project / cache_mod.FOLDER / cache_mod.__version__).glob("*.json")
    assert len(json.loads(entry_file.read_text())["files"]) == 6  # whole, valid JSON
    assert not list((project / cache_mod.FOLDER / cache_mod.__version__).glob("*.tmp"))
    again = subprocess.run(cmd, cwd=project, env=env, capture_output=True, timeout=120)
    assert again.stdout == outs[0][0]


def test_a_result_that_needed_jedi_is_not_cached(run: RunFn, project: Path, engine_calls: list[str]) -> None:
    """jedi decides about an unseen receiver from installed packages and files nobody lists: recheck."""
    write(project / "a.py", "def reply(m, a, b):\n    return m.generate(past_key_values=(a, b))\n")
    first = check(run)
    assert codes(first) == ["HFC002"]
    assert check(run) == first
    assert engine_calls == ["a.py", "a.py"]


def test_upgrade_to_with_the_cache_matches_no_cache(run: RunFn, project: Path) -> None:
    """--upgrade-to checks the files again for the newer target: its results are keyed by that target."""
    from test_upgrade import FOUR_X, HYBRID

    write(project / "old.py", FOUR_X)
    write(project / "conflict.py", CONFLICT)
    write(project / "hybrid.py", HYBRID)
    args = ("check", ".", "--transformers-version", "4.57.6", "--upgrade-to", "5.24.0", "--format", "json",
            "--select", "HFC001,HFC005,HFC007")
    expected = run(*args, "--no-cache")
    assert expected.json()
    assert run(*args) == expected  # cold cache
    assert run(*args) == expected  # warm: both targets answered from their own entries


def test_a_cached_finding_keeps_its_tags() -> None:
    from hf_cache_lint.engine.base.findings import CheckResult, Finding, Severity, Span

    hint = Finding("HFC006", "deprecated-cache-usage", "m", Severity.HINT, Span.of(1, 0, 1, 1), tags=("deprecated",))
    assert cache_mod.decode(json.loads(json.dumps(cache_mod.encode(CheckResult("a.py", (hint,))))), "a.py") == \
        CheckResult("a.py", (hint,))


def test_extend_select_is_part_of_the_key(run: RunFn, project: Path) -> None:
    write(project / "a.py", CONFLICT.replace(', cache_implementation="static"', ""))
    assert codes(check(run, "--transformers-version", "5.24.0")) == []
    assert codes(check(run, "--transformers-version", "5.24.0", "--extend-select", "HFC006")) == ["HFC006"]


# -- the warm path: what a run answered from the cache reads, imports and writes ---------------------------
def settle(*paths: Path) -> None:
    """Date the files well before the racy window, as files of a checkout are: their stat can be trusted."""
    for path in paths:
        old = path.stat().st_mtime_ns - 10 * cache_mod.RACY_NS
        os.utime(path, ns=(old, old))


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The files the runner read (a hit by stat reads nothing)."""
    from hf_cache_lint.cli_support import runner

    calls: list[str] = []
    real = runner._read

    def counting(source: object) -> object:
        calls.append(source.display)  # type: ignore[attr-defined]
        return real(source)  # type: ignore[arg-type]

    monkeypatch.setattr(runner, "_read", counting)
    return calls


def entry_file(project: Path) -> Path:
    (found,) = (project / cache_mod.FOLDER / cache_mod.__version__).glob("*.json")
    return found


def test_a_warm_run_reads_no_file_and_writes_nothing(run: RunFn, project: Path, reads: list[str]) -> None:
    settle(write(project / "a.py", CONFLICT), write(project / "b.py", CONFLICT_FIXED))
    first = check(run)
    assert reads == ["a.py", "b.py"]
    before = entry_file(project).stat()
    assert check(run) == first and check(run, "--format", "text").code == 1
    assert reads == ["a.py", "b.py"]  # answered from the stats alone
    after = entry_file(project).stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)  # not rewritten
    assert not list(entry_file(project).parent.glob("*.tmp"))


def test_an_entry_learns_the_stat_once_the_file_is_settled(run: RunFn, project: Path, reads: list[str],
                                                           engine_calls: list[str]) -> None:
    path = write(project / "a.py", CONFLICT)  # just written: its stat is not trusted yet (racy)
    first = check(run)
    (entry,) = json.loads(entry_file(project).read_text())["files"].values()
    assert entry[:3] == [None, None, None]
    settle(path)  # the same content, now old enough
    assert check(run) == first  # a hit by content: the file is read and hashed, and the entry takes the stat
    (entry,) = json.loads(entry_file(project).read_text())["files"].values()
    assert entry[:3] == cache_mod.stat_key(path.stat())
    assert check(run) == first
    assert reads == ["a.py", "a.py"]  # the third run did not read it
    assert engine_calls == ["a.py"]


def test_a_settled_dependency_that_changes_is_a_miss(run: RunFn, project: Path, engine_calls: list[str]) -> None:
    """A dependency that is itself a checked file with a trusted stat is fingerprinted from its entry: a new
    stat (an edit) must still make the importer a miss."""
    main, helpers = write(project / "main.py", MAIN_IMPORTING), write(project / "helpers.py", HELPERS)
    settle(main, helpers)
    assert codes(check(run)) == ["HFC001"]
    assert codes(check(run)) == ["HFC001"]
    assert sorted(engine_calls) == ["helpers.py", "main.py"]
    write(helpers, HELPERS.replace("'static'", "None"))
    assert codes(check(run)) == []
    assert engine_calls.count("main.py") == 2


def test_a_run_from_another_folder_is_keyed_apart(run: RunFn, project: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine names what it probes relative to the current folder, as the printed paths are: from
    another folder an entry's dependency paths would point elsewhere (here at a module that is still absent,
    while the one the import now finds was created), so entries are not shared between folders."""
    write(project / "sub" / "main.py", MAIN_IMPORTING)
    assert codes(check(run, "sub")) == []  # sub/helpers.py does not exist yet
    write(project / "sub" / "helpers.py", HELPERS)
    monkeypatch.chdir(project / "sub")
    expected = check(run, ".", "--format", "text", "--no-cache")
    assert "HFC001" in expected.out and "sub/" not in expected.out
    assert check(run, ".", "--format", "text") == expected
    assert check(run, ".", "--format", "text") == expected


def test_the_cli_quiet_codes_are_the_registry_s() -> None:
    from hf_cache_lint.cli_support.check_cmd import CLI_QUIET
    from hf_cache_lint.rules import ALL_RULES

    assert tuple(r.code for r in ALL_RULES if not r.cli_default) == CLI_QUIET


def test_a_warm_run_does_not_import_the_engine(project: Path) -> None:
    write(project / "a.py", CONFLICT)
    write(project / "b.py", CONFLICT_FIXED)
    write(project / "helpers.py", HELPERS)
    write(project / "main.py", MAIN_IMPORTING)
    heavy = ("parso", "jedi", "hf_cache_lint.rules", "hf_cache_lint.checking", "hf_cache_lint.engine.interpreter.interp",
             "hf_cache_lint.engine.output.analysis", "hf_cache_lint.engine.screen.gate", "hf_cache_lint.engine.text.prefilter",
             "hf_cache_lint.fixcheck", "hf_cache_lint.cli_support.formats.json_format")
    code = ("import sys; from hf_cache_lint.cli import main; main(['check', '--format', 'text']); "
            f"print(sorted(m for m in sys.modules if m.startswith({heavy!r})), file=sys.stderr)")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def loaded() -> tuple[bytes, list[str]]:
        proc = subprocess.run([sys.executable, "-c", code], cwd=project, env=env, capture_output=True, timeout=120)
        return proc.stdout, json.loads(proc.stderr.decode().splitlines()[-1].replace("'", '"'))

    cold_out, cold = loaded()
    assert "parso" in cold and "hf_cache_lint.rules" in cold  # the test can fail: a cold run loads them
    warm_out, warm = loaded()
    assert warm == [] and warm_out == cold_out and b"HFC001" in warm_out


def test_an_entry_is_keyed_by_the_printed_path(run: RunFn, project: Path, engine_calls: list[str]) -> None:
    write(project / "a.py", CONFLICT)
    first = check(run, "a.py")
    assert check(run, "./a.py") == first  # the same printed path: the same entry
    assert check(run, str(project / "a.py")) != first  # printed absolute: checked (and printed) as such
    assert engine_calls == ["a.py", "a.py"]
