"""The project's subclasses of a transformers model class (engine/interpreter/model_subclasses.py): an instance is
also the model, so what the class does not define is the model's (`self.generate`, the forward pass), `super()` in
a method of a direct subclass is the model, and `Cls.from_pretrained(...)` / `Cls(config)` build one; what the class
defines stays its own (inlined), and a class between it and transformers keeps `super()` unseen."""

from __future__ import annotations

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.generate_call import GenerateCall
from hf_cache_lint.engine.interpreter.interp import analyse

HEAD = "import torch\nfrom transformers import DynamicCache, LlamaConfig, LlamaForCausalLM\n\n\n"
LEGACY = "((torch.zeros(1), torch.zeros(1)),)"


def calls(text: str) -> list[GenerateCall]:
    return list(analyse(text, "<test>", Context(target=Target(Version.parse("5.24.0")))).calls)


def cache_kinds(text: str) -> list[tuple[str | None, str]]:
    """(the model class each generate call runs on, its cache argument's kind), one per call with a cache."""
    return [(c.model.class_name, a.kind) for c in calls(text) for a in c.cache_args]


def test_super_generate_in_a_direct_subclass_is_the_models_generate() -> None:
    text = HEAD + (
        "class Chat(LlamaForCausalLM):\n"
        "    @torch.no_grad()\n"
        "    def resume(self, ids):\n"
        "        return super().generate(ids, past_key_values=self._past, max_new_tokens=2)\n\n\n"
        "model = Chat.from_pretrained('meta-llama/Llama-3.2-1B')\n"
        f"model._past = {LEGACY}\n"
        "model.resume(torch.ones(1, 3, dtype=torch.long))\n")
    assert ("LlamaForCausalLM", "tuple") in cache_kinds(text)


def test_self_generate_without_an_own_generate_is_the_models() -> None:
    text = HEAD + (
        "class Chat(LlamaForCausalLM):\n"
        "    def resume(self, ids):\n"
        f"        return self.generate(ids, past_key_values={LEGACY})\n\n\n"
        "model = Chat(LlamaConfig())\n"
        "model.resume(torch.ones(1, 3, dtype=torch.long))\n")
    assert ("LlamaForCausalLM", "tuple") in cache_kinds(text)


def test_an_own_generate_runs_inline_and_its_super_call_reaches_the_model() -> None:
    text = HEAD + (
        "class Chat(LlamaForCausalLM):\n"
        "    def generate(self, ids, past=None, **kwargs):\n"
        "        return super().generate(ids, past_key_values=past, **kwargs)\n\n\n"
        "model = Chat.from_pretrained('meta-llama/Llama-3.2-1B')\n"
        "model.generate(torch.ones(1, 3, dtype=torch.long), past=DynamicCache())\n")
    assert ("LlamaForCausalLM", "cache") in cache_kinds(text)


def test_the_forward_of_a_subclass_without_its_own_returns_the_models_cache() -> None:
    text = HEAD + (
        "class Chat(LlamaForCausalLM):\n"
        "    pass\n\n\n"
        "model = Chat.from_pretrained('meta-llama/Llama-3.2-1B')\n"
        "past = model(torch.ones(1, 3, dtype=torch.long), use_cache=True).past_key_values\n"
        "model.generate(torch.ones(1, 4, dtype=torch.long), past_key_values=past)\n")
    assert cache_kinds(text) == [("LlamaForCausalLM", "cache")]


def test_super_through_a_class_of_the_project_stays_unseen() -> None:
    # `super()` in `Inner` finds `Base.generate` first (the project's): not the model's, so the model is not claimed.
    text = HEAD + (
        "class Base(LlamaForCausalLM):\n"
        "    def generate(self, ids, **kwargs):\n"
        "        return ids\n\n\n"
        "class Inner(Base):\n"
        "    def resume(self, ids):\n"
        f"        return super().generate(ids, past_key_values={LEGACY})\n\n\n"
        "model = Inner.from_pretrained('meta-llama/Llama-3.2-1B')\n"
        "model.resume(torch.ones(1, 3, dtype=torch.long))\n")
    assert all(c.model.class_name is None for c in calls(text))


def test_a_plain_class_is_no_model() -> None:
    text = HEAD + (
        "class Runner:\n"
        "    def resume(self, ids):\n"
        f"        return self.generate(ids, past_key_values={LEGACY})\n\n\n"
        "Runner().resume(torch.ones(1, 3, dtype=torch.long))\n")
    assert calls(text) == []
