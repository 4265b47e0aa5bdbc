"""A file analysed only in part says so in every format, is not an error, and keeps its findings."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import CONFLICT, RunFn, write

NOTE = "a statement too deeply nested to analyse skipped (at line 1)"


def _project(project: Path) -> None:
    write(project / "deep.py", "x = " + "(" * 3000 + "1" + ")" * 3000 + "\n" + CONFLICT)


def test_text_and_json_keep_the_findings_and_note_on_stderr(project: Path, run: RunFn) -> None:
    _project(project)
    r = run("check", "--format", "json", "deep.py")
    assert r.code == 1  # the conflict, not the note
    assert [f["code"] for f in r.json() if f["code"] == "HFC001"] == ["HFC001"]
    assert f"deep.py: note: {NOTE}" in r.err.splitlines()


def test_github_notice_and_sarif_notification(project: Path, run: RunFn) -> None:
    _project(project)
    gh = run("check", "--format", "github", "deep.py")
    assert f"::notice file=deep.py,title=hf-cache-lint::{NOTE}" in gh.out.splitlines()
    sarif = json.loads(run("check", "--format", "sarif", "deep.py").out)
    [note] = [n for n in sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"] if n["level"] == "note"]
    assert note["message"]["text"] == NOTE
