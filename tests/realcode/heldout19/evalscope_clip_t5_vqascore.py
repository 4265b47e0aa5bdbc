"""EvalScope's VQAScore metric with CLIP-FlanT5: a `T5ForConditionalGeneration` subclass that splices image features
into the encoder's input embeddings. Scoring runs one forward with `labels` and `past_key_values: None`; captioning
runs its own `generate`, which builds `inputs_embeds` and hands them to `super().generate(input_ids=None, ...)`, and
its `prepare_inputs_for_generation` override trims the decoder ids to those the cache has not seen, reading the
cached length as `past_key_values[0][0].shape[2]`.

Provenance (mechanisms read; this code is written here, not copied):
- modelscope/evalscope @fde259d2a32ab8a4cdb3af44dc8b18f504f1e277
  evalscope/metrics/vision/t2v_metrics/models/vqascore_models/clip_t5/model/language_model/clip_t5.py
  (`CLIPT5ForConditionalGeneration(T5ForConditionalGeneration)`: `forward(...)` building `inputs_embeds` then
  `super(CLIPT5ForConditionalGeneration, self).forward(input_ids=None, attention_mask=..., decoder_attention_mask=...,
  labels=labels, past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache, ...)`;
  `generate(self, inputs, attention_mask, images, **kwargs)`: `super(...).generate(input_ids=None, attention_mask=
  attention_mask, inputs_embeds=inputs_embeds)`; `prepare_inputs_for_generation(self, input_ids, past_key_values=None,
  attention_mask=None, ..., use_cache=None, encoder_outputs=None, inputs_embeds=None, **kwargs)`: `if past_key_values
  is not None: past_length = past_key_values[0][0].shape[2]`, `remove_prefix_length` then `input_ids = input_ids[:,
  remove_prefix_length:]`, model inputs `decoder_input_ids`, `past_key_values`, `encoder_outputs`, `use_cache`) and
  .../clip_t5_model.py (`forward`: `model_input_kwargs = {..., 'labels': labels, 'images': images, 'past_key_values':
  None, 'use_cache': None, 'return_dict': True}`, `lm_prob[k] = (-loss_fct(logits[k], labels[k])).exp()`).
The same metric's BLIP-2 models (evalscope's vendored LAVIS) carry two more hooks: the Flan-T5 language model's
`prepare_inputs_for_generation(self, input_ids, past=None, ...)`, which cuts to the last decoder id `if past is not
None` and returns `'past_key_values': past`, and the Vicuna one's, which cuts to the last token `if past_key_values:`
and takes the last position from the mask's cumulative sum.
Also read: .../lavis/models/blip2_models/modeling_t5.py (`T5ForConditionalGeneration.prepare_inputs_for_generation(
self, input_ids, past=None, attention_mask=None, head_mask=None, ..., use_cache=None, encoder_outputs=None,
**kwargs)`) and .../lavis/models/blip2_models/modeling_llama.py (`LlamaForCausalLM.prepare_inputs_for_generation(self,
input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs)`: `if past_key_values:
input_ids = input_ids[:, -1:]`, `position_ids[:, -1].unsqueeze(-1)`); both are whole vendored model files, reduced
here to subclasses of the installed classes that override the hook alone (the head masks dropped).
Reduced: the CLIP vision tower and projector replaced by a fixed embedding prefix, no tokenizer or image loading,
head masks dropped from the model inputs, one question per call.
"""

import torch
from transformers import LlamaForCausalLM, T5ForConditionalGeneration


class CLIPT5ForConditionalGeneration(T5ForConditionalGeneration):
    def splice_images(self, input_ids, attention_mask, images):
        text_embeds = self.get_input_embeddings()(input_ids)
        inputs_embeds = torch.cat([images, text_embeds], dim=1)
        attention_mask = torch.cat([torch.ones(images.shape[:2], dtype=attention_mask.dtype), attention_mask], dim=1)
        return attention_mask, inputs_embeds

    def forward(self, input_ids=None, attention_mask=None, decoder_attention_mask=None, past_key_values=None,
                inputs_embeds=None, labels=None, use_cache=None, images=None, return_dict=None, **kwargs):
        if inputs_embeds is None and images is not None:
            attention_mask, inputs_embeds = self.splice_images(input_ids, attention_mask, images)
            input_ids = None
        return super(CLIPT5ForConditionalGeneration, self).forward(  # clean: ev_super_forward
            input_ids=input_ids,
            attention_mask=attention_mask,
            decoder_attention_mask=decoder_attention_mask,
            labels=labels,
            past_key_values=past_key_values,
            inputs_embeds=inputs_embeds,
            use_cache=use_cache,
            return_dict=return_dict,
            **kwargs,
        )

    @torch.no_grad()
    def generate(self, inputs=None, attention_mask=None, images=None, **kwargs):
        attention_mask, inputs_embeds = self.splice_images(inputs, attention_mask, images)
        return super(CLIPT5ForConditionalGeneration, self).generate(
            input_ids=None,
            attention_mask=attention_mask,
            inputs_embeds=inputs_embeds,
        )

    def prepare_inputs_for_generation(
        self,
        input_ids,
        past_key_values=None,  # site: ev_hook_past
        attention_mask=None,
        decoder_attention_mask=None,
        use_cache=None,
        encoder_outputs=None,
        inputs_embeds=None,
        **kwargs,
    ):
        if past_key_values is not None:
            past_length = past_key_values[0][0].shape[2]  # observe: ev_hook_past
            if input_ids.shape[1] > past_length:
                remove_prefix_length = past_length
            else:
                remove_prefix_length = input_ids.shape[1] - 1
            input_ids = input_ids[:, remove_prefix_length:]

        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({
            "decoder_input_ids": input_ids,
            "past_key_values": past_key_values,
            "encoder_outputs": encoder_outputs,
            "attention_mask": attention_mask,
            "decoder_attention_mask": decoder_attention_mask,
            "use_cache": use_cache,
        })
        return model_inputs


