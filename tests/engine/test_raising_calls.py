"""engine/syntax/raising_calls.py: a helper whose own block reads a removed member raises at every call, so the
call stops its caller (DeepSeek-VL2's `prepare_inputs_for_generation`: `_seen_length(past_key_values)` then
`_max_length(past_key_values)`, whose answer's None test never runs on 5.23, where `get_max_length()` is back;
heldout8 deepseek_vl2_language.py:46), and HFC007 leaves out what such a call dominates."""

from __future__ import annotations

import parso
import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Position
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.syntax.raising_calls import raising_calls

CODE = (
    "def seen(c):\n"                      # 1
    "    return c.seen_tokens\n"           # 2
    "def guarded(c):\n"                   # 3
    "    if c is None:\n"                  # 4
    "        return 0\n"                   # 5
    "    return c.seen_tokens\n"           # 6
    "def branch(c, f):\n"                 # 7
    "    if f:\n"                          # 8
    "        return c.seen_tokens\n"       # 9
    "def ternary(c, f):\n"                # 10
    "    return c.seen_tokens if f else 0\n"  # 11
    "def outer(c):\n"                     # 12
    "    n = seen(c)\n"                    # 13
    "    return n\n"                       # 14
    "class M:\n"                          # 15
    "    def own(self, c):\n"              # 16
    "        return c.seen_tokens\n"       # 17
    "    def run(self, c):\n"              # 18
    "        return self.own(c)\n"         # 19
    "def one(c): return c.seen_tokens\n"  # 20
    "x = outer(c) + guarded(c) + branch(c, 1) + ternary(c, 1) + one(c)\n"  # 21
)
TREE = parso.parse(CODE)


def at(line: int, text: str) -> Position:
    return Position(line, CODE.splitlines()[line - 1].index(text))


@pytest.mark.parametrize(("use", "calls"), [
    (at(2, "c.seen"), [at(13, "seen("), at(21, "outer(")]),  # a helper's one statement, and its caller's caller
    (at(6, "c.seen"), []),    # an earlier `return` may leave the helper first
    (at(9, "c.seen"), []),    # under an `if`
    (at(11, "c.seen"), []),   # a ternary's branch
    (at(17, "c.seen"), [at(19, "self.own")]),  # a method: `self.own(...)` in its class
    (at(20, "c.seen"), [at(21, "one(")]),      # a one-line function
])
def test_raising_calls(use: Position, calls: list[Position]) -> None:
    assert sorted(raising_calls(TREE, [use]), key=lambda p: (p.line, p.column)) == calls


def found(text: str, version: str) -> list[tuple[int, str]]:
    head = "import torch\nfrom transformers import AutoModelForCausalLM, Cache\n"
    result = check_source(head + text, "t.py", context=Context(target=Target.of(version)))
    return [(f.span.start.line - 2, f.severity.value) for f in result.findings if f.code == "HFC007"]


HOOKED = (
    "def _seen(pkv):\n"                                  # 1
    "    return pkv.seen_tokens\n"                         # 2
    "def _max(pkv):\n"                                   # 3
    "    return pkv.get_max_length()\n"                    # 4
    "class M(LlamaForCausalLM):\n"                       # 5
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kw):\n"
    "        if past_key_values is not None:\n"          # 7
    "            if isinstance(past_key_values, Cache):\n"  # 8
    "                seen = {first}\n"                     # 9
    "                top = _max(past_key_values)\n"        # 10
    "            else:\n"                                  # 11
    "                top = None\n"                         # 12
    "            if top is not None and attention_mask is not None:\n"  # 13
    "                attention_mask = attention_mask[:, -top:]\n"  # 14
    "        return {{'input_ids': input_ids, 'attention_mask': attention_mask}}\n"  # 15
    "m = M.from_pretrained('m')\n"
    "c = AutoModelForCausalLM.from_pretrained('m')(torch.ones(1, 3).long(), use_cache=True).past_key_values\n"
    "m.prepare_inputs_for_generation(torch.ones(1, 4).long(), past_key_values=c)\n"
)


def test_a_none_test_behind_a_helper_that_raises_is_not_reported() -> None:
    # 5.23.0: `get_max_length()` answers -1 again, but `_seen` raises first on the only path that makes `top`
    text = "from transformers import LlamaForCausalLM\n" + HOOKED.format(first="_seen(past_key_values)")
    assert found(text, "5.23.0") == [(3, "error")]


