"""Bad input never produces a traceback: a clear per-file error, and the other files still checked."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cli_helpers import CONFLICT, TARGET_LINE, RunFn, notebook, write


def check_with_good_file(project: Path, run: RunFn, *bad: str) -> tuple[int, list[str], list[str]]:
    """Check the bad files next to a file with one finding: (exit code, flagged files, stderr lines)."""
    write(project / "good.py", CONFLICT)
    r = run("check", "--format", "json", *bad, "good.py")
    assert "Traceback" not in r.err
    items = r.json()
    # Each file that could not be checked is in the JSON too (`"code": null`, as Ruff writes its syntax errors),
    # with the message stderr gives.
    errors = [f"{f['filename']}: error: {f['message']}" for f in items if f["code"] is None]
    assert errors == [line for line in r.err.splitlines() if ": error: " in line]
    assert all(f["name"] == "file-error" and f["severity"] == "error" for f in items if f["code"] is None)
    return r.code, [f["filename"] for f in items if f["code"] is not None], r.err.splitlines()


def test_non_utf8_file(project: Path, run: RunFn) -> None:
    write(project / "latin.py", b"# caf\xe9\nmodel.generate()\n")
    code, flagged, err = check_with_good_file(project, run, "latin.py")
    assert (code, flagged) == (1, ["good.py"])
    [line] = err
    assert line.startswith("latin.py: error: not valid UTF-8")


def test_unknown_declared_encoding(project: Path, run: RunFn) -> None:
    write(project / "weird.py", b"# -*- coding: no-such-codec -*-\nmodel.generate()\n")
    code, flagged, err = check_with_good_file(project, run, "weird.py")
    assert (code, flagged) == (1, ["good.py"])
    assert err[0].startswith("weird.py: error: ") and "no-such-codec" in err[0]


def test_binary_file(project: Path, run: RunFn) -> None:
    write(project / "blob.py", bytes(range(256)) * 4)
    code, flagged, err = check_with_good_file(project, run, "blob.py")
    assert (code, flagged, err) == (1, ["good.py"], ["blob.py: error: binary file (contains NUL bytes)"])


def test_five_megabyte_file_is_checked(project: Path, run: RunFn) -> None:
    # Long literal lines: a 5 MB run of comment lines costs parso seconds (its tokenizer is quadratic
    # in a prefix), which is a performance question (bench/), not the bad-input one asked here.
    filler = 'BLOB = "' + "x" * 10_000 + '"\n'
    big = write(project / "big.py", filler * (5 * 1024 * 1024 // len(filler) + 1) + CONFLICT)
    assert big.stat().st_size > 5_000_000
    code, flagged, err = check_with_good_file(project, run, "big.py")
    assert (code, flagged, err) == (1, ["big.py", "good.py"], [])


def test_oversized_file_is_skipped_with_a_message(project: Path, run: RunFn) -> None:
    with open(project / "huge.py", "wb") as f:
        f.truncate(21 * 1024 * 1024)  # sparse: costs no disk and no time
    code, flagged, err = check_with_good_file(project, run, "huge.py")
    assert (code, flagged, err) == (1, ["good.py"], ["huge.py: error: larger than 20 MiB, skipped"])


def test_deeply_nested_code_is_skipped_alone(project: Path, run: RunFn) -> None:
    # Too deep for Python's stack: that statement is skipped with a note, the rest of the file is checked
    # (its conflict is found) and the run does not fail for it.
    depth = 5000
    write(project / "deep.py", "x = " + "(" * depth + "1" + ")" * depth + "\n" + CONFLICT)
    write(project / "deep_list.py", "x = " + "[" * depth + "]" * depth + "\nmodel.generate()\n")
    code, flagged, err = check_with_good_file(project, run, "deep.py", "deep_list.py")
    assert code == 1 and flagged == ["deep.py", "good.py"]
    assert "deep.py: note: a statement too deeply nested to analyse skipped (at line 1)" in err
    # (CPython itself refuses 5,000 nested brackets, so the fixes' own re-check drops them with a warning.)
    assert not [line for line in err if ": error:" in line]


def test_broken_notebook_json(project: Path, run: RunFn) -> None:
    write(project / "broken.ipynb", '{"cells": [')
    write(project / "nocells.ipynb", '{"metadata": {}}')
    write(project / "badsource.ipynb", json.dumps({"cells": [{"cell_type": "code", "source": [1, 2]}]}))
    write(project / "nested.ipynb", "[" * 100_000 + "]" * 100_000)
    code, flagged, err = check_with_good_file(project, run, "broken.ipynb", "nocells.ipynb", "badsource.ipynb",
                                              "nested.ipynb")
    assert (code, flagged) == (1, ["good.py"])
    assert err[0].startswith("broken.ipynb: error: invalid notebook JSON: ")
    assert err[1] == "nocells.ipynb: error: invalid notebook: no 'cells' list"
    assert err[2].startswith("badsource.ipynb: error: invalid notebook")
    assert err[3].startswith("nested.ipynb: error: invalid notebook")
    assert len(err) == 4


@pytest.mark.parametrize(("meta", "checked"), [
    ({"kernelspec": {"name": "ir", "language": "R"}, "language_info": {"name": "R"}}, False),
    ({"kernelspec": {"name": "julia-1.10", "language": "julia"}}, False),
    ({"language_info": {"name": "python"}, "kernelspec": {"name": "python3", "language": "python"}}, True),
    ({"kernelspec": {"name": "python3", "display_name": "Python 3"}}, True),
    ({}, True),
])
def test_a_notebook_whose_kernel_is_not_python_is_neither_checked_nor_fixed(
        project: Path, run: RunFn, meta: dict[str, object], checked: bool) -> None:
    """An R or Julia notebook's cell may parse as Python (this one is the HFC001 conflict): it is not Python, so no
    finding is claimed and `--fix` leaves every byte; a notebook that says Python, or says nothing, is checked."""
    cells = [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
              "source": CONFLICT.splitlines(keepends=True)}]
    text = json.dumps({"cells": cells, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"
    write(project / "nb.ipynb", text)
    r = run("check", "--format", "json", "nb.ipynb")
    assert "Traceback" not in r.err and "error" not in r.err.lower(), r.err
    assert [f["code"] for f in r.json()] == (["HFC001"] if checked else [])
    fixed = run("check", "--fix", "--unsafe-fixes", "nb.ipynb")
    assert "Traceback" not in fixed.err, fixed.err
    assert ((project / "nb.ipynb").read_text() == text) is not checked


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "full"])
def test_notebook_with_an_integer_past_the_digit_limit_is_checked(project: Path, run: RunFn, fmt: str) -> None:
    """Python's int() refuses more than 4,300 digits (a ValueError, not a JSONDecodeError): a notebook holding such a
    number in its metadata, a cell's execution_count or its type is valid JSON, checked like any other."""
    cells = [{"cell_type": "code", "execution_count": 0, "metadata": {}, "outputs": [],
              "source": CONFLICT.splitlines(keepends=True)}]
    text = json.dumps({"cells": cells, "metadata": {"n": 0}, "nbformat": 4, "nbformat_minor": 5})
    text = text.replace('"execution_count": 0', '"execution_count": ' + "7" * 5000)
    text = text.replace('"n": 0', '"n": -' + "9" * 6000).replace('{"cells": [', '{"cells": [{"cell_type": '
                                                                  + "1" * 5000 + ', "source": "x"}, ')
    write(project / "big.ipynb", text)
    r = run("check", "--format", fmt, "big.ipynb")
    assert r.code == 1 and "error" not in r.err.lower() and "Traceback" not in r.err, r.err
    assert "HFC001" in r.out
    if fmt == "json":
        assert [(f["code"], f["cell"]) for f in r.json()] == [("HFC001", 2)]


