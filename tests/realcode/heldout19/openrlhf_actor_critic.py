"""OpenRLHF's Actor and critic for PPO on plain transformers: the actor turns `config.use_cache` off for training and
asks `generate` for `use_cache=True` per call, with its generate arguments gathered in a dict (`early_stopping` set
only for beam search, `max_new_tokens` / `max_length` added when given), then builds the attention and action masks
from the sequences; log-probs come from one forward with position ids from the mask's cumulative sum; the critic is
the base model under a value head named by a prefix, run the same way.

Provenance (mechanisms read; this code is written here, not copied):
- OpenRLHF/OpenRLHF @7d3e07bfb4df73716dc7034340d37fae703a91c4 (the parent's tree, the last with the HF generate path)
  openrlhf/models/actor.py (`self.model.config.use_cache = False` with the comment "Use `model.generate(use_cache=
  True)` instead"; `Actor.generate(self, input_ids, **kwargs)`: `generate_args = {"input_ids": ..., "top_k": ...,
  "top_p": ..., "do_sample": ..., "early_stopping": kwargs.get("num_beams", 1) > 1, "temperature": ..., "use_cache":
  True, "num_beams": ..., "attention_mask": ..., "eos_token_id": ..., "pad_token_id": ..., "min_new_tokens": ...}`,
  `if kwargs.get("max_new_tokens", None): generate_args["max_new_tokens"] = ...`, `sequences = self.model.generate(
  **generate_args)`, `process_sequences(sequences, input_ids.size(1), eos_token_id, pad_token_id)`; `Actor.forward`:
  `position_ids = attention_mask.long().cumsum(-1) - 1`, `position_ids.masked_fill_(attention_mask == 0, 1)`, `output
  = self.model(sequences, attention_mask=..., position_ids=position_ids)`), openrlhf/models/model.py
  (`CriticModel.forward`: `getattr(self, self.base_model_prefix)(input_ids, attention_mask=..., position_ids=...)`,
  `getattr(self, self.value_head_prefix)(last_hidden_states).squeeze(-1)`, `values[:, :-1]`) and
  openrlhf/models/utils.py (`process_sequences`: masks from `sequences.ne(eos_token_id) & sequences.ne(pad_token_id)`).
Reduced: no DeepSpeed, LoRA, packing or ring attention; the critic wraps the actor's own base model with a fresh head
instead of loading a critic checkpoint; greedy decoding.
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM


def process_sequences(sequences, input_len, eos_token_id, pad_token_id):
    attention_mask = (sequences.ne(eos_token_id) & sequences.ne(pad_token_id)).to(dtype=torch.long)
    seq_length = attention_mask.size(1)
    eos_indices = seq_length - attention_mask.long().fliplr().argmax(dim=1, keepdim=True).clamp(min=1)
    first_token_indices = attention_mask.long().argmax(dim=1, keepdim=True)
    mask = torch.arange(seq_length).unsqueeze(0).expand(sequences.size(0), -1)
    attention_mask = (mask >= first_token_indices) & (mask <= eos_indices)
    action_mask = attention_mask[:, input_len - 1 : -1]
    return sequences, attention_mask.long(), action_mask


class Actor(nn.Module):
    def __init__(self, pretrain):
        super().__init__()
        self.model = AutoModelForCausalLM.from_pretrained(pretrain)
        self.model.config.use_cache = False  # clean: or_config_no_cache

    @torch.no_grad()
    def generate(self, input_ids, **kwargs):
        generate_args = {
            "input_ids": input_ids,
            "top_k": kwargs.get("top_k", None),
            "top_p": kwargs.get("top_p", None),
            "do_sample": kwargs.get("do_sample", True),
            "early_stopping": kwargs.get("num_beams", 1) > 1,
            "temperature": kwargs.get("temperature", 1),
            "use_cache": True,  # clean: or_use_cache_arg
            "num_beams": kwargs.get("num_beams", 1),
            "attention_mask": kwargs.get("attention_mask"),
            "eos_token_id": kwargs.get("eos_token_id"),
            "pad_token_id": kwargs.get("pad_token_id"),
            "min_new_tokens": kwargs.get("min_new_tokens", 1),
        }
        if kwargs.get("max_new_tokens", None):
            generate_args["max_new_tokens"] = kwargs.get("max_new_tokens")
        if kwargs.get("max_length", None):
            generate_args["max_length"] = kwargs.get("max_length")

        sequences = self.model.generate(**generate_args)  # clean: or_generate
        return process_sequences(sequences, input_ids.size(1), generate_args["eos_token_id"],
                                 generate_args["pad_token_id"])

    def forward(self, sequences, action_mask=None, attention_mask=None):
        rolled_sequences = torch.roll(sequences, shifts=-1, dims=1)
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        output = self.model(sequences, attention_mask=attention_mask, position_ids=position_ids)  # clean: or_actor_forward
        log_probs = torch.gather(output["logits"].float().log_softmax(-1), 2, rolled_sequences.unsqueeze(-1)).squeeze(-1)
        log_probs = log_probs[:, :-1]
        return log_probs[:, -action_mask.shape[1] :] * action_mask.float()


class CriticModel(nn.Module):
    def __init__(self, causal_lm, value_head_prefix="score"):
        super().__init__()
        self.base_model_prefix = causal_lm.base_model_prefix
        setattr(self, self.base_model_prefix, getattr(causal_lm, causal_lm.base_model_prefix))
        self.value_head_prefix = value_head_prefix
        setattr(self, value_head_prefix, nn.Linear(causal_lm.config.hidden_size, 1, bias=False))

    def forward(self, input_ids, action_mask=None, attention_mask=None):
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        outputs = getattr(self, self.base_model_prefix)(  # clean: or_critic_forward
            input_ids, attention_mask=attention_mask, position_ids=position_ids
        )
        values = getattr(self, self.value_head_prefix)(outputs["last_hidden_state"]).squeeze(-1)[:, :-1]
        return values[:, -action_mask.shape[1] :]


actor = Actor("Qwen/Qwen2.5-0.5B-Instruct")
critic = CriticModel(actor.model)
prompts = torch.tensor([[0, 0, 11, 12, 13, 14], [21, 22, 23, 24, 25, 26]])
prompt_mask = prompts.ne(0).long()


def probe_rollout():
    sequences, attention_mask, action_mask = actor.generate(
        prompts, attention_mask=prompt_mask, do_sample=False, max_new_tokens=4, min_new_tokens=4,
        eos_token_id=2, pad_token_id=0)
    assert sequences.shape == (2, 10)
    with torch.no_grad():
        logprobs = actor(sequences, action_mask=action_mask, attention_mask=attention_mask)
        values = critic(sequences, action_mask=action_mask, attention_mask=attention_mask)
    assert logprobs.shape == values.shape == (2, 4)
