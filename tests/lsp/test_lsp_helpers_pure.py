"""Pure helpers of the adapter: settings layering, folder lookup, action kinds, fixAll selection."""

from __future__ import annotations

from hf_cache_lint.engine.findings import Edit, Finding, Fix, Severity, Span
from hf_cache_lint.lsp.actions import FIX_ALL, preferred_edits, wanted
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
    assert str(config.context.target) == "5.24.0"


def test_an_invalid_layer_is_skipped_not_fatal(tmp_path):
    config = build(tmp_path, [{"run": "sometimes"}, {"debounceMs": 5}])
    assert config.settings.run == "onType" and config.settings.debounce_ms == 5


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


def test_fix_all_skips_fixes_that_overlap_one_already_taken():
    edits = preferred_edits([_finding(0, 5), _finding(3, 8), _finding(10, 12)])
    assert [e.span.start.column for e in edits] == [0, 10]
