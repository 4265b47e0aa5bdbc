"""VILA (NVlabs) vendors TRL's value-head wrapper for its RL fine-tuning: `AutoModelForCausalLMWithValueHead.forward`
puts `output_hidden_states=True` and `past_key_values=` into the keyword arguments (dropping the cache for a
prefix-tuning PEFT model), calls the wrapped model, and returns the LM logits, the loss and a value per token from
the last hidden state; `generate` hands everything to the wrapped model's `generate`. A PPO-style rollout generates a
response with the wrapper, then scores the whole sequence with its forward (no cache).

Provenance (mechanisms read; this code is written here, not copied):
- NVlabs/VILA @b760c34b9487fd736b4075f5111fbef3d80a37e9
  llava/trl/models/modeling_value_head.py (`AutoModelForCausalLMWithValueHead.forward(self, input_ids=None,
  past_key_values=None, attention_mask=None, **kwargs)`: `kwargs["output_hidden_states"] = True`,
  `kwargs["past_key_values"] = past_key_values`, `if self.is_peft_model and ...peft_type == "PREFIX_TUNING":
  kwargs.pop("past_key_values")`, `base_model_output = self.pretrained_model(input_ids=input_ids,
  attention_mask=attention_mask, **kwargs)`, `value = self.v_head(last_hidden_state).squeeze(-1)`; `generate(self,
  *args, **kwargs)`: `return self.pretrained_model.generate(*args, **kwargs)`).
Reduced: the value head is one linear layer, no PEFT, no dropout, no weights loading; the rollout is a fixed
prompt; a decode step that reuses the wrapper with the returned cache is added (the wrapper is handed the cache).
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM


class AutoModelForCausalLMWithValueHead(nn.Module):
    def __init__(self, pretrained_model):
        super().__init__()
        self.pretrained_model = pretrained_model
        self.v_head = nn.Linear(pretrained_model.config.hidden_size, 1)
        self.is_peft_model = False

    def forward(self, input_ids=None, past_key_values=None, attention_mask=None, **kwargs):
        kwargs["output_hidden_states"] = True
        kwargs["past_key_values"] = past_key_values  # clean: vl_kwargs_cache
        if self.is_peft_model:
            kwargs.pop("past_key_values")
        base_model_output = self.pretrained_model(input_ids=input_ids, attention_mask=attention_mask, **kwargs)  # clean: vl_wrapped_forward
        last_hidden_state = base_model_output.hidden_states[-1]
        lm_logits = base_model_output.logits
        value = self.v_head(last_hidden_state).squeeze(-1)
        return lm_logits.float(), base_model_output.loss, value, base_model_output.past_key_values  # clean: vl_return_cache

    def generate(self, *args, **kwargs):
        return self.pretrained_model.generate(*args, **kwargs)  # clean: vl_generate


policy = AutoModelForCausalLMWithValueHead(AutoModelForCausalLM.from_pretrained("Efficient-Large-Model/VILA1.5-3b"))
prompt = torch.tensor([[1, 150, 151, 152]])


@torch.no_grad()
def rollout():
    response = policy.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    logits, _, values, _ = policy(input_ids=response, attention_mask=torch.ones_like(response))  # clean: vl_score
    return response, logits, values


def probe_rollout():
    response, logits, values = rollout()
    assert response.shape[1] == 7 and values.shape == (1, 7)


def probe_cached_value():
    with torch.no_grad():
        _, _, _, cache = policy(input_ids=prompt, use_cache=True)
        logits, _, values, cache = policy(input_ids=prompt[:, -1:], past_key_values=cache, use_cache=True)
    assert values.shape == (1, 1) and cache.get_seq_length() == 5
