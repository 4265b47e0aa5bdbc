"""The `cache_use` fact kind (engine/facts/cache_use.py), recorded by engine/interpreter/cache_uses.py: every use of
a transformers cache or model, wherever the interpreter followed it, and none on what the code does not say is one."""

from __future__ import annotations

from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.api_changes import GENERATION_IMPORT_MODULES
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_use import KIND, PARSE_NAMES, CacheUse
from hf_cache_lint.engine.interpreter.interp import analyse

HEAD = (
    "import torch\n"
    "from typing import Optional\n"
    "from transformers import AutoModelForCausalLM, Cache, DynamicCache, StaticCache\n\n"
    "model = AutoModelForCausalLM.from_pretrained('gpt2')\n"
    "prompt = torch.tensor([[1, 2]])\n\n"
)


def uses(text: str) -> list[CacheUse]:
    analysis = analyse(text, "<test>", Context(target=Target(Version.parse("5.24.0"))))
    return list(analysis.of(KIND))


def shapes(text: str) -> set[tuple[str, str, str | None, str]]:
    return {(u.op, u.name, u.receiver_class, u.receiver) for u in uses(text)}


GENERATION_PREFIXES = tuple(f"{m}." for m in GENERATION_IMPORT_MODULES)


def test_parse_names_hold_every_cache_name_of_the_release_table() -> None:
    wanted = set()
    for key in releases.table().facts:
        kind, _, path = key.partition(":")
        last = path.rsplit(".", 1)[-1]
        if path.startswith(GENERATION_PREFIXES):
            continue  # every name of a generation module is tabled for its imports (AssistantVocabTranslatorCache
            # is no cache class): HFC007 reads those from the import itself
        if (kind in ("name", "export") and last.endswith("Cache")) or \
                (kind in ("member", "model_attr") and "cache" in last.lower() and last != "cache_implementation"):
            wanted.add(last)
    assert wanted <= PARSE_NAMES, sorted(wanted - PARSE_NAMES)
    # the members gone before the newest release that HFC007 reports on a cache or a model
    assert {"seen_tokens", "get_usable_length", "ssm_states", "max_batch_size", "_get_cache"} <= PARSE_NAMES


def test_a_parameter_a_caller_fills_with_a_cache() -> None:
    text = HEAD + (
        "def seen(past_key_values):\n    return 1 + past_key_values.get_usable_length(1, 0)\n\n"
        "def filled():\n    cache = DynamicCache()\n    model(prompt, past_key_values=cache)\n    return cache\n\n"
        "def probe():\n    assert seen(filled()) == 2\n"
    )
    got = [u for u in uses(text) if u.name == "get_usable_length"]
    assert len(got) == 1
    assert (got[0].op, got[0].receiver_class, got[0].receiver) == ("call", "DynamicCache", "past_key_values")
    assert [(a.kind, a.constant) for a in got[0].arguments] == [("constant", 1), ("constant", 0)]


def test_a_parameter_without_evidence_is_no_cache() -> None:
    text = HEAD + "def seen(past_key_values):\n    return past_key_values.seen_tokens\n"
    assert not [u for u in uses(text) if u.name == "seen_tokens"]


def test_an_annotation_says_so() -> None:
    text = HEAD + (
        "def f(c: Optional[Cache], s: StaticCache | None, d: DynamicCache):\n"
        "    for k, v in c:\n        pass\n"
        "    a, b = d\n"
        "    return len(d), d[0], s.max_batch_size\n"
    )
    got = shapes(text)
    assert ("iterate", "", "Cache", "c") in got
    assert ("unpack", "", "DynamicCache", "d") in got
    assert ("len", "", "DynamicCache", "d") in got
    assert ("subscript", "", "DynamicCache", "d") in got
    assert ("read", "max_batch_size", "StaticCache", "s") in got
    assert next(u for u in uses(text) if u.op == "iterate").targets == 2


def test_an_attribute_set_in_one_method_and_used_in_another() -> None:
    text = HEAD + (
        "class Runner:\n"
        "    def __init__(self):\n        self.cache = DynamicCache()\n\n"
        "    def prune(self):\n        self.cache.key_cache = []\n"
    )
    assert ("write", "key_cache", "DynamicCache", "self.cache") in shapes(text)


def test_forward_outputs_and_model_members() -> None:
    text = HEAD + (
        "out = model(prompt, use_cache=True)\n"
        "n = out.past_key_values.get_seq_length()\n"
        "again = model(prompt, past_key_values=out.past_key_values)\n"
        "flag = model._supports_cache_class\n"
        "built = model._get_cache('static', 1, 16)\n"
        "name = model.config\n"
    )
    got = shapes(text)
    assert ("call", "get_seq_length", None, "out.past_key_values") in got
    assert ("forward", "past_key_values", None, "out.past_key_values") in got
    assert ("forward", "forward", None, "model") in got
    assert ("read", "_supports_cache_class", None, "model") in got
    assert ("call", "_get_cache", None, "model") in got
    assert not any(u.name == "config" for u in uses(text))  # a model's uses: its cache members only
    forward = next(u for u in uses(text) if u.name == "forward")
    assert [(a.name, a.kind) for a in forward.arguments] == [(None, "unknown"), ("past_key_values", "cache")]


def test_own_classes_remote_code_and_plain_generate_outputs_are_no_caches() -> None:
    text = HEAD + (
        "class KVStore:\n"
        "    def __init__(self):\n        self.key_cache = []\n\n"
        "    def to_legacy_cache(self):\n        return tuple(self.key_cache)\n\n"
        "store = KVStore()\nlegacy = store.to_legacy_cache()\nkeys = store.key_cache\n"
        "tokens = model.generate(prompt)\nx = tokens.past_key_values\n"
        "remote = AutoModelForCausalLM.from_pretrained('x/y', trust_remote_code=True)\n"
        "y = remote(prompt).past_key_values.seen_tokens\n"
        "off = model(prompt, use_cache=False).past_key_values\nz = off.seen_tokens\n"
    )
    assert uses(text) == []


def test_a_name_bound_to_a_cache_on_one_path_only_is_not_one() -> None:
    text = HEAD + (
        "import sys\n"
        "c = DynamicCache() if len(sys.argv) > 1 else sys.modules\n"
        "seen = c.seen_tokens\n"
        "d = DynamicCache() if len(sys.argv) > 1 else None\n"
        "also = d.seen_tokens\n"
    )
    assert {(u.receiver, u.name) for u in uses(text)} == {("d", "seen_tokens")}


def test_an_assignment_onto_the_transformers_module_is_no_use() -> None:
    text = "import transformers\ntransformers.SinkCache = None\n"
    assert uses(text) == []


def test_no_trigger_word_no_use() -> None:
    text = "from helpers import build\nc = build()\nfor k, v in c:\n    pass\n"
    assert not KIND.said(text)
    assert uses(text) == []
