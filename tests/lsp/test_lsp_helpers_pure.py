"""Pure helpers of the adapter: settings layering, folder lookup, action kinds, fixAll selection."""

from __future__ import annotations

import pytest

from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Severity, Span
from hf_cache_lint.engine.environment.release_version import NEWEST
from hf_cache_lint.fixcheck import choose, preferred
from hf_cache_lint.lsp.actions import FIX_ALL, quick_fixes, wanted
from hf_cache_lint.lsp.settings import build, editor_mapping, folder_of


def test_editor_settings_are_found_under_any_usual_wrapper():
    flat = {"ignore": ["HFC001"]}
    assert editor_mapping(flat) == flat
    assert editor_mapping({"hfCacheLint": flat}) == flat
    assert editor_mapping({"settings": {"hfCacheLint": flat}}) == flat
    assert editor_mapping(None) == {}


def test_later_layers_win_only_for_the_keys_they_set(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.hf-cache-lint]\nignore = ["HFC002"]\nselect = ["HFC00"]\n')
    config = build(tmp_path, [{"debounceMs": 0}, {"ignore": ["HFC001"], "transformersVersion": None}])
    assert config.settings.ignore == ("HFC001",)
    assert config.settings.select == ("HFC00",)  # from pyproject, untouched by the editor
    assert config.settings.debounce_ms == 0
    assert str(config.context.target) == NEWEST


def test_an_invalid_layer_is_skipped_not_fatal(tmp_path):
    config = build(tmp_path, [{"run": "sometimes"}, {"debounceMs": 5}])
    assert config.settings.run == "onType" and config.settings.debounce_ms == 5


@pytest.mark.parametrize("value", [float("inf"), float("nan"), "9" * 5000, [1]])
def test_a_debounce_no_int_can_hold_is_dropped_with_a_note(tmp_path, value):
    """json.loads reads 1e999 (and Infinity) as inf: int(inf) raised OverflowError, no ValueError, out of build()."""
    config = build(tmp_path, [{"debounceMs": 5}, {"debounceMs": value}])
    assert config.settings.debounce_ms == 5
    assert any("debounceMs" in n for n in config.notes)


def test_the_innermost_folder_holds_a_document():
    folders = ["file:///w", "file:///w/sub", "file:///other"]
    assert folder_of("file:///w/sub/a.py", folders) == "file:///w/sub"
    assert folder_of("file:///w/a.py", folders) == "file:///w"
    assert folder_of("file:///wx/a.py", folders) is None


def test_requested_kinds_are_hierarchical():
    assert wanted(FIX_ALL, None) and wanted(FIX_ALL, ["source"]) and wanted(FIX_ALL, ["source.fixAll"])
    assert not wanted(FIX_ALL, ["quickfix"]) and not wanted("quickfix", ["source"])


def _finding(start: int, end: int) -> Finding:
    fix = Fix("p", (Edit(Span.of(1, start, 1, end), "x"),), preferred=True)
    return Finding("HFC001", "n", "m", Severity.ERROR, Span.of(1, start, 1, end), fixes=(fix,))


def test_fix_all_skips_fixes_that_overlap_or_touch_one_already_taken():
    found = [(0, _finding(0, 5)), (0, _finding(3, 8)), (0, _finding(5, 6)), (0, _finding(10, 12)),
             (1, _finding(3, 8))]  # another cell: no conflict with cell 0
    chosen = choose(preferred(found))
    assert [(c, fix.edits[0].span.start.column) for c, _, fix in chosen] == [(0, 0), (0, 10), (1, 3)]


def _with(code: str, severity: Severity, start: int, end: int, *titles: str) -> Finding:
    fixes = tuple(Fix(t, (Edit(Span.of(1, start, 1, start), t),), preferred=i == 0) for i, t in enumerate(titles))
    return Finding(code, "n", "m", severity, Span.of(1, start, 1, end), fixes=fixes)


def test_quick_fixes_put_errors_first_ignores_last_and_mark_one_preferred_per_overlap():
    hint = _with("HFC006", Severity.HINT, 10, 20, "Rename to `cache=`", "Ignore HFC006 on this line")
    error = _with("HFC001", Severity.ERROR, 10, 30, "Set `cache_implementation=None` in this call",
                  "Remove `past_key_values=`", "Ignore HFC001 on this line")
    apart = _with("HFC004", Severity.WARNING, 40, 45, "Replace with `static`", "Ignore HFC004 on this line")
    got = [(fix.title, mark) for _, _, fix, mark in quick_fixes([(0, hint), (1, error), (2, apart)])]
    assert got == [
        ("Set `cache_implementation=None` in this call", True), ("Remove `past_key_values=`", False),
        ("Replace with `static`", True), ("Rename to `cache=`", False),
        ("Ignore HFC001 on this line", False), ("Ignore HFC004 on this line", False),
        ("Ignore HFC006 on this line", False)]


def test_uri_to_path_uses_pygls_uris() -> None:
    """File URIs through pygls.uris (issue 32: urlparse kept `/c:/` on Windows paths); other schemes stay uris."""
    from hf_cache_lint.lsp.documents import uri_to_path

    assert uri_to_path("file:///tmp/a%20b/c.py") == "/tmp/a b/c.py"
    assert uri_to_path("file:///c%3A/Users/x.py") == "c:/Users/x.py"
    assert uri_to_path("untitled:Untitled-1") == "untitled:Untitled-1"
    assert uri_to_path("vscode-notebook-cell:/a/b.ipynb#W0") == "vscode-notebook-cell:/a/b.ipynb#W0"
