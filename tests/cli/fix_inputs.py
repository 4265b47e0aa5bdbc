"""Inputs for the fix property tests: generated generate() calls in the shapes and layouts real code uses,
and the project's corpus. Deterministic (a seeded generator), so a failure names an input that repeats.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
VERSIONS = ("4.57.6", "5.23.0", "5.24.0")


@dataclass(frozen=True)
class Input:
    name: str
    text: str
    version: str
    path: Path | None = None  # a corpus file (checked where it lies: its folder may hold a checkpoint)


HEAD = ("import functools\nimport threading\n\nfrom transformers import AutoModelForCausalLM, DynamicCache, "
        "GenerationConfig\n\n# caf\u00e9 \U0001f600: non-ASCII before the calls (UTF-16 columns differ)\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n')

# Where `cache_implementation` comes from: (lines before the call, keyword text in the call or "").
SOURCES = {
    "keyword": ("", 'cache_implementation="static"'),
    "model": ('model.generation_config.cache_implementation = "static"\n', ""),
    "config": ('config = GenerationConfig(cache_implementation="static", max_new_tokens=5)\n',
               "generation_config=config"),
    "dict": ('kw = {"max_new_tokens": 5, "cache_implementation": "static"}\n', "**kw"),
    "dict-call": ('kw = dict(max_new_tokens=5, cache_implementation="offloaded")\n', "**kw"),
    "typo": ("", 'cache_implementation="statc"'),
}
# The cache: keyword text.
CACHES = {
    "pkv": "past_key_values=DynamicCache()",
    "cache": "cache=DynamicCache()",
    "tuple": "past_key_values=((k, v),)",
    "misspelt": "past_key_value=DynamicCache()",
    "name": "past_key_values=cache_obj",
}
OTHERS = ["input_ids", "**inputs", "max_new_tokens=5", "do_sample=False"]


def layout(callee: str, args: list[str], style: str, indent: str = "") -> str:
    """One call written in a layout: how commas, comments and lines fall around the arguments."""
    if style == "one-line":
        return f"{indent}out = {callee}({', '.join(args)})\n"
    if style == "trailing-comma":
        return f"{indent}out = {callee}({', '.join(args)},)\n"
    if style == "comment-after-last":
        return f"{indent}out = {callee}({', '.join(args)}  # a, b\n{indent}    )\n"
    inner = indent + "    "
    if style == "per-line":
        return f"{indent}out = {callee}(\n" + "".join(f"{inner}{a},\n" for a in args) + f"{indent})\n"
    if style == "per-line-no-comma":
        return f"{indent}out = {callee}(\n" + ",\n".join(f"{inner}{a}" for a in args) + f"\n{indent})\n"
    if style == "per-line-comments":
        body = "".join(f"{inner}{a},  # note, {i}\n" for i, a in enumerate(args[:-1]))
        return f"{indent}out = {callee}(\n{body}{inner}{args[-1]}  # last, no comma\n{indent})\n"
    if style == "continuation":
        return f"{indent}out = {callee}({args[0]}, \\\n{inner}" + ", ".join(args[1:]) + ")\n"
    raise ValueError(style)


STYLES = ("one-line", "trailing-comma", "comment-after-last", "per-line", "per-line-no-comma",
          "per-line-comments", "continuation")
ROUTES = ("direct", "partial", "thread", "function", "wrapper", "method")


def program(source: str, cache: str, style: str, route: str, others: list[str], crlf: bool) -> str:
    before, ci_kw = SOURCES[source]
    args = [*others, CACHES[cache]] + ([ci_kw] if ci_kw else [])
    setup = "cache_obj = DynamicCache()\nk = v = None\ninputs = {}\ninput_ids = None\n" + before
    if route == "direct":
        body = layout("model.generate", args, style)
    elif route == "partial":
        body = "gen = functools.partial(model.generate, max_new_tokens=5)\n" + layout("gen", args, style)
    elif route == "thread":
        named = [a for a in args if "=" in a and not a.startswith("**")]
        spread = [a[2:] for a in args if a.startswith("**")]
        literal = "dict(" + ", ".join(named) + ")"
        value = f"{{**{spread[0]}, **{literal}}}" if spread else literal
        body = (f"kwargs = {value}\n" + layout("threading.Thread", ["target=model.generate", "kwargs=kwargs"], style))
    elif route == "function":
        body = "def run(model):\n" + layout("model.generate", args, style, indent="    ") + \
               "    return out\n\n\nrun(model)\n"
    elif route == "wrapper":
        body = ("def run(model, **kwargs):\n    return model.generate(**kwargs)\n\n\n"
                + layout("run", ["model", *args], style))
    else:
        body = ("class Chat:\n    def __init__(self, model):\n        self.model = model\n\n"
                "    def reply(self):\n" + layout("self.model.generate", args, style, indent="        ")
                + "        return out\n\n\nChat(model).reply()\n")
    text = HEAD + setup + body
    return text.replace("\n", "\r\n") if crlf else text


def generated(count: int, seed: int = 10) -> list[Input]:
    """`count` programs: every layout x route once with a conflict, then random mixes of the rest."""
    rng = random.Random(seed)
    out: list[Input] = []
    for style, route in itertools.product(STYLES, ROUTES):
        out.append(Input(f"{route}-{style}-model-pkv", program("model", "pkv", style, route, ["**inputs"], False),
                         "5.23.0"))
    while len(out) < count:
        source, cache = rng.choice(list(SOURCES)), rng.choice(list(CACHES))
        style, route = rng.choice(STYLES), rng.choice(ROUTES)
        others = rng.sample(OTHERS, rng.randint(0, 2))
        version, crlf = rng.choice(VERSIONS), rng.random() < 0.15
        name = f"{route}-{style}-{source}-{cache}-{'+'.join(others) or 'none'}{'-crlf' if crlf else ''}-{version}"
        out.append(Input(name, program(source, cache, style, route, others, crlf), version))
    return out


def corpus_dir() -> Path | None:
    """The project's labelled corpus (tests/data/corpus)."""
    root = TESTS / "data" / "corpus"
    return root if root.is_dir() else None


def corpus() -> Iterator[Input]:
    root = corpus_dir()
    if root is None:
        return
    for path in sorted(root.rglob("*")):
        if path.suffix == ".py":
            text = path.read_text(encoding="utf-8")
            for version in VERSIONS:
                yield Input(f"corpus:{path.relative_to(root)}@{version}", text, version, path)
