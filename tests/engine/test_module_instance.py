"""A method nobody in the module calls (run_uncalled) runs on the instance the module built and bound to a module
name, with what its `__init__` stored from the module's arguments (heldout8's Ultravox: `model = UltravoxModel(config)`,
whose `_reorder_cache` beam search calls, reads `self.language_model._reorder_cache`, gone in 4.54). The oracle:
HFC007's SpeechLM example raises AttributeError: 'LlamaForCausalLM' object has no attribute '_reorder_cache' on
4.57.6, 5.23.0, 5.24.0 and 5.25.0 (4.53.0 runs)."""

from __future__ import annotations

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

WRAPPER = ("import transformers\n\n\n"
           "class Wrapper:\n"
           "    def __init__(self, lm):\n"
           "        self.lm = lm\n\n"
           "    def _reorder_cache(self, past_key_values, beam_idx):\n"
           "        return self.lm._reorder_cache(past_key_values, beam_idx)\n\n\n")


def lines(text: str, version: str = "4.57.6") -> list[int]:
    result = check_source(text, "t.py", context=Context(target=Target.of(version)))
    return [f.span.start.line for f in result.findings if f.code == "HFC007"]


def test_the_uncalled_method_runs_on_the_modules_instance() -> None:
    text = WRAPPER + 'wrapper = Wrapper(transformers.AutoModelForCausalLM.from_pretrained("x"))\n'
    assert lines(text) == [9]
    assert lines(text, "5.24.0") == [9]


def test_what_the_module_gave_its_instance_decides() -> None:
    # The instance holds something that is no transformers model: nothing to claim.
    assert lines(WRAPPER + "wrapper = Wrapper(object())\n") == []


def test_without_a_module_instance_the_parameters_stay_unknown() -> None:
    # Built only inside a function (no module name holds it): the fresh instance, `lm` unknown, as before.
    text = WRAPPER + 'def build():\n    return Wrapper(transformers.AutoModelForCausalLM.from_pretrained("x"))\n'
    assert lines(text) == []
