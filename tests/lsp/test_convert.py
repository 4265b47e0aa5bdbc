"""Pure conversions between engine values and LSP values (no server process)."""

from __future__ import annotations

import pytest
from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Position, Related, Severity, Span
from hf_cache_lint.lsp import convert

LINE = 'x = f("🤗é", cache_implementation="static")\n'  # 🤗: 1 code point, 2 UTF-16 units, 4 UTF-8 bytes
COL = LINE.index("cache_implementation")  # code points


@pytest.mark.parametrize(("encoding", "expected"), [
    (types.PositionEncodingKind.Utf16, COL + 1),
    (types.PositionEncodingKind.Utf8, COL + 3 + 1),
    (types.PositionEncodingKind.Utf32, COL),
])
def test_code_point_columns_become_client_units_and_back(encoding, expected):
    lines = convert.split_lines("first\n" + LINE)
    codec = PositionCodec(encoding)
    client = convert.to_client_position(lines, codec, Position(2, COL))
    assert client == types.Position(1, expected)
    assert convert.from_client_position(lines, codec, client) == Position(2, COL)


@pytest.mark.parametrize("encoding", [types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8,
                                      types.PositionEncodingKind.Utf32])
def test_to_client_position_answers_as_pygls_codec_on_every_line_and_column(encoding):
    # The ASCII shortcut must give the codec's own answer: before, at and after a wide character, past the
    # end of a line, on the empty last line and on lines past the end of the document.
    lines = convert.split_lines("ab = 1\n" + LINE + "é\r\n\tz\r")
    codec = PositionCodec(encoding)
    for line in range(1, len(lines) + 3):
        for column in range(0, 60):
            expected = codec.position_to_client_units(lines, ServerTextPosition(line - 1, column))
            assert convert.to_client_position(lines, codec, Position(line, column)) == expected, (line, column)
            span = Span(Position(line, column), Position(line, column + 3))
            assert convert.client_range_json(lines, codec, span) == convert.range_json(
                convert.to_client_range(lines, codec, span))
    with pytest.raises(ValueError):  # engine lines start at 1: line 0 is refused, as lsprotocol refuses it
        convert.to_client_position(lines, codec, Position(0, 0))
    with pytest.raises(ValueError):
        convert.client_range_json(lines, codec, Span.of(0, 0, 0, 1))


def test_lines_split_like_lsp_not_like_str_splitlines():
    # \x0c (form feed) and \u2028 are line breaks for str.splitlines but not for LSP or the engine.
    text = "a\x0cb\u2028c\r\nd\re\n"
    assert convert.split_lines(text) == ["a\x0cb\u2028c\r\n", "d\r", "e\n", ""]


def test_lines_split_by_str_splitlines_where_it_can_are_the_same_lines():
    # split_lines hands texts without \v, \f, \x1c-\x1e, \x85, \u2028, \u2029 to str.splitlines: seeded random
    # texts of every line break and lookalike against the definition (re.split on \r\n, \r, \n).
    import random
    import re

    def reference(text: str) -> list[str]:
        parts = re.split(r"(\r\n|\r|\n)", text)
        return [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)] + [parts[-1]]

    rng = random.Random(14)
    pieces = ["a", " ", "\t", "é", "🤗", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85",
              "\u2028", "\u2029"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 10)))
        assert convert.split_lines(text) == reference(text), repr(text)


def test_position_past_the_end_of_a_line_is_clamped_without_mutating_the_request():
    lines = convert.split_lines("ab\n")
    request = types.Position(0, 99)
    assert convert.from_client_position(lines, PositionCodec(), request).line == 1
    assert request.character == 99


def test_empty_document_positions():
    assert convert.from_client_position([], PositionCodec(), types.Position(0, 0)) == Position(1, 0)


