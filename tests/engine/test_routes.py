"""HFC001 through the routes real code takes, beyond the rule examples the oracle runs."""

from __future__ import annotations

import json
from pathlib import Path

from tests.engine.conftest import Checker, lines

from hf_cache_lint.engine.base.findings import Severity

HEAD = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n')


def test_unsloth_fast_generate_injects_static_over_an_explicit_none(check: Checker) -> None:
    code = ("from unsloth import FastLanguageModel\nfrom transformers import DynamicCache\n"
            'model, tok = FastLanguageModel.from_pretrained("unsloth/Llama-3.2-1B-Instruct")\n'
            "out = model.generate(past_key_values=DynamicCache(), cache_implementation=None)\n")
    [f] = check(code)
    assert "Unsloth" in f.message and f.severity == Severity.ERROR
    assert f.fixes[0].title == "Remove `past_key_values=`"


def test_unsloth_with_fast_generation_disabled_before_import_is_clean(check: Checker) -> None:
    code = ('import os\nos.environ.setdefault("UNSLOTH_DISABLE_FAST_GENERATION", "1")\n'
            "from unsloth import FastModel\nfrom transformers import DynamicCache\n"
            'model, tok = FastModel.from_pretrained("unsloth/gemma-3-4b-it")\n'
            "out = model.generate(past_key_values=DynamicCache())\n")
    assert check(code) == []


def test_unsloth_flag_set_after_import_does_not_help(check: Checker) -> None:
    code = ("import os\nfrom unsloth import FastLanguageModel\nfrom transformers import DynamicCache\n"
            'os.environ["UNSLOTH_DISABLE_FAST_GENERATION"] = "1"\n'
            'model, tok = FastLanguageModel.from_pretrained("unsloth/Llama-3.2-1B-Instruct")\n'
            "out = model.generate(past_key_values=DynamicCache())\n")
    assert lines(check(code)) == [6]


def test_hub_cache_generation_config_is_read_and_related(check: Checker, tmp_path: Path) -> None:
    snap = tmp_path / "hub" / "models--acme--chat-1b" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (snap / "generation_config.json").write_text(json.dumps({"cache_implementation": "offloaded"}, indent=2))
    code = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
            'model = AutoModelForCausalLM.from_pretrained("acme/chat-1b")\n'
            "out = model.generate(past_key_values=DynamicCache())\n")
    [f] = check(code, hub=tmp_path / "hub")
    assert '"offloaded"' in f.message
    assert f.related[0].path == str(snap / "generation_config.json") and f.related[0].span.start.line == 2


def test_gemma_hub_hybrid_default_conflicts_only_before_4_56(check: Checker) -> None:
    code = ("from transformers import AutoModelForCausalLM, DynamicCache\n"
            'model = AutoModelForCausalLM.from_pretrained("google/gemma-2-9b-it")\n'
            "out = model.generate(past_key_values=DynamicCache())\n")
    assert lines(check(code, "4.55.0")) == [3]
    assert check(code, "4.57.6") == [] and check(code, "5.24.0") == []


def test_checkpoint_outside_the_workspace_is_not_read(check: Checker, tmp_path: Path) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "generation_config.json").write_text('{"cache_implementation": "static"}')
    code = (f"from transformers import AutoModelForCausalLM, DynamicCache\n"
            f"model = AutoModelForCausalLM.from_pretrained({str(outside)!r})\n"
            "out = model.generate(past_key_values=DynamicCache())\n")
    assert check(code) == []


def test_a_syntax_error_elsewhere_keeps_the_finding(check: Checker) -> None:
    code = (HEAD + "def broken(:\n    pass\n"
            'model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n'
            "x = (1, \n")
    assert lines(check(code)) == [5]


def test_half_typed_call_does_not_hide_an_earlier_finding(check: Checker) -> None:
    code = (HEAD + 'model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n'
            "model.generate(past_key_values=DynamicCache(), cache_impl\n")
    assert 3 in lines(check(code))


