"""HFC010 examples that must not be flagged (each runs clean under the oracle)."""

from __future__ import annotations

from hf_cache_lint.rules.base import Valid
from hf_cache_lint.rules.hfc010_hook_loses_cache.examples import (
    _LLAMA,
    _PROMPT,
    EMPTY_LAYER,
    EVAL_CHAIN,
    LAYER_PATCH,
    OLD_NAME,
    PRE_HOOK,
    PRE_STORE_PICKED,
    PREPARE,
    READER,
    SWAP_WRAPPER,
    TRUTHY_CUT,
    UPDATE,
)

_BACKEND = (
    "import torch\nfrom transformers import {imports}\n\n\n"
    "class Backend({bases}):\n"
    "    def __init__(self, config):\n"
    "        super().__init__(config)\n"
    "        self.model = LlamaModel(config)\n"
    "        self.head = torch.nn.Linear(config.hidden_size, config.vocab_size, bias=False)\n\n"
    "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
    "        if past_key_values is not None:\n"
    "            input_ids = input_ids[:, -1:]\n"
    '        return {{"input_ids": input_ids, "past_key_values": past_key_values}}\n\n'
    "    def forward(self, input_ids, past_key_values=None):\n"
    "        out = self.model(input_ids=input_ids, past_key_values=past_key_values, use_cache=True)\n"
    "        return self.head(out.last_hidden_state), out.past_key_values\n\n\n"
    "config = LlamaConfig(vocab_size=64, hidden_size=64, intermediate_size=64, num_hidden_layers=2, "
    "num_attention_heads=2,\n                     num_key_value_heads=1, head_dim=32)\n"
    "backend = Backend(config).eval()\n"
    "ids, past = torch.tensor([[1, 5, 9]]), None\n"
    "with torch.no_grad():\n"
    "    for _ in range(3):\n"
    "        logits, past = backend(**backend.prepare_inputs_for_generation(ids, past_key_values=past))\n"
    "        ids = torch.cat([ids, logits[:, -1:].argmax(-1)], dim=-1)\n"
    "assert past.get_seq_length() == 5\n"
    "{tail}"
)