class Blip2T5ForConditionalGeneration(T5ForConditionalGeneration):
    def prepare_inputs_for_generation(
        self,
        input_ids,
        past=None,  # site: ev_blip2_t5_past
        attention_mask=None,
        use_cache=None,
        encoder_outputs=None,
        **kwargs,
    ):
        if past is not None:
            input_ids = input_ids[:, -1:]
        return {
            "decoder_input_ids": input_ids,
            "past_key_values": past,
            "encoder_outputs": encoder_outputs,
            "attention_mask": attention_mask,
            "use_cache": use_cache,
        }


class Blip2VicunaLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(
        self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs  # site: ev_vicuna_hook
    ):
        if past_key_values:  # observe: ev_vicuna_hook
            input_ids = input_ids[:, -1:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -1].unsqueeze(-1)
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({
            "position_ids": position_ids,
            "past_key_values": past_key_values,
            "use_cache": kwargs.get("use_cache"),
            "attention_mask": attention_mask,
        })
        return model_inputs


model = CLIPT5ForConditionalGeneration.from_pretrained("google/flan-t5-small").eval()
model.config.decoder_start_token_id = 0  # what flan-t5-small's config.json holds
images = torch.zeros(1, 4, model.config.d_model)
question = torch.tensor([[100, 101, 102, 1]])
answer = torch.tensor([[200, 201, 1]])


@torch.no_grad()
def vqa_score(input_ids, labels):
    model_input_kwargs = {
        "input_ids": input_ids,
        "attention_mask": input_ids.ne(0),
        "decoder_attention_mask": labels.ne(-100),
        "labels": labels,
        "images": images,
        "past_key_values": None,
        "inputs_embeds": None,
        "use_cache": None,
        "return_dict": True,
    }
    outputs = model(**model_input_kwargs)  # clean: ev_score_forward
    loss_fct = torch.nn.CrossEntropyLoss(reduction="mean")
    return (-loss_fct(outputs.logits[0], labels[0])).exp()


def probe_score():
    score = vqa_score(question, answer)
    assert 0.0 < float(score) <= 1.0


def probe_blip2_t5_caption():
    blip2_t5 = Blip2T5ForConditionalGeneration.from_pretrained("google/flan-t5-xl").eval()
    steps = []
    blip2_t5.decoder.register_forward_pre_hook(
        lambda module, args, kwargs: steps.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    out = blip2_t5.generate(input_ids=question, attention_mask=question.ne(0), max_new_tokens=4, min_new_tokens=4,
                            decoder_start_token_id=0)
    assert out.shape[1] == 5
    assert steps == [1, 1, 1, 1], f"ev_blip2_t5_past: the decoder steps ran {steps} tokens"  # observe: ev_blip2_t5_past


def probe_vicuna_caption():
    vicuna = Blip2VicunaLM.from_pretrained("lmsys/vicuna-7b-v1.1").eval()
    steps = []
    vicuna.model.register_forward_pre_hook(
        lambda module, args, kwargs: steps.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    prompt = torch.tensor([[1, 30, 31, 32, 33]])
    out = vicuna.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt), max_new_tokens=3,  # observe: ev_vicuna_hook
                          min_new_tokens=3, do_sample=False, return_dict_in_generate=True)
    assert out.past_key_values.get_seq_length() == 7, f"ev_vicuna_hook: cache holds {out.past_key_values.get_seq_length()} tokens"  # observe: ev_vicuna_hook
    assert steps == [5, 1, 1], f"ev_vicuna_hook: the steps ran {steps} tokens"  # observe: ev_vicuna_hook


def probe_caption():
    seen = []
    model.decoder.register_forward_pre_hook(
        lambda module, args, kwargs: seen.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    model.generation_config.max_new_tokens = 4
    model.generation_config.min_new_tokens = 4
    out = model.generate(inputs=question, attention_mask=question.ne(0), images=images)
    assert out.shape[1] == 5
    assert seen == [1, 1, 1, 1], f"ev_hook_past: the decoder steps ran {seen} tokens"  # observe: ev_hook_past