@pytest.mark.skipif(os.name == "nt", reason="a file name that is not UTF-8 is a POSIX thing")
@pytest.mark.parametrize("fmt", ["full", "concise", "json", "json-lines", "sarif", "github", "gitlab"])
def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(project: Path, run: RunFn, fmt: str) -> None:
    """Python holds such a name's bytes as surrogates; the SARIF URI (quote) and the GitLab fingerprint (sha256 of
    the UTF-8 text) refused them: the run ended with an internal error and no report."""
    write(project / os.fsdecode(b"caf\xe9.py"), CONFLICT)
    r = run("check", "--format", fmt, ".")
    assert r.code == 1 and "internal error" not in r.err, r.err
    assert "HFC001" in r.out or "major" in r.out
    if fmt == "sarif":
        assert '"uri": "caf%E9.py"' in r.out


@pytest.mark.skipif(os.name == "nt", reason="a file name that is not UTF-8 is a POSIX thing")
def test_show_files_lists_a_file_name_that_is_not_utf8(project: Path, run: RunFn) -> None:
    write(project / os.fsdecode(b"caf\xe9.py"), CONFLICT)
    r = run("check", "--show-files", ".")
    assert (r.code, r.out, r.err) == (0, "caf\\udce9.py\n", "")


def test_unreadable_file(project: Path, run: RunFn, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / "secret.py", CONFLICT)
    real = Path.read_bytes

    def deny(self: Path) -> bytes:
        if self.name == "secret.py":
            raise PermissionError(13, "Permission denied")
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", deny)
    code, flagged, err = check_with_good_file(project, run, "secret.py")
    assert (code, flagged, err) == (1, ["good.py"], ["secret.py: error: cannot read: Permission denied"])


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_file_by_mode(project: Path, run: RunFn) -> None:
    path = write(project / "secret.py", CONFLICT)
    path.chmod(0)
    code, flagged, err = check_with_good_file(project, run, "secret.py")
    assert (code, flagged, err) == (1, ["good.py"], ["secret.py: error: cannot read: Permission denied"])


