"""What a legacy tuple into the forward of a decoder the code does not name does at a 4.x release: the census of the
release table's causal-LM heads (`tuple_forward:<...>ForCausalLM` / `<...>LMHeadModel`, every head read from each
wheel's modeling file; tests/oracle/test_releases.py runs Llama, Mistral, Qwen2, Phi, GPT-NeoX, OPT and GPT-2 tiny
models against their rows). Where most heads ask the cache its length (4.57: 74 of 120), a tuple from code that
loads a model by a path or an argument, or calls a submodule (`language_model.model`), most likely meets that
AttributeError: a Warning naming the heads that convert. Where they are a minority (to 4.56) nothing is claimed."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache

from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target

# A decoder's heads in the table (`...ForCausalLM`, GPT-2's `...LMHeadModel`); the rule's Auto classes load these too.
CAUSAL_HEADS = ("ForCausalLM", "LMHeadModel")
# Which of the raising heads the message names as examples (the most used decoders); each only where the table says
# it raises at the target.
_EXAMPLES = ("Llama", "Mistral", "Qwen2", "Qwen3", "Gemma", "Gemma2", "Phi3", "Falcon", "GPTNeoX", "OPT")


@cache
def _census(version: Version) -> tuple[int, int, tuple[str, ...], tuple[str, ...]] | None:
    raising: list[str] = []
    others: list[str] = []
    for key in releases.table().facts:
        cls = key[len("tuple_forward:"):]
        if not key.startswith("tuple_forward:") or not cls.endswith(CAUSAL_HEADS):
            continue
        verdict = releases.value(key, version)
        if verdict == "rejects":
            return None  # another error than the AttributeError for some heads: not one message for all
        name = cls.removesuffix("ForCausalLM").removesuffix("LMHeadModel")
        if verdict == "raises":
            raising.append(name)
        elif verdict in ("converts", "delegates"):
            others.append(name)
    if len(raising) <= len(others):
        return None
    examples = tuple(n for n in _EXAMPLES if n in raising)
    return len(raising), len(raising) + len(others), examples, tuple(sorted(others, key=str.lower))


def unknown_model_census(target: Target) -> tuple[int, int, str, str] | None:
    """(heads that raise, heads with a verdict, some raising ones named, every other one named) at a 4.x target
    where most causal-LM heads raise on a legacy tuple; None elsewhere (5.x: every forward raises, its own path)."""
    if target.version.major != 4:
        return None
    found = _census(target.version)
    if found is None:
        return None
    raising, total, examples, others = found
    return raising, total, ", ".join(examples), ", ".join(others)


# `Class.from_pretrained("checkpoint"` written in the module: the models it loads by a literal name.
# Spaces and line continuations around the dots and parentheses as Python allows them (tests/engine/test_metamorphic.py).
_LOADS = re.compile(r"\b(\w+)[\s\\]*\.[\s\\]*from_pretrained[\s\\]*\([\s\\]*"
                    r"(?:pretrained_model_name_or_path[\s\\]*=[\s\\]*)?[\"']([^\"']+)[\"']")


def loads_only_converters(text: str, target: Target, verdict: Callable[[str, str], str | None]) -> bool:
    """The module loads models by literal names (`AutoModelForCausalLM.from_pretrained("gpt2")`) and every one
    of them the table can name converts a legacy tuple or defers at the target (`verdict(class, checkpoint)`, the
    rule's `tuple_forward:` reading), at least one named: a forward whose model the code does not trace is most likely
    one of those (a wrapper holding the loaded model), not a Llama-style decoder. Tokenizers, configs and processors
    are not models."""
    found = False
    for cls, checkpoint in _LOADS.findall(text):
        if not re.search(r"Model|ForCausalLM|LMHead|ForConditionalGeneration", cls):
            continue
        said = verdict(cls, checkpoint)
        if said in ("raises", "rejects"):
            return False
        found = found or said is not None
    return found and target.version.major == 4
