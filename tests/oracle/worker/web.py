"""Stub web frameworks (fastapi, flask, uvicorn; pydantic when absent) for serving-style snippets.

Route decorators record the handler; after the snippet's module ran, the worker calls every recorded
startup hook and then every handler once with a fake request whose JSON body is PAYLOAD. Unknown names
imported from these modules are inert placeholders, so middleware and response classes do not break.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
import types
from collections.abc import Callable
from typing import Any, ClassVar

PAYLOAD: dict[str, Any] = {"text": "hi", "prompt": "hi", "message": "hi", "query": "hi", "question": "hi",
                           "messages": [{"role": "user", "content": "hi"}], "max_new_tokens": 8}
HANDLERS: list[Callable[..., Any]] = []
STARTUP: list[Callable[..., Any]] = []


class Placeholder:
    """Accepts any construction, call and attribute: middleware, HTTPException, Depends, ..."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args, self.kwargs = args, kwargs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self

    def __getattr__(self, name: str) -> Any:
        return Placeholder()


class App(Placeholder):
    """FastAPI(), APIRouter(), Flask(__name__): every route-ish decorator records its function."""

    def _route(self, *args: Any, **kwargs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def record(fn: Callable[..., Any]) -> Callable[..., Any]:
            HANDLERS.append(fn)
            return fn
        return record

    get = post = put = delete = patch = route = api_route = websocket = _route

    def on_event(self, event: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
        def record(fn: Callable[..., Any]) -> Callable[..., Any]:
            if event == "startup":
                STARTUP.append(fn)
            return fn
        return record

    def before_first_request(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        STARTUP.append(fn)
        return fn

    def run(self, *args: Any, **kwargs: Any) -> None:  # app.run(): never serve
        return None


class Request(Placeholder):
    headers: ClassVar[dict[str, str]] = {}
    query_params: ClassVar[dict[str, str]] = {}
    args: ClassVar[dict[str, Any]] = PAYLOAD
    form: ClassVar[dict[str, Any]] = PAYLOAD
    json = PAYLOAD  # flask's request.json (fastapi's is the async method below, set per instance)
    method = "POST"

    def get_json(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return dict(PAYLOAD)


class FastApiRequest(Request):
    async def json(self) -> dict[str, Any]:  # type: ignore[override]
        return dict(PAYLOAD)

    async def body(self) -> bytes:
        return b'{"text": "hi", "prompt": "hi"}'


class Streaming(Placeholder):
    """StreamingResponse(gen): the worker drains `content` so a generator handler really runs."""

    def __init__(self, content: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.content = content


def _default(*args: Any, **kwargs: Any) -> Any:
    """Query(64) / Body(...) / Form("x"): the declared default, or None for a required one."""
    value = args[0] if args else kwargs.get("default")
    return None if value is Ellipsis else value


def _module(name: str, **attrs: Any) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    mod.__getattr__ = lambda attr: Placeholder  # type: ignore[method-assign]
    sys.modules[name] = mod
    return mod


class BaseModel:
    """pydantic.BaseModel when pydantic is not installed (transformers 4.57's environment)."""

    def __init__(self, **data: Any) -> None:
        for klass in reversed(type(self).__mro__):
            # Not getattr(klass, "__annotations__"): that may create the entry mid-iteration.
            fields = inspect.get_annotations(klass)
            for key, value in list(vars(klass).items()):
                if key in fields:
                    setattr(self, key, value)
        for key, value in data.items():
            setattr(self, key, value)

    def model_dump(self) -> dict[str, Any]:
        return dict(vars(self))

    dict = model_dump


def install() -> None:
    for name in ("fastapi", "fastapi.responses", "fastapi.middleware", "fastapi.middleware.cors", "starlette",
                 "starlette.requests", "starlette.responses", "flask", "flask_cors", "uvicorn", "gradio"):
        _module(name, FastAPI=App, APIRouter=App, Flask=App, Request=FastApiRequest if "flask" not in name
                else Request, request=Request(), StreamingResponse=Streaming, Query=_default, Body=_default,
                Form=_default, Path=_default, jsonify=lambda *a, **k: a[0] if a else k, run=lambda *a, **k: None)
    try:
        import pydantic  # noqa: F401  (real pydantic where transformers installed it)
    except ImportError:
        _module("pydantic", BaseModel=BaseModel, Field=_default)


def _argument(param: inspect.Parameter) -> Any:
    ann = param.annotation
    untyped_request = param.name in ("request", "req") and ann is inspect.Parameter.empty
    if (isinstance(ann, type) and issubclass(ann, Request)) or untyped_request:
        return FastApiRequest()
    if isinstance(ann, type) and any(k.__name__ == "BaseModel" for k in ann.__mro__[1:]):
        fields = getattr(ann, "model_fields", None) or getattr(ann, "__annotations__", {})
        return ann(**{k: PAYLOAD[k] for k in fields if k in PAYLOAD})
    if param.default is not inspect.Parameter.empty and param.default is not None:
        return param.default
    return PAYLOAD.get(param.name, {int: 8, float: 0.5, bool: False}.get(ann, "hi"))


def _drain(result: Any) -> Any:
    content = result.content if isinstance(result, Streaming) else result
    if inspect.isasyncgen(content):
        async def consume() -> None:
            async for _ in content:
                pass
        asyncio.run(consume())
    elif inspect.isgenerator(content):
        for _ in content:
            pass
    return result


def call(fn: Callable[..., Any]) -> Any:
    """Call one recorded handler as the framework would for one request."""
    kwargs = {p.name: _argument(p) for p in inspect.signature(fn).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)}
    result = fn(**kwargs)
    if inspect.iscoroutine(result):
        result = asyncio.run(result)
    return _drain(result)
