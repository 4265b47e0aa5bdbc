"""RL4LMs' causal actor-critic policy (allenai, PPO/NLPO for language models): the rollout feeds the policy and the
value model one token per environment step. Each model call builds its inputs with the model's own hook
(`_prepare_inputs_for_model`: `unwrap_model(model).prepare_inputs_for_generation(input_ids, **model_kwargs)`), starts
from `{"attention_mask": ...}` when there is no state yet, runs the model with `output_hidden_states=True`, and
advances the carried state with the private generation helper (`model._update_model_kwargs_for_generation(output,
past_model_kwargs, is_encoder_decoder=...)`), which stores the output's cache and grows the mask; the state is handed
back to the rollout as `past_model_kwargs` for the next step. The value head reads the last hidden state.

Provenance (mechanisms read; this code is written here, not copied):
- allenai/RL4LMs @0e3a80999b3dacfb7d8fd1b8ca7e69b7f12ef3dd
  rl4lms/envs/text_generation/policy/causal_policy.py (CausalLMActorCriticPolicy._prepare_inputs_for_model:
  `model_inputs = unwrap_model(model).prepare_inputs_for_generation(input_ids, **model_kwargs)`; forward_policy /
  forward_value: `if not past_model_kwargs: past_model_kwargs = {"attention_mask": attention_mask}`, `output =
  self._value_model(output_hidden_states=True, **model_inputs)`, `values =
  self._value_head.forward(output.hidden_states[-1][:, -1, :])`, `past_model_kwargs =
  unwrap_model(self._value_model)._update_model_kwargs_for_generation(output, past_model_kwargs,
  is_encoder_decoder=unwrap_model(self._value_model).config.is_encoder_decoder)`; get_distribution: one forward on
  the prepared inputs, no state kept).
Reduced: no gym spaces, stable-baselines distributions, reference or mask models; greedy actions; the observation
is the token ids and mask so far, as the environment builds it; the model is not wrapped (unwrap_model is the
model itself).
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM


class CausalLMActorCriticPolicy(nn.Module):
    def __init__(self, model_name):
        super().__init__()
        self._policy_model = AutoModelForCausalLM.from_pretrained(model_name)
        self._value_model = AutoModelForCausalLM.from_pretrained(model_name)
        self._value_head = nn.Linear(self._value_model.config.hidden_size, 1, bias=False)

    def _prepare_inputs_for_model(self, model, input_ids, model_kwargs=None):
        model_inputs = model.prepare_inputs_for_generation(input_ids, **model_kwargs)  # observe: rl_update_state
        return model_inputs

    def forward_value(self, obs, past_model_kwargs=None):
        input_ids = obs["input_encoded_pt"]
        attention_mask = obs["input_attention_mask_pt"]
        if not past_model_kwargs:
            past_model_kwargs = {"attention_mask": attention_mask}
        model_inputs = self._prepare_inputs_for_model(self._value_model, input_ids, past_model_kwargs)
        output = self._value_model(output_hidden_states=True, **model_inputs)
        values = self._value_head.forward(output.hidden_states[-1][:, -1, :])
        past_model_kwargs = self._value_model._update_model_kwargs_for_generation(  # site: rl_update_state
            output, past_model_kwargs, is_encoder_decoder=self._value_model.config.is_encoder_decoder)
        return values, past_model_kwargs

    def get_distribution(self, obs):
        past_model_kwargs = {"attention_mask": obs["input_attention_mask_pt"]}
        model_inputs = self._prepare_inputs_for_model(self._policy_model, obs["input_encoded_pt"], past_model_kwargs)
        output = self._policy_model(output_hidden_states=True, **model_inputs)  # clean: rl_policy_forward
        return torch.softmax(output.logits[:, -1, :], dim=-1)


policy = CausalLMActorCriticPolicy("gpt2").eval()
prompt = torch.tensor([[3, 17, 29, 41]])


@torch.no_grad()
def rollout(steps=3):
    obs = {"input_encoded_pt": prompt, "input_attention_mask_pt": torch.ones_like(prompt)}
    past_model_kwargs = None
    values = []
    for _ in range(steps):
        value, past_model_kwargs = policy.forward_value(obs, past_model_kwargs)
        values.append(value)
        action = policy.get_distribution(obs).argmax(-1, keepdim=True)
        ids = torch.cat([obs["input_encoded_pt"], action], dim=-1)
        obs = {"input_encoded_pt": ids, "input_attention_mask_pt": torch.ones_like(ids)}
    return values, past_model_kwargs


def probe_policy_distribution():
    with torch.no_grad():
        obs = {"input_encoded_pt": prompt, "input_attention_mask_pt": torch.ones_like(prompt)}
        probs = policy.get_distribution(obs)
    assert probs.shape[0] == 1


def probe_rollout():
    lengths = []
    policy._value_model.register_forward_pre_hook(lambda m, args, kwargs: lengths.append(kwargs["input_ids"].shape[1]),
                                                  with_kwargs=True)
    values, state = rollout()
    assert len(values) == 3
    assert lengths == [4, 1, 1], f"rl_update_state: value-model step input lengths {lengths}"  # observe: rl_update_state
