"""lm-human-preference-details' PPO (the OpenAI lm-human-preferences replication in PyTorch): the policy is the LM
backbone under a zero-initialised scalar value head, rollouts come from the backbone's `generate` with a
`GenerationConfig` whose `min_new_tokens` equals `max_new_tokens` (`top_k=0.0`), on left-padded queries whose pad
ids are masked to 0 and returned in a dict (`return_dict_in_generate=True`); the log-probs, values and the
reference policy's log-probs come from full forwards with exclusive-cumsum position ids and `output_hidden_states`.

Provenance (mechanisms read; this code is written here, not copied):
- vwxyzjn/lm-human-preference-details @ccc19538e817e98a60d3253242ac15e2a562cb49
  lm_human_preference_details/train_policy_accelerate.py (`AutoModelForCausalLMWithScalarHead.forward(self,
  **kwargs)`: `output = self.lm_backbone(**kwargs)`, `self.scalar_head(output.hidden_states[-1])`; `generate(
  lm_backbone, queries, tokenizer, generation_config)`: `attention_mask = queries != tokenizer.pad_token_id`,
  `input_ids = torch.masked_fill(queries, ~attention_mask, 0)`, `lm_backbone.generate(input_ids=input_ids,
  attention_mask=attention_mask, generation_config=generation_config, return_dict_in_generate=True)`, padding
  restored with `torch.cat((queries, output.sequences[:, context_length:]), dim=1)`; `forward(policy,
  query_responses, tokenizer)`: `position_ids = attention_mask.cumsum(1) - attention_mask.long()`, `policy(input_ids=
  ..., attention_mask=..., position_ids=..., return_dict=True, output_hidden_states=True)`; `generation_config =
  GenerationConfig(max_new_tokens=..., min_new_tokens=..., temperature=..., top_k=0.0, top_p=1.0, do_sample=True)`;
  `policy.lm_backbone.generation_config.pad_token_id = None`).
Reduced: one rollout step without the KL controller, reward model or PPO update; the reference policy is a second
load of the same checkpoint; greedy decoding.
"""

import torch
import torch.nn.functional as F
from torch import nn
from transformers import AutoModelForCausalLM, GenerationConfig


class AutoModelForCausalLMWithScalarHead(nn.Module):
    def __init__(self, lm_backbone):
        super().__init__()
        self.lm_backbone = lm_backbone
        self.scalar_head = nn.Linear(lm_backbone.config.hidden_size, 1)
        nn.init.zeros_(self.scalar_head.weight)
        nn.init.zeros_(self.scalar_head.bias)

    def forward(self, **kwargs):
        output = self.lm_backbone(**kwargs)  # clean: lh_backbone_forward
        return output, self.scalar_head(output.hidden_states[-1])


PAD = 50259


def generate(lm_backbone, queries, generation_config):
    context_length = queries.shape[1]
    attention_mask = queries != PAD
    input_ids = torch.masked_fill(queries, ~attention_mask, 0)
    output = lm_backbone.generate(  # clean: lh_generate
        input_ids=input_ids,
        attention_mask=attention_mask,
        generation_config=generation_config,
        return_dict_in_generate=True,
    )
    return torch.cat((queries, output.sequences[:, context_length:]), dim=1)


def forward(policy, query_responses):
    attention_mask = query_responses != PAD
    position_ids = attention_mask.cumsum(1) - attention_mask.long()
    input_ids = query_responses.clone()
    input_ids[~attention_mask] = 0
    return policy(  # clean: lh_policy_forward
        input_ids=input_ids,
        attention_mask=attention_mask,
        position_ids=position_ids,
        return_dict=True,
        output_hidden_states=True,
    )


policy = AutoModelForCausalLMWithScalarHead(AutoModelForCausalLM.from_pretrained("gpt2"))
ref_policy = AutoModelForCausalLMWithScalarHead(AutoModelForCausalLM.from_pretrained("gpt2"))
policy.lm_backbone.generation_config.pad_token_id = None
generation_config = GenerationConfig(  # clean: lh_generation_config
    max_new_tokens=4,
    min_new_tokens=4,
    temperature=0.7,
    top_k=0.0,
    top_p=1.0,
    do_sample=False,
)
queries = torch.tensor([[PAD, PAD, 11, 12, 13], [21, 22, 23, 24, 25]])


def probe_rollout():
    with torch.no_grad():
        query_responses = generate(policy.lm_backbone, queries, generation_config)
        context_length = queries.shape[1]
        responses = query_responses[:, context_length:]
        output, full_values = forward(policy, query_responses)
        values = full_values[:, context_length - 1 : -1].squeeze(-1)
        logits = output.logits[:, context_length - 1 : -1] / 0.7
        logprobs = torch.gather(F.log_softmax(logits, dim=-1), 2, responses.unsqueeze(-1)).squeeze(-1)
        ref_output, _ = forward(ref_policy, query_responses)
    assert responses.shape == (2, 4) and values.shape == logprobs.shape == (2, 4)
    assert ref_output.logits.shape[1] == 9
