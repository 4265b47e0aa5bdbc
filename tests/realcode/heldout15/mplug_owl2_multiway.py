"""mPLUG-Owl2 (X-PLUG): a LLaVA-style multimodal Llama. Its forward first runs
`prepare_inputs_labels_for_multimodal`: on a decoding step (one new token) with images it rebuilds the attention
mask from the cache, `torch.ones((batch, past_key_values[-1][-1].shape[-2] + 1))`; on the first step it splices the
visual features into the token embeddings. Its `prepare_inputs_for_generation` is the 4.3x pattern `if
past_key_values: input_ids = input_ids[:, -1:]`, with the images passed on every step.

Provenance (mechanisms read; this code is written here, not copied):
- X-PLUG/mPLUG-Owl @0f3068fdb47b77aedc71fc39f5735cd7aa35e8f9
  mPLUG-Owl2/mplug_owl2/model/modeling_mplug_owl2.py (`prepare_inputs_labels_for_multimodal(self, input_ids,
  attention_mask, past_key_values, labels, images)`: `if images is None or input_ids.shape[1] == 1:`, `if
  past_key_values is not None and images is not None and input_ids.shape[1] == 1:` `attention_mask = torch.ones((
  attention_mask.shape[0], past_key_values[-1][-1].shape[-2] + 1), ...)`; `MPLUGOwl2LlamaForCausalLM.forward` passing
  `past_key_values=past_key_values` to the model and returning `past_key_values=outputs.past_key_values`;
  `prepare_inputs_for_generation`: `if past_key_values: input_ids = input_ids[:, -1:]`, `"images":
  kwargs.get("images", None)`).
Reduced: the visual abstractor is a given tensor of features (already in the hidden size), no modality-adaptive
layers (`replace_llama_modality_adaptive` not applied), no labels; the model is a Llama subclass.
"""

import torch
from transformers import LlamaForCausalLM


class MPLUGOwl2LlamaForCausalLM(LlamaForCausalLM):
    def prepare_inputs_labels_for_multimodal(self, input_ids, attention_mask, past_key_values, images):
        if images is None or input_ids.shape[1] == 1:
            if past_key_values is not None and images is not None and input_ids.shape[1] == 1:
                if attention_mask is not None:
                    attention_mask = torch.ones((attention_mask.shape[0], past_key_values[-1][-1].shape[-2] + 1), dtype=attention_mask.dtype)  # site: mp_mask_from_cache
            return input_ids, attention_mask, past_key_values, None
        embeds = self.model.embed_tokens(input_ids)
        new_input_embeds = torch.cat([embeds[:, :1], images, embeds[:, 1:]], dim=1)
        attention_mask = torch.ones(new_input_embeds.shape[:2], dtype=torch.long)
        return None, attention_mask, past_key_values, new_input_embeds

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, inputs_embeds=None, images=None,
                **kwargs):
        if inputs_embeds is None:
            input_ids, attention_mask, past_key_values, inputs_embeds = self.prepare_inputs_labels_for_multimodal(
                input_ids, attention_mask, past_key_values, images)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, past_key_values=past_key_values,  # clean: mp_lm_forward
                               inputs_embeds=inputs_embeds, **kwargs)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      **kwargs):
        if past_key_values:  # site: mp_truthy_slice
            input_ids = input_ids[:, -1:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                             "attention_mask": attention_mask, "images": kwargs.get("images", None)})
        return model_inputs


model = MPLUGOwl2LlamaForCausalLM.from_pretrained("MAGAer13/mplug-owl2-llama2-7b").eval()
prompt = torch.tensor([[1, 130, 131, 132]])
image_features = torch.zeros(1, 2, model.config.hidden_size)


@torch.no_grad()
def first_step(ids, images):
    out = model(input_ids=ids, attention_mask=torch.ones_like(ids), images=images, use_cache=True)  # clean: mp_prefill
    return out.logits[:, -1:].argmax(-1), out.past_key_values  # clean: mp_step_cache


def probe_prefill():
    token, cache = first_step(prompt, image_features)
    assert cache.get_seq_length() == 6


def probe_image_step():
    token, cache = first_step(prompt, image_features)
    with torch.no_grad():
        model(input_ids=token, attention_mask=torch.ones(1, 6, dtype=torch.long), past_key_values=cache,
              images=image_features, use_cache=True)


def probe_text_generate():
    seen = []
    model.register_forward_pre_hook(lambda module, args, kwargs: seen.append(kwargs["input_ids"].shape[1]),
                                    with_kwargs=True)
    mask = torch.ones_like(prompt)
    out = model.generate(prompt, attention_mask=mask, max_new_tokens=3, min_new_tokens=3, return_dict_in_generate=True)
    assert out.past_key_values.get_seq_length() == 6, "mp_truthy_slice: the prompt never reached the cache"  # observe: mp_truthy_slice
    assert seen == [4, 1, 1], f"mp_truthy_slice: every step re-ran the sequence {seen}"  # observe: mp_truthy_slice
