"""LiveCC (showlab): real-time video commentary with Qwen2-VL. The model's `prepare_inputs_for_generation` is
replaced on the instance (`functools.partial(prepare_multiturn_multimodal_inputs_for_generation, model)`): it calls
the parent class's hook with every argument by keyword (`cache_position=cache_position` included), resets
`position_ids`, and drops the video inputs when `model_inputs["cache_position"][0] != 0` (a continuing turn whose new
tokens hold no video token). The streaming loop generates a short comment per clip with `past_key_values=` the
previous clip's `outputs.past_key_values`, `return_dict_in_generate=True`, and prepends `outputs.sequences[:, :-1]`
to the next clip's prompt; `if past_key_values:` tells the first clip (which carries the query) from the later ones.

Provenance (mechanisms read; this code is written here, not copied):
- showlab/livecc @fdaa91e08861f72ece8166cb6571ed2f7fbac671
  livecc-utils/src/livecc_utils/generation_patch.py (`prepare_multiturn_multimodal_inputs_for_generation`:
  `model_inputs = super(self.__class__, self).prepare_inputs_for_generation(input_ids,
  past_key_values=past_key_values, attention_mask=attention_mask, inputs_embeds=inputs_embeds,
  cache_position=cache_position, position_ids=position_ids, pixel_values=..., use_cache=use_cache, **kwargs)`,
  `model_inputs["position_ids"] = None`, `if model_inputs["cache_position"][0] != 0 and
  (model_inputs['input_ids'] != self.config.video_token_id).all():` the pixel values set to None) and
  demo/infer.py (`self.model.prepare_inputs_for_generation = functools.partial(
  prepare_multiturn_multimodal_inputs_for_generation, self.model)`; live_cc_once_for_evaluation: `if not
  past_key_values:` the query, `if past_key_values: inputs['input_ids'] = torch.cat([past_ids, inputs.input_ids],
  dim=1)`, `outputs = self.model.generate(**inputs, past_key_values=past_key_values, return_dict_in_generate=True,
  max_new_tokens=max_new_tokens, ...)`, `past_key_values = outputs.past_key_values`, `past_ids =
  outputs.sequences[:, :-1]`).
Reduced: the Qwen2-VL model is a Llama (the hook's position-id reset becomes a no-op for it: Llama builds positions
from the cache position), clips are token ids with a video placeholder token, no processor or chat template, greedy
decoding of a fixed number of tokens.
"""

import functools

import torch
from transformers import AutoModelForCausalLM

VIDEO_TOKEN_ID = 7


def prepare_multiturn_multimodal_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,
                                                       inputs_embeds=None, cache_position=None, position_ids=None,
                                                       use_cache=True, pixel_values_videos=None, **kwargs):
    model_inputs = super(self.__class__, self).prepare_inputs_for_generation(  # clean: lc_parent_hook
        input_ids,
        past_key_values=past_key_values,
        attention_mask=attention_mask,
        inputs_embeds=inputs_embeds,
        cache_position=cache_position,
        position_ids=position_ids,
        use_cache=use_cache,
        **kwargs,
    )
    model_inputs["position_ids"] = None
    if model_inputs["cache_position"][0] != 0 and (model_inputs["input_ids"] != VIDEO_TOKEN_ID).all():  # site: lc_cache_position
        model_inputs["pixel_values_videos"] = None
    return model_inputs


model = AutoModelForCausalLM.from_pretrained("chenjoya/LiveCC-7B-Instruct").eval()
model.prepare_inputs_for_generation = functools.partial(prepare_multiturn_multimodal_inputs_for_generation, model)


@torch.inference_mode()
def live_cc(clips, query_ids, max_new_tokens=3):
    past_key_values = None
    past_ids = None
    responses = []
    for clip in clips:
        new_ids = clip
        if not past_key_values:
            new_ids = torch.cat([clip, query_ids], dim=1)
        input_ids = torch.cat([past_ids, new_ids], dim=1) if past_key_values else new_ids
        outputs = model.generate(input_ids=input_ids, attention_mask=torch.ones_like(input_ids),
                                 past_key_values=past_key_values, return_dict_in_generate=True,
                                 max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens, do_sample=False)
        past_key_values = outputs.past_key_values
        past_ids = outputs.sequences[:, :-1]
        responses.append(outputs.sequences[0, input_ids.shape[1]:])
    return responses, past_key_values


clips = [torch.tensor([[1, VIDEO_TOKEN_ID, VIDEO_TOKEN_ID, 11]]), torch.tensor([[VIDEO_TOKEN_ID, VIDEO_TOKEN_ID, 12]])]
query = torch.tensor([[20, 21]])


def probe_first_step():
    input_ids = torch.cat([clips[0], query], dim=1)
    model_inputs = model.prepare_inputs_for_generation(input_ids, attention_mask=torch.ones_like(input_ids),
                                                       cache_position=torch.arange(input_ids.shape[1]))
    assert model_inputs["position_ids"] is None


def probe_one_clip():
    with torch.inference_mode():
        first = model(input_ids=torch.cat([clips[0], query], dim=1), use_cache=True)
    assert first.past_key_values  # clean: lc_cache_truthy


def probe_commentary():
    responses, cache = live_cc(clips, query)
    assert [r.shape[0] for r in responses] == [3, 3]
