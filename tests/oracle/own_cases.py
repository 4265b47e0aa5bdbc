"""The oracle's own snippets: runner self-tests (test_runner.py) and docs/facts.md checks (test_facts.py).

`expect` maps each checked version to "KIND" or "KIND:detail" (detail = the cache keyword named in the
HFC001 message). The line marked `# <- raises` is where the error must come from (when not OK).
"""

from __future__ import annotations

from typing import Any

V457, V523, V524 = "4.57.6", "5.23.0", "5.24.0"

PRE = """\
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache, GenerationConfig
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")
tok = AutoTokenizer.from_pretrained("meta-llama/Llama-3.2-1B")
ids = tok("hello there my friend", return_tensors="pt").input_ids
"""

MAMBA = """\
import torch
from transformers import AutoTokenizer, DynamicCache, MambaForCausalLM
model = MambaForCausalLM.from_pretrained("state-spaces/mamba-130m-hf")
ids = AutoTokenizer.from_pretrained("state-spaces/mamba-130m-hf")("hello there", return_tensors="pt").input_ids
"""


def every(kind: str) -> dict[str, str]:
    return {V457: kind, V523: kind, V524: kind}


def conflict(old: str) -> dict[str, str]:
    """HFC001 naming `old` before 5.24 and `cache` on 5.24 (docs/facts.md §1 table)."""
    return {V457: f"HFC001:{old}", V523: f"HFC001:{old}", V524: "HFC001:cache"}


def case(body: str, expect: dict[str, str], pre: str = PRE, **extra: Any) -> dict[str, Any]:
    return {"source": pre + body, "expect": expect, **extra}