FINDING = Finding(
    code="HFC001", name="cache-conflict", message="m", severity=Severity.ERROR,
    span=Span.of(1, COL, 1, COL + 20),
    fixes=(Fix("Set `cache_implementation=None` in this call",
               (Edit(Span.of(1, COL, 1, COL + 29), "cache_implementation=None"),), preferred=True),),
    related=(Related(Span.of(1, 0, 1, 1), "set here"), Related(Span.of(1, 0, 1, 1), "elsewhere", "cell:3")),
)


def test_a_finding_becomes_a_diagnostic_with_link_source_related_and_fix_data():
    lines = convert.split_lines(LINE)
    codec = PositionCodec()
    diag = convert.to_diagnostic(FINDING, lines, codec, 4, lambda path: ("file:///x.py", lines) if path is None else None)
    assert diag.range == types.Range(types.Position(0, COL + 1), types.Position(0, COL + 21))
    assert diag.severity == types.DiagnosticSeverity.Error
    assert (diag.code, diag.source) == ("HFC001", "hf-cache-lint")
    assert diag.code_description.href == FINDING.url
    # The related place that cannot be located is left out rather than pointing somewhere wrong.
    assert [r.message for r in diag.related_information] == ["set here"]
    assert diag.data["version"] == 4
    (fix,) = diag.data["fixes"]
    assert fix["preferred"] is True
    (edit,) = convert.text_edits(fix)
    assert edit.range.start == types.Position(0, COL + 1) and edit.new_text == "cache_implementation=None"


def test_text_edits_round_trip_to_engine_edits():
    lines = convert.split_lines(LINE)
    codec = PositionCodec()
    fix = convert.fix_json(FINDING.fixes[0], lines, codec)
    (edit,) = convert.text_edits(fix)
    assert convert.engine_edit(lines, codec, edit) == FINDING.fixes[0].edits[0]


@pytest.mark.parametrize("version", [4, None])
def test_fix_data_is_sent_as_the_same_json_when_the_converter_passes_it_through(version):
    # pygls's converter copies a plain dict key by key; with register_json_hooks it hands Diagnostic.data to
    # json.dumps as it is. What the client reads must be the same bytes either way.
    import json

    from pygls.protocol import default_converter

    lines = convert.split_lines(LINE)
    diag = convert.to_diagnostic(FINDING, lines, PositionCodec(), version,
                                 lambda path: ("file:///x.py", lines) if path is None else None)
    message = types.PublishDiagnosticsNotification(params=types.PublishDiagnosticsParams("file:///x.py", [diag], 4))
    plain, passing = default_converter(), default_converter()
    convert.register_json_hooks(passing)
    sent = passing.unstructure(message)
    assert sent["params"]["diagnostics"][0]["data"] is diag.data  # passed through, not copied
    assert json.dumps(sent) == json.dumps(plain.unstructure(message))
    assert json.loads(json.dumps(sent))["params"]["diagnostics"][0]["data"] == {
        "version": version, "fixes": [{"title": FINDING.fixes[0].title, "preferred": True, "applicability": "safe", "edits": [
            {"range": {"start": {"line": 0, "character": COL + 1}, "end": {"line": 0, "character": COL + 30}},
             "newText": "cache_implementation=None"}]}]}


def _diagnostics_of_every_kind() -> list[types.Diagnostic]:
    """Ours for every rule example (on each checked version), and what clients send back: every optional field
    set and unset, an int code, a plain dict of data, empty lists, non-ASCII text."""
    from hf_cache_lint.checking.source import check_source
    from hf_cache_lint.engine.environment.context import Context
    from hf_cache_lint.engine.environment.target import Target
    from hf_cache_lint.rules import ALL_RULES
    from hf_cache_lint.rules.base import CHECKED_VERSIONS

    out = []
    for rule in ALL_RULES:
        for ex in rule.invalid:
            for version in CHECKED_VERSIONS:
                lines = convert.split_lines(ex.code)
                for f in check_source(ex.code, "/x/example.py", None, Context(target=Target.of(version))).findings:
                    out.append(convert.to_diagnostic(f, lines, PositionCodec(), 7, lambda path, lines=lines: (
                        "file:///x/example.py" if path is None else "file:///x/other.json", lines)))
    r = types.Range(types.Position(0, 1), types.Position(2, 3))
    out += [
        types.Diagnostic(range=r, message="é 🤗"),
        types.Diagnostic(range=r, message="m", severity=types.DiagnosticSeverity.Hint, code=12, source="other",
                         tags=[], related_information=[], data={"a": [1, None, {"b": True}]}),
        types.Diagnostic(range=r, message="m", code="E1", code_description=types.CodeDescription(href="https://x"),
                         tags=[types.DiagnosticTag.Unnecessary, types.DiagnosticTag.Deprecated], data="text",
                         related_information=[types.DiagnosticRelatedInformation(types.Location("file:///y", r), "y")]),
        types.Diagnostic(range=r, message="", data={}),
        types.Diagnostic(range=r, message="m", data=0),
    ]
    return out


