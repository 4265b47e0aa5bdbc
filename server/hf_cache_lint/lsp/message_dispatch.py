"""One frame's body (lsp/wire.py): dispatched to pygls, or its fault answered as JSON-RPC 2.0 and the LSP's
lifecycle ask (ParseError, InvalidRequest, InvalidParams, ServerNotInitialized; the module docstring of
lsp/wire.py says which and why)."""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

from pygls.exceptions import (
    JsonRpcException,
    JsonRpcInvalidParams,
    JsonRpcInvalidRequest,
    JsonRpcParseError,
    JsonRpcServerNotInitialized,
)
from pygls.protocol import JsonRPCProtocol

from hf_cache_lint.lsp.stdin_readers import Reader

log = logging.getLogger(__name__)

_HEADER_ANYWHERE = re.compile(rb"content-length[ \t]*:", re.IGNORECASE)


class Session:
    """What the loop knows of the conversation: whether `initialize` came (pygls keeps no such flag)."""

    def __init__(self) -> None:
        self.initialized = False


def answer_error(protocol: JsonRPCProtocol, msg_id: int | str | None, exc: JsonRpcException, detail: str) -> None:
    # A plain dict: pygls's converter would drop `"id": null`, which JSON-RPC requires when the id is unknown.
    protocol._send_data({"jsonrpc": "2.0", "id": msg_id,
                         "error": {"code": exc.CODE, "message": f"{exc.MESSAGE}: {detail}"}})


def _next_frame_after(body: bytes, exc: json.JSONDecodeError) -> int | None:
    """Where the next frame starts in a body whose JSON value ended early ("Extra data") and whose rest is the
    start of a header: a Content-Length a few bytes too long swallowed less than a whole header line (a header
    line inside the body is cut by `read_body` already)."""
    if exc.msg != "Extra data":
        return None
    try:
        cut = len(body.decode("utf-8")[: exc.pos].encode("utf-8"))  # exc.pos counts characters
    except UnicodeDecodeError:
        return None
    rest = body[cut:].lstrip().lower()
    return cut if rest and (b"content-length:".startswith(rest[:15]) or rest.startswith(b"content-length")) else None


def _parse_error(protocol: JsonRPCProtocol, body: bytes, reader: Reader, detail: str) -> None:
    # A too-long Content-Length swallowed the start of the next frame: give its header back.
    found = _HEADER_ANYWHERE.search(body, 1)
    if found is not None:
        reader.unread(body[found.start():])
    log.error("malformed message (%s): answered ParseError, reading on", detail)
    answer_error(protocol, None, JsonRpcParseError(), detail)


def handle_body(protocol: JsonRPCProtocol, body: bytes, reader: Reader,
                error_handler: Callable[[Exception, type[JsonRpcException]], Any] | None = None,
                session: Session | None = None) -> None:
    """One frame's body: dispatch it, or answer the fault as the spec asks."""
    try:
        message = json.loads(body, object_hook=protocol.structure_message)
    except json.JSONDecodeError as exc:
        cut = _next_frame_after(body, exc)
        if cut is not None:  # the message is whole: handled; its tail goes back as the next frame's start
            reader.unread(body[cut:])
            handle_body(protocol, body[:cut], reader, error_handler, session)
            return
        _parse_error(protocol, body, reader, str(exc))
        return
    except UnicodeDecodeError as exc:
        _parse_error(protocol, body, reader, str(exc))
        return
    except ValueError as exc:  # an integer of more than 4,300 digits (int()'s limit): valid JSON, no message
        _parse_error(protocol, body, reader, str(exc))
        return
    except RecursionError:  # valid JSON nested deeper than the parser (or pygls's structuring) can follow
        log.error("message nested too deeply: answered ParseError")
        answer_error(protocol, None, JsonRpcParseError(), "nested too deeply")
        return
    except JsonRpcException as exc:  # the params (or result) do not fit the method's types
        _answer_undecodable(protocol, body, reader, exc)
        return
    if isinstance(message, list):
        _answer_batch(protocol, body)
        return
    if not isinstance(message, dict) and hasattr(message, "jsonrpc"):
        if session is not None and not _lifecycle_allows(protocol, message, session):
            return
        try:
            protocol.handle_message(message)
        except Exception as exc:
            log.exception("unable to handle message")
            if error_handler is not None:
                error_handler(exc, JsonRpcException)
        return
    # JSON, but not a JSON-RPC message (a number, no "jsonrpc" key).
    msg_id = message.get("id") if isinstance(message, dict) else None
    log.error("not a JSON-RPC message: answered InvalidRequest")
    answer_error(protocol, msg_id if isinstance(msg_id, (int, str)) else None, JsonRpcInvalidRequest(),
           "not a JSON-RPC 2.0 message")