# Runner self-tests: one per outcome kind, each on every version.
RUNNER: dict[str, dict[str, Any]] = {
    "same_call_conflict": case(
        "model.generate(ids, past_key_values=DynamicCache(), cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values")),
    "pkv_none_clean": case(
        "pkv = None\nmodel.generate(ids, past_key_values=pkv, cache_implementation='static', max_new_tokens=3, min_new_tokens=3)\n",
        every("OK")),
    "tuple_cache": case(
        "legacy = tuple((torch.zeros(1, 1, 3, 64), torch.zeros(1, 1, 3, 64)) for _ in range(2))\n"
        "model.generate(ids[:, :4], past_key_values=legacy, max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        {V457: "OK", V523: "HFC002", V524: "HFC002"},
        contains={V523: "tuple of `past_key_values` is not supported anymore",
                  V524: "Passing a tuple for `cache` is not supported anymore"}),
    "invalid_value": case(
        "model.generate(ids, cache_implementation='Static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n", every("HFC004")),
    "misspelled_keyword": case(
        "model.generate(ids, past_key_valyes=DynamicCache(), max_new_tokens=3, min_new_tokens=3)  # <- raises\n", every("HFC005"),
        contains=every("['past_key_valyes']")),
    "mamba_cache_params_conflict": case(
        "model.generate(ids, cache_params=DynamicCache(), cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("cache_params"), pre=MAMBA),
    "mamba_past_key_values": case(
        "model.generate(ids, past_key_values=DynamicCache(), cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        {V457: "HFC005", V523: "HFC005", V524: "HFC001:cache"}, pre=MAMBA),
    "cache_keyword": case(
        "model.generate(ids, cache=DynamicCache(), cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        {V457: "HFC005", V523: "HFC005", V524: "HFC001:cache"}),
    "other_error": case("model.generate(ids, max_new_tokens=3, min_new_tokens=3)\nraise KeyError('boom')  # <- raises\n", every("OTHER")),
    "user_style_gpu_code": case(
        "model = AutoModelForCausalLM.from_pretrained('google/gemma-2-2b-it', device_map='auto', torch_dtype=torch.bfloat16)\n"
        "model.to('cuda'); model.forward = torch.compile(model.forward, mode='reduce-overhead')\n"
        "msgs = [{'role': 'user', 'content': 'hi'}]\n"
        "inputs = tok.apply_chat_template(msgs, add_generation_prompt=True, return_tensors='pt', return_dict=True).to('cuda')\n"
        "out = model.generate(**inputs, past_key_values=DynamicCache(), max_new_tokens=4, min_new_tokens=4)\n"
        "print(tok.batch_decode(out), tok.decode(out[0]), torch.arange(3, device='cuda').cuda())\n",
        every("OK")),
    "multimodal_classes": case(
        "from transformers import AutoModelForImageTextToText, Gemma3ForConditionalGeneration\n"
        "g = Gemma3ForConditionalGeneration.from_pretrained('google/gemma-3-4b-it', torch_dtype=torch.bfloat16)\n"
        "g.generate(ids, past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)\n"
        "v = AutoModelForImageTextToText.from_pretrained('llava-hf/llava-1.5-7b-hf')\n"
        "v.generate(ids, past_key_values=DynamicCache(), cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values")),
    "fastapi_handler": case(
        "from fastapi import FastAPI, Request\napp = FastAPI()\n"
        "@app.post('/gen')\nasync def gen(request: Request):\n    data = await request.json()\n"
        "    enc = tok(data['text'], return_tensors='pt')\n"
        "    return model.generate(**enc, past_key_values=DynamicCache(), cache_implementation='static')  # <- raises\n",
        conflict("past_key_values")),
    "flask_handler": case(
        "from flask import Flask, request, jsonify\napp = Flask(__name__)\n"
        "@app.route('/gen', methods=['POST'])\ndef gen():\n    text = request.get_json()['prompt']\n"
        "    out = model.generate(**tok(text, return_tensors='pt'), past_key_valyes=DynamicCache())  # <- raises\n"
        "    return jsonify({'text': tok.decode(out[0])})\n"
        "if __name__ == '__main__':\n    app.run(host='0.0.0.0', port=8000)\n", every("HFC005")),
    "pydantic_streaming_handler": case(
        "from fastapi import FastAPI\nfrom fastapi.responses import StreamingResponse\nfrom pydantic import BaseModel\n"
        "import uvicorn\napp = FastAPI()\nclass Req(BaseModel):\n    prompt: str\n    max_new_tokens: int = 4\n"
        "@app.post('/stream')\ndef stream(req: Req):\n    def gen():\n"
        "        yield model.generate(**tok(req.prompt, return_tensors='pt'), cache_implementation='statik')  # <- raises\n"
        "    return StreamingResponse(gen(), media_type='text/plain')\n"
        "if __name__ == '__main__':\n    uvicorn.run(app)\n", every("HFC004")),
    "thread_target": case(
        "from threading import Thread\n"
        "t = Thread(target=model.generate, kwargs=dict(input_ids=ids, cache_implementation='nope'))  # <- raises\n"
        "t.start(); t.join()\n", every("HFC004")),
    "memory_cap": case("x = torch.empty(8 << 30, dtype=torch.uint8)  # <- raises\n", every("OTHER"),
                       contains=every("can't allocate memory")),
    "simulated_oom": case(
        "long = tok('okay ' * 2500, return_tensors='pt').input_ids\nmodel.generate(long, max_new_tokens=2, min_new_tokens=2)  # <- raises\n",
        every("OTHER"), contains=every("simulated GPU")),
}

# docs/facts.md claims, each checked on every version.
FACTS: dict[str, dict[str, Any]] = {
    # §2.5: "hybrid" never conflicts in 5.x; an explicit "hybrid" keyword DOES conflict in 4.57.
    "hybrid_keyword": case(
        "model.generate(ids, past_key_values=DynamicCache(), cache_implementation='hybrid', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        {V457: "HFC001:past_key_values", V523: "OK", V524: "OK"}),
    # §2.2: GenerationConfig(cache_implementation=None) does not clear the model's value.
    "genconfig_none_does_not_clear": case(
        "model.generation_config.cache_implementation = 'static'\n"
        "cfg = GenerationConfig(cache_implementation=None, max_new_tokens=3, min_new_tokens=3)\n"
        "model.generate(ids, generation_config=cfg, past_key_values=DynamicCache())  # <- raises\n",
        conflict("past_key_values")),
    # §2.4: an explicit cache_implementation=None keyword clears it.
    "none_keyword_clears": case(
        "model.generation_config.cache_implementation = 'static'\n"
        "model.generate(ids, past_key_values=DynamicCache(), cache_implementation=None, max_new_tokens=3, min_new_tokens=3)\n",
        every("OK")),
    # §1: the check runs before the use_cache=False escape.
    "use_cache_false_still_conflicts": case(
        "model.generate(ids, past_key_values=DynamicCache(), cache_implementation='static',  # <- raises\n"
        "               use_cache=False, max_new_tokens=3, min_new_tokens=3)\n", conflict("past_key_values")),
    # §1: ANY non-None object counts, even a string.
    "string_cache_conflicts": case(
        "model.generate(ids, past_key_values='oops', cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values")),
    # §2 routes: the pipeline constructor's cache_implementation and a cache at call time.
    "pipeline_constructor": case(
        "from transformers import pipeline\n"
        "pipe = pipeline('text-generation', model='meta-llama/Llama-3.2-1B', cache_implementation='static')\n"
        "pipe('hello there', past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values")),
    # §2 non-route: generate_kwargs= on text-generation is rejected as an unused model kwarg.
    "pipeline_generate_kwargs": case(
        "from transformers import pipeline\npipe = pipeline('text-generation', model='meta-llama/Llama-3.2-1B')\n"
        "pipe('hello', generate_kwargs={'past_key_values': DynamicCache(), 'cache_implementation': 'static'})  # <- raises\n",
        every("HFC005"), contains=every("generate_kwargs")),
    # §2 non-route: model.config.cache_implementation is ignored.
    "model_config_attr_ignored": case(
        "model.config.cache_implementation = 'static'\n"
        "model.generate(ids, past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)\n", every("OK")),
    # §2 non-route: from_pretrained(id, cache_implementation=...) fails in the model's __init__.
    "from_pretrained_kwarg": case(
        "m = AutoModelForCausalLM.from_pretrained('meta-llama/Llama-3.2-1B', cache_implementation='static')  # <- raises\n",
        every("OTHER"), contains=every("__init__() got an unexpected keyword argument 'cache_implementation'")),
    # §2: the checkpoint's generation_config.json (a local folder).
    "local_checkpoint_json": case(
        "m = AutoModelForCausalLM.from_pretrained('./ckpt')\n"
        "m.generate(ids, past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values"),
        files={"ckpt/generation_config.json": '{"cache_implementation": "static", "transformers_version": "4.50.3"}'}),
    # §2: GenerationConfig.from_pretrained(path, cache_implementation=...) then passed positionally.
    "genconfig_from_pretrained": case(
        "cfg = GenerationConfig.from_pretrained('./ckpt', cache_implementation='offloaded')\n"
        "model.generate(ids, cfg, past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values"), files={"ckpt/generation_config.json": '{"max_new_tokens": 3}'}),
    # §3: invalid value raised by GenerationConfig(...) itself; plain assignment silent until generate.
    "invalid_in_constructor": case(
        "GenerationConfig(cache_implementation='staticc')  # <- raises\n", every("HFC004")),
    "invalid_assignment_silent_until_generate": case(
        "model.generation_config.cache_implementation = 'staticc'\nprint('assigned')\n"
        "model.generate(ids, max_new_tokens=3, min_new_tokens=3)  # <- raises\n", every("HFC004")),
    # §2: Gemma 2 ships "hybrid" in its Hub generation_config; 4.56+ and 5.x drop it: no conflict.
    "gemma2_hub_hybrid_default": case(
        "g = AutoModelForCausalLM.from_pretrained('google/gemma-2-2b-it')\n"
        "print(g.generation_config.cache_implementation)\n"
        "g.generate(ids, past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)\n", every("OK")),
    # §1: in 5.24 both `past_key_values=` and `cache=` only warn and `cache` wins (None here: no conflict);
    # before 5.24 a None `cache=` is skipped by the unused-kwargs check, so past_key_values conflicts.
    "both_names_cache_wins": case(
        "model.generate(ids, past_key_values=DynamicCache(), cache=None, cache_implementation='static',  # <- raises\n"
        "               max_new_tokens=3, min_new_tokens=3)\n", {**conflict("past_key_values"), V524: "OK"}),
    # §1: the "mamba" keyword rule is on the class name: for a subclass named otherwise, <= 5.23 checks
    # `past_key_values` (which Mamba's forward rejects first: HFC005) and lets `cache_params` through.
    "mamba_subclass_past_key_values": case(
        "class MySSM(MambaForCausalLM):\n    pass\n"
        "m = MySSM.from_pretrained('state-spaces/mamba-130m-hf')\n"
        "m.generate(ids, past_key_values=DynamicCache(), cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        {V457: "HFC005", V523: "HFC005", V524: "HFC001:cache"}, pre=MAMBA),
    "mamba_subclass_cache_params": case(
        "class MySSM(MambaForCausalLM):\n    pass\n"
        "m = MySSM.from_pretrained('state-spaces/mamba-130m-hf')\n"
        "m.generate(ids, cache_params=DynamicCache(), cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        {V457: "OTHER", V523: "OTHER", V524: "HFC001:cache"}, pre=MAMBA),
    # §2 routes: generation_config.update(...) and the text-generation pipeline call keywords.
    "genconfig_update": case(
        "model.generation_config.update(cache_implementation='offloaded')\n"
        "model.generate(ids, past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values")),
    "pipeline_call_keywords": case(
        "from transformers import pipeline\npipe = pipeline('text-generation', model=model, tokenizer=tok)\n"
        "pipe('hello', past_key_values=DynamicCache(), cache_implementation='static', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values")),
    "pipeline_model_default": case(
        "from transformers import pipeline\nmodel.generation_config.cache_implementation = 'static'\n"
        "pipe = pipeline('text-generation', model=model, tokenizer=tok)\n"
        "pipe('hello', past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
        conflict("past_key_values")),
    # §2, 4.57: a user GenerationConfig takes the model's values only when the checkpoint's config was
    # saved by transformers >= 4.50; 5.x always fills unset fields from the model.
    "user_config_old_checkpoint": case(
        "m = AutoModelForCausalLM.from_pretrained('./ckpt')\n"
        "m.generate(ids, generation_config=GenerationConfig(max_new_tokens=3, min_new_tokens=3), past_key_values=DynamicCache())  # <- raises\n",
        {V457: "OK", V523: "HFC001:past_key_values", V524: "HFC001:cache"},
        files={"ckpt/generation_config.json": '{"cache_implementation": "static", "transformers_version": "4.45.0"}'}),
    "user_config_new_checkpoint": case(
        "m = AutoModelForCausalLM.from_pretrained('./ckpt')\n"
        "m.generate(ids, generation_config=GenerationConfig(max_new_tokens=3, min_new_tokens=3), past_key_values=DynamicCache())  # <- raises\n",
        conflict("past_key_values"),
        files={"ckpt/generation_config.json": '{"cache_implementation": "static", "transformers_version": "4.50.3"}'}),
    # §4: use_cache=False with cache_implementation and no cache object only warns.
    "use_cache_false_no_cache": case(
        "model.generate(ids, cache_implementation='static', use_cache=False, max_new_tokens=3, min_new_tokens=3)\n", every("OK")),
    # §2 non-route: a forward call with both keywords is not generate.
    "forward_not_generate": case(
        "model(ids, past_key_values=DynamicCache(), use_cache=True)\n", every("OK")),
}