def test_a_diagnostic_is_written_as_lsprotocols_converter_writes_it():
    import json

    from pygls.protocol import default_converter

    found = _diagnostics_of_every_kind()
    assert len(found) > 100 and any(d.tags for d in found) and any(d.related_information for d in found)
    plain, hooked = default_converter(), default_converter()
    convert.register_json_hooks(hooked)
    for d in found:
        assert json.dumps(hooked.unstructure(d)) == json.dumps(plain.unstructure(d)), d
    # Inside the messages that carry them too (cattrs picks the hook for a list of Diagnostics).
    for message in (types.PublishDiagnosticsNotification(params=types.PublishDiagnosticsParams("file:///x", found, 3)),
                    types.DocumentDiagnosticResponse(id=1, result=types.RelatedFullDocumentDiagnosticReport(
                        items=found, result_id="k")),
                    types.CodeActionResponse(id=2, result=[types.CodeAction(title="t", diagnostics=found[:3])])):
        assert json.dumps(hooked.unstructure(message)) == json.dumps(plain.unstructure(message))


def test_a_publish_writes_each_finding_as_the_converter_wrote_its_diagnostic():
    # The push path writes the JSON straight from the finding (convert.diagnostic_dict); pull and code actions
    # still build lsprotocol's objects. Both must reach the client as the same JSON, on every rule example.
    import json

    from pygls.protocol import default_converter

    from hf_cache_lint.checking.source import check_source
    from hf_cache_lint.engine.environment.context import Context
    from hf_cache_lint.engine.environment.target import Target
    from hf_cache_lint.rules import ALL_RULES
    from hf_cache_lint.rules.base import CHECKED_VERSIONS

    plain = default_converter()
    seen = 0
    for rule in ALL_RULES:
        for ex in rule.invalid:
            for version in CHECKED_VERSIONS:
                lines = convert.split_lines(ex.code)
                for f in check_source(ex.code, "/x/example.py", None, Context(target=Target.of(version))).findings:
                    for codec in (PositionCodec(), PositionCodec(types.PositionEncodingKind.Utf8)):
                        for located in (True, False):
                            def locate(path, lines=lines, located=located):
                                if not located and path is not None:
                                    return None
                                return ("file:///x/example.py" if path is None else "file:///x/other.json", lines)
                            direct = convert.diagnostic_dict(f, lines, codec, 7, locate)
                            made = convert.to_diagnostic(f, lines, codec, 7, locate)
                            assert json.dumps(direct) == json.dumps(plain.unstructure(made)), f
                            seen += 1
    assert seen > 400
    lines = convert.split_lines(LINE)  # non-ASCII columns, a related place in a cell nobody can locate
    for encoding in (types.PositionEncodingKind.Utf16, types.PositionEncodingKind.Utf8):
        def here(path):
            return ("file:///x.py", lines) if path is None else None
        made = convert.to_diagnostic(FINDING, lines, PositionCodec(encoding), None, here)
        assert json.dumps(convert.diagnostic_dict(FINDING, lines, PositionCodec(encoding), None, here)) == \
            json.dumps(plain.unstructure(made))