def test_unlistable_folder_is_reported(project: Path, run: RunFn, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / "locked" / "x.py", CONFLICT)
    real = os.scandir

    def deny(path):  # type: ignore[no-untyped-def]
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(os, "scandir", deny)
    r = run("check", "--format", "json", ".")
    assert r.err.splitlines() == ["locked: error: cannot list folder: Permission denied"]
    assert r.code == 1


def test_file_errors_count_for_the_exit_status_unless_exit_zero(project: Path, run: RunFn) -> None:
    write(project / "blob.py", b"\x00\x01")
    r = run("check", "blob.py")
    assert r.code == 1
    assert r.out == TARGET_LINE + "No findings, but 1 file could not be checked.\n"
    assert run("check", "--exit-zero", "blob.py").code == 0


def test_file_errors_appear_in_sarif_notifications_and_github_annotations(project: Path, run: RunFn) -> None:
    write(project / "blob.py", b"\x00\x01")
    log = run("check", "--format", "sarif", "blob.py").json()
    [note] = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"] == "binary file (contains NUL bytes)"
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "blob.py"
    out = run("check", "--format", "github", "blob.py").out
    assert out == "::error file=blob.py,title=hf-cache-lint::binary file (contains NUL bytes)\n"


def test_syntax_errors_elsewhere_do_not_hide_findings(project: Path, run: RunFn) -> None:
    write(project / "half.py", "def broken(:\n    pass\n" + CONFLICT)
    r = run("check", "--format", "json", "half.py")
    assert [f["location"]["row"] for f in r.json()] == [6]


def test_empty_and_whitespace_files_pass(project: Path, run: RunFn) -> None:
    write(project / "empty.py", "")
    write(project / "blank.py", "\n\n   \n")
    write(project / "empty.ipynb", notebook())
    assert run("check", "empty.py", "blank.py", "empty.ipynb").code == 0
