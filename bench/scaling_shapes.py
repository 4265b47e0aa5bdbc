"""Files of one pathological shape at a chosen size, each with an HFC001 conflict after the shape.

Shared by bench/bench_scaling.py (seconds against `ast.parse`) and tests/engine/test_budget.py (the
finding is still reported, the analysis stays under its budget). Every file starts with a model and
ends with a generate call where a cache object meets `cache_implementation` (line `conflict_line`),
so a shape that made the analysis give up early would lose that finding.
"""

from __future__ import annotations

from collections.abc import Callable

HEAD = """from transformers import AutoModelForCausalLM, DynamicCache

model = AutoModelForCausalLM.from_pretrained("gpt2")
"""
TAIL = """
out = model.generate(past_key_values=DynamicCache(), cache_implementation="static")
"""


def big_dict(n: int) -> str:
    body = ",\n".join(f'    "k{i}": {i}' for i in range(n))
    return f"CONFIG = {{\n{body},\n    \"cache_implementation\": \"static\",\n}}\n"


def nested_dict(n: int) -> str:
    # n entries in groups of 10, each group a dict holding a list of small dicts.
    groups = []
    for g in range(max(1, n // 10)):
        inner = ", ".join(f'{{"id": {g * 10 + j}, "v": [{j}, ({j}, "x")]}}' for j in range(10))
        groups.append(f'    "g{g}": {{"items": [{inner}], "n": {g}}}')
    return "TABLE = {\n" + ",\n".join(groups) + ",\n}\n"


def big_list(n: int) -> str:
    return "DATA = [\n" + "".join(f"    {i},\n" for i in range(n)) + "]\n"


def big_set(n: int) -> str:
    return "NAMES = {\n" + "".join(f'    "n{i}",\n' for i in range(n)) + "}\n"


def big_tuple(n: int) -> str:
    return "PAIRS = (\n" + "".join(f'    ("p{i}", {i}),\n' for i in range(n)) + ")\n"


# CPython's own parser refuses a single chain much past 2,500 links (RecursionError or MemoryError in
# ast.parse), so the chain shapes repeat chains of at most CHAIN links: `ast.parse` stays a baseline at
# every size. tests/engine/test_budget.py checks single chains of 10,000-20,000 links on their own.
CHAIN = 1000


def _chunks(n: int) -> list[int]:
    return [min(CHAIN, n - k) for k in range(0, n, CHAIN)]


def elif_chain(n: int) -> str:
    lines = []
    for c, size in enumerate(_chunks(n)):
        lines.append(f"def pick{c}(x):")
        for i in range(size):
            lines.append(f"    {'if' if i == 0 else 'elif'} x == {i}:")
            lines.append(f"        mode = 'm{i}'")
        lines.append("    else:")
        lines.append("        mode = None")
        lines.append("    return mode")
        lines.append("")
        lines.append(f"MODE = pick{c}(3)")
        # The same chain at module level, where its joins meet the module's state.
        for i in range(size):
            lines.append(f"{'if' if i == 0 else 'elif'} MODE == 'm{i}':")
            lines.append(f"    level = {i}")
    return "\n".join(lines) + "\n"


def subscript_assign(n: int) -> str:
    return "d = {}\n" + "".join(f'd["k{i}"] = {i}\n' for i in range(n))


def call_chain(n: int) -> str:
    # f()()()... and x.m().m().m()... : n calls of each kind.
    return "".join(f"a{c} = f{'()' * size}\nb{c} = x{'.m()' * size}\n" for c, size in enumerate(_chunks(n)))


def attribute_chain(n: int) -> str:
    return "".join(f"c{c} = a{''.join(f'.b{i % 10}' for i in range(size))}\n" for c, size in enumerate(_chunks(n)))


def binop_chain(n: int) -> str:
    # 1+1+1+... : n terms, wrapped over lines inside parentheses.
    out = []
    for c, size in enumerate(_chunks(n)):
        terms = ["1" if i % 20 else "\n    1" for i in range(size)]
        out.append(f"total{c} = (" + " + ".join(terms) + "\n)\n")
    return "".join(out)


def async_server(n: int) -> str:
    """An async streaming model server like the one in the issue: an async generator with nested
    loops, `try`/`with` blocks, kwargs dict updates, helper calls and generate in a thread with a
    streamer; `n` is roughly its line count (handlers repeat the shape)."""
    parts = ["""import asyncio
import threading
from transformers import TextIteratorStreamer, GenerationConfig


def build_kwargs(request, defaults):
    kwargs = dict(defaults)
    if request.get("temperature") is not None:
        kwargs["temperature"] = request["temperature"]
    if request.get("top_p") is not None:
        kwargs["top_p"] = request["top_p"]
    if request.get("stop"):
        kwargs["stop_strings"] = request["stop"]
    return kwargs


def helper(x, y):
    if x:
        return y
    return helper2(y, x)


def helper2(a, b):
    for i in range(3):
        if a:
            a = helper3(a, i)
    return a


def helper3(p, q):
    try:
        return p
    except Exception:
        return q
"""]
    i = 0
    while sum(p.count("\n") for p in parts) < n:
        parts.append(f"""

async def stream_{i}(request, tokenizer, defaults):
    kwargs = build_kwargs(request, defaults)
    kwargs.update(max_new_tokens=request.get("max_tokens", 256))
    kwargs.update({{"do_sample": True, "use_cache": True}})
    for attempt in range(3):
        try:
            streamer = TextIteratorStreamer(tokenizer, skip_prompt=True)
            kwargs["streamer"] = streamer
            with lock:
                for turn in request["messages"]:
                    if turn.get("role") == "system":
                        kwargs["system"] = helper(turn, kwargs)
                    elif turn.get("role") == "tool":
                        try:
                            kwargs["tools"] = helper2(turn, kwargs)
                        except ValueError:
                            kwargs.pop("tools", None)
                            continue
                    for part in turn["content"]:
                        try:
                            if part["type"] == "text":
                                kwargs["text_{i}"] = helper3(part, kwargs)
                            else:
                                kwargs.update(extra=part)
                        except KeyError:
                            break
            thread = threading.Thread(target=model.generate, kwargs=kwargs)
            thread.start()
            async for chunk in aiter_streamer(streamer):
                for piece in chunk:
                    while piece:
                        try:
                            yield piece
                            piece = helper(piece, kwargs)
                        except Exception:
                            piece = None
                            break
            break
        except RuntimeError:
            if attempt == 2:
                raise
            await asyncio.sleep(0.1)
""" + _retry_ladder(i, 8))
        i += 1
    return "".join(parts)


def _retry_ladder(i: int, depth: int) -> str:
    """Loops nested `depth` deep, each level a `try` that updates the state through a helper and stores
    it in the kwargs, each `except` falling back to what the level stored: every join met the options of
    the level above again, so the tracked values doubled per level and pass (2^9 levels: 78 s, 3.7 GB)."""
    out = [f"\n\nasync def ladder_{i}(request, kwargs):\n    state = request\n"]
    ind = "    "
    for d in range(depth):
        out.append(f"{ind}for x{d} in request:\n{ind}    try:\n{ind}        state = helper(state, x{d})\n"
                   f"{ind}        kwargs['s{d}'] = state\n")
        ind += "        "
    out.append(f"{ind}yield state\n")
    for d in reversed(range(depth)):
        ind = ind[:-8]
        out.append(f"{ind}    except ValueError:\n{ind}        state = kwargs.get('s{d}')\n")
    return "".join(out)


SHAPES: dict[str, Callable[[int], str]] = {
    "big_dict": big_dict,
    "nested_dict": nested_dict,
    "big_list": big_list,
    "big_set": big_set,
    "big_tuple": big_tuple,
    "elif_chain": elif_chain,
    "subscript_assign": subscript_assign,
    "call_chain": call_chain,
    "attribute_chain": attribute_chain,
    "binop_chain": binop_chain,
    "async_server": async_server,
}


def source(shape: str, n: int) -> str:
    """The whole file: the model, the shape at size n, then the conflicting generate call."""
    return HEAD + SHAPES[shape](n) + TAIL


def conflict_line(text: str) -> int:
    """1-based line of the conflicting generate call (the file's last code line)."""
    return text.rstrip("\n").count("\n") + 1
