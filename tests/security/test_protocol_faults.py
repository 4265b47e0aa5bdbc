"""Protocol faults never make the server deaf (raw stdio, exact bytes).

Each fault gets the response the LSP / JSON-RPC 2.0 specification asks for, and the very next request is
answered: ParseError (-32700, id null) for a frame whose body is not JSON (a Content-Length counted in
characters instead of bytes, too short), InvalidRequest (-32600) for JSON that is not a
JSON-RPC message, InvalidParams (-32602) for a request whose params do not fit its method,
MethodNotFound (-32601) for an unknown request; nothing for a notification; `exit` without `shutdown`
ends the process at once with status 1.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from rawlsp import RawClient, extension_launch, frame

HOVER = {"textDocument": {"uri": "file:///nowhere/x.py"}, "position": {"line": 0, "character": 0}}
CONFLICT = ("from transformers import DynamicCache\n"
            'model.generate(past_key_values=DynamicCache(), cache_implementation="static")  # é ü 😀\n')



def errors(client: RawClient, start: int) -> list[dict[str, object]]:
    return [m["error"] | {"id": m.get("id", "absent")} for m in client.messages[start:] if "error" in m]


def still_serving(client: RawClient) -> None:
    """The next request gets its own answer."""
    assert client.call("textDocument/hover", HOVER, timeout=30)["result"] is None


def non_ascii_request(rid: int) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": "textDocument/hover",
                       "params": {"textDocument": {"uri": "file:///tmp/café/ü.py"},
                                  "position": {"line": 0, "character": 0}}}, ensure_ascii=False).encode()


def test_content_length_counted_in_characters(client: RawClient) -> None:
    body = non_ascii_request(900)
    assert len(body.decode()) < len(body)
    mark = len(client.messages)
    client.write(frame(body, len(body.decode())))  # too short: the tail is left in the stream
    still_serving(client)
    assert [(e["code"], e["id"]) for e in errors(client, mark)] == [(-32700, None)]


def test_content_length_too_long_swallowing_the_next_header(client: RawClient) -> None:
    body = non_ascii_request(901)
    nxt = json.dumps({"jsonrpc": "2.0", "id": 902, "method": "textDocument/hover", "params": HOVER}).encode()
    mark = len(client.messages)
    client.write(frame(body, len(body) + 25) + frame(nxt))  # reads 25 bytes of the next frame's header
    assert client.response(902)["result"] is None  # the swallowed frame is recovered
    # The body is cut at the header line inside it (lsp/wire.py read_body): the cut message is whole and answered.
    assert client.response(901)["result"] is None
    assert errors(client, mark) == []
    still_serving(client)


def test_garbage_between_frames_and_json_that_is_not_json_rpc(client: RawClient) -> None:
    mark = len(client.messages)
    client.write(b"this is not a header\r\n\r\n")
    client.write(frame(b"[1, 2, 3]"))
    client.write(frame(b'{"id": 7, "method": "textDocument/hover"}'))  # no "jsonrpc"
    still_serving(client)
    assert [(e["code"], e["id"]) for e in errors(client, mark)] == [(-32600, None), (-32600, 7)]


def test_request_with_invalid_params_is_answered(client: RawClient) -> None:
    mark = len(client.messages)
    rid = client.request("textDocument/hover", {"textDocument": 5})
    reply = client.response(rid)
    assert reply["error"]["code"] == -32602 and reply["id"] == rid and "result" not in reply
    reply = client.call("textDocument/codeAction", {"range": "everything"}, timeout=30)
    assert reply["error"]["code"] == -32602
    client.notify("textDocument/didOpen", {"textDocument": {"uri": 12}})  # a notification: no answer
    still_serving(client)
    assert [e["code"] for e in errors(client, mark)] == [-32602, -32602]


def test_an_integer_past_the_digit_limit_is_a_parse_error(client: RawClient) -> None:
    """json.loads refuses an integer of more than 4,300 digits with a ValueError that is no JSONDecodeError: the
    request was dropped unanswered (logged only). It is answered ParseError, and the next one as usual."""
    mark = len(client.messages)
    client.write(frame(b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "textDocument/hover", "params": '
                       + json.dumps(HOVER).encode() + b"}"))
    still_serving(client)
    assert [(e["code"], e["id"]) for e in errors(client, mark)] == [(-32700, None)]


def test_unknown_method_and_unknown_notification(client: RawClient) -> None:
    mark = len(client.messages)
    assert client.call("hfCacheLint/noSuchThing", {})["error"]["code"] == -32601
    client.notify("hfCacheLint/noSuchNotification", {})
    client.notify("$/noSuchThing", {})
    still_serving(client)
    assert [e["code"] for e in errors(client, mark)] == [-32601]


def test_after_every_fault_it_still_lints(client: RawClient, tmp_path: Path) -> None:
    client.write(frame(non_ascii_request(903), 10))
    client.write(frame(b"{"))
    client.call("textDocument/hover", {"textDocument": []})
    client.call("nope/nope")
    uri = client.open(tmp_path / "x.py", CONFLICT)
    found = client.diagnostics(uri)["params"]["diagnostics"]
    assert [d["code"] for d in found] == ["HFC001"]


def test_exit_without_shutdown_ends_at_once_with_status_1(client: RawClient) -> None:
    began = time.monotonic()
    client.notify("exit")
    assert client.proc.wait(15) == 1
    assert time.monotonic() - began < 5


def test_shutdown_then_exit_ends_with_status_0(client: RawClient) -> None:
    assert client.call("shutdown")["result"] is None
    client.notify("exit")
    assert client.proc.wait(15) == 0


def test_completion_under_a_folder_with_a_space(tmp_path: Path) -> None:
    """The uri is percent-encoded (`work%20space`); pygls keys its documents by the unquoted uri."""
    ws = tmp_path / "work space"
    ws.mkdir()
    argv, cwd = extension_launch()
    client = RawClient(argv, cwd, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    try:
        client.initialize(ws, {"transformersVersion": "5.23.0"})
        uri = client.open(ws / "x.py", CONFLICT)
        assert "%20" in uri
        client.diagnostics(uri)
        column = CONFLICT.splitlines()[1].index('"static"') + 1
        got = client.call("textDocument/completion", {"textDocument": {"uri": uri},
                                                      "position": {"line": 1, "character": column}})
        assert {"static", "dynamic"} <= {item["label"] for item in got["result"]["items"]}
    finally:
        client.kill()
