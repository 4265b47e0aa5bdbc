"""Reads of a cache 5.x (or 4.5x) removed, HFC007's (`get_max_cache_shape()`, `key_cache`, ...) and HFC009's (the
legacy tuples: `cache[i]`, `for k, v in cache`): only where the code says the value is a transformers cache
(docs/rules/HFC007.md, HFC009.md; the runtime facts are docs/facts.md §7, `facts:removed_cache_reads`)."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.removed_api_use import KIND as REMOVED_API_USE
from hf_cache_lint.engine.text.prefilter import might_use_removed_api

LOAD = ("from transformers import AutoModelForCausalLM, DynamicCache, StaticCache\n"
        'model = AutoModelForCausalLM.from_pretrained("m")\n')
GEN = "out = model.generate(ids, max_new_tokens=3, return_dict_in_generate=True)\n"


def reads(text: str, version: str = "5.24.0") -> list[tuple[int, str, str]]:
    """(line, severity, first words of the message) of each HFC007 and HFC009 finding."""
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [(f.span.start.line, f.severity.value, f.message.split(":")[0]) for f in result.findings
            if f.code in ("HFC007", "HFC009")]


@pytest.mark.parametrize(("body", "line", "shape"), [
    ("n = out.past_key_values[0][0].shape[2]\n", 4, "`out.past_key_values[0]`"),
    ("past = out.past_key_values\nk, v = past[-1]\n", 5, "`past[-1]`"),
    ("for k, v in out.past_key_values:\n    pass\n", 4, "`for k, v in out.past_key_values`"),
    ("sizes = [k.shape for k, v in out.past_key_values]\n", 4, "`for k, v in out.past_key_values`"),
    ("m = out.past_key_values.get_max_cache_shape()\n", 4, "`out.past_key_values.get_max_cache_shape()`"),
    ("c = StaticCache(config=model.config, max_cache_len=8)\nm = c.max_cache_len\n", 5, "`c.max_cache_len`"),
    ("c = DynamicCache()\nmodel(ids, past_key_values=c)\nk = c[0][0]\n", 6, "`c[0]`"),
    ("def f():\n    o = model.generate(ids, return_dict_in_generate=True)\n    return o.past_key_values[0]\n",
     5, "`o.past_key_values[0]`"),
    ("n = model.generate(ids, return_dict_in_generate=True).past_key_values[0][0].shape[2]\n", 3,
     "`model.generate(ids, return_dict_in_generate=True).past_key_values[0]`"),
])
def test_a_read_of_a_cache_the_code_says_it_has_is_an_error(body: str, line: int, shape: str) -> None:
    text = LOAD + ("" if "generate(ids, return" in body and "out" not in body else GEN) + body
    got = reads(text)
    assert [(ln, sev) for ln, sev, _ in got] == [(line, "error")], got
    assert got[0][2] == shape


@pytest.mark.parametrize("body", [
    "def seq_len(past):\n    return past[0][0].shape[2]\n",  # a parameter: may be a legacy tuple
    "past = out.past_key_values\npast = tuple(past)\nk = past[0]\n",  # rebound to something else
    "out2 = model.generate(ids)\nk = out2[0]\n",  # generate's tensor result
    "for layer in out.past_key_values:\n    pass\n",  # one name: still iterates on 5.x
    "for k, v, s in out.past_key_values:\n    pass\n",  # 5.x's own shape
    'if hasattr(out.past_key_values, "layers"):\n    k = 1\nelse:\n    k = out.past_key_values[0][0]\n',
    "try:\n    k = out.past_key_values[0]\nexcept TypeError:\n    k = None\n",
    "k = out.past_key_values.layers[0].keys\nm = out.past_key_values.get_max_length()\n",
    "c = DynamicCache()\nm = c.max_cache_len\n",  # DynamicCache never had it (4.57 raises too): not a 5.x removal
    "out.past_key_values[0] = None\n",  # a store, not a read
    "x = {}\nx[0] = out\nk = x[0]\n",
])
def test_no_finding_where_the_code_does_not_say_cache_or_handles_it(body: str) -> None:
    assert reads(LOAD + GEN + body) == []


def test_a_model_with_its_own_code_says_nothing_about_its_output() -> None:
    remote = LOAD.replace('from_pretrained("m")', 'from_pretrained("m", trust_remote_code=True)')
    assert reads(remote + GEN + "k = out.past_key_values[0]\n") == []
    assert len(reads(remote + "c = DynamicCache()\nk = c[0]\n")) == 1  # a cache built here still is one


def test_without_return_dict_in_generate_the_result_is_not_an_output() -> None:
    assert reads(LOAD + "out = model.generate(ids)\nk = out.past_key_values[0]\n") == []


def test_versions_follow_the_table() -> None:
    text = LOAD + GEN + "k = out.past_key_values[0]\nm = out.past_key_values.get_max_cache_shape()\n"
    assert [ln for ln, _, _ in reads(text, "4.57.6")] == []
    assert [ln for ln, _, _ in reads(text, "5.0.0")] == [4]  # get_max_cache_shape still there
    assert [ln for ln, _, _ in reads(text, "5.23.0")] == [4, 5]


def test_an_undecided_condition_makes_it_a_warning() -> None:
    assert [sev for _, sev, _ in reads(LOAD + GEN + "if verbose:\n    print(out.past_key_values[0][0].shape)\n")] \
        == ["warning"]


def test_the_fix_reads_the_layer_only_where_the_cache_has_layers() -> None:
    text = LOAD + GEN + "n = out.past_key_values[0][0].shape[2]\n"
    (finding,) = check_source(text, "t.py", context=Context(target=Target.of("5.24.0"))).findings
    assert [f.title for f in finding.fixes] == ["Use `.layers[0].keys`", "Ignore HFC009 on this line"]
    assert finding.fixes[0].edits[0].content == "out.past_key_values.layers[0].keys"
    seq2seq = text.replace("AutoModelForCausalLM.from_pretrained", "AutoModelForSeq2SeqLM.from_pretrained")
    (finding,) = check_source(seq2seq, "t.py", context=Context(target=Target.of("5.24.0"))).findings
    assert finding.fixes == ()  # the cache of a seq2seq model: its legacy tuples are four long, no `.layers`


def test_the_screen_lets_such_files_through() -> None:
    assert REMOVED_API_USE.said(GEN + "k = out.past_key_values[0]\n")
    assert REMOVED_API_USE.said("c = DynamicCache()\nk = c[0]\n")
    assert not REMOVED_API_USE.said("c = make()\nk = c[0]\n")  # no cache word, no removed name: none can be


@pytest.mark.parametrize(("cls", "instead"), [
    ("DynamicCache", "`DynamicCache(legacy)`"),
    # An encoder-decoder's 4-tuples: DynamicCache(legacy) raises ValueError on 4.57.6 and builds no
    # EncoderDecoderCache on 5.x; EncoderDecoderCache(legacy) works on both (`facts:removed_cache_api_details`).
    ("EncoderDecoderCache", "`EncoderDecoderCache(legacy)`"),
])
def test_from_legacy_cache_names_the_constructor_of_its_own_class(cls: str, instead: str) -> None:
    text = f"from transformers import {cls}\n\ndef load(legacy):\n    return {cls}.from_legacy_cache(legacy)\n"
    result = check_source(text, "t.py", context=Context(target=Target.of("5.24.0")))
    [finding] = [f for f in result.findings if f.code == "HFC007"]
    assert finding.message.endswith(f"pass the legacy tuple to the class's constructor: {instead}")


# Gone before 4.57 (docs/facts.md §7: the first release without each read from the wheels).
@pytest.mark.parametrize(("body", "gone"), [
    ("s = c.seen_tokens\n", "4.54.0"),
    ("n = c.get_usable_length(3)\n", "4.54.0"),
    ("k = c.key_cache[0]\n", "4.56.0"),
    ("c.value_cache[0] = None\n", "4.56.0"),
])
def test_a_read_gone_before_457_is_reported_from_the_release_that_removed_it(body: str, gone: str) -> None:
    text = LOAD + "c = DynamicCache()\n" + body
    before = {"4.54.0": "4.53.3", "4.56.0": "4.55.4"}[gone]
    assert reads(text, before) == []
    for version in (gone, "4.57.6", "5.0.0", "5.24.0"):
        ((line, severity, _),) = reads(text, version)
        assert (line, severity) == (4, "error"), version


def test_the_key_cache_read_becomes_the_layer_and_a_store_into_it_has_no_fix() -> None:
    result = check_source(LOAD + GEN + "k = out.past_key_values.key_cache[1]\n", "t.py",
                          context=Context(target=Target.of("4.57.6")))
    (finding,) = result.findings
    assert finding.fixes[0].title == "Use `.layers[1].keys`"
    assert finding.fixes[0].edits[0].content == "out.past_key_values.layers[1].keys"
    store = check_source(LOAD + "c = DynamicCache()\nc.key_cache[1] = None\n", "t.py",
                         context=Context(target=Target.of("4.57.6")))
    (finding,) = store.findings
    assert finding.fixes == ()


def test_a_plain_key_cache_binding_is_a_silent_warning_and_the_list_it_binds_is_no_finding() -> None:
    text = LOAD + "c = DynamicCache()\nc.key_cache = [None]\nfirst = c.key_cache[0]\nc.value_cache += [None]\n"
    got = reads(text, "4.57.6")
    # `c.value_cache += [None]` reads `value_cache` first: AttributeError on 4.57.6 and 5.24.0 (the oracle), an Error
    assert [(line, severity) for line, severity, _ in got] == [(4, "warning"), (6, "error")]
    result = check_source(text, "t.py", context=Context(target=Target.of("4.57.6")))
    assert "raises nothing" in result.findings[0].message


def test_a_project_class_with_key_cache_or_seen_tokens_is_not_a_transformers_cache() -> None:
    own = "class DynamicCache:\n    key_cache = [None]\n    seen_tokens = 0\n\n\n"
    assert reads(own + "c = DynamicCache()\nk = c.key_cache[0]\ns = c.seen_tokens\n", "4.57.6") == []
    # nor is a parameter (it may hold anything)
    assert reads(LOAD + "def f(c):\n    return c.key_cache[0], c.seen_tokens\n", "4.57.6") == []


@pytest.mark.parametrize(("text", "gone"), [
    ("from transformers.cache_utils import QuantizedCacheConfig\n", "4.56.0"),
    ("from transformers import QuantizedCacheConfig\n", "4.56.0"),
    ("from transformers.models.jamba.modeling_jamba import HybridMambaAttentionDynamicCache\n", "5.5.0"),
])
def test_an_import_gone_before_the_target_is_reported_from_its_release(text: str, gone: str) -> None:
    assert might_use_removed_api(text)
    before = {"4.56.0": "4.55.4", "5.5.0": "5.4.0"}[gone]
    assert reads(text, before) == []
    for version in (gone, "5.24.0"):
        ((line, severity, _),) = reads(text, version)
        assert (line, severity) == (1, "error")


@pytest.mark.parametrize(("body", "reported_from"), [
    # Mamba's cache class moved between cache_utils (4.43-4.53) and its modeling module; gone from 5.5.0.
    ("out = model(ids, use_cache=True)\nstates = out.cache_params.ssm_states\n", "5.5.0"),
    ("cache = model._get_cache('static', 1, 16, {})\n", "5.1.0"),
    ("flag = model._supports_cache_class\n", "4.54.0"),
])
def test_a_member_is_reported_from_the_release_the_table_says(body: str, reported_from: str) -> None:
    loader = "MambaForCausalLM" if "cache_params" in body else "AutoModelForCausalLM"
    text = f"from transformers import {loader}\nmodel = {loader}.from_pretrained('m')\nids = None\n" + body
    gone = Target.of(reported_from).version
    for release in ("4.53.3", "5.0.0", "5.4.0", reported_from, "5.24.0"):
        every = [f for f in check_source(text, "t.py", context=Context(target=Target.of(release))).findings
                 if f.code == "HFC007"]
        # 4.44-4.55's `_get_cache` took five arguments: this 4.56-5.0 call raises TypeError there (reported too)
        findings = [f for f in every if "TypeError: GenerationMixin._get_cache()" not in f.message]
        assert bool(findings) == (Target.of(release).version >= gone), (release, findings)
        if findings:
            assert f"removed in {reported_from}" in findings[0].message
        if "_get_cache" in body and release == "4.53.3":
            (misfit,) = every
            assert "TypeError: GenerationMixin._get_cache() missing 1 required positional argument: 'model_kwargs'" \
                in misfit.message and "(since 4.44.0)" in misfit.message


def test_a_reference_to_a_removed_method_raises_too() -> None:
    # Reading a method the class no longer has raises AttributeError, called or not (the oracle, by hand: 5.23.0,
    # 5.24.0, 5.25.0 `'LlamaForCausalLM' object has no attribute '_get_cache'`; 4.57.6-5.25.0 `'DynamicCache' object
    # has no attribute 'get_usable_length'`; Unlimiformer's `self.original_reorder_cache_func = model._reorder_cache`,
    # heldout20). Up to the eleventh session a bare reference was taken for no error.
    for line, shown in (("helper = model._get_cache\n", "`model._get_cache`"),
                        ("cache = DynamicCache()\nusable = cache.get_usable_length\n", "`cache.get_usable_length`")):
        found = check_source(LOAD + line, "t.py", context=Context(target=Target.of("5.24.0"))).findings
        assert [f.message.split(":")[0] for f in found if f.code == "HFC007"] == [shown]


PAIRED_LISTS = """from transformers import DynamicCache


