"""The opening every rule example shares: load a tokenizer and a model, tokenize a prompt."""

from __future__ import annotations

LLAMA = "meta-llama/Llama-3.2-1B"
MAMBA = "state-spaces/mamba-130m-hf"


def prelude(*names: str, model: str = "AutoModelForCausalLM", checkpoint: str = LLAMA) -> str:
    """`from transformers import ...` (sorted, with `names`), then tokenizer, model and `inputs`."""
    imports = ", ".join(sorted({model, "AutoTokenizer", *names}))
    return (f"from transformers import {imports}\n\n"
            f'tokenizer = AutoTokenizer.from_pretrained("{checkpoint}")\n'
            f'model = {model}.from_pretrained("{checkpoint}")\n'
            'inputs = tokenizer("The capital of France is", return_tensors="pt")\n')


def own_generate_wrapper(cache_implementation: str) -> str:
    """A user's `nn.Module` whose own `generate` takes cache keywords (not transformers'), and a call to it."""
    return ("import torch.nn as nn\n\n\n"
            "class Wrapper(nn.Module):\n"
            "    def __init__(self, lm):\n"
            "        super().__init__()\n"
            "        self.lm = lm\n\n"
            "    def generate(self, inputs, past_key_values=None, cache_implementation=None, use_model_defaults=True):\n"
            "        return self.lm.generate(**inputs, max_new_tokens=3)\n\n\n"
            "wrapper = Wrapper(model)\n"
            f'out = wrapper.generate(inputs, past_key_values=DynamicCache(), cache_implementation="{cache_implementation}", '
            "use_model_defaults=False)\n")


def patched_generate_loop(ids: str = "input_ids", positions: bool = False) -> str:
    """EasyEdit's DeCo, reduced: a greedy loop of generate's own calls, set on `GenerationMixin` as `generate` (every
    model's method), advancing a dict it builds itself (with the prompt's positions if `positions`) and handing the
    hook `ids`; the cache it carries must end up holding each token once."""
    start = ("    model_kwargs = {\"attention_mask\": attention_mask, \"use_cache\": True" +
             (", \"cache_position\": torch.arange(input_ids.shape[1])}\n" if positions else "}\n"))
    return ("import torch\nimport transformers\n" + prelude() + "\n\n"
            "def deco_generate(self, input_ids, attention_mask=None, max_new_tokens=3, **kwargs):\n" + start +
            "    for step in range(max_new_tokens):\n"
            f"        model_inputs = self.prepare_inputs_for_generation({ids}, **model_kwargs)\n"
            "        outputs = self(**model_inputs, return_dict=True)\n"
            "        next_tokens = outputs.logits[:, -1, :].argmax(-1)\n"
            "        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)\n"
            "        model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs, "
            "is_encoder_decoder=self.config.is_encoder_decoder)\n"
            "    return input_ids, model_kwargs\n\n\n"
            "transformers.generation.utils.GenerationMixin.generate = deco_generate\n"
            "with torch.no_grad():\n"
            "    ids, kw = model.generate(inputs[\"input_ids\"], attention_mask=inputs[\"attention_mask\"])\n"
            "cache = kw.get(\"cache\", kw.get(\"past_key_values\"))\n"
            "assert cache.get_seq_length() == ids.shape[1] - 1, f\"the cache holds {cache.get_seq_length()} tokens\"\n")


def custom_generate_loop(helper_call: str) -> str:
    """SoulX-Podcast's RAS sampler, reduced: a function handed to `generate` as `custom_generate=` (through
    `functools.partial` and a name), which generate calls as `custom_generate(self, ...)`; it runs `helper_call` on
    `self` and returns the prompt."""
    return ("from functools import partial\n\n" + prelude() + "\n\n"
            "def ras_sample(self, input_ids, logits_processor, stopping_criteria, generation_config, "
            "synced_gpus=False, streamer=None, win_size=10, **model_kwargs):\n"
            f"    {helper_call}\n"
            "    return input_ids\n\n\n"
            "handler = partial(ras_sample, win_size=4)\n"
            "out = model.generate(**inputs, max_new_tokens=2, min_new_tokens=2, custom_generate=handler)\n")
