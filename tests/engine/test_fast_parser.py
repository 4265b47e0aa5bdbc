"""engine/syntax/fast_parser.py and engine/syntax/fast_tokenizer.py: parso's token stream and parso's tree, node for node.

Every text is parsed by parso's own grammar object and by `fast_parser.grammar()`, and the two trees are compared
whole: each node's class, type and children (in order, with their parent links), each leaf's class, type, value,
prefix and position (and an error leaf's token type). Texts: the rule examples, the corpus, the bundled examples,
this repository's own code and a sample of the standard library (real code), then the same texts broken as an
editor buffer is (truncated, characters or lines deleted at random, bytes mangled and decoded as the engine
decodes them, tabs and form feeds, CRLF and lone CR line ends) and hand-written error-recovery cases (f-strings
in 3.12 style, line continuations, unclosed brackets and strings, stray indents and dedents).
"""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import parso
import pytest
from parso.python.parser import Parser
from parso.tree import BaseNode
from parso.utils import python_bytes_to_unicode, split_lines

from hf_cache_lint.engine.interpreter import interp
from hf_cache_lint.engine.syntax import fast_parser, fast_tokenizer
from hf_cache_lint.engine.text.text import decode_source
from hf_cache_lint.rules import ALL_RULES

REPO = Path(__file__).resolve().parents[2]
PLAIN = parso.load_grammar()  # type: ignore[attr-defined]
FAST = fast_parser.grammar()
LEAF_ATTRS = ("type", "value", "prefix", "line", "column", "token_type")


def difference(a: Any, b: Any) -> str | None:
    """Where the trees `a` and `b` first differ (None: they are the same tree)."""
    todo = [(a, b, None, None)]
    while todo:
        x, y, x_parent, y_parent = todo.pop()
        where = f"at {x.start_pos} ({type(x).__name__})"
        if type(x) is not type(y):
            return f"{type(x).__name__} against {type(y).__name__} {where}"
        if x.parent is not x_parent or y.parent is not y_parent:
            return f"parent link {where}"
        if isinstance(x, BaseNode):
            if x.type != y.type or len(x.children) != len(y.children):
                return f"{x.type}[{len(x.children)}] against {y.type}[{len(y.children)}] {where}"
            if getattr(x, "_used_names", None) is not None or getattr(y, "_used_names", None) is not None:
                return f"_used_names {where}"
            todo += [(cx, cy, x, y) for cx, cy in zip(x.children, y.children, strict=True)]
        else:
            for attr in LEAF_ATTRS:
                if getattr(x, attr, None) != getattr(y, attr, None):
                    return f"{attr} {getattr(x, attr, None)!r} against {getattr(y, attr, None)!r} {where}"
    return None


def assert_same_tokens(text: str, name: str) -> None:
    lines = split_lines(text, keepends=True)
    plain, fast = list(PLAIN._tokenizer(lines)), list(FAST._tokenizer(lines))
    assert plain == fast, name
    assert [type(t) for t in fast] == [type(t) for t in plain], name


def assert_same_tree(text: str, name: str) -> None:
    assert_same_tokens(text, name)
    plain, fast = PLAIN.parse(text, error_recovery=True), FAST.parse(text, error_recovery=True)
    assert fast.get_code() == text
    found = difference(plain, fast)
    assert found is None, f"{name}: {found}"


def sources() -> list[tuple[str, str]]:
    out = [(f"{rule.code}-{kind}{i}", ex.code) for rule in ALL_RULES
           for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid))
           for i, ex in enumerate(examples)]
    for folder in (REPO / "tests" / "data" / "corpus", REPO / "examples", REPO / "server" / "hf_cache_lint"):
        out += [(str(p.relative_to(REPO)), p.read_text(encoding="utf-8")) for p in sorted(folder.rglob("*.py"))]
    stdlib = Path(os.__file__).parent  # real code on every machine: every 8th module of the standard library
    out += [(p.name, decode_source(p.read_bytes())) for p in sorted(stdlib.glob("*.py"))[::8]]
    return out


SOURCES = sources()
# Broken: the rule examples, the corpus and the bundled examples (user code as an editor buffer has it); the
# repository's and the standard library's modules are compared whole (the broken variants of all would take ~2 min).
BROKEN = [(name, text) for name, text in SOURCES if not name.endswith(".py") or name.startswith(("tests", "examples"))]