# §7: generate keywords 4.x accepted and 5.x rejects as unused model kwargs.
FACTS["use_model_defaults_removed"] = case(
    "model.generate(ids, use_model_defaults=False, max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
    {V457: "OK", V523: "HFC005", V524: "HFC005"}, contains={V523: "['use_model_defaults']", V524: "['use_model_defaults']"})
FACTS["return_legacy_cache_removed"] = case(
    "model.generate(ids, return_legacy_cache=True, max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
    {V457: "OK", V523: "HFC005", V524: "HFC005"},
    contains={V523: "['return_legacy_cache']", V524: "['return_legacy_cache']"})
# §7: the legacy-format converters exist in 4.57 and are gone in 5.x.
FACTS["legacy_cache_methods"] = case("""
import transformers
from transformers import Cache, DynamicCache
present = (hasattr(Cache, "to_legacy_cache") or hasattr(DynamicCache, "to_legacy_cache"),
           hasattr(DynamicCache, "from_legacy_cache"))
expected = {"4.57.6": (True, True), "5.23.0": (False, False), "5.24.0": (False, False), "5.25.0": (False, False)}[transformers.__version__]
assert present == expected, present
""", every("OK"), pre="")
# §6: from 5.24 generate's outputs carry `.cache`, with `.past_key_values` kept as an alias.
FACTS["output_cache_alias"] = case(
    "import transformers\n"
    "out = model.generate(ids, max_new_tokens=2, min_new_tokens=2, return_dict_in_generate=True)\n"
    "has = (getattr(out, 'cache', None) is not None, getattr(out, 'past_key_values', None) is not None)\n"
    "expected = {'4.57.6': (False, True), '5.23.0': (False, True), '5.24.0': (True, True), '5.25.0': (True, True)}[transformers.__version__]\n"
    "assert has == expected, has\n", every("OK"))

