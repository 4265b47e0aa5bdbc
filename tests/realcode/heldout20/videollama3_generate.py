"""VideoLLaMA3's language model: a `Qwen2ForCausalLM` subclass whose `forward` (signature copied from transformers
4.46.3: `past_key_values`, `cache_position`, `num_logits_to_keep`, the multimodal inputs, `**loss_kwargs`) merges vision
features into `inputs_embeds` when it gets none and calls `self.model(...)` with the cache; its `generate` builds
`inputs_embeds` and calls `super().generate(position_ids=..., attention_mask=..., inputs_embeds=..., **kwargs)`; its
`prepare_inputs_for_generation(input_ids, past_key_values=None, inputs_embeds=None, **kwargs)` pops `images` and
delegates to the parent with the same keywords.

Provenance (mechanisms read; this code is written here, not copied):
- DAMO-NLP-SG/VideoLLaMA3 @05cee23deb854fd6ff82dcff1243a4f682e4d617
  videollama3/model/videollama3_qwen2.py (`Videollama3Qwen2ForCausalLM.forward`, `.generate` (which pops `past_key_values` from its
  keywords for the multimodal preparation and does not hand it on),
  `.prepare_inputs_for_generation`), videollama3/model/videollama3_arch.py (`prepare_inputs_labels_for_multimodal`:
  text-only or a one-token step returns the inputs unchanged).
Reduced: a Llama stands in for Qwen2 (same forward surface); the vision encoder is a random projection of "pixel
values" prepended as embeddings; no loss branch. The probe records what each forward received.
"""

import torch
from transformers import LlamaForCausalLM
from transformers.modeling_outputs import CausalLMOutputWithPast


class Videollama3ForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.seen = []

    def encode_images(self, pixel_values):
        return pixel_values.flatten(2)[..., : self.config.hidden_size]

    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        position_ids=None,
        past_key_values=None,  # site: vl_forward_past
        inputs_embeds=None,
        labels=None,
        use_cache=None,
        output_attentions=None,
        output_hidden_states=None,
        return_dict=None,
        cache_position=None,
        num_logits_to_keep=0,
        pixel_values=None,
        **loss_kwargs,
    ):
        if inputs_embeds is None:
            inputs_embeds = self.model.embed_tokens(input_ids)
        self.seen.append((inputs_embeds.shape[1], past_key_values is not None))
        outputs = self.model(  # clean: vl_model_call
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=past_key_values,
            inputs_embeds=inputs_embeds,
            use_cache=use_cache,
            cache_position=cache_position,
        )
        logits = self.lm_head(outputs[0][:, -num_logits_to_keep:, :])
        return CausalLMOutputWithPast(logits=logits, past_key_values=outputs.past_key_values)  # clean: vl_output

    @torch.no_grad()
    def generate(self, pixel_values=None, **kwargs):
        input_ids = kwargs.pop("input_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        position_ids = kwargs.pop("position_ids", None)
        past_key_values = kwargs.pop("past_key_values", None)  # clean: vl_pop_past
        inputs_embeds = self.model.embed_tokens(input_ids)
        if pixel_values is not None:
            inputs_embeds = torch.cat([self.encode_images(pixel_values), inputs_embeds], dim=1)
            attention_mask = torch.ones(inputs_embeds.shape[:2], dtype=torch.long)
        self.multimodal_past = past_key_values
        return super().generate(position_ids=position_ids, attention_mask=attention_mask,  # clean: vl_generate
                                inputs_embeds=inputs_embeds, **kwargs)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None,  # clean: vl_prepare
                                      **kwargs):
        images = kwargs.pop("images", None)
        _inputs = super().prepare_inputs_for_generation(
            input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            _inputs["images"] = images
        return _inputs


model = Videollama3ForCausalLM.from_pretrained("DAMO-NLP-SG/VideoLLaMA3-7B")


def probe_text_generate():
    model.seen.clear()
    out = model.generate(input_ids=torch.tensor([[1, 31, 47, 59, 61]]), max_new_tokens=3, min_new_tokens=3,
                         do_sample=False)
    assert out.shape[1] == 3
    steps = [n for n, _ in model.seen]
    assert steps == [5, 1, 1] and all(had for _, had in model.seen[1:]), (  # observe: vl_forward_past
        f"vl_forward_past: the steps ran {model.seen} (length, cache seen)")


def probe_image_generate():
    model.seen.clear()
    pixels = torch.randn(1, 2, 4, model.config.hidden_size // 4)
    out = model.generate(pixel_values=pixels, input_ids=torch.tensor([[1, 31, 47]]), max_new_tokens=3,
                         min_new_tokens=3, do_sample=False)
    assert out.shape[1] == 3 and model.seen[0][0] == 5
