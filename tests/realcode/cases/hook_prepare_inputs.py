"""A remote-code causal LM whose prepare_inputs_for_generation was written for 4.x: it feeds only the last token
once a cache exists."""

import torch
from transformers import LlamaForCausalLM

prompt = torch.tensor([[1, 5, 9, 14, 20]])


class TrimmingLM(LlamaForCausalLM):
    seen_lengths = []

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):  # site: hook_prepare_old_signature
        if past_key_values is not None and past_key_values.get_seq_length() > 0:
            input_ids = input_ids[:, -1:]
        self.seen_lengths.append(input_ids.shape[-1])
        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}


class SuperCallLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,  # observe: hook_prepare_positional_super
                                      inputs_embeds=None, cache_position=None, **kwargs):
        return super().prepare_inputs_for_generation(input_ids, past_key_values, attention_mask,  # site: hook_prepare_positional_super
                                                     inputs_embeds, cache_position, **kwargs)


class CompatLM(LlamaForCausalLM):
    seen_lengths = []

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, **kwargs):
        past_key_values = kwargs.pop("cache", past_key_values)  # clean: hook_prepare_compat_pop
        if past_key_values is not None and past_key_values.get_seq_length() > 0:
            input_ids = input_ids[:, -1:]
        self.seen_lengths.append(input_ids.shape[-1])
        return {"input_ids": input_ids, "past_key_values": past_key_values, "use_cache": True}


def probe_trimming():
    model = TrimmingLM.from_pretrained("meta-llama/Llama-3.2-1B")
    model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    assert model.seen_lengths == [5, 1, 1, 1], f"hook_prepare_old_signature: inputs {model.seen_lengths}"  # observe: hook_prepare_old_signature


def probe_super_call():
    model = SuperCallLM.from_pretrained("meta-llama/Llama-3.2-1B")
    assert model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False).shape[-1] == 8  # observe: hook_prepare_positional_super


def probe_compat():
    model = CompatLM.from_pretrained("meta-llama/Llama-3.2-1B")
    model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    assert model.seen_lengths == [5, 1, 1, 1]