# §8: a tuple into a Llama forward raises on 4.57.6 already (Llama's forward stopped converting; GPT-2's still does
# there, the release table's `tuple_cache_to_forward`), and on every 5.x release.
FACTS["tuple_forward_llama_457"] = case(
    "legacy = tuple((torch.zeros(1, 8, 3, 64), torch.zeros(1, 8, 3, 64)) for _ in range(16))\n"
    "model(ids, past_key_values=legacy, use_cache=True)  # <- raises\n",
    every("HFC002"), contains=dict.fromkeys((V457, V523, V524), "'tuple' object has no attribute 'get_seq_length'"))

# §8: the project's own object as a forward's cache (HFC002, engine/interpreter/own_caches.py): a `DynamicCache`
# subclass whose `__init__` skips the base one has no `layers`; a plain class without `get_seq_length` fails on it
# (4.53.0 runs the first and raises a ValueError for the second: claimed from 4.57 only).
FACTS["own_cache_skips_init_forward"] = case(
    "class Mine(DynamicCache):\n    def __init__(self):\n        self.extra = 0\n"
    "model(ids, past_key_values=Mine(), use_cache=True)  # <- raises\n",
    every("OTHER"), contains=dict.fromkeys((V457, V523, V524), "'Mine' object has no attribute 'layers'"))
FACTS["own_plain_cache_forward"] = case(
    "class Store:\n    def update(self, k, v, layer_idx, cache_kwargs=None):\n        return k, v\n"
    "model(ids, past_key_values=Store(), use_cache=True)  # <- raises\n",
    every("OTHER"), contains=dict.fromkeys((V457, V523, V524), "'Store' object has no attribute 'get_seq_length'"))

# §4: crop(n) with n > 0 on a dynamic cache raises from 5.20.0 (the release table; HFC008); 4.57 crops silently.
FACTS["crop_positive"] = case(
    "cache = DynamicCache()\nmodel(ids, past_key_values=cache, use_cache=True)\ncache.crop(2)  # <- raises\n",
    {V457: "OK", V523: "HFC008", V524: "HFC008"},
    contains={V523: "Calling `crop` with a positive value", V524: "Calling `crop` with a positive value"})
# §3: "paged" as a generate keyword switches to continuous batching (no conflict with a cache); set on the
# model's generation config it conflicts. 4.57 has no "paged": invalid either way.
FACTS["paged_keyword_no_conflict"] = case(
    "model.generate(ids, past_key_values=DynamicCache(), cache_implementation='paged', max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
    {V457: "HFC004", V523: "OK", V524: "OK"})
FACTS["paged_on_config_conflicts"] = case(
    "model.generation_config.cache_implementation = 'paged'\n"
    "model.generate(ids, past_key_values=DynamicCache(), max_new_tokens=3, min_new_tokens=3)  # <- raises\n",
    {V457: "HFC004", V523: "HFC001:past_key_values", V524: "HFC001:cache"})

# Table-shaped claims (§3 values, §6 classes): the snippet asserts the whole table, so OK means it holds.
FACTS["valid_values_table"] = case("""
import transformers
from transformers import GenerationConfig
common = ["static", "offloaded_static", "dynamic", "offloaded", "quantized", "sliding_window", "hybrid",
          "hybrid_chunked", "offloaded_hybrid", "offloaded_hybrid_chunked"]
only = {"4": ["dynamic_full"], "5": ["paged"]}
major = transformers.__version__[0]
def ok(value):
    try:
        GenerationConfig(cache_implementation=value)
        return True
    except ValueError:
        return False
assert all(ok(v) for v in common + only[major]), [v for v in common + only[major] if not ok(v)]
rejected = ["mamba", "Static", "foo"] + only["5" if major == "4" else "4"]
assert not any(ok(v) for v in rejected), [v for v in rejected if ok(v)]
""", every("OK"), pre="")
FACTS["cache_classes_table"] = case("""
import transformers
names = ["Cache", "DynamicCache", "StaticCache", "QuantizedCache", "EncoderDecoderCache", "HybridCache",
         "HybridChunkedCache", "SlidingWindowCache", "OffloadedCache", "OffloadedStaticCache", "MambaCache",
         "QuantoQuantizedCache", "HQQQuantizedCache", "SinkCache"]
def importable(name):
    try:
        exec(f"from transformers import {name}", {})
        return True
    except (ImportError, AttributeError):
        return False
have = [n for n in names if importable(n)]
expected = {"4.57.6": names, "5.23.0": names[:5], "5.24.0": names[:5], "5.25.0": names[:5]}.get(transformers.__version__)
print(transformers.__version__, have)
assert expected is None or have == expected, have
""", every("OK"), pre="")

# §3: where an invalid value assigned to a GenerationConfig raises (a finding belongs there).
_ASSIGNED = "config = GenerationConfig(max_new_tokens=3, min_new_tokens=3)\nconfig.cache_implementation = 'staticc'\n"
FACTS["invalid_assignment_unvalidated"] = case(
    _ASSIGNED + "model.generation_config = config\nprint(config.max_new_tokens)\n", every("OK"))
FACTS["invalid_assignment_validate"] = case(_ASSIGNED + "config.validate()  # <- raises\n", every("HFC004"))
FACTS["invalid_assignment_save_pretrained"] = case(
    _ASSIGNED + "config.save_pretrained('out')  # <- raises\n", every("HFC004"))