def test_other_libraries_generate_is_not_transformers(check: Checker) -> None:
    code = ("import vllm\nfrom mamba_ssm.models.mixer_seq_simple import MambaLMHeadModel\n"
            "from transformers import DynamicCache\n"
            'llm = vllm.LLM("x")\nllm.generate(past_key_values=DynamicCache(), cache_implementation="static")\n'
            'm = MambaLMHeadModel.from_pretrained("state-spaces/mamba-130m")\n'
            'm.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')
    assert check(code) == []


def test_an_unseen_receiver_counts_unless_jedi_shows_another_class(check: Checker) -> None:
    # The other class lives in another module: this one defines no `generate` of its own (when it does, an
    # unseen receiver may be that class: tests/engine/test_what_the_code_says.py).
    (check.root / "helpers.py").write_text("class Local:\n    def generate(self, **kw):\n        return kw\n")
    code = ("from transformers import DynamicCache\nfrom helpers import Local\n\n"
            "def serve(model):\n"
            '    return model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n\n'
            "def other(loc: Local):\n"
            '    return loc.generate(past_key_values=DynamicCache(), cache_implementation="static")\n')
    assert lines(check(code)) == [5]


def test_annotated_mamba_parameter_uses_cache_params_before_5_24(check: Checker) -> None:
    code = ("from transformers import MambaForCausalLM, DynamicCache\n\n"
            "def run(model: MambaForCausalLM):\n"
            '    return model.generate(past_key_values=DynamicCache(), cache_implementation="static")\n\n'
            "def run2(model: MambaForCausalLM):\n"
            '    return model.generate(cache_params=DynamicCache(), cache_implementation="static")\n')
    assert lines(check(code, "5.23.0")) == [7]  # past_key_values on Mamba is HFC003's (rejected as unused)
    assert lines(check(code, "5.24.0")) == [4, 7]


def test_a_parameter_as_the_cache_is_a_warning_that_names_it(check: Checker) -> None:
    code = HEAD + ("\ndef handler(cache):\n"
                   '    return model.generate(past_key_values=cache, cache_implementation="static")\n')
    [f] = check(code)
    assert f.severity == Severity.WARNING and "the parameter `cache` is not None" in f.message


def test_an_environment_flag_is_a_warning_that_names_it(check: Checker) -> None:
    code = HEAD + ("import os\nif os.environ.get('STATIC'):\n"
                   '    model.generation_config.cache_implementation = "static"\n'
                   "model.generate(past_key_values=DynamicCache())\n")
    [f] = check(code)
    assert f.severity == Severity.WARNING and "os.environ.get('STATIC')" in f.message


def test_the_cache_from_the_previous_loop_iteration(check: Checker) -> None:
    code = HEAD + ("cache = None\nfor turn in range(3):\n"
                   '    out = model.generate(past_key_values=cache, cache_implementation="static", return_dict_in_generate=True)\n'
                   "    cache = out.past_key_values\n")
    [f] = check(code)
    assert f.span.start.line == 5


def test_set_in_an_except_branch_then_retry(check: Checker) -> None:
    code = HEAD + ("kw = {'past_key_values': DynamicCache()}\ntry:\n    out = model.generate(**kw)\n"
                   "except RuntimeError:\n    kw['cache_implementation'] = 'offloaded'\n"
                   "    out = model.generate(**kw)\n")
    [f] = check(code)
    assert f.span.start.line == 8 and f.severity == Severity.ERROR


def test_percent_percent_cells_are_one_module(check: Checker) -> None:
    code = ("# %%\n" + HEAD + "# %%\nmodel.generation_config.cache_implementation = 'static'\n"
            "# %%\nmodel.generate(past_key_values=DynamicCache())\n")
    assert lines(check(code)) == [7]


def test_a_value_set_after_the_call_does_not_count(check: Checker) -> None:
    code = HEAD + ("model.generate(past_key_values=DynamicCache())\n"
                   "model.generation_config.cache_implementation = 'static'\n")
    assert check(code) == []


