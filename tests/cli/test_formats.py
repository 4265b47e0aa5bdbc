"""The formats on hand-built findings: snippets, notes, notebooks' cells, SARIF shape, GitHub escaping."""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import notebook, write

from hf_cache_lint.cli_support.discovery import SourceFile
from hf_cache_lint.cli_support.formats import concise, github, gitlab, json_format, json_lines, sarif, text
from hf_cache_lint.cli_support.report import Report, build_report
from hf_cache_lint.engine.base.findings import (
    CheckResult,
    Edit,
    FileError,
    Finding,
    Fix,
    Related,
    Severity,
    Span,
)


def finding(span: Span, *, message: str = "boom", related: tuple[Related, ...] = (),
            fixes: tuple[Fix, ...] = (), severity: Severity = Severity.ERROR) -> Finding:
    return Finding("HFC001", "cache-conflict", message, severity, span, fixes, related)


def report_for(path: Path, display: str, *findings: Finding, cell_starts: tuple[int, ...] = ()) -> Report:
    return build_report([SourceFile(path, display)], [CheckResult(display, findings, cell_starts=cell_starts)])


def test_text_underline_counts_tabs_and_wide_characters(tmp_path: Path) -> None:
    src = "\tx = '漢字'; model.generate(a=1)\n"
    p = write(tmp_path / "t.py", src)
    start = src.index("a=1")
    r = report_for(p, "t.py", finding(Span.of(1, start, 1, start + 3)))
    lines = text.render(r).splitlines()
    assert lines[0] == f"t.py:1:{start + 1}: HFC001 boom"
    assert lines[2] == "1 |     x = '漢字'; model.generate(a=1)"
    # tab = 4 columns, each CJK character = 2 columns
    assert lines[3] == "  | " + " " * (4 + len("x = '") + 4 + len("'; model.generate(")) + "^^^ HFC001"


def test_text_multiline_span_underlines_to_end_of_first_line(tmp_path: Path) -> None:
    p = write(tmp_path / "m.py", "out = model.generate(\n    x=1,\n)\n")
    lines = text.render(report_for(p, "m.py", finding(Span.of(1, 6, 3, 1)))).splitlines()
    assert lines[3] == "  |       " + "^" * 15 + " HFC001"


def test_text_notes_related_places_and_help_for_the_preferred_fix(tmp_path: Path) -> None:
    p = write(tmp_path / "r.py", "a = 1\nb = 2\n")
    fixes = (Fix("Other", ()), Fix("Do it", (Edit(Span.of(2, 0, 2, 1), "c"),), preferred=True))
    related = (Related(Span.of(1, 0, 1, 1), "set here"), Related(Span.of(3, 4, 3, 9), "and there", "other.py"))
    lines = text.render(report_for(p, "r.py", finding(Span.of(2, 0, 2, 1), related=related, fixes=fixes)))
    assert "  = note: r.py:1:1: set here" in lines.splitlines()
    assert "  = note: other.py:3:5: and there" in lines.splitlines()
    assert "  = help: Do it" in lines.splitlines()
    assert lines.splitlines()[0] == "r.py:2:1: HFC001 [*] boom"


def test_text_summary_counts_and_pluralises(tmp_path: Path) -> None:
    p = write(tmp_path / "s.py", "a\nb\n")
    f1, f2 = finding(Span.of(1, 0, 1, 1)), finding(Span.of(2, 0, 2, 1))
    fixable = finding(Span.of(2, 0, 2, 1), fixes=(Fix("x", (), preferred=True),))
    assert text.summary(report_for(p, "s.py", f1)) == "Found 1 error."
    assert text.summary(report_for(p, "s.py", f1, f2)) == "Found 2 errors."
    assert text.summary(report_for(p, "s.py", f1, fixable)) == "Found 2 errors (1 fixable with --fix)."
    assert text.summary(report_for(p, "s.py")) == "All checks passed!"
    both = Report(report_for(p, "s.py", f1).items, (FileError("x.py", "bad"), FileError("y.py", "bad")), 3)
    assert text.summary(both) == "Found 1 error. 2 files could not be checked."