FACTS["invalid_assignment_update"] = case(_ASSIGNED + "config.update(top_k=5)  # <- raises\n", every("HFC004"))
FACTS["invalid_model_config_save_pretrained"] = case(
    "model.generation_config.cache_implementation = 'staticc'\nmodel.save_pretrained('out')  # <- raises\n",
    every("HFC004"))
# 5.x validates the passed config even when a keyword overrides its value; 4.57 then never reads it.
FACTS["invalid_config_keyword_override"] = case(
    _ASSIGNED + "model.generate(ids, generation_config=config, cache_implementation=None)  # <- raises\n",
    {V457: "OK", V523: "HFC004", V524: "HFC004"})
# §2/§7: the pipeline's task decides what reaches generate.
FACTS["pipeline_non_generating_task"] = case(
    "from transformers import pipeline\n"
    "clf = pipeline('text-classification', model='meta-llama/Llama-3.2-1B', tokenizer=tok)\n"
    "clf('hi', past_key_values=DynamicCache(), cache_implementation='static')  # <- raises\n",
    {V457: "OTHER", V523: "OK", V524: "OK"})  # 4.57: the tokenizer rejects `past_key_values` (TypeError)
FACTS["pipeline_no_task_model_object"] = case(
    "from transformers import pipeline\npipe = pipeline(model=model, tokenizer=tok)  # <- raises\n", every("OTHER"),
    contains=every("Inferring the task automatically requires"))
FACTS["pipeline_summarization_4x"] = case(
    "from transformers import EncoderDecoderCache, pipeline\n"
    "cache = EncoderDecoderCache(DynamicCache(), DynamicCache())\n"
    "pipeline('summarization', model='google-t5/t5-small')('The tower is tall.', past_key_values=cache, "
    "cache_implementation='static')  # <- raises\n",
    {V457: "HFC001:past_key_values", V523: "OTHER", V524: "OTHER"},
    contains={V523: "has been removed from transformers", V524: "has been removed from transformers"})

# §6/§7 (HFC007): where the removed classes still live, the exact errors, and the mechanical replacement.
FACTS["removed_cache_api_details"] = case("""
import torch
import transformers
from transformers import DynamicCache
def error(stmt):
    try:
        exec(stmt, {})
        return None
    except (ImportError, AttributeError) as exc:
        return f"{type(exc).__name__}: {exc}"
v = transformers.__version__
# SlidingWindowCache left the top level in 5.x but stays in cache_utils.
assert error("from transformers.cache_utils import SlidingWindowCache") is None
assert (error("from transformers import SlidingWindowCache") is None) == (v == "4.57.6")
# MambaCache lived in the Mamba modeling module (4.57), gone by 5.23.
mamba = error("from transformers.models.mamba.modeling_mamba import MambaCache")
assert (mamba is None) == (v == "4.57.6"), mamba
# Gone before 4.57 (4.56.0, read from the wheels): QuantizedCacheConfig, from both modules.
for source in ("transformers", "transformers.cache_utils"):
    assert error(f"from {source} import QuantizedCacheConfig").startswith(
        f"ImportError: cannot import name 'QuantizedCacheConfig' from '{source}'"), source
# Jamba's own cache class: still in 4.57.6 (and 5.0-5.4), gone from 5.5.0.
jamba = error("from transformers.models.jamba.modeling_jamba import HybridMambaAttentionDynamicCache")
assert (jamba is None) == (v == "4.57.6"), jamba
if v != "4.57.6":
    assert error("from transformers import HybridCache").startswith(
        "ImportError: cannot import name 'HybridCache' from 'transformers'")
    assert error("import transformers; transformers.SinkCache") == (
        "AttributeError: module transformers has no attribute SinkCache")
    assert error("from transformers import DynamicCache; DynamicCache.from_legacy_cache(None)") == (
        "AttributeError: type object 'DynamicCache' has no attribute 'from_legacy_cache'")
    assert error("from transformers import DynamicCache; DynamicCache().to_legacy_cache()") == (
        "AttributeError: 'DynamicCache' object has no attribute 'to_legacy_cache'")
# HFC007's fix: the constructor takes the legacy tuple on every version.
legacy = ((torch.zeros(1, 2, 3, 8), torch.zeros(1, 2, 3, 8)),)
assert DynamicCache(legacy).get_seq_length() == 3
# An encoder-decoder's legacy 4-tuples: its own class's constructor takes them on every version, while
# DynamicCache rejects them on 4.57.6 (HFC007's message names the class the code calls from_legacy_cache on).
from transformers import EncoderDecoderCache
t = torch.zeros(1, 2, 3, 8)
assert EncoderDecoderCache(((t, t, t, t),)).get_seq_length() == 3
try:
    DynamicCache(((t, t, t, t),))
    assert v != "4.57.6"
except ValueError:
    assert v == "4.57.6"
""", every("OK"), pre="")

