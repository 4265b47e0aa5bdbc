"""Intel Extension for PyTorch (IPEX): the CPU LLM-modeling example, which rewrites Llama for ipex's fused modules and
runs it under `model.generate`. Its `LlamaForCausalLM` overrides `prepare_inputs_for_generation(self, input_ids,
past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs)`: with a cache it reads the past length as
`past_key_values[0][0].shape[2]` and keeps only the unseen tail of `input_ids`, derives `position_ids` from the
attention mask, and returns `past_key_values` as it came. The run script builds its jit sample inputs by calling that
hook without a cache, and installs ipex's prompt-sharing decoding loops on the model instance
(`setattr(model, "greedy_search", hf_greedy_search)`, with `hf_greedy_search = _greedy_search.__get__(model, ...)`,
an old-style `greedy_search(self, input_ids, logits_processor, stopping_criteria, max_length, pad_token_id,
eos_token_id, ..., **model_kwargs)`) before `model.generate(input_ids, do_sample=False, num_beams=1,
max_new_tokens=..., min_new_tokens=...)`.

Provenance (mechanisms read; this code is written here, not copied):
- intel/intel-extension-for-pytorch @6d3ba89cf9c40eb7184d6092ab7fa9b5231553c1 (the example last changed 2024-05-11)
  examples/cpu/inference/python/llm-modeling/modeling_llama.py (`prepare_inputs_for_generation`: `if
  past_key_values is not None: past_length = past_key_values[0][0].shape[2]`, `input_ids = input_ids[:,
  -(attention_mask.shape[1] - past_length):]` / `input_ids[:, past_length:]`, `position_ids =
  attention_mask.long().cumsum(-1) - 1`, `if past_key_values: position_ids = position_ids[:, -input_ids.shape[1]:]`,
  `model_inputs.update({"position_ids": ..., "past_key_values": past_key_values, "use_cache":
  kwargs.get("use_cache"), "attention_mask": attention_mask})`), examples/cpu/inference/python/llm-modeling/run.py
  (`get_dummy_input`: `model_inputs = _model.prepare_inputs_for_generation(input_ids,
  attention_mask=attention_mask)`, `has_position_ids = model_inputs.get("position_ids", None) is not None`;
  `hf_greedy_search = ipex.llm.generation.hf_greedy_search.__get__(model, model.__class__)`, `setattr(model,
  "greedy_search", hf_greedy_search)`, `generate_kwargs = dict(do_sample=False, temperature=0.9,
  num_beams=num_beams, max_new_tokens=..., min_new_tokens=...)`, `model.generate(input_ids, **generate_kwargs)`)
  and intel_extension_for_pytorch/transformers/generation/greedy_search.py (`_greedy_search(self, input_ids,
  logits_processor=None, stopping_criteria=None, max_length=None, pad_token_id=None, eos_token_id=None, ...,
  **model_kwargs)`, reading `self.config.token_latency`).
Reduced: the fused attention modules, ipex.optimize and the jit trace are gone (the stock Llama layers run), the
prompt-sharing loop only records that it ran and decodes greedily, the greedy hook is installed on a stock model.
"""

import torch
from transformers import AutoModelForCausalLM, LlamaForCausalLM


class IpexLlamaForCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(
        self,
        input_ids,
        past_key_values=None,  # site: ipx_hook_cache
        attention_mask=None,
        inputs_embeds=None,
        **kwargs,
    ):
        if past_key_values is not None:
            past_length = past_key_values[0][0].shape[2]  # observe: ipx_hook_cache
            if attention_mask is not None and attention_mask.shape[1] > input_ids.shape[1]:
                input_ids = input_ids[:, -(attention_mask.shape[1] - past_length):]
            elif past_length < input_ids.shape[1]:
                input_ids = input_ids[:, past_length:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -input_ids.shape[1]:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update(
            {
                "position_ids": position_ids,
                "past_key_values": past_key_values,
                "use_cache": kwargs.get("use_cache"),
                "attention_mask": attention_mask,
            }
        )
        return model_inputs


def _greedy_search(self, input_ids, logits_processor=None, stopping_criteria=None, max_length=None,
                   pad_token_id=None, eos_token_id=None, output_attentions=None, output_hidden_states=None,
                   output_scores=None, return_dict_in_generate=None, synced_gpus=False, streamer=None,
                   **model_kwargs):
    self.config.prompt_sharing_ran = True
    past_key_values = None
    while max_length is None or input_ids.shape[1] < max_length:
        outputs = self(input_ids=input_ids if past_key_values is None else input_ids[:, -1:],
                       past_key_values=past_key_values, use_cache=True)
        past_key_values = outputs.past_key_values
        next_tokens = outputs.logits[:, -1, :].argmax(-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
    return input_ids


model = IpexLlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float32).eval()
input_ids = torch.tensor([[1, 22, 33, 44, 55]])
generate_kwargs = dict(do_sample=False, temperature=0.9, num_beams=1, max_new_tokens=3, min_new_tokens=3)


def get_dummy_input(_model):
    ids = torch.ones(32).to(torch.long).unsqueeze(0)
    attention_mask = torch.ones_like(ids)
    model_inputs = _model.prepare_inputs_for_generation(ids, attention_mask=attention_mask)  # clean: ipx_dummy_prepare
    has_position_ids = model_inputs.get("position_ids", None) is not None
    return {"input_ids": ids, "attention_mask": attention_mask, "has_position_ids": has_position_ids}


def probe_dummy_input():
    sample = get_dummy_input(model)
    assert sample["has_position_ids"]


def probe_generate():
    seen = []
    model.model.register_forward_pre_hook(lambda m, args, kwargs: seen.append(kwargs["input_ids"].shape[1]),
                                          with_kwargs=True)
    output = model.generate(input_ids, attention_mask=torch.ones_like(input_ids), **generate_kwargs)  # observe: ipx_hook_cache
    assert output.shape[1] == 8
    assert seen == [5, 1, 1], "ipx_hook_cache: the hook never saw the cache, every step re-ran the sequence"  # observe: ipx_hook_cache


stock = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf", torch_dtype=torch.float32).eval()


def run_generation(m):
    return m.generate(input_ids, **generate_kwargs)  # clean: ipx_stock_generate


def probe_stock_generate():
    assert run_generation(stock).shape[1] == 8


def probe_prompt_sharing():
    hf_greedy_search = _greedy_search.__get__(stock, stock.__class__)
    setattr(stock, "greedy_search", hf_greedy_search)  # site: ipx_greedy_hook
    output = run_generation(stock)
    assert output.shape[1] == 8
    assert getattr(stock.config, "prompt_sharing_ran", False), "ipx_greedy_hook: generate never ran the installed greedy loop"  # observe: ipx_greedy_hook
