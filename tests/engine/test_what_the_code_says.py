"""No false alarm from what the code does not say: the pipeline's task decides, a GenerationConfig is checked
where transformers validates it, a user's own `generate` takes its own parameters. Each case is shaped like
code found in real repositories; the outcomes were checked on transformers 4.57.6, 5.23.0 and 5.24.0."""

from __future__ import annotations

import pytest
from tests.engine.conftest import Checker, lines

LOAD = ("from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache, GenerationConfig, pipeline\n"
        'tokenizer = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n')
CONFLICT = 'past_key_values=DynamicCache(), cache_implementation="static"'
ALL = ("4.57.6", "5.23.0", "5.24.0")


def codes(check: Checker, code: str, version: str = "5.24.0") -> list[tuple[str, int]]:
    return [(f.code, f.span.start.line) for f in check(code, version, code_filter=None)]


# -- the pipeline's task decides ---------------------------------------------------------------------------

@pytest.mark.parametrize("task", ["text-classification", "feature-extraction", "fill-mask", "token-classification",
                                  "question-answering", "zero-shot-classification", "image-classification"])
def test_a_pipeline_that_never_calls_generate_gets_no_generate_rule(check: Checker, task: str) -> None:
    code = LOAD + f'clf = pipeline("{task}", model="meta-llama/Llama-3.2-1B")\nclf("hi", {CONFLICT})\n' \
        'clf("hi", cache_implementation="statc", generate_kwargs={"past_key_values": DynamicCache()})\n'
    for v in ALL:
        assert codes(check, code, v) == [], v


def test_the_text_generation_task_by_keyword_or_class_is_checked(check: Checker) -> None:
    code = LOAD + ('a = pipeline(task="text-generation", model=model, tokenizer=tokenizer)\n'
                   f'a("hi", {CONFLICT})\n'
                   "from transformers import TextGenerationPipeline\n"
                   "b = TextGenerationPipeline(model=model, tokenizer=tokenizer)\n"
                   f'b("hi", {CONFLICT})\n')
    assert lines(check(code)) == [5, 8]


def test_an_unknown_task_proves_nothing(check: Checker) -> None:
    code = LOAD + ("import sys\n"
                   "task = sys.argv[1]\n"
                   "a = pipeline(task, model=model, tokenizer=tokenizer)\n"
                   f'a("hi", {CONFLICT})\n'
                   'b = pipeline(model="meta-llama/Llama-3.2-1B")\n'  # the Hub would say which task
                   f'b("hi", {CONFLICT})\n'
                   'c = pipeline(model=model, tokenizer=tokenizer)\n'  # RuntimeError: a model object needs a task
                   f'c("hi", cache_implementation="statc")\n')
    assert codes(check, code) == []


def test_summarization_forwards_its_keywords_to_generate_only_in_4x(check: Checker) -> None:
    code = ("from transformers import DynamicCache, pipeline\n"
            'summarizer = pipeline("summarization", model="google-t5/t5-small")\n'
            f'summarizer("The tower is tall.", {CONFLICT})\n'
            'translator = pipeline("translation_en_to_fr", model="google-t5/t5-small")\n'
            f'translator("The tower is tall.", {CONFLICT})\n')
    assert lines(check(code, "4.57.6")) == [3, 5]
    assert check(code, "5.24.0") == [] and check(code, "5.23.0") == []  # KeyError: the task was removed


def test_image_text_to_text_forwards_only_generate_kwargs(check: Checker) -> None:
    code = ("from transformers import DynamicCache, pipeline\n"
            'pipe = pipeline("image-text-to-text", model="llava-hf/llava-1.5-7b-hf")\n'
            f'pipe("a.png", text="hi", {CONFLICT})\n'  # these go to the processor
            'pipe("a.png", text="hi", generate_kwargs={"past_key_values": DynamicCache(), '
            '"cache_implementation": "static"})\n')
    assert lines(check(code)) == [4]


