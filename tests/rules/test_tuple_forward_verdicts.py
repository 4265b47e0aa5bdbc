"""HFC002 on a tuple into a model's forward before 5.0: judged by the release table's `tuple_forward:<class>` (read
from each 4.x wheel's modeling file by scripts/release_table.py; tests/oracle/test_releases.py runs the verdicts on
tiny models at 4.52.4, 4.53.0 and 4.57.6); an Auto class by the table's class a checkpoint's repository name
names, or not at all."""

from __future__ import annotations

import pytest

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import Finding, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target


def _code(load: str) -> str:
    return ("import torch\nfrom transformers import AutoModelForCausalLM, LlamaForCausalLM, GPT2LMHeadModel\n\n"
            f"model = {load}\nids = torch.tensor([[1, 2, 3]])\n"
            "out = model(ids, use_cache=True)\n"
            "legacy = tuple((layer.keys, layer.values) for layer in out.past_key_values.layers)\n"
            "step = model(ids[:, -1:], past_key_values=legacy, use_cache=True)\n")


def found(text: str, version: str) -> list[Finding]:
    ctx = Context(target=Target.of(version))
    return [f for f in check_source(text, "t.py", context=ctx).findings if f.code == "HFC002"]


LLAMA = 'LlamaForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")'
GPT2 = 'GPT2LMHeadModel.from_pretrained("openai-community/gpt2")'
AUTO_LLAMA = 'AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")'
AUTO_VICUNA = 'AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5")'
AUTO_GEMMA3 = 'AutoModelForCausalLM.from_pretrained("google/gemma-3-1b-it")'


@pytest.mark.parametrize(("load", "version", "error"), [
    (LLAMA, "4.57.6", "AttributeError: 'tuple' object has no attribute 'get_seq_length'"),
    (LLAMA, "4.52.4", "ValueError: The `past_key_values` should be either a `Cache` object or `None`."),
    (LLAMA, "4.45.0", None),  # Llama's forward still converts a tuple there
    (GPT2, "4.57.6", None),  # GPT-2's converts it on every 4.x release
    (GPT2, "5.0.0", "AttributeError: 'tuple' object has no attribute 'get_seq_length'"),
    (AUTO_LLAMA, "4.57.6", "`LlamaForCausalLM` (the model `meta-llama/Llama-3.2-1B` names)'s forward"),
    # The repository name names no class: on 4.57 most causal-LM heads raise (the table's census), a Warning
    # naming the converting ones; before, most convert or reject: not judged.
    (AUTO_VICUNA, "4.57.6", "the forward of every decoder except"),
    (AUTO_VICUNA, "4.52.4", None),
    (AUTO_VICUNA, "4.45.0", None),
    ('AutoModelForCausalLM.from_pretrained("gpt2")', "4.57.6", None),  # the module loads GPT-2 only: it converts
    (AUTO_VICUNA, "5.0.0", "AttributeError: 'tuple' object has no attribute 'get_seq_length'"),
    (AUTO_GEMMA3, "4.57.6", None),  # Gemma 3's model (not Gemma's): it defers to another model there
    (AUTO_LLAMA, "5.24.0", "AttributeError: 'tuple' object has no attribute 'get_seq_length'"),
])
def test_verdict_of_the_named_class(load: str, version: str, error: str | None) -> None:
    got = found(_code(load), version)
    if error is None:
        assert got == []
    else:
        assert len(got) == 1 and error in got[0].message, [f.message for f in got]
        unnamed = load == AUTO_VICUNA and version.startswith("4.")
        assert got[0].severity == (Severity.WARNING if unnamed else Severity.ERROR)


def test_the_verdicts_come_from_the_table() -> None:
    assert releases.value("tuple_forward:LlamaForCausalLM", "4.57.6") == "raises"
    assert releases.value("tuple_forward:LlamaForCausalLM", "4.52.4") == "rejects"
    assert releases.value("tuple_forward:LlamaForCausalLM", "4.45.0") == "converts"
    assert releases.value("tuple_forward:GPT2LMHeadModel", "4.57.6") == "converts"  # an Auto head: kept
    assert releases.value("tuple_forward:GPT2Model", "4.57.6") is None  # converts everywhere, no head: not kept
    assert releases.value("tuple_forward:LlamaForCausalLM", "5.0.0") is None  # the behaviour covers 5.x


def test_no_wrap_fix_where_the_constructor_takes_no_pairs() -> None:
    """`DynamicCache(legacy)` raises a TypeError before 4.50.0 (the table's constructor): Llama raises on a tuple
    on 4.48.0 and nothing is offered; on 4.57.6 the wrap is."""
    old = found(_code(LLAMA), "4.48.0")
    assert len(old) == 1 and not [f for f in old[0].fixes if f.title.startswith("Wrap")]
    new = found(_code(LLAMA), "4.57.6")
    assert [f.title for f in new[0].fixes if f.title.startswith("Wrap")] == ["Wrap in `DynamicCache(...)`"]


@pytest.mark.parametrize(("checkpoint", "heads", "cls"), [
    ("meta-llama/Llama-3.2-1B", ("ForCausalLM", "LMHeadModel"), "LlamaForCausalLM"),
    ("facebook/layerskip-llama3.2-1B", ("ForCausalLM", "LMHeadModel"), "LlamaForCausalLM"),
    ("Qwen/Qwen2.5-0.5B-Instruct", ("ForCausalLM", "LMHeadModel"), "Qwen2ForCausalLM"),
    ("microsoft/Phi-3-mini-4k-instruct", ("ForCausalLM", "LMHeadModel"), "Phi3ForCausalLM"),
    ("google/gemma-2-2b", ("ForCausalLM", "LMHeadModel"), "Gemma2ForCausalLM"),
    ("google/gemma-3-1b-it", ("ForCausalLM", "LMHeadModel"), "Gemma3ForCausalLM"),
    ("openai-community/gpt2", ("ForCausalLM", "LMHeadModel"), "GPT2LMHeadModel"),
    ("tiiuae/falcon-mamba-7b", ("ForCausalLM", "LMHeadModel"), None),  # not Falcon
    ("mistralai/Pixtral-12B", ("ForCausalLM", "LMHeadModel"), None),  # the organisation is not read
    ("lmsys/vicuna-7b-v1.5", ("ForCausalLM", "LMHeadModel"), None),
    ("google-t5/t5-small", ("ForConditionalGeneration",), "T5ForConditionalGeneration"),
    ("gpt2", ("ForCausalLM", "LMHeadModel"), None),  # no repository: not read
])
def test_class_a_checkpoint_names(checkpoint: str, heads: tuple[str, ...], cls: str | None) -> None:
    from hf_cache_lint.rules.hfc002_legacy_tuple_cache import _class_of_checkpoint
    assert _class_of_checkpoint(checkpoint, heads) == cls
