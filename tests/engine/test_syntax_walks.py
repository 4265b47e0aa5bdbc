"""Issue 31 item 2: the module-wide passes a keystroke runs again skip what cannot change their answer, and the
answer is a whole walk's: `statement_walk` finds every import, `def` and `class` a walk of every node finds, in the
same order; the hook facts of a module that binds no transformers name, or whose text holds none of the words the
scan needs, are none (hooks.py `_nothing_bound`, `_no_scan_word`); a
function the removed-API reader skips (removed_api.py `_Quiet`) holds no use. Over the corpus, the examples, the
real-code cases, every rule's VALID and INVALID examples and transformers' own generation modules (an oracle
environment's copy), at 5.24.0 and at 4.57.6, with and without each shortcut."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import pytest

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import CacheUse
from hf_cache_lint.engine.interpreter import (
    Interpreter,
    hooks,
    interp,
    removed_api,
    removed_model_names,
    removed_reuse,
)
from hf_cache_lint.engine.interpreter.hook_names import binds_transformers, module_names
from hf_cache_lint.engine.syntax import nodes
from hf_cache_lint.engine.syntax.nodes import statement_walk, statements, statements_shared

ROOT = Path(__file__).resolve().parents[2]
ORACLE = Path(os.environ.get("ORACLE_DIR") or ROOT / ".cache" / "oracle")
STATEMENTS = ("import_from", "import_name", "funcdef", "classdef")


def files() -> list[Path]:
    found = [*sorted((ROOT / "tests" / "data" / "corpus").rglob("*.py")), *sorted((ROOT / "examples").rglob("*.py")),
             *sorted((ROOT / "tests" / "realcode" / "cases").glob("*.py"))]
    generation = ORACLE / "tf-5.24.0" / "transformers" / "generation"
    return found + [generation / n for n in ("utils.py", "candidate_generator.py") if (generation / n).is_file()]


def whole_walk(node: Any, reverse: bool) -> Iterator[Any]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        kids = getattr(n, "children", ())
        stack.extend(reversed(kids) if reverse else kids)


def broken(text: str) -> Iterator[str]:
    """The text, and the text with a line cut short at every 7th line (error recovery's trees)."""
    yield text
    lines = text.split("\n")
    yield "\n".join(line[:len(line) // 2] if i % 7 == 3 else line for i, line in enumerate(lines))


@pytest.mark.parametrize("path", files(), ids=lambda p: p.name)
def test_statement_walk_finds_every_import_def_and_class_in_a_whole_walks_order(path: Path) -> None:
    for text in broken(path.read_text()):
        tree = interp.parse(text)
        for reverse in (True, False):
            every = [n for n in whole_walk(tree, reverse) if n.type in STATEMENTS]
            assert [n for n in statement_walk(tree, reverse=reverse) if n.type in STATEMENTS] == every



@pytest.mark.parametrize("path", files(), ids=lambda p: p.name)
def test_the_shared_statement_list_is_the_walk(path: Path) -> None:
    """`statements` is the left-to-right walk as a list; inside `statements_shared` every walk of that tree gives what
    it gives outside, and the imports of the list reversed are in the right-to-left walk's order (imported_classes)."""
    for text in broken(path.read_text()):
        tree = interp.parse(text)
        walked = {reverse: list(statement_walk(tree, reverse=reverse)) for reverse in (True, False)}
        assert statements(tree) == walked[True]
        other = interp.parse("import a\nfrom b import c\n")
        with statements_shared(tree):
            for _ in range(2):  # the first walk makes the list, the second reads it
                assert list(statement_walk(tree)) == walked[True]
                assert list(statement_walk(tree, reverse=False)) == walked[False]
                assert statements(tree) == walked[True]
            assert [n.type for n in statement_walk(other)] == [n.type for n in nodes._walk(other, True)]
        assert nodes._SHARED.get() is None
        assert [n for n in reversed(walked[True]) if n.type == "import_from"] == \
            [n for n in walked[False] if n.type == "import_from"]


@pytest.mark.parametrize("path", files(), ids=lambda p: p.name)
def test_the_imports_found_from_the_text_are_the_statement_walks(path: Path) -> None:
    """`import_statements` with the text (the word `import`, each keyword's leaf by position) gives the imports of
    the statement list, in its order, for whole and broken texts, with `import` also in strings, comments and
    names around it, and imports nested in blocks and broken lines; without the text (or with a carriage return)
    it is the walk itself."""
    extra = ("\nx = 'import transformers'  # import this\nimport_me = reimport = 1\n"
             "if x:\n    from transformers import (\n        DynamicCache,\n    )\n"
             "def g():\n    import transformers as t; from transformers import import_utils\n"
             "y = f'{x} import {x!r}'\nfrom transformers import\n")
    for text in (*broken(path.read_text()), *broken(path.read_text() + extra)):
        tree = interp.parse(text)
        walked = [n for n in statements(tree) if n.type in ("import_name", "import_from")]
        assert nodes.import_statements(tree, text) == walked
        assert nodes.import_statements(tree) == walked
        if "import" in text:
            crlf = text.replace("\n", "\r\n")
            tree = interp.parse(crlf)
            assert nodes.import_statements(tree, crlf) == \
                [n for n in statements(tree) if n.type in ("import_name", "import_from")]


@pytest.mark.parametrize("path", files(), ids=lambda p: p.name)
def test_the_readers_answers_from_the_imports_are_the_statement_walks(path: Path) -> None:
    """`hook_names.binds_transformers` (the imports alone) is whether `module_names` (every statement) binds a
    transformers class or module, and `ModelModules`' aliases and stored names (the imports from the text, the
    stored names when asked) are those of a walk of every statement, for whole and broken texts, with and without
    transformers imports of each kind; inside `statements_shared` too (the imports kept for the analysis)."""
    extra = ("\nimport transformers.models.llama.modeling_llama as ml\nfrom transformers.models.llama import "
             "modeling_llama\nif x:\n    from transformers import (\n        DynamicCache as C,\n    )\n"
             "def g():\n    import transformers; from transformers import GPT2Model\n"
             "modeling_llama.LlamaAttention.forward = g\nml.X = y = 1\nimport transformers as tf\n"
             "transformers.models.llama.modeling_llama.Z = tf.a.b = 2\ns = 'transformers.q = 1'\nml.Y += 1\n"
             "class K:\n    def f(self):\n        tf.c: int = 3\n        (transformers.d, e) = 1, 2\n")
    for text in (*broken(path.read_text()), *broken(path.read_text() + extra)):
        tree = interp.parse(text)
        names = module_names(tree)
        aliases: dict[str, str] = {}
        stores: list[Any] = []
        for stmt in statement_walk(tree):  # removed_model_names.ModelModules before speed31l
            if stmt.type == "import_name":
                for name, p in nodes.import_paths(stmt):
                    if ".".join(n.value for n in p) in removed_model_names._MODULES:
                        aliases[name.value] = ".".join(n.value for n in p)
            elif stmt.type == "import_from" and stmt.level == 0:
                source = nodes.imported_from(stmt)
                if source.startswith("transformers.models."):
                    for name, p in nodes.import_paths(stmt):
                        if f"{source}.{p[-1].value}" in removed_model_names._MODULES:
                            aliases[name.value] = f"{source}.{p[-1].value}"
            elif stmt.type == "expr_stmt" and len(stmt.children) >= 3:
                stores.extend(stmt.children[:-1:2])
        stored = frozenset(d for s in stores if (d := nodes.dotted(s)) is not None and "." in d)
        for shared, firsts in ((False, ("transformers",)), (True, ("transformers",)), (False, ("transformers", "tf"))):
            with statements_shared(tree) if shared else nullcontext():
                assert binds_transformers(tree, text) == bool(names.classes or names.modules)
                models = removed_model_names.ModelModules(tree, text, firsts)
                assert list(models.aliases.items()) == list(aliases.items())
                # model_attribute_uses asks only of a chain from an alias or one of `firsts`
                assert models.stored == {d for d in stored if d.split(".")[0] in {*aliases, *firsts}}
                assert removed_model_names.ModelModules(tree, None, firsts).stored == models.stored
        if text.endswith(extra):
            assert binds_transformers(tree, text) and aliases
            assert removed_model_names.ModelModules(tree, text, ("transformers", "tf")).stored >= {
                "modeling_llama.LlamaAttention.forward", "ml.X", "ml.Y", "transformers.models.llama.modeling_llama.Z",
                "tf.a.b"}


@pytest.mark.parametrize(("text", "bound"), [
    ("import transformers\n", True), ("import os, transformers.models as tm\n", True),
    ("from transformers import modeling_utils\n", True), ("def f():\n    from transformers import DynamicCache\n", True),
    ("from .transformers import DynamicCache\n", False), ("from sentence_transformers import X\n", False),
    ("x = 'import transformers'  # import transformers\n", False), ("from transformers import\n", False),
])
def test_binds_transformers_says_whether_an_import_binds_a_class_or_module(text: str, bound: bool) -> None:
    tree = interp.parse(text)
    names = module_names(tree)
    assert binds_transformers(tree, text) is bound is bool(names.classes or names.modules)


def test_the_statement_list_is_made_once_a_check_and_never_kept_for_the_next() -> None:
    """One check of transformers-like code walks the tree's statements once, however many passes read them; the
    next keystroke's parse updates the kept tree in place, and its check sees the new statements."""
    text = "from transformers import DynamicCache\n\ndef f(model):\n    return model.generate(past_key_values=DynamicCache())\n"
    made: list[int] = []
    real = nodes._walk

    def counted(module: Any, reverse: bool) -> Iterator[Any]:
        made.append(reverse)
        return real(module, reverse)

    key = "/tmp/statement-list-test.py"
    context = Context(target=Target.of("5.24.0"))
    try:
        interp.analyse(text, key, context, incremental=True)
        nodes._walk = counted  # type: ignore[assignment]
        first = interp.analyse(text + "from transformers import SinkCache\n", key, context, incremental=True)
        assert made == []  # the shared list, built by `statements`, not a generator walk
        assert any(f.name == "SinkCache"
                   for f in first.facts.get("removed_api_use", ()))
    finally:
        nodes._walk = real  # type: ignore[assignment]
        interp.forget(key)


def facts(text: str, path: Path, version: str) -> tuple[object, ...]:
    removed_reuse._forget_runs()  # each check walks every function (the last check's uses are not reused)
    ctx = Context(target=Target.of(version), workspace=path.parent)
    tree = interp.parse(text)
    interpreter = Interpreter(text, str(path), ctx)
    interpreter.run_module(tree)
    s = interpreter.session
    assert s.guards is not None
    uses = tuple(f for f in s.recorded if isinstance(f, CacheUse))
    return removed_api.removed_api_uses(tree, text, ctx.target, s.guards, uses), hooks.hook_facts(tree, text)


@pytest.mark.parametrize("path", files(), ids=lambda p: p.name)
def test_the_shortcuts_of_the_hook_and_removed_api_passes_change_no_fact(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = list(broken(path.read_text()))
    skipped: list[bool] = []
    quiet = removed_api._Quiet.__call__

    def spy(self: Any, node: Any, piece: Any = None) -> bool:
        skipped.append(quiet(self, node, piece))
        return skipped[-1]

    monkeypatch.setattr(removed_api._Quiet, "__call__", spy)
    fast = {(t, v): facts(t, path, v) for t in texts for v in ("5.24.0", "4.57.6")}
    monkeypatch.setattr(removed_api._Quiet, "__call__", lambda self, node, piece=None: False)
    monkeypatch.setattr(hooks, "_nothing_bound", lambda names, text: False)
    monkeypatch.setattr(hooks, "binds_transformers", lambda module, text: True)
    monkeypatch.setattr(hooks, "_no_scan_word", lambda text: False)
    for (text, version), got in fast.items():
        assert got == facts(text, path, version), f"{path.name} at {version}"
    if path.name == "utils.py":  # transformers' own module: most functions skipped, no name bound
        assert skipped.count(True) > 3 * skipped.count(False)


# Uses only a function's own words can give: an import inside a function (a model module's removed cache, which no
# removed cache class name says), a removed class read off the module, a constructor keyword, a legacy read.
SNIPPETS = [
    "import transformers\n\ndef load():\n    from transformers.models.jamba.modeling_jamba import "
    "HybridMambaAttentionDynamicCache as C\n    return C\n",
    "import transformers\n\ndef pick():\n    return transformers.HybridCache\n",
    "from transformers import QuantizedCache\n\ndef make(model):\n    return QuantizedCache(backend=\"quanto\", "
    "config=model.config, nbits=4, compute_dtype=None)\n",
    "from transformers import AutoModelForCausalLM, DynamicCache\n\ndef run(model):\n    out = model.generate("
    "past_key_values=DynamicCache(), return_dict_in_generate=True)\n    return out.past_key_values[0][0]\n",
]


@pytest.mark.parametrize("snippet", SNIPPETS)
def test_a_function_that_holds_a_use_is_not_skipped(snippet: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "snippet.py"
    got = facts(snippet, path, "5.24.0")
    assert got[0], "the snippet holds a use the reader reports"
    monkeypatch.setattr(removed_api._Quiet, "__call__", lambda self, node, piece=None: False)
    assert facts(snippet, path, "5.24.0") == got


def example_codes() -> list[tuple[str, str]]:
    from hf_cache_lint.rules import ALL_RULES

    return [(f"{rule.code}-{kind}{i}", ex.code) for rule in ALL_RULES
            for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid)) for i, ex in enumerate(examples)]


@pytest.mark.parametrize(("name", "code"), example_codes(), ids=[n for n, _ in example_codes()])
def test_the_shortcuts_change_no_fact_of_a_rule_example(name: str, code: str, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "example.py"
    fast = {v: facts(code, path, v) for v in ("5.24.0", "4.57.6")}
    monkeypatch.setattr(removed_api._Quiet, "__call__", lambda self, node, piece=None: False)
    monkeypatch.setattr(hooks, "_nothing_bound", lambda names, text: False)
    monkeypatch.setattr(hooks, "binds_transformers", lambda module, text: True)
    monkeypatch.setattr(hooks, "_no_scan_word", lambda text: False)
    for version, got in fast.items():
        assert got == facts(code, path, version), f"{name} at {version}"


def test_the_quiet_answers_kept_from_the_last_check_are_for_the_same_words_and_only_its_functions(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """removed_api.py `_Quiet` reuses the last check's answer for a function whose text is unchanged, only under the
    same words (a check that imports a cache class looks for its name too), and keeps only the last check's texts."""
    text = "def make(x):\n    return MyCache(x)\n\ndef other():\n    return 1\n"
    make_text, other_text = "def make(x):\n    return MyCache(x)\n\n", "def other():\n    return 1\n"
    tree = interp.parse(text)
    make, other = [n for n in tree.children if n.type == "funcdef"]
    reads = removed_api.Reads((), Target.of("5.24.0"))
    monkeypatch.setattr(removed_api, "_LAST_ANSWERS", None)
    first = removed_api._Quiet(text, (), reads)
    assert first(make) and first(other)  # no word of a use in either
    first.keep_answers()
    kept = removed_api._LAST_ANSWERS
    assert kept == (first.words, {make_text: True, other_text: True})
    # A planted answer shows whether it is reused: under other words it is not (MyCache is then looked for) ...
    planted = {make_text: True, other_text: False, "def gone():\n    pass\n": True}
    monkeypatch.setattr(removed_api, "_LAST_ANSWERS", (first.words, planted))
    named = removed_api._Quiet(text, ("MyCache",), reads)
    assert not named(make) and named(other)
    # ... under the same words it is, and only the texts this check asked are kept for the next.
    again = removed_api._Quiet(text, (), reads)
    assert again(make) and not again(other)
    again.keep_answers()
    kept = removed_api._LAST_ANSWERS
    assert kept == (first.words, {make_text: True, other_text: False})