def broken(text: str, rng: random.Random) -> Iterator[tuple[str, str]]:
    """The text as an editor buffer or a damaged file has it."""
    for _ in range(3):
        at = rng.randrange(len(text) + 1)
        yield f"truncated at {at}", text[:at]
    chars = list(text)
    for _ in range(max(1, len(chars) // 200)):
        if chars:
            del chars[rng.randrange(len(chars))]
    yield "characters deleted", "".join(chars)
    lines = text.splitlines(keepends=True)
    for _ in range(max(1, len(lines) // 20)):
        if lines:
            del lines[rng.randrange(len(lines))]
    yield "lines deleted", "".join(lines)
    data = bytearray(text.encode("utf-8"))
    for _ in range(max(1, len(data) // 500) if data else 0):
        data[rng.randrange(len(data))] = rng.choice([0x80, 0xC3, 0xFF, 0xE2, 0x00])
    yield "bytes mangled", python_bytes_to_unicode(bytes(data), errors="replace")
    yield "latin-1", text.encode("utf-8").decode("latin-1")
    yield "tabs", text.replace("    ", "\t")
    yield "form feeds", text.replace("\n\n", "\n\f\n").replace("\n    ", "\n\f    ")
    yield "CRLF", text.replace("\n", "\r\n")
    yield "lone CR", text.replace("\n", "\r")
    yield "mixed ends", text.replace("\n", "\r\n", 3).replace("\n", "\r", 5)


CASES = [
    'f"{x!r:>{width}} {y=} {{}} {z:%Y-%m-%d}"\n',
    "f'{\"nested\" + f\"{y}\"}'\n",
    'f"{d["key"]} {f"{a["b"]}"}"\n',  # 3.12: the same quote inside the replacement field
    'f"""{\nx\n+ y}\n text {a:{b}\n}"""\n',
    "f'{x\n",  # unterminated in the field
    "f'abc\n",
    'rf"\\d{x}\\N{BULLET}"\nbr"\\x"\n',
    'f"{lambda: 1}" f"{x:=3}" f"{a!s}" f"{ {1: 2}[1] }"\n',
    'f"{x # comment\n}"\n',
    "x = 1 + \\\n    2\nif a and \\\n   b:\n    pass\n\\\n",
    "def f(:\n    return\n",
    "class C(\n    def m(self): pass\n",
    "if x:\n  a\n    b\n  c\n d\ne\n",  # indents and dedents that match nothing
    "\tif x:\n        y\n\tz\n",
    "x = (1,\n     2\ny = [3\n",
    "'''unclosed\nstring\n",
    "s = 'abc\\\ndef'\nt = \"x\n",
    "@decorator\n\ndef\n",
    "async def f():\n    await x\n    async with a as b, c: pass\n    async for i in j: yield\n",
    "match x:\n    case [1, *rest] if rest:\n        pass\n    case {'a': b, **kw}:\n        pass\n",
    "lambda: (yield)\nx: int = 3\ndel a, b\nglobal g\nnonlocal n\nprint >>f, x\n",
    "type X = int\ndef f[T](x: T) -> T: ...\n",
    "x = 1 +\n",
    ")))\n]]]\n}}}\n",
    "\ufeffimport os\n",
    "é = 1\nx€y = 2\n",
    "0xfor 1if 2else 3\n1__0 .5j 0b2\n",
    "    \n\f\n  # only comments\n",
    "",
    "\\",
    "if x:\n",
    "try:\n    pass\nexcept* E:\n    pass\nfinally:\n    pass\nelse:\n",
    "with (a as b, c as d,):\n    pass\n",
    "x = [i async for i in y if i for j in k]\n",
    "def f(a, /, b, *, c=1, **d): pass\ndef g(*, ): pass\n",
    "from . import (a,\n b)\nfrom .. x import *\nimport a.b as c\n",
]


@pytest.mark.parametrize(("name", "text"), SOURCES, ids=[name for name, _ in SOURCES])
def test_the_tree_is_parsos_on_real_code(name: str, text: str) -> None:
    assert_same_tree(text, name)


def test_the_tree_is_parsos_on_broken_code() -> None:
    rng = random.Random(14)
    for name, text in BROKEN:
        for how, damaged in broken(text, rng):
            assert_same_tree(damaged, f"{name}, {how}")


@pytest.mark.parametrize("text", CASES)
def test_the_tree_is_parsos_on_error_recovery_cases(text: str) -> None:
    assert_same_tree(text, repr(text))
    for how, damaged in broken(text, random.Random(len(text))):
        assert_same_tree(damaged, f"{text!r}, {how}")


def test_the_token_stream_is_parsos_from_where_the_diff_parser_starts() -> None:
    """parso's diff parser tokenizes a changed block from its line, with the indents open there."""
    text = (REPO / "examples" / "compile_then_prefix_cache.py").read_text()
    lines = split_lines(text, keepends=True)
    for start in range(0, len(lines), 7):
        for indents in ([0], [0, 4], [0, 4, 8]):
            kw = {"start_pos": (start + 1, 0), "indents": indents, "is_first_token": start == 0}
            plain = list(PLAIN._tokenizer(lines[start:], **{**kw, "indents": list(indents)}))
            fast = list(FAST._tokenizer(lines[start:], **{**kw, "indents": list(indents)}))
            assert plain == fast, (start, indents)


def test_the_cases_really_need_error_recovery() -> None:
    """The hand-written cases exercise parso's error recovery (error nodes and leaves), not only clean code."""
    with_errors = [text for text in CASES if any(True for _ in PLAIN.iter_errors(PLAIN.parse(text)))]
    assert len(with_errors) >= len(CASES) // 2


def test_the_difference_finder_sees_a_change() -> None:
    """`difference` is not blind: a changed prefix, value, position or class is found."""
    text = "def f(x):\n    return x + 1\n"
    tree = FAST.parse(text)
    assert difference(PLAIN.parse(text), tree) is None
    leaf = tree.get_first_leaf().get_next_leaf()
    for attr, value in (("prefix", "  "), ("value", "g"), ("column", 5)):
        changed = FAST.parse(text)
        target = changed.get_first_leaf().get_next_leaf()
        setattr(target, attr, value)
        assert difference(PLAIN.parse(text), changed) is not None, attr
    assert leaf.value == "f"
    assert difference(PLAIN.parse(text), FAST.parse(text.replace("x + 1", "(x + 1)"))) is not None


def test_parsos_own_grammar_object_is_left_alone() -> None:
    """jedi uses `parso.load_grammar()`'s object: it keeps parso's parser; ours shares its tables and cache key."""
    assert PLAIN._parser is Parser
    assert parso.load_grammar()._parser is Parser  # type: ignore[attr-defined]
    assert PLAIN._tokenizer == PLAIN._tokenize_lines
    assert FAST._pgen_grammar is PLAIN._pgen_grammar and FAST._hashed == PLAIN._hashed
    if parso.__version__ in fast_parser.CHECKED_PARSO:
        assert FAST._parser is fast_parser.FastParser
        assert FAST._tokenizer.func is fast_tokenizer.tokenize_lines
    else:
        assert FAST is PLAIN


def test_the_engine_parses_with_it() -> None:
    tree: Any = interp.parse("model.generate(x)\n")
    assert tree.get_code() == "model.generate(x)\n"
    assert interp._GRAMMAR._parser is FAST._parser
    assert interp._GRAMMAR._tokenizer.func is FAST._tokenizer.func


ORACLE = Path(os.environ.get("ORACLE_DIR") or REPO / ".cache" / "oracle")
# Large transformers modules of the kind the CLI's gate passes to the engine (issue 31's cold run parses 99 of
# 5.24.0's): the generation loop, a model, the model base class.
TRANSFORMERS_MODULES = ("generation/utils.py", "models/llama/modeling_llama.py", "modeling_utils.py",
                        "cache_utils.py")


@pytest.mark.parametrize("module", TRANSFORMERS_MODULES)
def test_the_tree_is_parsos_on_transformers_modules(module: str) -> None:
    path = ORACLE / "tf-5.24.0" / "transformers" / module
    if not path.exists():
        pytest.skip(f"no oracle environment at {ORACLE}")
    text = path.read_text()
    assert_same_tree(text, module)
    rng = random.Random(31)
    for how, damaged in broken(text, rng):
        assert_same_tree(damaged, f"{module}, {how}")


def test_the_parser_stack_serves_error_recovery_and_the_diff_parser() -> None:
    """The parser's stack is a plain list (fast_parser.py `parse`): parso's error recovery and its diff parser,
    which reads the stack while it tokenizes a changed block, give parso's own trees with it."""
    text = (REPO / "examples" / "compile_then_prefix_cache.py").read_text()
    parser = fast_parser.FastParser(FAST._pgen_grammar, error_recovery=True)
    parser.parse(FAST._tokenize_lines(split_lines("def f(:\n    x = (1,\n", keepends=True)))
    assert type(parser.stack) is list
    lines = text.splitlines(keepends=True)
    plain_key, fast_key = "/tmp/hfc-test-fast-parser-plain.py", "/tmp/hfc-test-fast-parser-fast.py"
    try:
        PLAIN.parse(text, path=plain_key, diff_cache=True, cache=False)
        FAST.parse(text, path=fast_key, diff_cache=True, cache=False)
        rng = random.Random(7)
        for _ in range(20):
            at = rng.randrange(len(lines))
            edited = "".join([*lines[:at], rng.choice(["    x = (\n", "\n", "def g(:\n", "y = 1\n"]), *lines[at:]])
            a = PLAIN.parse(edited, path=plain_key, diff_cache=True, cache=False)
            b = FAST.parse(edited, path=fast_key, diff_cache=True, cache=False)
            assert difference(a, b) is None, at
    finally:
        for grammar, key in ((PLAIN, plain_key), (FAST, fast_key)):
            parso.cache.parser_cache.get(grammar._hashed, {}).pop(Path(key), None)
