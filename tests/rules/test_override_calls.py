"""HFC010's overrides bound to how the release calls them (rules/hfc010_hook_loses_cache/override_calls.py, the
release table's `call:` facts): CPython's order of TypeErrors (too many positional arguments, the first unexpected
keyword in the call's order, then every missing parameter), what a `**` spread may fill, the release a failure
starts at, and the decoding-method facts end to end. The oracle: HFC010's examples (MOSS-TTSD's `_sample` requiring
`streamer`, TypeError from 4.57.1; a fixed-keyword `prepare_inputs_for_generation`, TypeError from 5.3.0) and
`releases:probe`'s recording of each call."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Position, Span
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.decoding_override import Param
from hf_cache_lint.rules.hfc010_hook_loses_cache.override_calls import bind, shape

_AT = Span(Position(1, 0), Position(1, 1))
_FACT = "call:transformers.generation.utils.GenerationMixin.generate->_sample"


def sig(text: str) -> tuple[Param, ...]:
    """`a, b=1, *args, c, **kw` as parameters (the span is not read here)."""
    out: list[Param] = []
    keyword_only = False
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part == "*":
            keyword_only = True
        elif part.startswith("**"):
            out.append(Param(part[2:], "var_keyword", False, _AT))
        elif part.startswith("*"):
            out.append(Param(part[1:], "var_positional", False, _AT))
            keyword_only = True
        else:
            out.append(Param(part.split("=")[0], "keyword_only" if keyword_only else "positional", "=" in part, _AT))
    return tuple(out)


@pytest.mark.parametrize(("params", "call", "error"), [
    ("ids, a, b, **kw", "args=1 kw=a,b spread", None),
    ("ids, **kw", "args=2 kw=a", "f() takes 2 positional arguments but 3 were given"),
    ("ids, a, **kw", "args=2 kw=a", "f() got multiple values for argument 'a'"),
    ("ids, *args, a, **kw", "args=3 kw=a", None),
    ("ids, a", "args=1 kw=b,a,c", "f() got an unexpected keyword argument 'b'"),
    ("ids", "args=3 kw=zz", "f() got an unexpected keyword argument 'zz'"),  # keywords before the count
    ("ids, b", "args=1 kw=zz", "f() got an unexpected keyword argument 'zz'"),  # and before what is missing
    ("ids, a, b", "args=1 kw=a opt=b spread", "f() missing 1 required positional argument: 'b'"),
    ("ids, a, b, c", "args=1 kw=a", "f() missing 2 required positional arguments: 'b' and 'c'"),
    ("ids, b, c, d", "args=1", "f() missing 3 required positional arguments: 'b', 'c', and 'd'"),
    ("ids, *, b", "args=1", "f() missing 1 required keyword-only argument: 'b'"),
    ("ids, a, *, b", "args=1", "f() missing 1 required positional argument: 'a'"),  # positional ones first
    ("ids, b", "args=1 spread", None),  # `**model_kwargs` may carry it
    ("ids, b=None", "args=1 opt=b spread", None),
    ("ids, a", "args=1+ kw=zzz", None),  # a `*` spread: no count to bind
])
def test_bind_follows_cpython(params: str, call: str, error: str | None) -> None:
    got = bind("f", sig(params), _AT, shape(call), _FACT, ever=False)
    assert (got.error.removeprefix("TypeError: ") if got else None) == error


def test_a_keyword_an_earlier_release_passed_is_claimed_only_for_decoding_methods() -> None:
    # `logits_warper=` 4.41-4.44: generate's `model_kwargs` are checked against the model's forward, so a spread
    # there never carries it; a layer's `**kwargs` might.
    params = sig("ids, logits_processor, stopping_criteria, generation_config, synced_gpus, streamer, logits_warper, "
                 "**model_kwargs")
    call = shape("args=1 kw=logits_processor,stopping_criteria,generation_config,synced_gpus,streamer spread")
    got = bind("M._sample", params, _AT, call, _FACT, ever=True)
    assert got is not None and got.error.endswith("missing 1 required positional argument: 'logits_warper'")
    assert bind("M._sample", params, _AT, call, _FACT, ever=False) is None


MOSS = ("from transformers import GenerationMixin, LlamaForCausalLM\n\n\n"
        "class Mixin(GenerationMixin):\n"
        "    def _sample(self, input_ids, logits_processor, stopping_criteria, generation_config, SIGNATURE):\n"
        "        return input_ids\n\n\n"
        "class Speech(Mixin, LlamaForCausalLM):\n"
        "    pass\n")


def found(text: str, version: str) -> list[Finding]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f for f in result.findings if f.code == "HFC010"]


@pytest.mark.parametrize(("signature", "version", "says"), [
    ("synced_gpus, streamer, **model_kwargs", "4.56.2", None),
    ("synced_gpus, streamer, **model_kwargs", "4.57.1", "passes `streamer=` only where the `generate(...)` call is given"),
    ("synced_gpus, streamer, **model_kwargs", "5.25.0", "(from 4.57.1)"),
    ("synced_gpus, streamer=None, **model_kwargs", "5.25.0", None),
    ("synced_gpus, streamer, logits_warper, **model_kwargs", "4.44.2", None),
    ("synced_gpus, streamer, logits_warper, **model_kwargs", "4.45.0", "does not pass `logits_warper` (from 4.45.0)"),
    ("synced_gpus, streamer, logits_warper, **model_kwargs", "4.57.6", "arguments: 'streamer' and 'logits_warper'"),
    ("synced_gpus=False, streamer=None", "4.57.6", None),  # `**model_kwargs` keys: not claimed
])
def test_decoding_method_against_the_release(signature: str, version: str, says: str | None) -> None:
    got = found(MOSS.replace("SIGNATURE", signature), version)
    if says is None:
        assert got == []
    else:
        assert len(got) == 1 and says in got[0].message and "Mixin._sample()" in got[0].message


def test_a_class_of_a_project_base_is_not_judged() -> None:
    text = MOSS.replace("class Mixin(GenerationMixin):", "class Mixin(GenerationMixin, Base):").replace(
        "SIGNATURE", "synced_gpus, streamer, **model_kwargs")
    assert found("from lib import Base\n" + text, "4.57.6") == []


def test_a_project_mixin_of_that_name_is_not_transformers() -> None:
    text = MOSS.replace("from transformers import GenerationMixin, LlamaForCausalLM",
                        "from mylib import GenerationMixin").replace("class Speech(Mixin, LlamaForCausalLM)",
                                                                     "class Speech(Mixin)")
    assert found(text.replace("SIGNATURE", "synced_gpus, streamer, **model_kwargs"), "4.57.6") == []


def test_a_backbone_s_own_sample_is_not_generate_s() -> None:
    # A class built on a backbone alone has no generate from 4.52.1: its `_sample` is its own helper.
    text = ("from transformers import PreTrainedModel\n\n\n"
            "class Diffusion(PreTrainedModel):\n"
            "    def _sample(self, z, steps):\n"
            "        return z\n")
    assert found(text, "4.57.6") == []
    assert found(text.replace("(PreTrainedModel)", "(PreTrainedModel, GenerationMixin)").replace(
        "import PreTrainedModel", "import GenerationMixin, PreTrainedModel"), "4.57.6") != []


def test_a_key_carried_in_the_spread_binds_after_the_keywords() -> None:
    # `spread=cache_position` (4.43-4.57): a hook without it nor `**kwargs` raises; the error's keyword is not
    # quoted, since the spread's other keys (the model's generation inputs) may come first
    at = Span(Position(1, 0), Position(1, 1))
    params = (Param("input_ids", "positional", False, at), Param("past_key_values", "positional", True, at))
    assert shape("args=1 spread=cache_position").carried == ("cache_position",)
    assert shape("args=1 spread=cache_position").spread
    got = bind("f", params, at, shape("args=1 spread=cache_position"), "call:x", False)
    assert got is not None and got.error == "TypeError: f() got an unexpected keyword argument"
    assert bind("f", (*params, Param("cache_position", "positional", True, at)), at,
                shape("args=1 spread=cache_position"), "call:x", False) is None
    assert bind("f", params, at, shape("args=1 spread"), "call:x", False) is None