VALID: tuple[Valid, ...] = (
    Valid(
        EVAL_CHAIN.replace("\n\ninstall(model)\n", "\n"),
        note="the install function is never called: its parameter holds no model, nothing is installed",
    ),

    Valid(
        PREPARE.replace("        if past_key_values is not None and",
                        '        past_key_values = kwargs.pop("cache", past_key_values)\n'
                        "        if past_key_values is not None and"),
        note="an override that takes the cache as `cache` first: the same inputs on every release",
    ),
    Valid(
        LAYER_PATCH.replace("def recording_forward(self, hidden_states, *args, past_key_values=None, **kwargs):\n"
                            "    SEEN.append(past_key_values.get_seq_length() if past_key_values is not None else -1)\n"
                            "    return ORIGINAL(self, hidden_states, *args, past_key_values=past_key_values, "
                            "**kwargs)\n",
                            "def recording_forward(self, *args, **kwargs):\n"
                            "    SEEN.append(len(args))\n"
                            "    return ORIGINAL(self, *args, **kwargs)\n"),
        note="a patch that passes everything on as it came: it reads no cache name",
    ),
    Valid(
        READER.replace('model_kwargs["past_key_values"]',
                       'model_kwargs.get("cache", model_kwargs.get("past_key_values"))'),
        note="a `model_kwargs` reader that looks under both names",
    ),
    Valid(
        READER.replace('        self.lengths.append(model_kwargs["past_key_values"].get_seq_length())\n',
                       '        if "past_key_values" in model_kwargs:\n'
                       '            model_kwargs["past_key_values"] = model_kwargs["past_key_values"]\n'
                       '            self.lengths.append(model_kwargs["past_key_values"].get_seq_length())\n'),
        note="a `model_kwargs` reader whose reads sit under `if \"past_key_values\" in model_kwargs:` (skipped, no "
             "KeyError, where the cache comes as `cache`), and a store, which raises on no release",
    ),
    Valid(
        READER.replace("_update_model_kwargs_for_generation(self, outputs, model_kwargs, *args, **kwargs):\n"
                       "        model_kwargs = super()._update_model_kwargs_for_generation(outputs, model_kwargs, *args, "
                       "**kwargs)\n",
                       "_cache_from_kwargs(self, model_kwargs):\n")
        .replace('        self.lengths.append(model_kwargs["past_key_values"].get_seq_length())\n'
                 "        return model_kwargs\n",
                 '        self.lengths.append(len(model_kwargs["past_key_values"]))\n'
                 '        return model_kwargs.get("past_key_values")\n')
        .replace("model.generate(", 'assert model._cache_from_kwargs({"past_key_values": "stored"}) == "stored"\n'
                                    "model.generate("),
        note="a method taking `model_kwargs` that no release's generate calls: the project calls it with its own keys",
    ),
    Valid(
        "import torch\nfrom transformers import LlamaForCausalLM\n\n" + _PROMPT + "\n\n"
        "class StepLM(LlamaForCausalLM):\n"
        "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
        "        if past_key_values is not None:\n"
        "            input_ids = input_ids[:, -1:]\n"
        '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n\n\n'
        f'model = StepLM.from_pretrained("{_LLAMA}")\n'
        "ids, past = prompt, None\n"
        "with torch.no_grad():\n"
        "    for _ in range(3):\n"
        "        out = model(**model.prepare_inputs_for_generation(ids, past_key_values=past))\n"
        "        past = out.past_key_values\n"
        "        ids = torch.cat([ids, out.logits[:, -1:].argmax(-1)], dim=-1)\n"
        "assert past.get_seq_length() == 7\n",
        note="a head's 4.x hook that the module calls itself, never generating with the model: it gets the cache "
             "by the name the module passes, on every release",
    ),
    Valid(
        UPDATE.replace("layer_idx, cache_kwargs=None):", "layer_idx, cache_kwargs=None, **kwargs):"),
        note="a `Cache.update` override that accepts `**kwargs`",
    ),
    Valid(
        "import torch\nfrom transformers import AutoModelForCausalLM\n\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n\n\n'
        "class Drafter:\n"
        "    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, **kwargs):\n"
        "        if past_key_values is not None:\n"
        "            input_ids = input_ids[:, -1:]\n"
        '        return {"input_ids": input_ids, "past_key_values": past_key_values}\n\n'
        "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
        "        return key_states, value_states\n\n\n"
        "inputs = Drafter().prepare_inputs_for_generation(torch.tensor([[1, 2, 3]]))\n"
        "model.generate(inputs['input_ids'], max_new_tokens=2, do_sample=False)\n",
        note="a project's own class with methods of the same names: not transformers' hooks",
    ),
    Valid(
        "import torch\nfrom transformers import AutoModelForCausalLM, DynamicCache\n"
        "from transformers.models.llama import modeling_llama\n\n"
        "ORIGINAL = modeling_llama.LlamaAttention.forward\n\n\n"
        "class WindowCache(DynamicCache):\n"
        "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
        "        return key_states[..., -4:, :], value_states[..., -4:, :]\n\n\n"
        "WINDOW = WindowCache()\n\n\n"
        "def windowed_forward(self, hidden_states, *args, **kwargs):\n"
        "    WINDOW.update(hidden_states, hidden_states, self.layer_idx, {})\n"
        "    return ORIGINAL(self, hidden_states, *args, **kwargs)\n\n\n"
        "modeling_llama.LlamaAttention.forward = windowed_forward\n"
        'model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n'
        "model.generate(torch.tensor([[1, 5, 9, 14, 20]]), max_new_tokens=2, min_new_tokens=2, do_sample=False)\n",
        note="a `Cache.update` override without `**kwargs` that only the module's own patched attention calls "
             "(cakekv's budget cache): transformers' attention never calls it, so its `kwargs=` never reaches it",
    ),
    Valid(
        "import torch\nfrom transformers import DynamicCache\n\n\n"
        "class StateCache(DynamicCache):\n"
        "    def update(self, key_states, value_states, layer_idx, cache_kwargs=None):\n"
        "        return super().update(key_states, value_states, layer_idx, cache_kwargs)\n\n\n"
        "cache = StateCache()\n"
        "for layer_idx in range(2):\n"
        "    cache.update(torch.zeros(1, 2, 3, 8), torch.zeros(1, 2, 3, 8), layer_idx)\n"
        "assert cache.get_seq_length() == 3\n",
        note="a `Cache.update` override without `**kwargs` that only the project calls, with its own arguments "
             "(flash-linear-attention's state cache): no transformers forward or generate is given the cache",
    ),
    Valid(
        PRE_HOOK.replace('kwargs["past_key_values"]', 'kwargs.get("cache", kwargs.get("past_key_values"))'),
        note="a pre-hook that reads the cache under both names: the same object on every release",
    ),
    Valid(
        SWAP_WRAPPER.replace('    if not isinstance(inputs.get("past_key_values"), CountingCache):\n'
                             '        inputs["past_key_values"] = CountingCache()\n',
                             '    key = "cache" if "cache" in inputs else "past_key_values"\n'
                             "    if not isinstance(inputs.get(key), CountingCache):\n"
                             "        inputs[key] = CountingCache()\n"),
        note="a wrapper that finds and swaps the cache under the key the release holds it under (`cache` from "
             "5.24, `past_key_values` before): the swapped-in cache is used on every release",
    ),
    Valid(
        PREPARE.replace("        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
                        "            input_ids = input_ids[:, -1:]\n",
                        "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
                        "            input_ids = input_ids[:, past_key_values.seen_tokens:]\n"),
        versions=("5.24.0", "5.25.0"),
        note="an override written for 4.3x that reads `past_key_values.seen_tokens` (gone in 4.54.0): given the "
             "cache it raises AttributeError (HFC007's finding, 4.57.6 and 5.23.0); from 5.24 it gets none and "
             "runs its no-cache path, so losing the cache is not what breaks it",
    ),
    Valid(
        PREPARE.replace("        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
                        "            input_ids = input_ids[:, -1:]\n"
                        '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n',
                        '        images = kwargs.pop("images", None)\n'
                        "        inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,\n"
                        "                                                       attention_mask=attention_mask, **kwargs)\n"
                        "        if images is not None:\n"
                        '            inputs["images"] = images\n'
                        "        return inputs\n"),
        note="an override (LLaVA's) that hands `past_key_values` on to transformers' own hook with its whole "
             "`**kwargs`: on 5.24 the cache rides in `**kwargs` as `cache=`, and transformers' hook takes it (the "
             "same tokens and one-token steps as without the override)",
    ),
    Valid(
        PREPARE.replace("        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
                        "            input_ids = input_ids[:, -1:]\n"
                        '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n',
                        "        return LlamaForCausalLM.prepare_inputs_for_generation(\n"
                        "            self, input_ids, past_key_values=past_key_values, attention_mask=attention_mask, "
                        "**kwargs)\n"),
        note="the same, calling the base class's hook by name with the instance first",
    ),
    Valid(
        _BACKEND.format(imports="GenerationMixin, LlamaConfig, LlamaModel, LlamaPreTrainedModel",
                        bases="LlamaPreTrainedModel, GenerationMixin", tail=""),
        note="a backbone with `GenerationMixin` mixed in (Chatterbox's T3 backend) that the module never generates "
             "with: its own loop calls the hook with the cache as `past_key_values`, on every release",
    ),
    Valid(
        _BACKEND.format(imports="AutoModelForCausalLM, LlamaConfig, LlamaModel, LlamaPreTrainedModel",
                        bases="LlamaPreTrainedModel",
                        tail=f'draft = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n'
                             "draft.generate(ids, max_new_tokens=2, min_new_tokens=2, do_sample=False)\n"),
        note="a backbone subclass without `GenerationMixin` (XTTS's GPT inference model): from 4.50 it has no "
             "`generate`, so no generate runs its hook (another model's generate in the module does not)",
    ),
    Valid(
        "import torch\nfrom torch import nn\nfrom transformers import AutoModelForCausalLM\n"
        "from transformers.cache_utils import DynamicCache\n\n"
        f'model = AutoModelForCausalLM.from_pretrained("{_LLAMA}")\n' + _PROMPT + "\n\n"
        "class WindowedAttention(nn.Module):\n"
        "    def __init__(self, attn):\n"
        "        super().__init__()\n"
        "        self.attn = attn\n"
        "        self.start_pos = 0\n\n"
        "    def forward(self, hidden_states, *args, **kwargs):\n"
        '        first = "past_key_value" in kwargs and kwargs["past_key_value"] is None\n'
        "        fresh = (\n"
        '            "past_key_value" in kwargs\n'
        '            and isinstance(kwargs["past_key_value"], DynamicCache)\n'
        '            and kwargs["past_key_value"].get_seq_length() == 0)\n'
        '        old = kwargs["past_key_value"] if "past_key_value" in kwargs else None\n'
        '        unset = "past_key_value" not in kwargs or kwargs["past_key_value"] is None\n'
        "        if first or fresh or (old is None and not unset):\n"
        "            self.start_pos = 0\n"
        "        self.start_pos += hidden_states.shape[1]\n"
        "        return self.attn(hidden_states, *args, **kwargs)\n\n\n"
        "for layer in model.model.layers:\n"
        "    layer.self_attn = WindowedAttention(layer.self_attn)\n"
        "model.generate(prompt, max_new_tokens=2, min_new_tokens=2, do_sample=False)\n",
        note="an installed attention whose reads of `kwargs[\"past_key_value\"]` are guarded in the same expression "
             "(`\"past_key_value\" in kwargs and ...`, `... if \"past_key_value\" in kwargs else None`, `\"past_key_value\" "
             "not in kwargs or ...`, AutoAWQ's fused attention): they short-circuit where the key is absent, so no "
             "release raises KeyError there",
    ),
    Valid(
        EMPTY_LAYER.replace("            past_length = past_key_values[0][0].shape[2]\n",
                            "            if isinstance(past_key_values, tuple):\n"
                            "                past_length = past_key_values[0][0].shape[2]\n"
                            "            else:\n"
                            "                past_length = past_key_values.get_seq_length()\n"),
        note="the override reading the legacy pair only for a tuple (VibeVoice's ASR hook): generate passes a cache "
             "object, whose length it reads with `get_seq_length()` on every release",
    ),
    Valid(
        TRUTHY_CUT.replace("        if past_key_values:\n            input_ids = input_ids[:, -1:]\n",
                           "        position_ids = torch.arange(input_ids.shape[1])[None]\n"
                           "        if past_key_values is not None and past_key_values.get_seq_length() > 0:\n"
                           "            input_ids = input_ids[:, -1:]\n"
                           "        if past_key_values:\n"
                           "            position_ids = position_ids[:, -input_ids.shape[1]:]\n")
                  .replace('"past_key_values": past_key_values, "use_cache": True}',
                           '"past_key_values": past_key_values, "position_ids": position_ids,\n'
                           '                "use_cache": True}'),
        note="the override testing what the cache holds before cutting its input, and `if past_key_values:` only "
             "before cutting the positions to the input's length (ChatTTS's, InternVL's): on the first step the "
             "input is whole, so the cut keeps every position; it runs 5, 1, 1 tokens on every release",
    ),
    Valid(
        OLD_NAME.replace("def last_token_inputs(input_ids, past=None, **kwargs):\n",
                         "def last_token_inputs(input_ids, past=None, **kwargs):\n"
                         '    past = kwargs.get("cache", kwargs.get("past_key_values", past))\n'),
        note="the `past=` hook that takes the cache out of its `**kwargs` under either name first: it gets it on "
             "every release",
    ),
    Valid(
        PRE_STORE_PICKED.replace('"past_key_value" if "past_key_value" in inspect.signature(module.forward).parameters\n'
                                 '            else "past_key_values"',
                                 '"cache" if "cache" in inspect.signature(module.forward).parameters\n'
                                 '            else "past_key_value" if "past_key_value" in '
                                 'inspect.signature(module.forward).parameters\n'
                                 '            else "past_key_values"'),
        note="the pre-hook picking its key from the attention's signature among all three names, 5.24's `cache` "
             "included: it stores under the name the layer takes on every release",
    ),
    Valid(
        PREPARE.replace('        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n',
                        '        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}\n\n'
                        "    def forward(self, input_ids=None, past_key_values=None, use_cache=None, **kwargs):\n"
                        "        use_cache = False  # this model keeps no cache\n"
                        "        return super().forward(input_ids=input_ids, past_key_values=past_key_values,\n"
                        "                               use_cache=use_cache, **kwargs)\n"),
        note="the same hook on a model whose own `forward` turns the cache off (AirLLM's): the cache stays empty, "
             "so the hook feeds the whole sequence at every step on every release, 5.24's `cache=` or not",
    ),
)