def _lifecycle_allows(protocol: JsonRPCProtocol, message: Any, session: Session) -> bool:
    """Whether the message may be dispatched; the spec's answer sent when it may not (LSP 3.17, "initialize"
    and "shutdown"). A response (no method) always passes."""
    method = getattr(message, "method", None)
    if method is None:
        return True
    msg_id = getattr(message, "id", None)
    is_request = msg_id is not None
    if not session.initialized:
        if method == "initialize" and is_request:
            session.initialized = True
            return True
        if method == "exit":
            return True
        if is_request:
            log.error("%s before initialize: answered ServerNotInitialized", method)
            answer_error(protocol, msg_id, JsonRpcServerNotInitialized(), f"{method} before initialize")
        return False  # a notification before initialize is dropped
    if method == "initialize" and is_request:  # "The initialize request may only be sent once" (LSP 3.17)
        log.error("a second initialize: answered InvalidRequest")
        answer_error(protocol, msg_id, JsonRpcInvalidRequest(), "initialize was received already")
        return False
    if getattr(protocol, "_shutdown", False) and method != "exit":
        if is_request:
            log.error("%s after shutdown: answered InvalidRequest", method)
            answer_error(protocol, msg_id, JsonRpcInvalidRequest(), f"{method} after shutdown")
        return False
    return True


def _answer_batch(protocol: JsonRPCProtocol, body: bytes) -> None:
    try:
        items = json.loads(body)
    except (ValueError, RecursionError):
        items = []
    ids = [m["id"] for m in items if isinstance(m, dict) and "method" in m and isinstance(m.get("id"), (int, str))]
    log.error("a JSON array (batch): answered InvalidRequest for %d request(s)", len(ids))
    for msg_id in ids or [None]:
        answer_error(protocol, msg_id, JsonRpcInvalidRequest(), "batch messages are not part of the LSP")


def _answer_undecodable(protocol: JsonRPCProtocol, body: bytes, reader: Reader, exc: JsonRpcException) -> None:
    try:
        data = json.loads(body)  # pygls's structuring of the object ran before the parser saw what follows it
    except json.JSONDecodeError as parse:  # a too-long frame: the next header follows
        cut = _next_frame_after(body, parse)
        if cut is not None:
            reader.unread(body[cut:])
            body = body[:cut]
            data = json.loads(body)
        else:
            _parse_error(protocol, body, reader, str(parse))
            return
    except (UnicodeDecodeError, ValueError) as parse:  # ValueError: an integer past int()'s digit limit
        _parse_error(protocol, body, reader, str(parse))
        return
    except RecursionError:
        answer_error(protocol, None, JsonRpcParseError(), "nested too deeply")
        return
    if isinstance(data, list):
        _answer_batch(protocol, body)
        return
    method = data.get("method") if isinstance(data, dict) else None
    msg_id = data.get("id") if isinstance(data, dict) else None
    if method is not None and isinstance(msg_id, (int, str)):
        log.error("invalid params for %s (id %r): answered InvalidParams", method, msg_id)
        answer_error(protocol, msg_id, JsonRpcInvalidParams(), f"the params do not fit {method}")
    elif method is not None:
        log.error("invalid params for notification %s: ignored", method)
    else:
        log.error("undecodable response to id %r: ignored (%s)", msg_id, exc)

