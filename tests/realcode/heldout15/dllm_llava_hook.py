"""dLLM-cache (maomaocun): adaptive caching for diffusion LLMs, shipped with a LLaVA-style multimodal LLaDA
(`LlavaLLaDAModelLM`). Its `generate` pops the multimodal keywords, builds `inputs_embeds` from the token embeddings
when there are no images and hands them to the parent; its `prepare_inputs_for_generation` pops `images` and
`image_sizes`, calls the parent's hook with `past_key_values=` and `inputs_embeds=` by keyword and `**kwargs`, and puts
the images back into the inputs.

Provenance (mechanisms read; this code is written here, not copied):
- maomaocun/dLLM-cache @17235bffc8c5b587a2dc6f7dc76fcd01eab76e3a
  llava/model/language_model/llava_llada.py (`LlavaLLaDAModelLM.generate`: `position_ids = kwargs.pop("position_ids",
  None)`, `attention_mask = kwargs.pop("attention_mask", None)`, `inputs_embeds =
  self.get_model().embed_tokens(inputs)` without images; `prepare_inputs_for_generation(self, input_ids,
  past_key_values=None, inputs_embeds=None, **kwargs)`: `images = kwargs.pop("images", None)`, `inputs =
  super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds,
  **kwargs)`, `inputs["images"] = images` when given).
Reduced: LLaDA's diffusion `generate_with_embeds` is the parent's autoregressive `generate` (a Llama), no vision
tower (the images stay None), `AutoConfig.register` dropped.
"""

import torch
from transformers import LlamaForCausalLM


class LlavaLLaDAModelLM(LlamaForCausalLM):
    @torch.no_grad()
    def generate(self, inputs=None, images=None, image_sizes=None, **kwargs):
        kwargs.pop("position_ids", None)
        kwargs.pop("attention_mask", None)
        inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(inputs_embeds=inputs_embeds, **kwargs)  # clean: dl_generate_embeds

    def get_model(self):
        return self.model

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)  # clean: dl_parent_hook
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        return inputs


model = LlavaLLaDAModelLM.from_pretrained("GSAI-ML/LLaDA-8B-Instruct").eval()
prompt = torch.tensor([[1, 120, 121, 122]])


def probe_generate():
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False, return_dict_in_generate=True)
    assert out.sequences.shape[1] == 3 and out.past_key_values.get_seq_length() == 6