def merged(past, new):
    return [torch.cat([n, p]) for n, p in zip(new.key_cache, past.key_cache)]


def numbered(cache):
    return [(i, k.shape) for i, k in enumerate(cache.key_cache)]


def called(cache):
    return [k for k in zip(cache.layers, lists(cache.key_cache))]


merged(DynamicCache(), DynamicCache())
numbered(DynamicCache())
called(DynamicCache())
"""


def test_the_lists_a_comprehension_pairs_are_read_where_it_stands() -> None:
    """`zip(new.key_cache, past.key_cache)` as a comprehension's first iterable: each plain argument is read in the
    enclosing scope (gone from 4.56.0: AttributeError); an argument that is a call is not evaluated. Of `zip(new.
    key_cache, past.key_cache)` only the first is reported: a call's arguments run left to right, so where the first
    raises the second is never read (engine/syntax/dominance.py)."""
    found = check_source(PAIRED_LISTS, "example.py", context=Context(target=Target.of("4.57.6"))).findings
    got = sorted((f.span.start.line, PAIRED_LISTS.splitlines()[f.span.start.line - 1][f.span.start.column:
                                                                                       f.span.end.column])
                 for f in found if f.code == "HFC007")
    assert got == [(5, "key_cache"), (9, "key_cache")]
    assert all("AttributeError: 'DynamicCache' object has no attribute 'key_cache'" in f.message
               for f in found if f.code == "HFC007")


def test_a_branch_that_only_sets_a_legacy_tuple_apart_is_the_caches_own() -> None:
    # `not isinstance(x, tuple)` chooses the cache object over the legacy format, not one cache API over another
    # (PyramidKV's MInference hook, heldout20): a removed read there is reported; a duck-typed test is still compat.
    def hfc007(test: str) -> list[str]:
        text = LOAD + "cache = DynamicCache()\n\n\ndef keys(past):\n" + f"    if {test}:\n" + \
            "        return past.key_cache[0]\n\n\nkeys(cache)\n"
        found = check_source(text, "t.py", context=Context(target=Target.of("4.57.6"))).findings
        return [f.message.split(":")[0] for f in found if f.code == "HFC007"]

    assert hfc007("not isinstance(past, tuple)") == ["`past.key_cache[0]`"]
    assert hfc007("not isinstance(past, (tuple, list))") == ["`past.key_cache[0]`"]
    assert hfc007('hasattr(past, "key_cache")') == []
