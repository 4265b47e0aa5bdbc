"""AlpacaFarm's PPO models: the policy samples responses with `generate` and scores them in one forward whose inputs
come from calling the base model's own `prepare_inputs_for_generation(input_ids=..., attention_mask=...,
use_cache=False)` directly (for its position ids); the value model does the same and runs `base_model.model` under a
zero-initialised value head. Its flash Llama subclass overrides `prepare_inputs_for_generation` the 4.2x way: cut to
the last token `if past_key_values:`, and positions from the mask's cumulative sum, the last one only once a cache
is there.

Provenance (mechanisms read; this code is written here, not copied):
- tatsu-lab/alpaca_farm @30717ddae735365de756ee2085191b491a71788d
  src/alpaca_farm/models/rl_models.py (`AutoregressivePolicy.forward`: `inputs = self.base_model.
  prepare_inputs_for_generation(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)`, `outputs =
  self.base_model(**inputs, output_hidden_states=True)`, logits sliced `[:, -response_len - 1 : -1]`; `_respond`:
  `self.base_model.generate(inputs=queries, attention_mask=query_attn_masks, do_sample=True, max_new_tokens=
  response_len, pad_token_id=..., top_p=1.0, top_k=0, temperature=temperature, num_return_sequences=...,
  synced_gpus=True)`; `AutoregressiveValue.forward`: the same direct `prepare_inputs_for_generation` call, then
  `self.base_model.model(**inputs, return_dict=True)` and `self.value_head(last_hidden_state)`) and
  src/alpaca_farm/flash_models/flash_llama.py (`LlamaForCausalLM(modeling_llama.LlamaForCausalLM)
  .prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
  **kwargs)`: `if past_key_values: input_ids = input_ids[:, -1:]`, position ids from `attention_mask.long().cumsum(-1)
  - 1` with `position_ids[:, -1].unsqueeze(-1)` on the non-flash path, `model_inputs.update({"position_ids": ...,
  "past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})`).
Reduced: the flash attention model body (unpadding, apex norms) dropped, the subclass keeps the stock Llama model;
one policy and one value model over the same checkpoint, no PPO loss, `synced_gpus` off (one process), sampling
replaced by greedy decoding so the probes are deterministic.
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM
from transformers.models.llama import modeling_llama


class LlamaForCausalLM(modeling_llama.LlamaForCausalLM):
    def prepare_inputs_for_generation(
        self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs  # site: af_flash_hook
    ):
        if past_key_values:  # observe: af_flash_hook
            input_ids = input_ids[:, -1:]

        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values is not None:
                position_ids = position_ids[:, -1].unsqueeze(-1)

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


class AutoregressivePolicy(nn.Module):
    def __init__(self, base_model, pad_token_id, response_len):
        super().__init__()
        self.base_model = base_model
        self.pad_token_id = pad_token_id
        self.response_len = response_len

    def forward(self, queries, query_attn_masks, responses, temperature=1.0):
        input_ids = torch.cat([queries, responses], dim=1)
        attention_mask = input_ids.ne(self.pad_token_id)
        attention_mask[:, : queries.size(1)] = query_attn_masks
        inputs = self.base_model.prepare_inputs_for_generation(  # clean: af_policy_inputs
            input_ids=input_ids,
            attention_mask=attention_mask,
            use_cache=False,
        )
        outputs = self.base_model(**inputs, output_hidden_states=True)  # clean: af_policy_forward
        logits = outputs.logits[:, -self.response_len - 1 : -1] / temperature
        labels = input_ids[:, -self.response_len :]
        logprobs = torch.gather(logits.log_softmax(-1), 2, labels.unsqueeze(-1)).squeeze(-1)
        return dict(logits=logits, logprobs=logprobs)

    def respond(self, queries, query_attn_masks):
        sequences = self.base_model.generate(  # clean: af_respond
            inputs=queries,
            attention_mask=query_attn_masks,
            do_sample=False,
            max_new_tokens=self.response_len,
            pad_token_id=self.pad_token_id,
            num_return_sequences=1,
        )
        return dict(responses=sequences[:, queries.size(1) :])


class AutoregressiveValue(nn.Module):
    def __init__(self, base_model, pad_token_id):
        super().__init__()
        self.base_model = base_model
        self.pad_token_id = pad_token_id
        value_head = nn.Linear(base_model.config.hidden_size, 1)
        value_head.weight.data.zero_()
        value_head.bias.data.zero_()
        self.value_head = value_head

    def forward(self, queries, query_attn_masks, responses):
        sequences = torch.cat([queries, responses], dim=1)
        sequence_attn_masks = sequences.ne(self.pad_token_id)
        inputs = self.base_model.prepare_inputs_for_generation(  # clean: af_value_inputs
            input_ids=sequences,
            attention_mask=sequence_attn_masks,
            use_cache=False,
        )
        outputs = self.base_model.model(**inputs, return_dict=True)  # clean: af_value_forward
        last_hidden_state = outputs.last_hidden_state[:, queries.size(1) - 1 : -1]
        return dict(values=self.value_head(last_hidden_state).squeeze(-1))


base = AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b").eval()
flash = LlamaForCausalLM.from_pretrained("huggyllama/llama-7b").eval()
policy = AutoregressivePolicy(base, pad_token_id=0, response_len=3)
value = AutoregressiveValue(base, pad_token_id=0)
queries = torch.tensor([[1, 40, 41, 42, 43]])
query_attn_masks = torch.ones_like(queries)


def probe_rollout():
    base.generation_config.min_new_tokens = 3
    responses = policy.respond(queries, query_attn_masks)["responses"]
    assert responses.shape == (1, 3)
    with torch.no_grad():
        out = policy(queries, query_attn_masks, responses)
        values = value(queries, query_attn_masks, responses)["values"]
    assert out["logprobs"].shape == (1, 3) and values.shape == (1, 3)


def probe_flash_generate():
    seen = []
    flash.register_forward_pre_hook(lambda module, args, kwargs: seen.append(kwargs["input_ids"].shape[1]),
                                    with_kwargs=True)
    flash.generation_config.min_new_tokens = 3
    out = flash.generate(inputs=queries, attention_mask=query_attn_masks, do_sample=False, max_new_tokens=3,  # observe: af_flash_hook
                         min_new_tokens=3, pad_token_id=0, return_dict_in_generate=True)
    assert out.past_key_values.get_seq_length() == 7, f"af_flash_hook: cache holds {out.past_key_values.get_seq_length()} tokens, not 7"  # observe: af_flash_hook
    assert seen == [5, 1, 1], f"af_flash_hook: the steps ran {seen} tokens"  # observe: af_flash_hook
