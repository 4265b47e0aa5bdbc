"""VideoLLaMA2 (DAMO-NLP-SG/VideoLLaMA2, video LLM on Qwen2): `Videollama2Qwen2ForCausalLM` subclasses
`Qwen2ForCausalLM`; its `forward` takes `past_key_values`, `images` and a trailing `**kwargs`, rebuilds the
multimodal embeddings when `inputs_embeds` is None and calls `super().forward(input_ids=..., attention_mask=...,
past_key_values=past_key_values, inputs_embeds=..., labels=..., use_cache=..., ...)`; its `generate` builds
`inputs_embeds` from the video and the prompt and calls `super().generate(position_ids=..., attention_mask=...,
inputs_embeds=..., **kwargs)`; `prepare_inputs_for_generation` pops `images`, calls the parent with
`past_key_values=past_key_values` and puts `images` back. The package's inference helper tokenizes the prompt,
builds the attention mask with `input_ids.ne(tokenizer.pad_token_id)` and calls `model.generate(input_ids,
attention_mask=..., <the video>, do_sample=..., max_new_tokens=..., use_cache=True, stopping_criteria=...,
pad_token_id=...)`.

Provenance (mechanisms read; this code is written here, not copied):
- DAMO-NLP-SG/VideoLLaMA2 @14ff9f62da004c722c1b2e7c22b77b4b594a4d0b
  videollama2/model/videollama2_qwen2.py (Videollama2Qwen2ForCausalLM.forward with `**kwargs`, generate,
  prepare_inputs_for_generation).
- DAMO-NLP-SG/VideoLLaMA2 @0d64bd221687e0b9117854a552b8ec1c3efc9cfd
  videollama2/__init__.py (infer: the attention mask from `input_ids.ne(tokenizer.pad_token_id)`, the generate
  keywords; that version passes the video as `images_or_videos=`, the Qwen2 model read above takes `images=`).
Reduced: no vision encoder or spatio-temporal connector: a video is a (1, frames, hidden) feature tensor put through
a linear projector placed before the text embeddings; no tokenizer, stopping criteria or chat template; the
inference helper is `mm_infer`, the video passed as `images=[(video, "video")]`.
"""

import torch
from torch import nn
from transformers import Qwen2ForCausalLM


class Videollama2Qwen2ForCausalLM(Qwen2ForCausalLM):
    def __init__(self, config, **kwargs):
        super().__init__(config)
        self.mm_projector = nn.Linear(config.hidden_size, config.hidden_size)
        self.post_init()

    def get_model(self):
        return self.model

    def prepare_inputs_labels_for_multimodal(self, input_ids, attention_mask, past_key_values, labels, images):
        if images is None or input_ids.shape[1] == 1:
            return input_ids, attention_mask, past_key_values, None, labels
        video_features = self.mm_projector(images[0][0])
        inputs_embeds = torch.cat([video_features, self.get_model().embed_tokens(input_ids)], dim=1)
        attention_mask = torch.ones(inputs_embeds.shape[:2], dtype=torch.long)
        return None, attention_mask, past_key_values, inputs_embeds, labels

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,  # site: vl_forward_kwargs
                inputs_embeds=None, labels=None, use_cache=None, output_attentions=None, output_hidden_states=None,
                images=None, return_dict=None, **kwargs):
        if inputs_embeds is None:
            (input_ids, attention_mask, past_key_values, inputs_embeds, labels) = \
                self.prepare_inputs_labels_for_multimodal(input_ids, attention_mask, past_key_values, labels, images)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, past_key_values=past_key_values,  # clean: vl_super_forward
                               inputs_embeds=inputs_embeds, labels=labels, use_cache=use_cache,
                               output_attentions=output_attentions, output_hidden_states=output_hidden_states,
                               return_dict=return_dict)

    @torch.no_grad()
    def generate(self, inputs=None, images=None, **kwargs):
        position_ids = kwargs.pop("position_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        if images is not None:
            (input_ids, attention_mask, past_key_values, inputs_embeds, _) = self.prepare_inputs_labels_for_multimodal(
                input_ids=inputs, attention_mask=attention_mask, past_key_values=None, labels=None, images=images)
        else:
            inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds,  # clean: vl_super_generate
                                **kwargs)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        _inputs = super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,  # clean: vl_super_prepare
                                                        inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            _inputs["images"] = images
        return _inputs


def mm_infer(video, input_ids, model, pad_token_id=0, **kwargs):
    attention_masks = input_ids.ne(pad_token_id).long()
    with torch.inference_mode():
        output_ids = model.generate(input_ids, attention_mask=attention_masks, images=[(video, "video")],  # clean: vl_mm_infer
                                    do_sample=kwargs.get("do_sample", False),
                                    max_new_tokens=kwargs.get("max_new_tokens", 2048), use_cache=True,
                                    pad_token_id=pad_token_id)
    return output_ids


model = Videollama2Qwen2ForCausalLM.from_pretrained("DAMO-NLP-SG/VideoLLaMA2-7B-16F").eval()
model.generation_config.min_new_tokens = 5
prompt = torch.tensor([[31, 7, 88, 140, 12, 64]])
torch.manual_seed(0)
video = torch.randn(1, 4, model.config.hidden_size)


@torch.no_grad()
def greedy_reference(n):
    embeds = torch.cat([model.mm_projector(video), model.get_model().embed_tokens(prompt)], dim=1)
    out = Qwen2ForCausalLM.forward(model, inputs_embeds=embeds, use_cache=True)
    tokens = [out.logits[:, -1].argmax(-1)]
    past = out.past_key_values
    for _ in range(n - 1):
        out = Qwen2ForCausalLM.forward(model, input_ids=tokens[-1][:, None], past_key_values=past, use_cache=True)
        past = out.past_key_values
        tokens.append(out.logits[:, -1].argmax(-1))
    return torch.stack(tokens, dim=1)


def probe_video_answer():
    out = mm_infer(video, prompt, model, max_new_tokens=5)
    assert torch.equal(out, greedy_reference(5)), "vl_forward_kwargs: the answer was not decoded on the cached video and prompt"  # observe: vl_forward_kwargs


def probe_generate_length():
    out = mm_infer(video, prompt, model, max_new_tokens=5)
    assert out.shape[1] == 5


@torch.no_grad()
def probe_forward_pass():
    first = model(input_ids=prompt, images=[(video, "video")], use_cache=True)
    nxt = model(input_ids=first.logits[:, -1:].argmax(-1), past_key_values=first.past_key_values, use_cache=True)
    assert nxt.logits.shape[1] == 1


def probe_prepare():
    inputs = model.prepare_inputs_for_generation(prompt, past_key_values=None, images=[(video, "video")],
                                                 attention_mask=torch.ones_like(prompt), use_cache=True)
    assert inputs["images"][0][1] == "video"