def test_the_none_test_is_reported_where_nothing_stops_it_first() -> None:
    text = "from transformers import LlamaForCausalLM\n" + HOOKED.format(first="past_key_values.get_seq_length()")
    assert found(text, "5.23.0") == [(5, "warning")]


def test_a_helper_that_may_return_first_stops_nothing() -> None:
    text = "from transformers import LlamaForCausalLM\n" + HOOKED.format(first="_seen(past_key_values)").replace(
        "def _seen(pkv):\n", "def _seen(pkv):\n    if pkv is None:\n        return 0\n")
    assert (7, "warning") in found(text, "5.23.0")


BUILT = (
    "class Own:\n"                        # 1
    "    def __init__(self):\n"           # 2
    "        self.n = c.seen_tokens\n"    # 3
    "    @classmethod\n"                  # 4
    "    def make(cls):\n"                # 5
    "        return cls()\n"              # 6
    "    def other(self):\n"              # 7
    "        return self.__init__\n"      # 8
    "def build():\n"                      # 9
    "    return Own()\n"                  # 10
    "def unrelated(cls):\n"               # 11
    "    return cls()\n"                  # 12
)


def test_an_init_that_raises_stops_the_constructions_of_its_class() -> None:
    # LCKV (heldout16 lckv_layer_cache.py): `from_cache` builds `cls()`, whose `__init__` raises, first
    tree = parso.parse(BUILT)
    use = Position(3, BUILT.splitlines()[2].index("c.seen"))
    got = sorted(raising_calls(tree, [use]), key=lambda p: (p.line, p.column))
    assert got == [Position(6, 15), Position(10, 11)]  # `cls()` in its class, `Own()` in the module; not line 12


BUILT_SUPER = (
    "class Own(Base):\n"                       # 1
    "    def __init__(self):\n"                # 2
    "        super().__init__()\n"             # 3
    "    @classmethod\n"                       # 4
    "    def make(cls):\n"                     # 5
    "        return cls()\n"                   # 6
    "    def again(self):\n"                   # 7
    "        return self.__init__()\n"         # 8
    "def build():\n"                           # 9
    "    return Own()\n"                       # 10
    "Other()\n"                                # 11
)


def test_an_init_that_raises_stops_where_the_class_is_built() -> None:
    # LCKV's `IndexedCache.from_cache`: `cls()` runs `__init__`, whose bare `super().__init__()` raises (heldout16)
    got = raising_calls(parso.parse(BUILT_SUPER), [Position(3, 8)])
    assert {p.line for p in got} >= {6, 8, 10}
    assert all(p.line != 11 for p in got)
    assert raising_calls(parso.parse(BUILT_SUPER.replace("__init__(self)", "setup(self)")), [Position(3, 8)]) == []


def test_a_function_called_only_after_a_raise_is_not_reported() -> None:
    # surya's mixin: `merge` reads the removed `key_cache` through `self.full(i)` first, so `self.store(...)` after it
    # never runs; `store` is reported where something else calls it unstopped.
    text = ("from transformers import DynamicCache\n\n\n"
            "class M:\n"
            "    def full(self, i):\n"
            "        return self.key_cache[i]\n\n"
            "    def store(self, i, k):\n"
            "        self.key_cache[i] = k\n\n"
            "    def merge(self, i):\n"
            "        k = self.full(i)\n"
            "        self.store(i, k)\n\n\n"
            "class C(M, DynamicCache):\n"
            "    pass\n")
    assert found(text, "4.57.6") == [(6, "error")]
    again = text.replace("        self.store(i, k)\n", "        self.store(i, k)\n\n    def put(self, i, k):\n"
                         "        self.store(i, k)\n")
    assert found(again, "4.57.6") == [(6, "error"), (9, "error")]


def test_a_parameter_annotated_with_the_projects_cache_class_is_that_cache() -> None:
    # engine/interpreter/functions.py: surya's `merge(self, new_cache: "ContinuousBatchingCache", ...)` (heldout17)
    text = ("from transformers import DynamicCache\n\n\n"
            "class M:\n"
            "    def merge(self, other: \"C\"):\n"
            "        return other._seen_tokens\n\n\n"
            "class C(M, DynamicCache):\n"
            "    pass\n")
    assert found(text, "4.57.6") == [(6, "error")]
    assert found(text.replace('other: "C"', "other"), "4.57.6") == []
    assert found(text.replace("class C(M, DynamicCache)", "class C(M)"), "4.57.6") == []
