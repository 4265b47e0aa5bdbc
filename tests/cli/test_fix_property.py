"""Property: every fix the CLI offers (JSON `fixes`) and every `--fix` run, on generated and corpus inputs,
leaves code that compiles, without the finding it fixes, and changes nothing outside the fixed calls.

The fixes are applied here with an applier of the test's own (offsets from the CLI's 1-based JSON rows
and columns), compiled with CPython, and re-checked; the counts are printed (-s) for the record.
"""

from __future__ import annotations

import difflib
import shutil
from collections import Counter
from pathlib import Path

import pytest
from fix_inputs import Input, corpus, generated

from hf_cache_lint.checking.files import check_file
from hf_cache_lint.checking.source import analyse
from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.cli_support.fixer import fix_file
from hf_cache_lint.cli_support.runner import check_one
from hf_cache_lint.engine.base.findings import Edit, Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.settings import Settings

INPUTS = generated(260) + list(corpus())
SETTINGS = Settings()


def compiles(text: str) -> bool:
    try:
        compile(text, "<fixed>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def apply(text: str, edits: tuple[Edit, ...]) -> str:
    """Apply edits by character offsets (lines split on \\r\\n, \\r, \\n): independent of engine/text/text.py."""
    lines = text.splitlines(keepends=True)  # no form feeds or \\u2028 in these inputs
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line))
    spans = sorted(((starts[e.span.start.line - 1] + e.span.start.column,
                     starts[e.span.end.line - 1] + e.span.end.column, e.content) for e in edits), reverse=True)
    for a, b, new in spans:
        text = text[:a] + new + text[b:]
    return text


def stage(inp: Input, tmp_path: Path) -> tuple[SourceFile, Context]:
    """The input as a file in a fresh folder (a corpus file with its folder: it may hold a checkpoint)."""
    folder = tmp_path / "w"
    if inp.path is not None and inp.path.name == "main.py":
        shutil.copytree(inp.path.parent, folder)
        path = folder / "main.py"
    else:
        folder.mkdir()
        path = folder / (inp.path.name if inp.path else "demo.py")
        path.write_bytes(inp.text.encode("utf-8"))
    return SourceFile(path, path.name), Context(target=Target.of(inp.version), workspace=folder)


def codes(findings: tuple[Finding, ...], code: str) -> int:
    return sum(1 for f in findings if f.code == code)


def allowed_lines(text: str, path: str, ctx: Context, findings: tuple[Finding, ...]) -> set[int]:
    """Lines a fix may touch: each generate call's (a later pass may fix a call that a first fix made
    conflict), each finding's, and those of every edit offered for it (an import line)."""
    out: set[int] = set()
    for call in analyse(text, path, ctx).calls:
        out.update(range(call.span.start.line, call.span.end.line + 1))
    for f in findings:
        out.update(range(f.span.start.line, f.span.end.line + 1))
        for fix in f.fixes:
            for e in fix.edits:
                out.update(range(e.span.start.line, e.span.end.line + 1))
    return out


STATS: Counter[str] = Counter(dict.fromkeys(  # the ones that must stay 0, shown even when they do
    ["offered: failed to parse", "offered: finding remained", "--fix: failed to parse",
     "--fix: fixable finding remained"], 0))


@pytest.fixture(scope="module", autouse=True)
def report() -> object:
    yield
    print("\nfix property (CLI):", dict(STATS))


@pytest.mark.parametrize("inp", INPUTS, ids=lambda i: i.name)
def test_offered_fixes_and_fix_runs_are_safe(inp: Input, tmp_path: Path) -> None:
    source, ctx = stage(inp, tmp_path)
    text = source.path.read_bytes().decode("utf-8")
    STATS["inputs"] += 1
    raw = check_file(source.path, SETTINGS, ctx, display=source.display)
    result = check_one(source, SETTINGS, ctx)  # what the CLI reports: fixes verified
    STATS["findings"] += len(result.findings)
    STATS["fixes dropped by verification"] += sum(len(a.fixes) - len(b.fixes)
                                                  for a, b in zip(raw.findings, result.findings, strict=True))
    original_compiles = compiles(text)
    for f in result.findings:
        before = codes(result.findings, f.code)
        for fix in f.fixes:
            STATS["fixes offered"] += 1
            new = apply(text, fix.edits)
            if original_compiles and not compiles(new):
                STATS["offered: failed to parse"] += 1
                pytest.fail(f"{fix.title!r} for {f.code} gives code that does not compile:\n{new}")
            after = check_file_text(new, source, ctx)
            if codes(after, f.code) >= before:
                STATS["offered: finding remained"] += 1
                pytest.fail(f"{fix.title!r} leaves {f.code} in place:\n{new}")
    # --fix, as the CLI runs it
    outcome = fix_file(source, SETTINGS, ctx)
    assert outcome.error is None
    fixed = source.path.read_bytes().decode("utf-8")
    STATS["--fix runs that changed the file"] += fixed != text
    STATS["fixes applied by --fix"] += outcome.fixed
    assert (fixed != text) == (outcome.fixed > 0)
    if original_compiles and not compiles(fixed):
        STATS["--fix: failed to parse"] += 1
        pytest.fail(f"--fix wrote code that does not compile:\n{fixed}")
    left = check_one(source, SETTINGS, ctx).findings
    if any(x.preferred and x.safe for g in left for x in g.fixes):  # an unsafe fix waits for --unsafe-fixes
        STATS["--fix: fixable finding remained"] += 1
        pytest.fail(f"--fix left a fixable finding: {[g.message for g in left]}")
    if "\r\n" in text:
        assert fixed.count("\n") == fixed.count("\r\n"), "--fix mixed newline styles"
    allowed = allowed_lines(text, str(source.path), ctx, result.findings)
    old_lines, new_lines = text.splitlines(keepends=True), fixed.splitlines(keepends=True)
    for op, i1, i2, _, _ in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        touched = set(range(i1 + 1, i2 + 1)) if i2 > i1 else {i1, i1 + 1}
        assert touched & allowed, f"--fix changed lines {sorted(touched)} away from every finding:\n{fixed}"


def check_file_text(text: str, source: SourceFile, ctx: Context) -> tuple[Finding, ...]:
    path = source.path.with_name("recheck_" + source.path.name)
    path.write_text(text, encoding="utf-8", newline="")
    try:
        return check_file(path, SETTINGS, ctx, display=source.display).findings
    finally:
        path.unlink()
