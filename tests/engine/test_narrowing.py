"""`isinstance` guards as cache evidence (engine/interpreter/narrowing.py): where `isinstance(x, Cache)` (a class
imported from transformers) says so, x's uses are checked as a transformers cache's; nowhere else, and never for a
project's own class named like one. HFC007 is the rule that reads them back (`seen_tokens`, `get_usable_length`:
gone since 4.54.0, docs/facts.md)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import KIND, CacheUse
from hf_cache_lint.engine.interpreter.interp import analyse

HEAD = "from transformers import Cache, DynamicCache, LlamaForCausalLM, StaticCache\nimport transformers\n\n"


def uses(text: str, version: str = "4.57.6") -> list[CacheUse]:
    analysis = analyse(HEAD + text, "<test>", Context(target=Target(Version.parse(version))))
    return [u for u in analysis.of(KIND) if u.name in ("seen_tokens", "get_usable_length", "key_cache")]


def lines(text: str, version: str = "4.57.6", code: str = "HFC007") -> list[int]:
    result = check_source(HEAD + text, "t.py", context=Context(target=Target.of(version)))
    return sorted(f.span.start.line - HEAD.count("\n") for f in result.findings if f.code == code)


NARROWED = [
    # the branch of the guard
    ("def f(c):\n    if isinstance(c, Cache):\n        return c.seen_tokens\n", "Cache"),
    ("def f(c):\n    if isinstance(c, DynamicCache):\n        return c.get_usable_length(1)\n", "DynamicCache"),
    ("def f(c):\n    if isinstance(c, transformers.cache_utils.StaticCache):\n        return c.seen_tokens\n",
     "StaticCache"),
    # an operand of `and`, in the branch and after it in the test
    ("def f(c):\n    if isinstance(c, Cache) and c.get_seq_length() > 0:\n        return c.seen_tokens\n", "Cache"),
    ("def f(c):\n    return isinstance(c, Cache) and c.seen_tokens > 0\n", "Cache"),
    # the other side of `not`, and after an early exit
    ("def f(c):\n    if not isinstance(c, DynamicCache):\n        return 0\n    return c.seen_tokens\n", "DynamicCache"),
    ("def f(c):\n    if not isinstance(c, Cache):\n        raise TypeError\n    return c.seen_tokens\n", "Cache"),
    ("def f(c):\n    if c is None or not isinstance(c, Cache):\n        return 0\n    return c.seen_tokens\n", "Cache"),
    ("def f(c):\n    if not isinstance(c, Cache):\n        return 0\n    else:\n        return c.seen_tokens\n", "Cache"),
    # a tuple of transformers cache classes only: the base class
    ("def f(c):\n    if isinstance(c, (DynamicCache, StaticCache)):\n        return c.seen_tokens\n", "Cache"),
    ("def f(c=None):\n    if isinstance(c, Cache):\n        return c.seen_tokens\n", "Cache"),
]


@pytest.mark.parametrize(("text", "cls"), NARROWED)
def test_the_guarded_side_holds_a_cache(text: str, cls: str) -> None:
    got = uses(text)
    assert [(u.receiver_class, u.receiver) for u in got] == [(cls, "c")]
    assert got[0].guard is not None and got[0].guard.startswith("isinstance(c, ")
    assert lines(text) == [text.count("\n", 0, text.index(".seen_tokens" if "seen_tokens" in text else
                                                          ".get_usable_length")) + 1]


NOT_NARROWED = [
    # the other side of the guard, after the `if`, a guard on another name, a guard that does not leave
    "def f(c):\n    if isinstance(c, Cache):\n        pass\n    else:\n        return c.seen_tokens\n",
    "def f(c):\n    if isinstance(c, Cache):\n        pass\n    return c.seen_tokens\n",
    "def f(c, d):\n    if isinstance(d, Cache):\n        return c.seen_tokens\n",
    "def f(c):\n    if not isinstance(c, Cache):\n        print(c)\n    return c.seen_tokens\n",
    # `or`: either side may hold; a tuple with a non-cache class (a legacy tuple passes the test)
    "def f(c):\n    if isinstance(c, Cache) or c is None:\n        return c.seen_tokens\n",
    "def f(c):\n    if isinstance(c, (Cache, tuple)):\n        return c.seen_tokens\n",
    "def f(c):\n    x = isinstance(c, Cache) and 1\n    return c.seen_tokens\n",
    # a class named like one but not transformers': the project's own, a local one, another library's
    "class Cache:\n    pass\n\n\ndef f(c):\n    if isinstance(c, Cache):\n        return c.seen_tokens\n",
    "from mylib import KVCache\n\n\ndef f(c):\n    if isinstance(c, KVCache):\n        return c.seen_tokens\n",
    "def f(c):\n    if isinstance(c, type(c)):\n        return c.seen_tokens\n",
    # a value the code says is something else stays so (the project's own instance)
    "class Mine:\n    seen_tokens = 0\n\n\ndef f():\n    c = Mine()\n    if isinstance(c, Cache):\n"
    "        return c.seen_tokens\n",
    # a transformers class that is no cache
    "def f(c):\n    if isinstance(c, LlamaForCausalLM):\n        return c.seen_tokens\n",
]


@pytest.mark.parametrize("text", NOT_NARROWED)
def test_no_guard_no_cache(text: str) -> None:
    assert uses(text) == []
    assert lines(text) == []


def test_a_compat_probe_beside_the_guard_still_hides_the_read() -> None:
    # `hasattr` tests what the object has: compat code, whichever branch the target takes (removed_api.py)
    text = "def f(c):\n    if isinstance(c, Cache) and hasattr(c, 'seen_tokens'):\n        return c.seen_tokens\n"
    assert len(uses(text)) == 1
    assert lines(text) == []


HOOK = ("class LM(LlamaForCausalLM):\n"
        "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
        "        if isinstance(past_key_values, Cache):\n"
        "            n = past_key_values.seen_tokens\n"
        "        return {'input_ids': input_ids, 'past_key_values': past_key_values}\n")


@pytest.mark.parametrize(("version", "reported"), [("4.57.6", [4]), ("5.23.0", [4]), ("5.24.0", []), ("5.25.0", [])])
def test_a_hook_parameter_the_target_no_longer_fills_is_never_a_cache_there(version: str,
                                                                          reported: list[int]) -> None:
    # From 5.24 generate passes the hook `cache=`: `past_key_values` is None, the guard false. HFC010 says nothing
    # either: the hook reads `seen_tokens`, gone since 4.54, so it already raised on every release that passed it
    # the cache (HFC007's finding above), and it runs from 5.24 (the oracle: heldout5 cdkey's cd_prepare_lengths).
    assert lines(HOOK, version) == reported
    assert lines(HOOK, version, "HFC010") == []


HELPER_HOOK = ("def seen(past_key_values):\n"
               "    return past_key_values.seen_tokens\n\n\n"
               "class LM(LlamaForCausalLM):\n"
               "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
               "        if isinstance(past_key_values, Cache):\n"
               "            n = seen(past_key_values)\n"
               "        return {'input_ids': input_ids, 'past_key_values': past_key_values}\n")


@pytest.mark.parametrize(("version", "reported"), [("4.57.6", [2]), ("5.23.0", [2]), ("5.24.0", []), ("5.25.0", [])])
def test_a_helper_given_the_unfed_parameter_under_its_guard_is_never_reached_there(version: str,
                                                                                   reported: list[int]) -> None:
    # The hook hands the guarded cache to a module function (InternVL's Phi-3 `prepare_inputs_for_generation`):
    # the read there is reached only where the hook's guard is true (the oracle: heldout7 internvl_phi3_prepare's
    # p3_seen_tokens raises on 4.57.6 and 5.23.0, runs on 5.24.0 and 5.25.0).
    assert lines(HELPER_HOOK, version) == reported


_DIRECT = ("\n\nlm = LM.from_pretrained('meta-llama/Llama-3.2-1B')\n"
           "{past}lm.prepare_inputs_for_generation(ids, past_key_values={arg})\n")


@pytest.mark.parametrize(("past", "arg", "reported"), [
    # the code calls the hook itself with a forward's cache: on that call the parameter holds it on every release
    ("ids = [[1, 2]]\n", "lm(ids, use_cache=True).past_key_values", [2]),
    # a legacy tuple: the guard is false there too (InternVL's Phi-3 probe of its legacy branch)
    ("ids = [[1, 2]]\nlegacy = ((ids, ids),)\n", "legacy", []),
    ("ids = [[1, 2]]\n", "None", []),
])
def test_a_direct_call_of_the_hook_with_a_cache_is_reached_where_generate_no_longer_fills_it(
        past: str, arg: str, reported: list[int]) -> None:
    # DeepSeek-VL2's prepare_inputs_for_generation called with `past_key_values=` a forward's cache (heldout8
    # dv_seen_tokens: AttributeError seen_tokens on 4.57.6, 5.23.0, 5.24.0 and 5.25.0, the oracle).
    text = HELPER_HOOK + _DIRECT.format(past=past, arg=arg)
    assert lines(text, "5.24.0") == reported


_OWN = ("class Mine(Cache):\n    def __init__(self):\n        self.seen_tokens = 0\n\n\n"
        "def seen(c):\n    if isinstance(c, {cls}):\n        return c.seen_tokens\n    return 0\n")


@pytest.mark.parametrize(("cls", "reported"), [
    # `isinstance(c, Cache)` holds for the project's own subclass, which sets the member: the code does not say the
    # receiver is a transformers cache without it (heldout3 magicpig mp_seen_tokens: MagicCache sets seen_tokens)
    ("Cache", []),
    # a test of another class than the subclass's base says nothing of the project's class
    ("DynamicCache", [8]),
])
def test_a_guard_the_projects_own_subclass_passes_does_not_claim_its_members(cls: str, reported: list[int]) -> None:
    assert lines(_OWN.format(cls=cls), "4.57.6") == reported
    # a member the subclass does not define is still transformers' (`get_usable_length`, gone since 4.54)
    other = _OWN.format(cls=cls).replace("c.seen_tokens", "c.get_usable_length(0)")
    assert lines(other, "4.57.6") == [8]


def test_the_same_helper_given_a_guarded_cache_outside_a_hook_stays_reported() -> None:
    text = HELPER_HOOK.replace("class LM(LlamaForCausalLM):\n    def prepare_inputs_for_generation(self, ",
                               "class Plain:\n    def run(self, ")
    assert lines(text, "5.24.0") == [2]
    # and a helper testing its own parameter is its own guard, not the hook's
    own = ("def seen(past_key_values):\n    if isinstance(past_key_values, Cache):\n"
           "        return past_key_values.seen_tokens\n\n\n" + HELPER_HOOK.split("\n\n\n", 1)[1]
           .replace("            n = seen(past_key_values)", "            n = seen(past_key_values)\n        seen(kwargs)"))
    assert lines(own, "5.24.0") == [3]


def test_a_hook_that_also_takes_the_new_name_keeps_its_guarded_reads() -> None:
    text = HOOK.replace("**kwargs):\n", "**kwargs):\n        past_key_values = kwargs.pop('cache', past_key_values)\n")
    assert lines(text, "5.24.0") == [5]


def test_a_removed_method_on_a_fallback_branch_inside_the_guard_stays_quiet() -> None:
    # unsloth's `_cache_as_legacy_tuple`: after the guard, a `getattr` probe picks the branch (compat code)
    text = ("def legacy(c):\n    if not isinstance(c, Cache):\n        return c\n"
            "    layers = getattr(c, 'layers', None)\n    if layers is None:\n        return c.to_legacy_cache()\n"
            "    return layers\n")
    assert lines(text, "5.24.0") == []
    # the guard's own branch is the cache's: the removed method is reported there
    assert lines("def legacy(c):\n    if isinstance(c, DynamicCache):\n        return c.to_legacy_cache()\n",
                 "5.24.0") == [3]


# generate fills a model subclass's `prepare_inputs_for_generation` override's `past_key_values` with its cache
# until 5.24 (from then it passes `cache=`: the parameter is None, HFC010's finding): HFC009 reads its index there.
PREPARE = ("class M(LlamaForCausalLM):\n"
           "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
           "        if past_key_values is not None:\n"
           "            n = past_key_values[0][0].shape[2]\n"
           "        return {'input_ids': input_ids}\n")


@pytest.mark.parametrize(("text", "version", "expected"), [
    (PREPARE, "5.0.0", [4]),
    (PREPARE, "5.23.0", [4]),
    (PREPARE, "5.24.0", []),  # passed as `cache=`: nothing fills `past_key_values`
    (PREPARE, "4.57.6", []),  # still subscriptable
    (PREPARE.replace("LlamaForCausalLM", "object"), "5.23.0", []),  # a project's own class: not generate's hook
    (PREPARE.replace("def prepare_inputs_for_generation", "def prepare_step"), "5.23.0", []),  # not the hook
    (PREPARE.replace("past_key_values=None", "past=None").replace("past_key_values", "past"), "5.23.0", []),
])
def test_generate_fills_a_prepare_inputs_override(text: str, version: str, expected: list[int]) -> None:
    assert lines(text, version, code="HFC009") == expected


def test_the_message_says_generate_passes_the_cache() -> None:
    result = check_source(HEAD + PREPARE, "t.py", context=Context(target=Target.of("5.23.0")))
    [finding] = [f for f in result.findings if f.code == "HFC009"]
    assert "the cache generate passes: DynamicCache by default" in finding.message


def test_an_isinstance_guard_still_narrows_the_cache_generate_passes() -> None:
    """The guard says more than "generate's cache": its class, and that the code tests for it (no compat probe)."""
    text = PREPARE.replace("past_key_values is not None", "isinstance(past_key_values, Cache)").replace(
        "n = past_key_values[0][0].shape[2]", "n = past_key_values.seen_tokens")
    assert lines(text, "4.57.6") == [4]


# `isinstance(x, tuple)` (builtin types only): no transformers cache is one, so where the test holds x is no cache.
RETURNED = "model = LlamaForCausalLM.from_pretrained('m')\nout = model(torch.tensor([[1]]), use_cache=True)\n"
NOT_A_CACHE = [
    ("def f(p):\n    if isinstance(p, tuple) and len(p) > 0 and isinstance(p[0], tuple):\n        return p\n"
     "    return None\n\n\nf(out.past_key_values)\n", []),
    ("def f(p):\n    if isinstance(p, (tuple, list)):\n        return p[0][0]\n    return None\n\n\n"
     "f(out.past_key_values)\n", []),
    ("def f(p):\n    if not isinstance(p, tuple):\n        return None\n    return p[0][0]\n\n\n"
     "f(out.past_key_values)\n", []),
    # after the expression that tested it, the cache again
    ("def f(p):\n    legacy = isinstance(p, tuple) and len(p) > 0\n    return p[0][0]\n\n\n"
     "f(out.past_key_values)\n", [3]),
]


@pytest.mark.parametrize(("text", "expected"), NOT_A_CACHE)
def test_a_builtin_type_test_says_no_cache_where_it_holds(text: str, expected: list[int]) -> None:
    got = lines("import torch\n" + RETURNED + "\n\n" + text, "5.24.0", code="HFC009")
    assert [n - 5 for n in got] == expected


CONVERTER = ("def to_cache(p):\n    if isinstance(p, tuple):\n        return DynamicCache.from_legacy_cache(p)\n"
             "    return p\n\n\ndef size(kv):\n    return kv[0][0].shape[0]\n\n\n")


@pytest.mark.parametrize(("call", "expected"), [
    ("size(to_cache(out.past_key_values))\n", [8]),  # the tuple branch is never taken for a cache
    ("size(to_cache(out.past_key_values.layers))\n", []),  # not a cache: the branch may be taken
    ("size(to_cache(((torch.zeros(1), torch.zeros(1)),)))\n", []),  # the code's own tuple, converted or not
])
def test_a_converter_hands_back_the_cache_it_was_given(call: str, expected: list[int]) -> None:
    got = lines("import torch\n" + RETURNED + "\n\n" + CONVERTER + call, "5.24.0", code="HFC009")
    assert [n - 5 for n in got] == expected


# A cache of the enclosing scope indexed inside a comprehension's element or later loop
# (engine/syntax/comprehensions.py); a name the comprehension binds, or one under an `if` clause, is not read.
@pytest.mark.parametrize(("expr", "expected"), [
    ("[[t.shape for t in past[i]] for i in range(len(past))]", [1]),
    ("[past[i][0].shape for i in range(2)]", [1]),
    ("[[t for t in past[i]] for past in (((1, 2),),) for i in range(1)]", []),  # `past` bound by the comprehension
    ("[past[i][0] for i in range(2) if not hasattr(past, 'layers')]", []),  # an `if` clause may keep it out
])
def test_a_comprehension_indexing_the_enclosing_cache(expr: str, expected: list[int]) -> None:
    got = lines("import torch\n" + RETURNED + "past = out.past_key_values\nbatch = " + expr + "\n", "5.24.0",
                code="HFC009")
    assert [n - 4 for n in got] == expected


def test_an_async_comprehension_indexing_the_enclosing_cache() -> None:
    """`async for` wraps the loop (`comp_for` around `sync_comp_for`): its target is still bound, nothing breaks."""
    text = ("import torch\n" + RETURNED + "past = out.past_key_values\n\n\nasync def f(agen):\n"
            "    return [[t for t in past[i]] async for i in agen]\n")
    assert [n - 4 for n in lines(text, "5.24.0", code="HFC009")] == [4]
    assert lines(text.replace("past[i]", "i[0]"), "5.24.0", code="HFC009") == []


@pytest.mark.parametrize(("expr", "reported"), [
    # the index runs before the subscript: a removed member read in it raises (4.57.6: `seen_tokens` gone)
    ("ids[:, cache.seen_tokens:]", [6]),
    ("ids[cache.seen_tokens]", [6]),
    ("ids[0, :seen(cache)]", [2]),
    # an index the code does not compute from the cache
    ("ids[:, 1:]", []),
])
def test_a_cache_read_in_an_index(expr: str, reported: list[int]) -> None:
    text = ("def seen(c):\n    return c.seen_tokens\n\n\n"
            "cache = LlamaForCausalLM.from_pretrained('m')([[1, 2]], use_cache=True).past_key_values\n"
            f"n = {expr}\n")
    assert lines(text.replace("ids", "[[1, 2]]")) == reported