# §7/§8 (HFC007): names the model modules and the top level lost (the release table's model-module names).
FACTS["removed_model_names"] = case("""
import transformers
def error(stmt):
    try:
        exec(stmt, {})
        return None
    except (ImportError, AttributeError) as exc:
        return f"{type(exc).__name__}: {exc}"
v = transformers.__version__
# The per-implementation attention classes are gone from 4.48.0 (merged into LlamaAttention).
assert error("from transformers.models.llama.modeling_llama import LlamaFlashAttention2").startswith(
    "ImportError: cannot import name 'LlamaFlashAttention2' from 'transformers.models.llama.modeling_llama'")
assert error("from transformers.models.llama import modeling_llama; modeling_llama.LlamaSdpaAttention.forward = None"
             ) == "AttributeError: module 'transformers.models.llama.modeling_llama' has no attribute 'LlamaSdpaAttention'"
assert error("from transformers.models.llama import modeling_llama; modeling_llama.LlamaFlashAttention2 = None") is None
# Qwen2-VL's vision rotary embedding is `VisionRotaryEmbedding` up to 5.16.1 (optimum-intel imports it unguarded).
vision = error("from transformers.models.qwen2_vl.modeling_qwen2_vl import VisionRotaryEmbedding")
assert (vision is None) == (v == "4.57.6"), vision
# Names real packages import unguarded (verl, axolotl): gone from 5.23.0, 5.17.0 and 5.0.0 (release table).
for stmt in ("from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLCausalLMOutputWithPast",
             "from transformers.models.qwen2_vl.modeling_qwen2_vl import apply_multimodal_rotary_pos_emb",
             "from transformers.models.mixtral.modeling_mixtral import MixtralBlockSparseTop2MLP"):
    got = error(stmt)
    assert (got is None) == (v == "4.57.6"), (stmt, got)
# The top-level beam-search exports are gone from 5.0.0.
beam = error("from transformers import BeamScorer")
assert (beam is None) == (v == "4.57.6"), beam
""", every("OK"), pre="")

# §7 (HFC007 reads): how the cache generate returns (and one built here) may be read, per version.
# §7: what HFC009 does not report, and a StaticCache that no longer iterates (docs/facts.md §7).
FACTS["legacy_reads_left"] = case("""
import transformers
from transformers import StaticCache
v = transformers.__version__
cache = model(ids, use_cache=True).past_key_values
n = len(cache)
assert n == model.config.num_hidden_layers, n
for i, layer in enumerate(cache):
    assert layer[0] is cache.layers[i].keys and layer[1] is cache.layers[i].values
static = StaticCache(config=model.config, max_cache_len=16)
model(ids, past_key_values=static, use_cache=True)
try:
    pairs = [len(layer) for layer in static]
    error = None
except TypeError as exc:
    error = str(exc)
assert error == (None if v.startswith("4.") else "'StaticCache' object is not iterable"), error
""", every("OK"))
FACTS["removed_cache_reads"] = case("""
import transformers
from transformers import StaticCache
v = transformers.__version__
out = model.generate(ids, max_new_tokens=2, min_new_tokens=2, return_dict_in_generate=True)
cache = out.past_key_values
def error(f):
    try:
        f()
        return None
    except (TypeError, ValueError, AttributeError) as exc:
        return f"{type(exc).__name__}: {exc}"
def unpack():
    for keys, values in cache:
        pass
static = StaticCache(config=model.config, max_cache_len=16)
got = {
    "subscript": error(lambda: cache[0][0]),
    "static subscript": error(lambda: static[0]),
    "unpack": error(unpack),
    "get_max_cache_shape": error(lambda: cache.get_max_cache_shape()),
    "max_cache_len": error(lambda: static.max_cache_len),
    "get_max_length": error(lambda: (cache.get_max_length(), static.get_max_length())),
    # already gone in 4.57.6 (4.54.0 / 4.56.0, read from the wheels; HFC007 reports them from there)
    "key_cache": error(lambda: cache.key_cache), "value_cache": error(lambda: cache.value_cache),
    "seen_tokens": error(lambda: cache.seen_tokens), "get_usable_length": error(lambda: cache.get_usable_length(1)),
}
gone = {
    "subscript": "TypeError: 'DynamicCache' object is not subscriptable",
    "static subscript": "TypeError: 'StaticCache' object is not subscriptable",
    "unpack": "ValueError: too many values to unpack (expected 2)",
    "get_max_cache_shape": "AttributeError: 'DynamicCache' object has no attribute 'get_max_cache_shape'",
    "max_cache_len": "AttributeError: 'StaticCache' object has no attribute 'max_cache_len'",
}
always_gone = {
    "key_cache": "AttributeError: 'DynamicCache' object has no attribute 'key_cache'",
    "value_cache": "AttributeError: 'DynamicCache' object has no attribute 'value_cache'",
    "seen_tokens": "AttributeError: 'DynamicCache' object has no attribute 'seen_tokens'",
    "get_usable_length": "AttributeError: 'DynamicCache' object has no attribute 'get_usable_length'",
}
if v == "4.57.6":
    expected = {k: None for k in gone} | {
        "get_max_length": "AttributeError: 'DynamicCache' object has no attribute 'get_max_length'"} | always_gone
else:
    expected = gone | {"get_max_length": None} | always_gone
assert got == expected, {k: got[k] for k in got if got[k] != expected[k]}
# `cache.key_cache = [...]` raises nothing and the layers never see it (HFC007's silent store); then the read of
# that plain list raises nothing either.
silent = DynamicCache()
silent.key_cache = [cache.layers[0].keys]
silent.value_cache = [cache.layers[0].values]
assert silent.key_cache[0] is cache.layers[0].keys
assert (silent.get_seq_length(), len(silent.layers)) == (0, 0), (silent.get_seq_length(), len(silent.layers))
# The replacements, on every version: each layer's keys and values; 5.x iterates (keys, values, sliding).
assert cache.layers[0].keys.shape[2] == cache.get_seq_length() > 0, (cache.layers[0].keys.shape, cache.get_seq_length())
assert len(next(iter(cache))) == (2 if v == "4.57.6" else 3)
pairs = [(k.shape, v_.shape) for k, v_ in ((layer.keys, layer.values) for layer in cache.layers)]
assert len(pairs) == len(cache) > 0 and all(k == v_ for k, v_ in pairs), pairs
""", every("OK"))

