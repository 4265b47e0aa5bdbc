"""Liger-Kernel's patcher: `apply_liger_kernel_to_llama(fused_linear_cross_entropy=True, model=None)` replaces
`LlamaForCausalLM.forward` (or, given a loaded model, binds the replacement on the instance with `MethodType`) by
`lce_forward`, written with transformers' own parameter list (`past_key_values`, `cache_position`,
`logits_to_keep`, `skip_logits`, `**kwargs`): it calls `self.model(...)` passing `past_key_values=past_key_values`,
`cache_position=cache_position` and `**kwargs`, materialises logits only for the kept positions unless it computes the
fused loss, and returns its own output class (a `CausalLMOutputWithPast` subclass with token accuracy) carrying
`past_key_values=outputs.past_key_values`. The patched model is then used for training and for `generate` in the
same process.

Provenance (mechanisms read; this code is written here, not copied):
- linkedin/Liger-Kernel @ead96b618e5c67bddc6a6e9bcb99bfe6b5ab661c
  src/liger_kernel/transformers/model/llama.py (lce_forward(self, input_ids=None, attention_mask=None,
  position_ids=None, past_key_values=None, inputs_embeds=None, labels=None, use_cache=None, ..., cache_position=None,
  logits_to_keep=0, skip_logits=None, **kwargs): `outputs = self.model(input_ids=input_ids, ...,
  past_key_values=past_key_values, ..., cache_position=cache_position, **kwargs)`, `slice_indices =
  slice(-logits_to_keep, None)`, `logits = self.lm_head(kept_hidden_states)`, `return LigerCausalLMOutputWithPast(
  loss=loss, logits=logits, past_key_values=outputs.past_key_values, ...)`),
  src/liger_kernel/transformers/monkey_patch.py (apply_liger_kernel_to_llama: `model.forward =
  MethodType(llama_lce_forward, model)` or `modeling_llama.LlamaForCausalLM.forward = llama_lce_forward`),
  src/liger_kernel/transformers/model/output_classes.py (LigerCausalLMOutputWithPast).
Reduced: no Triton kernels (RMSNorm, SwiGLU, rope and the fused linear cross-entropy are left as transformers' own;
the loss is plain cross-entropy on materialised logits), Llama only.
"""

from dataclasses import dataclass
from types import MethodType
from typing import Optional

import torch
from transformers import AutoModelForCausalLM
from transformers.modeling_outputs import CausalLMOutputWithPast
from transformers.models.llama import modeling_llama


@dataclass
class LigerCausalLMOutputWithPast(CausalLMOutputWithPast):
    token_accuracy: Optional[torch.FloatTensor] = None


def lce_forward(
    self,
    input_ids=None,
    attention_mask=None,
    position_ids=None,
    past_key_values=None,  # clean: lg_forward_past
    inputs_embeds=None,
    labels=None,
    use_cache=None,
    output_attentions=None,
    output_hidden_states=None,
    return_dict=None,
    cache_position=None,
    logits_to_keep=0,
    skip_logits=None,
    **kwargs,
):
    return_dict = return_dict if return_dict is not None else self.config.use_return_dict
    outputs = self.model(
        input_ids=input_ids,
        attention_mask=attention_mask,
        position_ids=position_ids,
        past_key_values=past_key_values,  # clean: lg_model_cache
        inputs_embeds=inputs_embeds,
        use_cache=use_cache,
        output_attentions=output_attentions,
        output_hidden_states=output_hidden_states,
        return_dict=return_dict,
        cache_position=cache_position,  # clean: lg_cache_position
        **kwargs,
    )
    hidden_states = outputs[0]
    slice_indices = slice(-logits_to_keep, None) if isinstance(logits_to_keep, int) else logits_to_keep
    kept_hidden_states = hidden_states[:, slice_indices, :]
    logits = self.lm_head(kept_hidden_states)
    loss = None
    if labels is not None:
        loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
    return LigerCausalLMOutputWithPast(
        loss=loss,
        logits=logits,
        past_key_values=outputs.past_key_values,  # clean: lg_output_cache
        hidden_states=outputs.hidden_states,
        attentions=outputs.attentions,
    )


def apply_liger_kernel_to_llama(fused_linear_cross_entropy=True, model=None):
    if fused_linear_cross_entropy:
        if model is not None:
            model.forward = MethodType(lce_forward, model)  # clean: lg_instance_patch
        else:
            modeling_llama.LlamaForCausalLM.forward = lce_forward


prompt = torch.tensor([[1, 150, 151, 152, 153]])


def _fed_lengths(model):
    fed = []
    model.model.register_forward_pre_hook(lambda module, args, kwargs: fed.append(kwargs["input_ids"].shape[1]),
                                          with_kwargs=True)
    return fed


def probe_class_patch_generate():
    apply_liger_kernel_to_llama()
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct").eval()
    fed = _fed_lengths(model)
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False, return_dict_in_generate=True)
    assert out.sequences.shape == (1, 8) and out.past_key_values.get_seq_length() == 7
    assert fed == [5, 1, 1], "lg_forward_past: the patched forward re-ran the whole sequence"


def probe_instance_patch_generate():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Meta-Llama-3-8B-Instruct").eval()
    apply_liger_kernel_to_llama(model=model)
    fed = _fed_lengths(model)
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False, return_dict_in_generate=True)
    assert out.sequences.shape == (1, 8) and out.past_key_values.get_seq_length() == 7
    assert fed == [5, 1, 1], "lg_instance_patch: the patched forward re-ran the whole sequence"

