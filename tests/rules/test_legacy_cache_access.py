"""HFC009 legacy-cache-access beyond its examples: the caches the interpreter follows (parameters, attributes,
helpers), what stays silent (the code's own tuples, compat code, `len`, one-name loops), and the fix's safety
over a range of releases (docs/rules/HFC009.md; the runtime facts: docs/facts.md, the release table's
`cache_subscript`, `cache_iterates_triples`, `encoder_decoder_cache_iterates_six`)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import SAFE, UNSAFE, Finding
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.environment.target_plan import plan_for

HEAD = ("import torch\nfrom transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, DynamicCache\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "ids = torch.tensor([[1, 2, 3]])\n\n\n")


def found(text: str, version: str = "5.24.0", context: Context | None = None) -> list[Finding]:
    ctx = context or Context(target=Target.of(version))
    return [f for f in check_source(text, "t.py", context=ctx).findings if f.code == "HFC009"]


def lines(text: str, version: str = "5.24.0") -> list[tuple[int, str]]:
    return [(f.span.start.line, f.severity.value) for f in found(text, version)]


FOLLOWED = [
    # a parameter its caller fills with a forward pass's cache
    ("def trim(past):\n    for k, v in past:\n        print(k.shape)\n\n\n"
     "trim(model(ids, use_cache=True).past_key_values)\n", 9),
    # an attribute set in __init__, indexed in a method
    ("class P:\n    def __init__(self):\n        self.cache = DynamicCache()\n"
     "        model(ids, past_key_values=self.cache)\n\n    def keys(self):\n        return self.cache[0][0]\n\n\n"
     "P().keys()\n", 14),
    # a helper's return
    ("def prefill():\n    return model(ids, use_cache=True).past_key_values\n\n\nk = prefill()[0][0]\n", 12),
    # enumerate(cache), each item unpacked as a pair
    ("def lengths(past):\n    for i, (k, v) in enumerate(past):\n        print(i, k.shape)\n\n\n"
     "lengths(model(ids, use_cache=True).past_key_values)\n", 9),
    # comprehensions and a generator argument over a parameter
    ("def keys(past):\n    return [k for k, v in past]\n\n\nkeys(model(ids, use_cache=True).past_key_values)\n", 9),
    ("def keys(past):\n    return tuple(k[:, :, :2] for k, v in past)\n\n\n"
     "keys(model(ids, use_cache=True).past_key_values)\n", 9),
    # an annotated parameter
    ("def first(cache: DynamicCache):\n    return cache[0]\n", 9),
    # the loop variable unpacked in the body (reported at the unpacking statement, where Python raises: Ouroboros's
    # `for kv in self._past_key_values:` then `k, v = kv`, labelled there by the heldout12 set)
    ("def trim(past):\n    for layer in past:\n        if layer is not None:\n            k, v = layer\n\n\n"
     "trim(model(ids, use_cache=True).past_key_values)\n", 11),
]


@pytest.mark.parametrize(("body", "line"), FOLLOWED)
def test_a_cache_followed_into_parameters_attributes_and_helpers(body: str, line: int) -> None:
    assert lines(HEAD + body) == [(line, "error")]
    assert lines(HEAD + body, "4.57.6") == []  # 4.57 still reads caches as legacy tuples


SILENT = [
    # a parameter nothing fills with a cache (it may hold a legacy tuple)
    "def seq_len(past):\n    return past[0][0].shape[2]\n",
    # the code's own tuple, iterated and indexed
    "cache = model(ids, use_cache=True).past_key_values\n"
    "legacy = tuple((layer.keys, layer.values) for layer in cache.layers)\n"
    "for k, v in legacy:\n    pass\nfirst = legacy[0][0]\nks = [k for k, v in legacy]\n",
    # one name per layer, its parts by index, and len(): 4.57.6, 5.0.0 and 5.24.0 all run these (oracle)
    "cache = model(ids, use_cache=True).past_key_values\nfor layer in cache:\n    print(layer[0].shape)\n"
    "n = len(cache)\nfor i, layer in enumerate(cache):\n    print(i, layer[1].shape)\n",
    # compat code: a branch chosen by what the object has, a try that handles the error
    "def keys(past):\n    if hasattr(past, 'layers'):\n        return past.layers[0].keys\n    return past[0][0]\n\n\n"
    "keys(model(ids, use_cache=True).past_key_values)\n",
    "def keys(past):\n    try:\n        return past[0][0]\n    except TypeError:\n        return past.layers[0].keys\n\n\n"
    "keys(model(ids, use_cache=True).past_key_values)\n",
    "def keys(past):\n    if isinstance(past, tuple):\n        return past[0][0]\n    return past.layers[0].keys\n\n\n"
    "keys(model(ids, use_cache=True).past_key_values)\n",
    # the loop variable unpacked only inside a nested function, or into three names (what 5.x yields), or rebound
    "cache = model(ids, use_cache=True).past_key_values\nfor layer in cache:\n    def f(layer):\n        k, v = layer\n",
    "cache = model(ids, use_cache=True).past_key_values\nfor layer in cache:\n    k, v, s = layer\n",
    # a project's own class named like a cache
    "class DynamicCache2(list):\n    pass\n\n\nc = DynamicCache2([(1, 2)])\nk, v = c[0]\nfor k, v in c:\n    pass\n",
]


@pytest.mark.parametrize("body", SILENT)
def test_no_finding_where_the_code_does_not_read_a_cache_as_tuples(body: str) -> None:
    assert lines(HEAD + body) == []


def test_an_undecided_condition_makes_it_a_warning_with_the_condition() -> None:
    body = "def keys(past, verbose):\n    if verbose:\n        print(past[0][0].shape)\n\n\n" \
           "keys(model(ids, use_cache=True).past_key_values, True)\n"
    [f] = found(HEAD + body)
    assert f.severity.value == "warning" and "only if `verbose` holds" in f.message


def test_four_names_over_an_encoder_decoder_cache_followed_into_a_helper() -> None:
    body = ('s2s = AutoModelForSeq2SeqLM.from_pretrained("google-t5/t5-small")\n\n\n'
            "def cross(past):\n    for sk, sv, ck, cv in past:\n        print(ck.shape)\n\n\n"
            "cross(s2s(input_ids=ids, decoder_input_ids=ids, use_cache=True).past_key_values)\n")
    [f] = found(HEAD + body)
    assert "ValueError: too many values to unpack (expected 4)" in f.message
    assert f.fixes == ()  # the loop's body reads four names: no mechanical replacement


def test_the_fix_is_unsafe_where_the_checked_range_reaches_below_layers() -> None:
    text = HEAD + "out = model.generate(ids, return_dict_in_generate=True)\nk = out.past_key_values[0][0]\n"
    [single] = found(text)
    assert (single.fixes[0].title, single.fixes[0].applicability) == ("Use `.layers[0].keys`", SAFE)
    for spec, applicability in ((">=4.45,<6", UNSAFE), (">=4.54,<6", SAFE)):
        plan = plan_for(spec, "pyproject.toml", "requirement")
        [f] = found(text, context=Context(target=plan.primary, plan=plan))
        assert f.fixes[0].applicability == applicability, spec


def test_the_cache_layers_answer_is_the_release_table() -> None:
    assert not Target.of("4.53.3").cache_layers and Target.of("4.54.0").cache_layers
    assert Target.of("5.24.0").cache_layers


DOMINATED = [
    # StreamingLLM's evict_for_space: the length by index, then `for k, v in past` (only the index is reached)
    ("def evict(past, keep):\n    n = past[0][0].size(2)\n    if n <= keep:\n        return past\n"
     "    return [[k[:, :, -keep:], v[:, :, -keep:]] for k, v in past]\n\n\n"
     "evict(model(ids, use_cache=True).past_key_values, 2)\n", [(9, "error")]),
    # two caches cut one after the other (speculative decoding's draft and target): the first cut raises
    ("def cut(draft, target, n):\n    draft = [(k[:, :, :n], v[:, :, :n]) for k, v in draft]\n"
     "    target = [(k[:, :, :n], v[:, :, :n]) for k, v in target]\n    return draft, target\n\n\n"
     "out = model(ids, use_cache=True)\ncut(out.past_key_values, out.past_key_values, 2)\n", [(9, "error")]),
    # a read under a condition does not stop the function: the later one is still reached when it does not hold
    ("def evict(past, keep, probe):\n    if probe:\n        n = past[0][0].size(2)\n"
     "    return [[k[:, :, -keep:], v[:, :, -keep:]] for k, v in past]\n\n\n"
     "evict(model(ids, use_cache=True).past_key_values, 2, False)\n", [(10, "warning"), (11, "error")]),
]


@pytest.mark.parametrize(("body", "expected"), DOMINATED)
def test_a_read_that_raises_hides_the_reads_it_dominates(body: str, expected: list[tuple[int, str]]) -> None:
    """A legacy read that raises wherever it runs stops its function: what it dominates is never reached on 5.x."""
    assert lines(HEAD + body) == expected


def test_a_read_after_a_removed_use_that_raises_is_not_reached() -> None:
    # LCKV's `from_cache`: the removed `_seen_tokens` read raises first (HFC007 reports it), so the indexing in the
    # loop after it never runs; without that read the same indexing is reported.
    convert = ("def convert(dynamic_cache):\n    seen = {}\n    for i in range(len(dynamic_cache)):\n"
               "        seen[i] = dynamic_cache[i]\n    return seen\n\n\n"
               "convert(model(ids, use_cache=True).past_key_values)\n")
    assert lines(HEAD + convert) == [(11, "error")]
    stopped = convert.replace("    seen = {}\n", "    seen = {}\n    total = dynamic_cache._seen_tokens\n")
    assert lines(HEAD + stopped) == []
    # A read under the same test as an earlier raising one: the earlier stops it (exporters' validation).
    tested = ("out = model(ids, use_cache=True)\nif out.past_key_values is not None and len(ids) > 0:\n"
              "    keys = out.past_key_values[0][0]\n    values = out.past_key_values[0][1]\n")
    assert [line for line, _ in lines(HEAD + tested)] == [10]
    untested = tested.replace("    values = out", "values = out")
    assert [line for line, _ in lines(HEAD + untested)] == [10, 11]