def test_save_pretrained_then_load_the_same_folder(check: Checker) -> None:
    code = HEAD + ('model.generation_config.cache_implementation = "static"\n'
                   'model.save_pretrained("out/ckpt")\n'
                   'reloaded = AutoModelForCausalLM.from_pretrained("out/ckpt")\n'
                   "reloaded.generate(past_key_values=DynamicCache())\n")
    [f] = check(code)
    assert f.span.start.line == 6 and "save_pretrained" in f.related[0].message


def test_generate_kwargs_on_a_forwarding_pipeline(check: Checker) -> None:
    code = ("from transformers import DynamicCache, pipeline\n"
            'asr = pipeline("automatic-speech-recognition", model="openai/whisper-tiny")\n'
            'asr("a.wav", generate_kwargs={"past_key_values": DynamicCache(), "cache_implementation": "static"})\n'
            'tg = pipeline("text-generation", model="gpt2")\n'
            'tg("hi", generate_kwargs={"past_key_values": DynamicCache(), "cache_implementation": "static"})\n')
    assert lines(check(code)) == [3]  # text-generation rejects generate_kwargs first (HFC005)


def test_config_built_from_a_dict_and_setattr(check: Checker) -> None:
    code = HEAD + ("from transformers import GenerationConfig\n"
                   'opts = {"max_new_tokens": 8, "cache_implementation": "static"}\n'
                   "cfg = GenerationConfig(**opts)\n"
                   "model.generate(generation_config=cfg, past_key_values=DynamicCache())\n"
                   "cfg2 = GenerationConfig()\n"
                   'setattr(cfg2, "cache_implementation", "offloaded")\n'
                   "model.generate(generation_config=cfg2, past_key_values=DynamicCache())\n")
    assert lines(check(code)) == [6, 9]


def test_a_pipelines_model_configured_after_construction(check: Checker) -> None:
    code = ("from transformers import DynamicCache, pipeline\n"
            'pipe = pipeline("text-generation", model="meta-llama/Llama-3.2-1B")\n'
            'pipe.model.generation_config.cache_implementation = "static"\n'
            'pipe("hi", past_key_values=DynamicCache())\n')
    assert lines(check(code)) == [4]


def test_deeply_nested_loops_stay_linear_and_still_find(check: Checker) -> None:
    body = "".join("    " * i + f"for x{i} in range(3):\n" for i in range(40))
    code = HEAD + body + "    " * 40 + "model.generate(past_key_values=DynamicCache(), cache_implementation='static')\n"
    assert lines(check(code)) == [43]  # 2 ** 40 passes would never finish


def test_accelerate_unwrap_and_a_main_guard(check: Checker) -> None:
    code = ("from accelerate import Accelerator\nfrom transformers import AutoModelForCausalLM, DynamicCache\n"
            'model = AutoModelForCausalLM.from_pretrained("x")\n'
            'if __name__ == "__main__":\n'
            '    model.generation_config.cache_implementation = "static"\n'
            "acc = Accelerator()\n"
            "acc.unwrap_model(model).generate(past_key_values=DynamicCache())\n")
    [f] = check(code)
    assert f.span.start.line == 7 and f.severity == Severity.ERROR


def test_sides_set_on_opposite_branches_into_one_dict_never_meet(check: Checker) -> None:
    code = HEAD + ("import os\nprefix = os.environ.get('PREFIX') == '1'\nkw = {}\n"
                   "if prefix:\n    kw['past_key_values'] = DynamicCache()\n"
                   "else:\n    kw['cache_implementation'] = 'static'\n"
                   "model.generate(**kw)\n")
    assert check(code) == []


def test_a_cache_variable_and_the_config_on_opposite_branches(check: Checker) -> None:
    code = HEAD + ("import os\nprefix = os.environ.get('PREFIX') == '1'\ncache = None\n"
                   "if prefix:\n    cache = DynamicCache()\n"
                   "else:\n    model.generation_config.cache_implementation = 'static'\n"
                   "model.generate(past_key_values=cache)\n")
    assert check(code) == []
