"""HFC005 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc005_unused_generate_kwarg.examples import (
    _DOLA_CALL,
    _DOLA_WRAPPER,
    _LOAD,
    _PIPE,
    _POSITIONS_CALL,
    _PREFILLED,
)
from hf_cache_lint.rules.snippets import own_generate_wrapper

VALID: tuple[Valid, ...] = (
    Valid(
        _PREFILLED + 'ids = torch.cat([inputs["input_ids"], delta], dim=1)\n'
        + _POSITIONS_CALL.replace(" cache_position=torch.arange(n, n + 2),", "").replace("input_ids=delta", "input_ids=ids"),
        note="a prefilled cache continued with the whole sequence and no positions: generate feeds only the tokens "
             "the cache lacks, on every release",
    ),
    Valid(
        _LOAD + 'out = model.generate(**inputs, cache_implementation="static", use_cache=True, max_new_tokens=5)\n',
        note="correctly spelled keywords (`use_cache` is not a typo of `cache`)",
    ),
    Valid(
        _LOAD + "out = model.generate(**inputs, past_key_valyes=None, max_new_tokens=5)\n",
        note="a None value passes generate's check, misspelled or not",
    ),
    Valid(
        _LOAD + "out = model.generate(**inputs, max_new_tokens=5, return_dict_in_generate=True, output_scores=True)\n",
        note="other generate arguments",
    ),
    Valid(
        _PIPE + 'result = generator("The capital of France is", max_new_tokens=5, cache_implementation="static")\n',
        note="generate arguments passed to the text-generation pipeline directly",
    ),
    Valid(
        _PIPE + 'settings = {"max_new_tokens": 5}\nresult = generator("The capital of France is", **settings)\n',
        note="a dict unpacked into the pipeline call",
    ),
    Valid(
        _LOAD + "\n\nclass Echo:\n    def generate(self, **kwargs):\n        return kwargs\n\n\n"
        "echo = Echo().generate(past_key_valyes=1)\n",
        note="the `generate` of a class that is not a transformers model",
    ),
    Valid(
        _LOAD + "from transformers import DynamicCache\n" + own_generate_wrapper("static"),
        note="a user's own `generate` takes its own parameters (`use_model_defaults` included)",
    ),
    Valid(
        "import transformers\nfrom packaging import version\n" + _LOAD
        + 'if version.parse(transformers.__version__) < version.parse("5.0.0"):\n'
        "    out = model.generate(**inputs, max_new_tokens=5, use_model_defaults=False, return_legacy_cache=True)\n"
        "else:\n    out = model.generate(**inputs, max_new_tokens=5)\n",
        note="keywords 5.0 removed, passed only under a version test that excludes 5.x",
    ),
    Valid(
        "import importlib.metadata\n\n" + _LOAD
        + 'OLD_GENERATE = importlib.metadata.version("transformers").startswith("4.")\n'
        "extra = {}\nif OLD_GENERATE:\n    out = model.generate(**inputs, max_new_tokens=5, use_model_defaults=False)\n",
        note="a module-level flag computed from the installed version",
    ),
    Valid(
        "import transformers\nfrom packaging import version\n" + _LOAD
        + 'settings = {"max_new_tokens": 5}\n'
        'if version.parse(transformers.__version__) < version.parse("5.0.0"):\n'
        '    settings["use_model_defaults"] = False\n'
        "out = model.generate(**inputs, **settings)\n",
        note="a removed keyword added to a `**` dict only under a version test that excludes 5.x",
    ),
    Valid(
        _LOAD + 'settings = dict(max_new_tokens=5, return_legacy_cache=None, cache_implementation="static")\n'
        "out = model.generate(**inputs, **settings)\n",
        note="a dict carrying a removed keyword with a None value (passes generate's check)",
    ),
    Valid(
        _LOAD + "out = model.generate(**inputs, max_new_tokens=5, use_model_defaults=None)\n",
        note="a None value passes generate's check on every version",
    ),
    Valid(
        "import torch\nfrom transformers import TimeSeriesTransformerConfig, TimeSeriesTransformerForPrediction\n\n"
        "config = TimeSeriesTransformerConfig(prediction_length=4, context_length=8, lags_sequence=[1, 2],\n"
        "                                     num_time_features=1, d_model=16, encoder_layers=1, decoder_layers=1,\n"
        "                                     encoder_attention_heads=2, decoder_attention_heads=2,\n"
        "                                     encoder_ffn_dim=16, decoder_ffn_dim=16)\n"
        "model = TimeSeriesTransformerForPrediction(config).eval()\n"
        "outputs = model.generate(past_values=torch.randn(1, 10), past_time_features=torch.randn(1, 10, 1),\n"
        "                         past_observed_mask=torch.ones(1, 10), future_time_features=torch.randn(1, 4, 1))\n",
        note="`past_values=` is the time-series models' input (their own generate takes it), not a typo of "
             "`past_key_values`",
    ),
    Valid(
        "from transformers import GenerationConfig, StaticCache\n" + _LOAD
        + "\n\nclass Harness:\n    def __init__(self, static=True):\n"
        '        settings = {"max_new_tokens": 5, "return_legacy_cache": False}\n'
        '        if static:\n            settings["cache_implementation"] = "static"\n'
        "        self.config = GenerationConfig(**settings, return_dict_in_generate=True)\n\n"
        "    def run(self):\n        return model.generate(**inputs, generation_config=self.config)\n\n\n"
        "out = Harness().run()\nassert isinstance(out.past_key_values, StaticCache)\n",
        note="a GenerationConfig built in `__init__` from a settings dict with its fields spelled right "
             "(`return_legacy_cache=False` asks for nothing 5.x ignores)",
    ),
    Valid(
        _LOAD + "model.generation_config.update(use_model_defaults=False, max_new_tokens=5)\n"
        "out = model.generate(**inputs)\n",
        note="`update()` sets only the config's fields: a generate-only keyword given to it is returned unused, "
             "never refused (4.57.6 raises only when a config is built with it)",
    ),
    Valid(
        "from transformers import GenerationConfig, StaticCache\n" + _LOAD
        + 'model.generation_config = GenerationConfig.from_dict({"max_new_tokens": 5, "cache_implementation": '
        '"static"})\n'
        "out = model.generate(**inputs, return_dict_in_generate=True)\n"
        "assert isinstance(out.past_key_values, StaticCache)\n",
        note="a config built by `from_dict` with its fields spelled right, assigned to the model",
    ),
    Valid(_LOAD + _DOLA_CALL.replace('dola_layers="high"', "dola_layers=None") + "print(out.sequences.shape)\n",
          note="`dola_layers=None`: no DoLa asked, greedy decoding runs on every release"),
    Valid(_LOAD + _DOLA_CALL.replace("do_sample=False,", "do_sample=False, num_beams=2,")
          + "print(out.sequences.shape)\n",
          note="`dola_layers=` with two beams: generate warns that DoLa is for greedy and sample decoding only and "
               "runs beam search"),
    Valid(_LOAD + _DOLA_WRAPPER + "out = dola_generate(inputs.input_ids, [0, 1], num_beams=2)\n"
          + "print(out.sequences.shape)\n",
          note="the DoLa wrapper's `**kwargs` carry `num_beams=2`: beam search runs, DoLa is only warned about"),
    Valid("import json\n" + _LOAD + _DOLA_WRAPPER
          + "out = dola_generate(inputs.input_ids, [0, 1], **json.loads('{\"num_beams\": 2}'))\n"
          + "print(out.sequences.shape)\n",
          note="the wrapper's `**kwargs` come from data the linter cannot read (here two beams): not claimed"),
)