def test_a_registered_custom_task_takes_its_own_cache_parameter(check: Checker) -> None:
    code = LOAD + ("from transformers import Pipeline\nfrom transformers.pipelines import PIPELINE_REGISTRY\n\n\n"
                   "class CachedPipeline(Pipeline):\n"
                   "    def _sanitize_parameters(self, cache=None, cache_implementation=None, **kwargs):\n"
                   '        return {}, {"cache": cache, "cache_implementation": cache_implementation}, {}\n\n'
                   "    def _forward(self, model_inputs, cache=None, cache_implementation=None):\n"
                   "        return self.model.generate(**model_inputs, max_new_tokens=3)\n\n\n"
                   'PIPELINE_REGISTRY.register_pipeline("text-generation", pipeline_class=CachedPipeline, '
                   "pt_model=AutoModelForCausalLM)\n"
                   'pipe = pipeline("text-generation", model=model, tokenizer=tokenizer)\n'
                   'pipe("hi", cache=DynamicCache(), cache_implementation="statc")\n'
                   'other = pipeline("text-generation", model=model, pipeline_class=CachedPipeline)\n'
                   'other("hi", cache=DynamicCache(), cache_implementation="static")\n')
    for v in ALL:
        assert codes(check, code, v) == [], v


def test_a_pipeline_subclass_built_directly_is_not_a_transformers_pipeline_call(check: Checker) -> None:
    code = LOAD + ("from transformers import TextGenerationPipeline\n\n\n"
                   "class MyPipeline(TextGenerationPipeline):\n"
                   "    def _sanitize_parameters(self, cache=None, **kwargs):\n"
                   "        return {}, {}, {}\n\n\n"
                   "pipe = MyPipeline(model=model, tokenizer=tokenizer)\n"
                   'pipe("hi", cache=DynamicCache(), cache_implementation="static")\n')
    assert codes(check, code) == []


# -- a GenerationConfig is checked where transformers validates it --------------------------------------

CFG = 'config = GenerationConfig(max_new_tokens=5)\nconfig.cache_implementation = "statc"\n'


def hfc004(check: Checker, code: str, version: str = "5.24.0") -> list[int]:
    return lines(check(code, version, code_filter="HFC004"))


def test_an_invalid_value_assigned_to_a_config_nothing_reads_is_silent(check: Checker) -> None:
    for v in ALL:
        assert hfc004(check, LOAD + CFG + "print(config.max_new_tokens)\n", v) == []
        assert hfc004(check, LOAD + CFG + "model.generation_config = config\n", v) == []  # assignment: no check
        assert hfc004(check, LOAD + 'model.generation_config.cache_implementation = "statc"\nprint(1)\n', v) == []


@pytest.mark.parametrize("use", ["config.validate()", 'config.save_pretrained("out")', "config.update(top_k=5)",
                                 "model.generate(generation_config=config)", "model.generate(None, config)"])
def test_the_assignment_is_flagged_once_something_validates_the_config(check: Checker, use: str) -> None:
    for v in ALL:
        assert hfc004(check, LOAD + CFG + use + "\n", v) == [5], (v, use)


def test_a_constructor_validates_at_once(check: Checker) -> None:
    assert hfc004(check, LOAD + 'config = GenerationConfig(cache_implementation="statc")\n') == [4]


def test_the_models_config_is_validated_by_generate_and_by_save_pretrained(check: Checker) -> None:
    base = LOAD + 'model.generation_config.cache_implementation = "statc"\n'
    for v in ALL:
        assert hfc004(check, base + "model.generate(max_new_tokens=3)\n", v) == [4]
        assert hfc004(check, base + 'model.save_pretrained("out")\n', v) == [4]
        assert hfc004(check, base + "model.generate(generation_config=GenerationConfig(max_new_tokens=3))\n",
                      v) == [4]