def test_notebook_rows_are_relative_to_the_cell_and_cells_count_markdown(tmp_path: Path) -> None:
    nb = notebook(("markdown", "# T\n"), ("code", "import x\n"), ("raw", "r"), ("code", "a = 1\nb = 2\n"))
    p = write(tmp_path / "n.ipynb", nb)
    # Joined module: cell 0 (code #1) is line 1, cell 1 (code #2) starts at line 2.
    f = finding(Span.of(3, 0, 3, 1), related=(Related(Span.of(1, 7, 1, 8), "set in the first cell"),),
                fixes=(Fix("f", (Edit(Span.of(3, 4, 3, 5), "3"),), preferred=True),))
    r = report_for(p, "n.ipynb", f, cell_starts=(1, 2))
    [item] = r.items
    assert (item.cell, item.finding.span, item.line_text) == (4, Span.of(2, 0, 2, 1), "b = 2")
    assert text.render(r).splitlines()[0] == "n.ipynb:cell 4:2:1: HFC001 [*] boom"
    assert "  = note: n.ipynb:cell 2:1:8: set in the first cell" in text.render(r).splitlines()
    [j] = json.loads(json_format.render(r))
    assert j["cell"] == 4 and j["location"] == {"row": 2, "column": 1}
    assert j["fixes"][0]["edits"][0]["location"] == {"row": 2, "column": 5}
    assert j["related"][0] == {"filename": "n.ipynb", "cell": 2, "location": {"row": 1, "column": 8},
                               "end_location": {"row": 1, "column": 9}, "message": "set in the first cell"}
    # SARIF and GitHub name the line of the .ipynb file that holds the cell's line (`"b = 2\n"` in its JSON).
    file_line = next(i for i, line in enumerate(nb.splitlines(), start=1) if '"b = 2\\n"' in line)
    [res] = sarif.sarif_log(r)["runs"][0]["results"]
    assert res["locations"][0]["properties"] == {"cell": 4, "cellRegion": {"startLine": 2, "startColumn": 1,
                                                                           "endLine": 2, "endColumn": 2}}
    assert res["locations"][0]["physicalLocation"]["region"] == {"startLine": file_line, "endLine": file_line}
    assert "fixes" not in res
    assert github.render(r) == (f"::error file=n.ipynb,line={file_line},endLine={file_line},"
                                "title=HFC001 cache-conflict (cell 4%2C line 2%2C column 1)::boom\n")


def test_json_for_a_python_file_has_no_cell_key(tmp_path: Path) -> None:
    p = write(tmp_path / "a.py", "x\n")
    [j] = json.loads(json_format.render(report_for(p, "a.py", finding(Span.of(1, 0, 1, 1)))))
    assert "cell" not in j


def test_sarif_levels_related_locations_and_uris(tmp_path: Path) -> None:
    p = write(tmp_path / "dir with space" / "a.py", "x = 1\n")
    f = finding(Span.of(1, 0, 1, 1), severity=Severity.INFO,
                related=(Related(Span.of(1, 4, 1, 5), "here"),),
                fixes=(Fix("t", (Edit(Span.of(1, 4, 1, 5), "2"),), preferred=True),))
    log = sarif.sarif_log(report_for(p, "dir with space/a.py", f))
    assert log["$schema"].endswith("sarif-2.1.0.json")
    run = log["runs"][0]
    [res] = run["results"]
    assert res["level"] == "note"
    art = res["locations"][0]["physicalLocation"]["artifactLocation"]
    assert art == {"uri": "dir%20with%20space/a.py", "uriBaseId": "%SRCROOT%"}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
    [rel] = res["relatedLocations"]
    assert rel["id"] == 1 and rel["message"] == {"text": "here"}
    assert rel["physicalLocation"]["region"] == {"startLine": 1, "startColumn": 5, "endLine": 1, "endColumn": 6}
    [change] = res["fixes"][0]["artifactChanges"]
    assert change["replacements"] == [{"deletedRegion": {"startLine": 1, "startColumn": 5, "endLine": 1,
                                                         "endColumn": 6},
                                       "insertedContent": {"text": "2"}}]
    for rule in run["tool"]["driver"]["rules"]:
        assert {"id", "name", "shortDescription", "fullDescription", "helpUri", "help"} <= set(rule)
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")


def test_github_escapes_properties_and_data(tmp_path: Path) -> None:
    p = write(tmp_path / "a,b:c.py", "x\n")
    f = finding(Span.of(1, 0, 1, 1), message="50% done\nnext line", severity=Severity.WARNING)
    out = github.render(report_for(p, "a,b:c.py", f))
    assert out == ("::warning file=a%2Cb%3Ac.py,line=1,col=1,endLine=1,endColumn=2,"
                   "title=HFC001 cache-conflict::50%25 done%0Anext line\n")


def test_text_snippet_uses_the_engines_line_split_not_form_feeds(tmp_path: Path) -> None:
    p = write(tmp_path / "ff.py", "a = 1\x0c  # page break\nmodel.generate(x=1)\n")
    lines = text.render(report_for(p, "ff.py", finding(Span.of(2, 15, 2, 18)))).splitlines()
    assert lines[2] == "2 | model.generate(x=1)"


def test_formats_renders_each_name_with_its_module(tmp_path: Path) -> None:
    """FORMATS imports a format's module when first called; each name prints what its module prints."""
    p = write(tmp_path / "t.py", "out = model.generate(a=1)\n")
    r = report_for(p, "t.py", finding(Span.of(1, 6, 1, 9)))
    from hf_cache_lint.cli_support.formats import FORMATS

    modules = {"text": text, "full": text, "concise": concise, "json": json_format, "json-lines": json_lines,
               "sarif": sarif, "github": github, "gitlab": gitlab}
    assert set(FORMATS) == set(modules)
    for name, module in modules.items():
        assert FORMATS[name](r) == module.render(r)
