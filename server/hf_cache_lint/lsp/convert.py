"""Engine values <-> LSP values. Pure functions; the one place LSP positions are converted.

Bases that meet here: the engine counts lines from 1 and columns in code points (findings.py);
LSP counts lines from 0 and columns in the negotiated position encoding (UTF-16 unless the client
offered UTF-8/UTF-32). pygls's `PositionCodec` does the column arithmetic; lines are split here like
the engine and the LSP spec split them (\\n, \\r\\n, \\r), not with `str.splitlines`, which also
breaks on \\x0c, \\u2028 and friends and would shift every later line.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec, ServerTextPosition

from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Position, Severity, Span

SOURCE = "hf-cache-lint"

SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}

# The engine's finding tags -> LSP's: a deprecation is drawn struck through, without a squiggle.
TAGS = {"deprecated": types.DiagnosticTag.Deprecated, "unnecessary": types.DiagnosticTag.Unnecessary}

# Related place -> (uri, lines of that document), or None when it cannot be shown.
Locate = Callable[[str | None], "tuple[str, Sequence[str]] | None"]


_BREAK = re.compile(r"(\r\n|\r|\n)")
# Where `str.splitlines` breaks a line and LSP does not (\v, \f, \x1c-\x1e; and beyond ASCII \x85, \u2028,
# \u2029). Looked for one by one: each `in` is a C scan, and a regex character class scans 4x slower.
_OTHER_ASCII_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e")
_OTHER_BREAKS = (*_OTHER_ASCII_BREAKS, "\x85", "\u2028", "\u2029")


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split on \\n, \\r\\n and \\r only (LSP and engine agree on these); after
    a final line break, an empty last line.

    Same lines as engine.text.line_starts. It runs twice a keystroke (pygls's edit of the document, the
    publish): a text without the other characters `str.splitlines` breaks at is split by it (8x faster than
    `re.split` and joining the pieces, ~2 ms on a 4,500-line file); the rest by `re.split`.
    """
    if not any(c in text for c in (_OTHER_ASCII_BREAKS if text.isascii() else _OTHER_BREAKS)):
        lines = text.splitlines(True)
        if not lines or lines[-1][-1] in "\r\n":
            lines.append("")
        return lines
    parts = _BREAK.split(text)
    return [parts[i] + parts[i + 1] for i in range(0, len(parts) - 1, 2)] + [parts[-1]]


def client_point(lines: Sequence[str], codec: PositionCodec, pos: Position) -> tuple[int, int]:
    """(line, character) of `pos` in the client's encoding: what pygls's codec answers, without its objects."""
    line = pos.line - 1
    try:
        before = lines[line][: pos.column]
    except IndexError:  # what the codec answers for a line past the end
        return len(lines), 0
    if before.isascii():
        # One code unit per character in UTF-8, UTF-16 and UTF-32 alike: the codec's answer without its
        # per-character loop (in Python: ~8 % of a keystroke on a 100-line script, two calls per range).
        if line < 0:  # lsprotocol's Position refuses it: so does this
            raise ValueError(f"Position.line should be in range [0:2147483647], but was {line}.")
        return line, len(before)
    client = codec.position_to_client_units(lines, ServerTextPosition(line, pos.column))
    return client.line, client.character


def to_client_position(lines: Sequence[str], codec: PositionCodec, pos: Position) -> types.Position:
    line, character = client_point(lines, codec, pos)
    return types.Position(line=line, character=character)


def to_client_range(lines: Sequence[str], codec: PositionCodec, span: Span) -> types.Range:
    return types.Range(to_client_position(lines, codec, span.start), to_client_position(lines, codec, span.end))


def client_range_json(lines: Sequence[str], codec: PositionCodec, span: Span) -> dict[str, Any]:
    """`range_json(to_client_range(...))` without building the lsprotocol objects (a fix's data is plain JSON)."""
    start_line, start_character = client_point(lines, codec, span.start)
    end_line, end_character = client_point(lines, codec, span.end)
    return {"start": {"line": start_line, "character": start_character},
            "end": {"line": end_line, "character": end_character}}


def from_client_position(lines: Sequence[str], codec: PositionCodec, pos: types.Position) -> Position:
    if not lines:
        return Position(1, 0)
    # The codec mutates an out-of-range character in place: give it a copy.
    server = codec.position_from_client_units(lines, types.Position(pos.line, pos.character))
    return Position(server.line + 1, server.character)


def range_json(r: types.Range) -> dict[str, Any]:
    return {"start": {"line": r.start.line, "character": r.start.character},
            "end": {"line": r.end.line, "character": r.end.character}}


def range_from_json(data: Mapping[str, Any]) -> types.Range:
    s, e = data["start"], data["end"]
    return types.Range(types.Position(int(s["line"]), int(s["character"])),
                       types.Position(int(e["line"]), int(e["character"])))


