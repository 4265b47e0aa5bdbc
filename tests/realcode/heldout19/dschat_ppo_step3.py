"""DeepSpeed-Chat's RLHF step 3: the actor's causal LM has its `forward` swapped for a wrapper that computes the loss
in fp32 (the original forward kept as `model.__original_forward__`, the wrapper's named parameters passed through,
anything else swallowed by `**deprecated_arguments`); experience is generated with `max_length=prompt + answer`
lengths; the reward model and critic are a base `AutoModel` under a bias-free value head, called with
`past_key_values=None, use_cache=False`, scoring the last answer token.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/DeepSpeedExamples @83757d9c937daabd1089a08051061706cb73900d
  applications/DeepSpeed-Chat/dschat/utils/model/model_utils.py (`causal_lm_model_to_fp32_loss(model)`: `def
  causal_lm_forward(input_ids=None, past_key_values=None, attention_mask=None, head_mask=None, inputs_embeds=None,
  labels=None, use_cache=None, output_attentions=None, output_hidden_states=None, return_dict=None,
  **deprecated_arguments)`, `kwargs = dict() if model.config.model_type == "llama" else dict(head_mask=head_mask)`,
  `output = model.__original_forward__(input_ids=..., past_key_values=past_key_values, attention_mask=...,
  inputs_embeds=..., labels=None, use_cache=use_cache, ..., **kwargs)`, the shifted fp32 cross entropy, `model.
  __original_forward__ = model.forward; model.forward = causal_lm_forward`),
  applications/DeepSpeed-Chat/dschat/utils/model/reward_model.py (`RewardModel.__init__`: `self.v_head = nn.Linear(
  self.config.n_embd, 1, bias=False)`, `self.rwtransformer = base_model`; `forward_value(self, input_ids=None,
  attention_mask=None, past_key_values=None, ..., return_value_only=False, prompt_length=0, use_cache=False)`:
  `self.rwtransformer(input_ids, past_key_values=past_key_values, attention_mask=attention_mask, inputs_embeds=
  inputs_embeds, use_cache=use_cache, **kwargs)`, `values = self.v_head(hidden_states).squeeze(-1)`) and
  applications/DeepSpeed-Chat/dschat/rlhf/ppo_trainer.py (`_generate_sequence`: `max_min_length = self.
  max_answer_seq_len + prompts.shape[1]`, `kwargs = dict(do_sample=False)` for llama, `self.actor_model.module.
  generate(prompts, attention_mask=mask, max_length=max_min_length, pad_token_id=..., synced_gpus=self.z3_enabled,
  **kwargs)`).
Reduced: no DeepSpeed engines or ZeRO-3 (`synced_gpus` off), one reward model doubling as critic, the chosen/rejected
pair loss and the PPO update dropped.
"""

import torch
from torch import nn
from transformers import AutoModel, AutoModelForCausalLM


def causal_lm_model_to_fp32_loss(model):
    def causal_lm_forward(
        input_ids=None,
        past_key_values=None,  # site: ds_fp32_forward
        attention_mask=None,
        head_mask=None,
        inputs_embeds=None,
        labels=None,
        use_cache=None,
        output_attentions=None,
        output_hidden_states=None,
        return_dict=None,
        **deprecated_arguments,
    ):
        kwargs = dict() if model.config.model_type == "llama" else dict(head_mask=head_mask)
        output = model.__original_forward__(
            input_ids=input_ids,
            past_key_values=past_key_values,
            attention_mask=attention_mask,
            inputs_embeds=inputs_embeds,
            labels=None,
            use_cache=use_cache,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            return_dict=return_dict,
            **kwargs)
        lm_logits = output.logits
        loss = None
        if labels is not None:
            shift_logits = lm_logits[..., :-1, :].float().contiguous()
            shift_labels = labels[..., 1:].contiguous()
            loss = nn.CrossEntropyLoss()(shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1))
        output.loss = loss
        return output

    model.__original_forward__ = model.forward
    model.forward = causal_lm_forward


class RewardModel(nn.Module):
    def __init__(self, base_model, pad_token_id):
        super().__init__()
        self.config = base_model.config
        self.config.n_embd = self.config.hidden_size if hasattr(self.config, "hidden_size") else self.config.n_embd
        self.v_head = nn.Linear(self.config.n_embd, 1, bias=False)
        self.rwtransformer = base_model
        self.PAD_ID = pad_token_id

    def forward_value(self, input_ids=None, attention_mask=None, past_key_values=None, head_mask=None,
                      inputs_embeds=None, return_value_only=False, prompt_length=0, use_cache=False):
        kwargs = dict() if self.config.model_type == "llama" else dict(head_mask=head_mask)
        transformer_outputs = self.rwtransformer(  # clean: ds_reward_forward
            input_ids,
            past_key_values=past_key_values,
            attention_mask=attention_mask,
            inputs_embeds=inputs_embeds,
            use_cache=use_cache,
            **kwargs)
        values = self.v_head(transformer_outputs[0]).squeeze(-1)
        if return_value_only:
            return values
        return values[:, -1]


actor = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
causal_lm_model_to_fp32_loss(actor)
reward_model = RewardModel(AutoModel.from_pretrained("facebook/opt-350m"), pad_token_id=0)
max_answer_seq_len = 4


def generate_sequence(prompts, mask):
    max_min_length = max_answer_seq_len + prompts.shape[1]
    kwargs = dict(do_sample=False) if actor.config.model_type == "llama" else dict()
    with torch.no_grad():
        seq = actor.generate(prompts, attention_mask=mask, max_length=max_min_length, pad_token_id=0,  # clean: ds_generate
                             synced_gpus=False, **kwargs)
    return seq


prompts = torch.tensor([[1, 31, 32, 33, 34]])


def probe_actor_loss():
    out = actor(input_ids=prompts, labels=prompts, use_cache=False)
    assert out.loss is not None and out.loss.dtype == torch.float32


def probe_experience():
    steps = []
    actor.model.register_forward_pre_hook(lambda module, args, kwargs: steps.append(kwargs["input_ids"].shape[1]),
                                          with_kwargs=True)
    actor.generation_config.min_new_tokens = max_answer_seq_len
    seq = generate_sequence(prompts, torch.ones_like(prompts))
    assert seq.shape == (1, 9)
    assert steps == [5, 1, 1, 1], f"the actor's steps ran {steps} tokens"
    with torch.no_grad():
        reward = reward_model.forward_value(seq, torch.ones_like(seq), prompt_length=5)
        values = reward_model.forward_value(seq, torch.ones_like(seq), return_value_only=True)
    assert reward.shape == (1,) and values.shape == (1, 9)


def probe_fp32_cache():
    stock = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
    mask = torch.ones_like(prompts)
    with torch.no_grad():
        expected = stock.generate(prompts, attention_mask=mask, max_new_tokens=4, min_new_tokens=4, do_sample=False,
                                  pad_token_id=0)
        seq = actor.generate(prompts, attention_mask=mask, max_new_tokens=4, min_new_tokens=4, do_sample=False,
                             pad_token_id=0)
    assert seq.tolist() == expected.tolist(), f"ds_fp32_forward: the patched actor decoded {seq[0, 5:].tolist()}, the stock model {expected[0, 5:].tolist()}"  # observe: ds_fp32_forward