def test_a_cache_implementation_keyword_spares_the_configs_only_in_4x(check: Checker) -> None:
    # 5.x validates the passed and the model's config whatever the keywords; 4.57 reads neither then.
    for call in ("model.generate(generation_config=config, cache_implementation=None)",
                 'model.generate(generation_config=config, cache_implementation="static")'):
        assert hfc004(check, LOAD + CFG + call + "\n", "4.57.6") == []
        assert hfc004(check, LOAD + CFG + call + "\n", "5.23.0") == [5]
    model_cfg = LOAD + 'model.generation_config.cache_implementation = "statc"\n' \
        "model.generate(cache_implementation=None)\n"
    assert hfc004(check, model_cfg, "4.57.6") == [] and hfc004(check, model_cfg, "5.24.0") == [4]


def test_a_value_passed_down_to_generate_is_checked_where_it_is_written(check: Checker) -> None:
    code = LOAD + ("\n\ndef run(impl):\n    return model.generate(max_new_tokens=3, cache_implementation=impl)\n\n\n"
                   'run("statc")\n')
    assert hfc004(check, code) == [10]


def test_another_callee_takes_its_own_cache_implementation(check: Checker) -> None:
    code = LOAD + ("import vllm\nfrom mylib import launch\n"
                   'launch(cache_implementation="statc")\n'
                   'vllm.LLM("m").generate("hi", cache_implementation="statc")\n'
                   'model.from_pretrained("x", cache_implementation="statc")\n')  # TypeError in __init__ instead
    assert hfc004(check, code) == []


# -- a user's own generate takes its own parameters --------------------------------------------------------

WRAPPER = ("import torch.nn as nn\n\n\n"
           "class Wrapper(nn.Module):\n"
           "    def __init__(self, lm):\n"
           "        super().__init__()\n"
           "        self.lm = lm\n\n"
           "    def generate(self, inputs, past_key_values=None, cache_implementation=None, use_model_defaults=True):\n"
           "        return self.lm.generate(**inputs, max_new_tokens=3)\n\n\n")
USER_CALL = ('out = wrapper.generate(inputs, past_key_values=DynamicCache(), cache_implementation="statc", '
             "use_model_defaults=False)\n")


def test_a_wrappers_own_generate_gets_no_transformers_keyword_rule(check: Checker) -> None:
    code = LOAD + WRAPPER + "wrapper = Wrapper(model)\n" + USER_CALL
    for v in ALL:
        assert codes(check, code, v) == [], v


def test_an_unseen_receiver_in_a_module_with_its_own_generate_is_not_assumed_a_model(check: Checker) -> None:
    code = LOAD + WRAPPER + "\ndef serve(wrapper, inputs):\n    " + USER_CALL.replace("out = ", "return ")
    assert codes(check, code) == []


def test_a_wrapper_forwarding_kwargs_to_the_real_generate_is_followed(check: Checker) -> None:
    code = LOAD + ("import torch.nn as nn\n\n\nclass Fwd(nn.Module):\n"
                   "    def __init__(self, lm):\n        super().__init__()\n        self.lm = lm\n\n"
                   "    def generate(self, inputs, **kwargs):\n        return self.lm.generate(**inputs, **kwargs)\n\n\n"
                   f"Fwd(model).generate(inputs, {CONFLICT})\n")
    assert lines(check(code)) == [13]


def test_a_transformers_subclass_overriding_generate_is_still_transformers(check: Checker) -> None:
    code = ("from transformers import DynamicCache, LlamaForCausalLM\n\n\n"
            "class MyLlama(LlamaForCausalLM):\n"
            "    def generate(self, *args, **kwargs):\n        return super().generate(*args, **kwargs)\n\n\n"
            "def serve(model):\n"
            f"    return model.generate({CONFLICT})\n")
    assert lines(check(code)) == [10]


def test_inside_a_wrapper_the_delegated_generate_is_still_checked(check: Checker) -> None:
    code = LOAD + ("import torch.nn as nn\n\n\nclass Wrapper(nn.Module):\n"
                   "    def __init__(self, lm):\n        super().__init__()\n        self.lm = lm\n\n"
                   "    def generate(self, inputs):\n"
                   f"        return self.lm.generate(**inputs, {CONFLICT})\n")
    assert lines(check(code)) == [13]
