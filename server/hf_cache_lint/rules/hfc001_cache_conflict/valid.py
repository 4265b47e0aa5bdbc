"""HFC001 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc001_cache_conflict.examples import _LOAD

VALID: tuple[Valid, ...] = (
    Valid(
        _LOAD + "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note="a cache alone",
    ),
    Valid(
        _LOAD + 'out = model.generate(**inputs, cache_implementation="static", max_new_tokens=5)\n',
        note="`cache_implementation` alone",
    ),
    Valid(
        _LOAD
        + 'out = model.generate(**inputs, past_key_values=None, cache_implementation="static", max_new_tokens=5)\n',
        note="None is not a cache",
    ),
    Valid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "cache = None\n"
        "out = model.generate(**inputs, past_key_values=cache, max_new_tokens=5)\n",
        note="a variable that is None",
    ),
    Valid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation=None, max_new_tokens=5)\n",
        note="an explicit `cache_implementation=None` keyword clears every source",
    ),
    Valid(
        _LOAD + 'model.config.cache_implementation = "static"\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note="`model.config` is not the generation config",
    ),
    Valid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "logits = model(**inputs, past_key_values=DynamicCache()).logits\n",
        note="a forward call, not generate",
    ),
    Valid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "model.generation_config.cache_implementation = None\n"
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note="cleared before the call",
    ),
    Valid(
        _LOAD
        + 'out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="hybrid", max_new_tokens=5)\n',
        versions=("5.23.0", "5.24.0", "5.25.0"),
        note='5.x resets "hybrid" to None',
    ),
    Valid(
        _LOAD + "\n\nclass Sampler:\n"
        "    def generate(self, **kwargs):\n"
        "        return kwargs\n\n\n"
        'out = Sampler().generate(past_key_values=DynamicCache(), cache_implementation="static")\n',
        note="another class's generate",
    ),
    Valid(
        _LOAD + "import os\n\n"
        'use_static = os.environ.get("USE_STATIC", "1") == "1"\n'
        "if use_static:\n"
        '    model.generation_config.cache_implementation = "static"\n'
        "    out = model.generate(**inputs, max_new_tokens=5)\n"
        "else:\n"
        "    out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note="the two sides sit on opposite branches of one condition",
    ),
    Valid(
        _LOAD + 'gen_kwargs = {"max_new_tokens": 5, "cache_implementation": "static"}\n'
        'gen_kwargs.pop("cache_implementation")\n'
        "out = model.generate(**inputs, **gen_kwargs, past_key_values=DynamicCache())\n",
        note="the key is popped from the ** dict before the call",
    ),
    Valid(
        _LOAD + "config = GenerationConfig(max_new_tokens=5)\n"
        "out = model.generate(**inputs, generation_config=config, past_key_values=DynamicCache())\n",
        note="a config without the field, on a model without it",
    ),
    Valid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "model.generation_config.update(cache_implementation=None)\n"
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note="`update(cache_implementation=None)` clears it",
    ),
    Valid(
        _LOAD + "if 0:  # the static cache is switched off\n"
        '    model.generation_config.cache_implementation = "static"\n'
        "while 0:\n"
        '    model.generation_config.cache_implementation = "static"\n'
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=5)\n",
        note="set only under `if 0:` and `while 0:`, which never run",
    ),
    Valid(
        _LOAD + "from transformers import pipeline\n\n"
        'classifier = pipeline("text-classification", model="meta-llama/Llama-3.2-1B", tokenizer=tokenizer)\n'
        'out = classifier("hi", past_key_values=DynamicCache(), cache_implementation="static")\n',
        versions=("5.23.0", "5.24.0", "5.25.0"),
        note="a text-classification pipeline never calls generate (4.x hands the keywords to the tokenizer: "
             "TypeError)",
    ),
    Valid(
        _LOAD + "from transformers import Pipeline, pipeline\n"
        "from transformers.pipelines import PIPELINE_REGISTRY\n\n\n"
        "class CachedPipeline(Pipeline):\n"
        "    def _sanitize_parameters(self, cache=None, cache_implementation=None, **kwargs):\n"
        '        return {}, {"cache": cache, "cache_implementation": cache_implementation}, {}\n\n'
        "    def preprocess(self, text):\n"
        '        return self.tokenizer(text, return_tensors="pt")\n\n'
        "    def _forward(self, model_inputs, cache=None, cache_implementation=None):\n"
        "        return self.model.generate(**model_inputs, max_new_tokens=3)\n\n"
        "    def postprocess(self, outputs):\n"
        "        return outputs\n\n\n"
        'PIPELINE_REGISTRY.register_pipeline("cached-generation", pipeline_class=CachedPipeline, '
        "pt_model=AutoModelForCausalLM)\n"
        'pipe = pipeline("cached-generation", model=model, tokenizer=tokenizer)\n'
        'out = pipe("hi", cache=DynamicCache(), cache_implementation="static")\n',
        note="a custom task: its own Pipeline subclass takes `cache` and `cache_implementation` itself",
    ),
    Valid(
        "import transformers\nfrom packaging import version\n" + _LOAD
        + 'if version.parse(transformers.__version__) >= version.parse("5.0.0"):\n'
        '    out = model.generate(**inputs, past_key_values=DynamicCache(), cache_implementation="hybrid", '
        "max_new_tokens=5)\n",
        note="an explicit `\"hybrid\"` conflicts in 4.x only, and this call runs only on 5.x (a version test)",
    ),
    Valid(
        _LOAD + 'model.generation_config.cache_implementation = "static"\n'
        "cache = None\n"
        "for turn in range(2):\n"
        '    kwargs = {"past_key_values": cache, "max_new_tokens": 3, "min_new_tokens": 3, "do_sample": False}\n'
        "    if cache is not None:\n"
        '        kwargs["cache_implementation"] = None\n'
        "    out = model.generate(**inputs, **kwargs)\n"
        "    cache = DynamicCache()\n",
        note="Local Gemma's chat loop: `cache_implementation=None` exactly when a cache is passed (`if cache is not "
             "None`), so the model's \"static\" never meets it",
    ),
)