class Payload(dict[str, Any]):
    """`Diagnostic.data`: a dict of JSON values only (str, int, bool, None, lists and dicts of them).

    pygls serialises a message with cattrs, which copies a dict typed `LSPAny` key by key, recursively: for the
    fixes of a publish that was most of the serialisation (~1 ms of a 100-line script's keystroke). With
    `register_payload`, the converter hands a Payload to `json.dumps` as it is: the same JSON, at C speed."""


def register_json_hooks(converter: Any) -> None:
    """Teach a cattrs converter (pygls's) to write what a publish is made of at less cost: a Payload as it is, a
    Diagnostic with `diagnostic_json`. Without them the JSON is the same, only slower to make."""
    converter.register_unstructure_hook(Payload, _as_is)
    converter.register_unstructure_hook(types.Diagnostic, functools.partial(diagnostic_json, converter.unstructure))


def _as_is(payload: Payload) -> Payload:
    return payload


def diagnostic_json(unstructure: Callable[[Any], Any], d: types.Diagnostic) -> dict[str, Any]:
    """What lsprotocol's converter makes of a Diagnostic (its fields in order, camelCase, None left out, enums as
    their values; `data` through `unstructure`), written out: cattrs's generic code, one call per field and
    value, cost more than the JSON encoding of a publish (tests compare the two on every kind of Diagnostic)."""
    out: dict[str, Any] = {"range": range_json(d.range), "message": d.message}
    if d.severity is not None:
        out["severity"] = d.severity.value
    if d.code is not None:
        out["code"] = d.code
    if d.code_description is not None:
        out["codeDescription"] = {"href": d.code_description.href}
    if d.source is not None:
        out["source"] = d.source
    if d.tags is not None:
        out["tags"] = [t.value for t in d.tags]
    if d.related_information is not None:
        out["relatedInformation"] = [
            {"location": {"uri": r.location.uri, "range": range_json(r.location.range)}, "message": r.message}
            for r in d.related_information]
    if d.data is not None:
        out["data"] = unstructure(d.data)
    return out


def fix_json(fix: Fix, lines: Sequence[str], codec: PositionCodec) -> dict[str, Any]:
    """A fix as JSON for `Diagnostic.data`, its ranges already in the client's encoding."""
    return {"title": fix.title, "preferred": fix.preferred, "applicability": fix.applicability,
            "edits": [{"range": client_range_json(lines, codec, e.span), "newText": e.content}
                      for e in fix.edits]}


def text_edits(fix_data: Mapping[str, Any]) -> list[types.TextEdit]:
    return [types.TextEdit(range_from_json(e["range"]), str(e["newText"])) for e in fix_data.get("edits", ())]


def to_diagnostic(
    finding: Finding, lines: Sequence[str], codec: PositionCodec, version: int | None, locate: Locate
) -> types.Diagnostic:
    """One finding as a Diagnostic whose `data` carries the fixes, so code actions match what was shown."""
    related = []
    for r in finding.related:
        where = locate(r.path)
        if where is not None:
            uri, rlines = where
            related.append(types.DiagnosticRelatedInformation(
                types.Location(uri, to_client_range(rlines, codec, r.span)), r.message))
    return types.Diagnostic(
        range=to_client_range(lines, codec, finding.span),
        message=finding.message,
        severity=SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=finding.url),
        source=SOURCE,
        related_information=related or None,
        tags=[TAGS[t] for t in finding.tags if t in TAGS] or None,
        data=Payload(version=version, fixes=[fix_json(f, lines, codec) for f in finding.fixes]),
    )


def diagnostic_dict(
    finding: Finding, lines: Sequence[str], codec: PositionCodec, version: int | None, locate: Locate
) -> dict[str, Any]:
    """`diagnostic_json` of `to_diagnostic(...)`, written straight from the finding: what a publish sends, without
    building lsprotocol's objects (their validators and cattrs's copy cost ~80 us a finding, more than the rest
    of the publish; tests compare the two on every rule example)."""
    out: dict[str, Any] = {"range": client_range_json(lines, codec, finding.span), "message": finding.message,
                           "severity": SEVERITY[finding.severity].value, "code": finding.code,
                           "codeDescription": {"href": finding.url}, "source": SOURCE}
    tags = [TAGS[t].value for t in finding.tags if t in TAGS]
    if tags:
        out["tags"] = tags
    related = []
    for r in finding.related:
        where = locate(r.path)
        if where is not None:
            uri, rlines = where
            related.append({"location": {"uri": uri, "range": client_range_json(rlines, codec, r.span)},
                            "message": r.message})
    if related:
        out["relatedInformation"] = related
    out["data"] = Payload(version=version, fixes=[fix_json(f, lines, codec) for f in finding.fixes])
    return out


def engine_edit(lines: Sequence[str], codec: PositionCodec, edit: types.TextEdit) -> Edit:
    """A client TextEdit back in engine terms (used to apply fixes in tests and benchmarks)."""
    return Edit(Span(from_client_position(lines, codec, edit.range.start),
                     from_client_position(lines, codec, edit.range.end)), edit.new_text)