FACTS["encoder_decoder_legacy_wrap"] = case("""
import torch
import transformers
from transformers import DynamicCache, EncoderDecoderCache, T5Config, T5ForConditionalGeneration
v = transformers.__version__
torch.manual_seed(0)
config = T5Config(vocab_size=99, d_model=32, d_kv=8, d_ff=37, num_layers=2, num_heads=4, decoder_start_token_id=0,
                  pad_token_id=0, eos_token_id=1)
model = T5ForConditionalGeneration(config).eval()
ids = torch.tensor([[5, 6, 7, 1]])
def cache():
    return model(input_ids=ids, decoder_input_ids=torch.tensor([[0]]), use_cache=True).past_key_values
def legacy():
    c = cache()
    return tuple((s.keys, s.values, x.keys, x.values)
                 for s, x in zip(c.self_attention_cache.layers, c.cross_attention_cache.layers))
def scores(past):
    out = model.generate(input_ids=ids, decoder_input_ids=torch.tensor([[0, 3]]), past_key_values=past,
                         max_new_tokens=4, min_new_tokens=4, do_sample=False, output_scores=True, return_dict_in_generate=True)
    return torch.stack(out.scores)
# HFC002's wrap for an encoder-decoder: EncoderDecoderCache(legacy) generates as the cache the tuple came from,
# on every version; DynamicCache(legacy) raises on 4.57.6 and on 5.x generates something else.
assert torch.allclose(scores(EncoderDecoderCache(legacy())), scores(cache()), atol=1e-5)
try:
    wrapped = scores(DynamicCache(legacy()))
    assert v != "4.57.6"
    assert not torch.allclose(wrapped, scores(cache()), atol=1e-3)
except ValueError as exc:
    assert v == "4.57.6" and "too many values to unpack" in str(exc), exc
""", every("OK"), pre="")


# HFC010 leaves a `Cache.update` override without `**kwargs` alone when its class fails before any layer calls
# `update` (engine/interpreter/hook_classes.py): each of these raises on every checked release, never the
# `unexpected keyword argument 'kwargs'` of 5.24 (docs/facts.md, issue 29 item 3).
_NO_KWARGS_UPDATE = ("    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
                     "        return super().update(key_states, value_states, layer_idx, cache_kwargs)\n")
FACTS["own_cache_bare_base_init"] = case(
    "from transformers import Cache\n"
    "class Sink(Cache):\n    def __init__(self):\n        super().__init__()  # <- raises\n" + _NO_KWARGS_UPDATE +
    "model(ids, past_key_values=Sink(), use_cache=True)\n",
    # the oracle's classifier names this error HFC007's (a bare base constructor in a subclass of Cache)
    every("HFC007"), contains=every("You should provide exactly one of `layers` or `layer_class_to_replicate`"))
FACTS["own_cache_length_without_layer_idx"] = case(
    "class Session(DynamicCache):\n    def get_seq_length(self):\n        return super().get_seq_length()\n"
    + _NO_KWARGS_UPDATE + "model(ids, past_key_values=Session(), use_cache=True)  # <- raises\n",
    {V457: "OK", V523: "OTHER", V524: "OTHER"},
    contains={V523: "get_seq_length() got an unexpected keyword argument 'layer_idx'",
              V524: "get_seq_length() got an unexpected keyword argument 'layer_idx'"})
FACTS["own_cache_length_unset_counter"] = case(
    "class Counting(DynamicCache):\n    def get_seq_length(self, layer_idx=0):\n"
    "        return self._seen_tokens  # <- raises\n"
    + _NO_KWARGS_UPDATE + "model(ids, past_key_values=Counting(), use_cache=True)\n",
    every("HFC007"), contains=every("object has no attribute '_seen_tokens'"))
FACTS["own_cache_no_base_init_update"] = case(
    "from transformers import Cache\n"
    "class Stream(Cache):\n    def __init__(self):\n        self.key_cache, self.value_cache = [], []\n"
    "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
    "        self.key_cache.append(key_states)\n        self.value_cache.append(value_states)\n"
    "        return key_states, value_states\n"
    "    def get_seq_length(self, layer_idx=0):\n"
    "        return self.key_cache[layer_idx].shape[-2] if layer_idx < len(self.key_cache) else 0\n"
    "model.generate(ids, past_key_values=Stream(), max_new_tokens=2, min_new_tokens=2)  # <- raises\n",
    every("OTHER"), contains=every("'Stream' object has no attribute 'layers'"))
# HFC010 leaves a patched-in hook alone when its block also patches a model-module class the release lacks
# (engine/interpreter/hooks.py `patched_classes`): the block raises there, before any forward runs the hook
# (Quest's `enable_tuple_kv_cache_for_llama`: `LlamaSdpaAttention` is gone since 4.48.0).
FACTS["patch_block_gone_class"] = case(
    "import transformers.models.llama.modeling_llama as modeling_llama\n"
    "def tuple_forward(self, hidden_states, attention_mask=None, position_ids=None, past_key_value=None,\n"
    "                  output_attentions=False, use_cache=False):\n"
    "    return hidden_states, None, past_key_value\n"
    "def enable_tuple_cache():\n"
    "    modeling_llama.LlamaAttention.forward = tuple_forward\n"
    "    modeling_llama.LlamaSdpaAttention.forward = tuple_forward  # <- raises\n"
    "enable_tuple_cache()\n"
    "model.generate(ids, max_new_tokens=2, min_new_tokens=2)\n",
    every("HFC007"), contains=every("has no attribute 'LlamaSdpaAttention'"))

# HFC011 (engine/interpreter/position_chain.py): literal positions that continue, from 0, the literal positions of
# the forward before on the same StaticCache (ExecuTorch's `arange(5)` then `tensor([5])`) are the cache's own length:
# the same length and logits as the same forwards without positions, on every release (4.57.6 writes at them, 5.4+
# ignore them); a rollback (the same position re-sent) differs from the sequential run on 4.57.6 only.
FACTS["chained_positions_are_the_length"] = case(
    "from transformers import StaticCache\n"
    "prompt = torch.tensor([[1, 5, 9, 14, 20]])\n"
    "cache = StaticCache(config=model.config, max_cache_len=16)\n"
    "plain = StaticCache(config=model.config, max_cache_len=16)\n"
    "with torch.no_grad():\n"
    "    model(prompt, past_key_values=cache, cache_position=torch.arange(5))\n"
    "    a = model(torch.tensor([[12]]), past_key_values=cache, cache_position=torch.tensor([5])).logits\n"
    "    b = model(torch.tensor([[7]]), past_key_values=cache, cache_position=torch.arange(6, 7)).logits\n"
    "    model(prompt, past_key_values=plain)\n"
    "    c = model(torch.tensor([[12]]), past_key_values=plain).logits\n"
    "    d = model(torch.tensor([[7]]), past_key_values=plain).logits\n"
    "assert torch.allclose(a, c, atol=1e-5) and torch.allclose(b, d, atol=1e-5)\n"
    "assert int(cache.get_seq_length()) == int(plain.get_seq_length()) == 7\n",
    every("OK"))
# engine/interpreter/bindings.py: torch's nn.Module methods that return the module itself, kept by transformers'
# PreTrainedModel overrides (`to`, `half`, `float`, `cuda` check quantization, then return super()'s result).
FACTS["module_self_returning"] = case("""
for name, args in (("eval", ()), ("train", ()), ("train", (False,)), ("to", ("cpu",)), ("to", (torch.float32,)),
                   ("cpu", ()), ("half", ()), ("double", ()), ("bfloat16", ()), ("float", ()),
                   ("requires_grad_", (False,))):
    assert getattr(model, name)(*args) is model, name
# No CUDA here (the worker's sim makes Module.cuda return the module): torch's own Module.cuda is `return
# self._apply(lambda t: t.cuda(device))` (torch 2.13.0's source), `_apply` returns the module (checked here), and
# transformers' PreTrainedModel.cuda ends `return super().cuda(*args, **kwargs)` (4.57.6-5.25.0's modeling_utils.py).
assert model._apply(lambda t: t) is model
""", every("OK"))
# engine/interpreter/position_chain.py `advanced`: positions from 0 for the prefill, then a one-slot tensor advanced by
# `+= 1` after each one-token step (SPQR's static decode) are the cache's own length at every call: the same logits
# as the same steps without positions, on every release.
FACTS["advanced_positions_are_the_length"] = case(
    "from transformers import StaticCache\n"
    "prompt = torch.tensor([[1, 5, 9, 14, 20]])\n"
    "cache = StaticCache(config=model.config, max_cache_len=16)\n"
    "plain = StaticCache(config=model.config, max_cache_len=16)\n"
    "with torch.no_grad():\n"
    "    cache_position = torch.arange(5)\n"
    "    model(prompt, past_key_values=cache, cache_position=cache_position)\n"
    "    model(prompt, past_key_values=plain)\n"
    "    cache_position = torch.tensor([5])\n"
    "    token = torch.tensor([[12]])\n"
    "    for _ in range(3):\n"
    "        a = model(token, past_key_values=cache, cache_position=cache_position).logits\n"
    "        b = model(token, past_key_values=plain).logits\n"
    "        assert torch.allclose(a, b, atol=1e-5)\n"
    "        token = a[:, -1:].argmax(-1)\n"
    "        cache_position += 1\n"
    "assert int(cache.get_seq_length()) == int(plain.get_seq_length()) == 8\n",
    every("OK"))
# position_chain `advanced`, a caller's shapes: chunks of `torch.arange(n)` in order from 0, then `torch.tensor([p])`
# with `p` counting up by `+= 1` (ktransformers' chunked prefill): the cache's own length at every call.
FACTS["chunked_positions_are_the_length"] = case(
    "from transformers import StaticCache\n"
    "prompt = torch.tensor([[1, 5, 9, 14, 20]])\n"
    "cache = StaticCache(config=model.config, max_cache_len=16)\n"
    "plain = StaticCache(config=model.config, max_cache_len=16)\n"
    "with torch.no_grad():\n"
    "    cache_position = torch.arange(5)\n"
    "    for start in range(0, 5, 2):\n"
    "        a = model(prompt[:, start:start + 2], cache_position=cache_position[start:start + 2], "
    "past_key_values=cache).logits\n"
    "        b = model(prompt[:, start:start + 2], past_key_values=plain).logits\n"
    "        assert torch.allclose(a, b, atol=1e-5)\n"
    "    position = 5\n"
    "    for _ in range(2):\n"
    "        token = a[:, -1:].argmax(-1)\n"
    "        a = model(token, cache_position=torch.tensor([position]), past_key_values=cache).logits\n"
    "        b = model(token, past_key_values=plain).logits\n"
    "        assert torch.allclose(a, b, atol=1e-5)\n"
    "        position += 1\n"
    "assert int(cache.get_seq_length()) == int(plain.get_seq_length()) == 7\n",
    every("OK"))

OWN_CASES: dict[str, dict[str, Any]] = {**{f"runner:{k}": v for k, v in RUNNER.items()},
                                        **{f"facts:{k}": v for k, v in FACTS.items()}}


def raising_line(source: str) -> int | None:
    for number, text in enumerate(source.splitlines(), start=1):
        if "# <- raises" in text:
            return number
    return None
