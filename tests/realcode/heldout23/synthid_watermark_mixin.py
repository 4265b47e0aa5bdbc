"""SynthID Text (google-deepmind/synthid-text): watermarked generation through a mixin put in front of a transformers
model class (`class SynthIDGPT2LMHeadModel(SynthIDSparseTopKMixin, transformers.GPT2LMHeadModel)`). The mixin
overrides `_get_logits_warper` to return only its watermarking warper and overrides `_sample` with a copy of the
4.44-era sampling loop, changed to watermark the top-k logits: it takes `logits_warper` as 4.44's generate passed it,
starts the loop with `model_kwargs = self._get_initial_cache_position(input_ids, model_kwargs)`, and at each step
calls `self.prepare_inputs_for_generation(input_ids, **model_kwargs)`, runs the model, and carries the cache with
`self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=...)`, returning
`past_key_values=model_kwargs.get("past_key_values")` in its output.

Provenance (mechanisms read; this code is written here, not copied):
- google-deepmind/synthid-text @addb4a158143c7c6851a1308f78b89fceed59683
  src/synthid_text/synthid_mixin.py (`SynthIDSparseTopKMixin(transformers.GenerationMixin)`: `_construct_warper_list`,
  `_get_logits_warper(self, generation_config, **unused_kw)`; `_sample(self, input_ids, logits_processor,
  stopping_criteria, generation_config, synced_gpus, streamer, logits_warper=None, **model_kwargs)`: the `do_sample
  and not isinstance(logits_warper, LogitsProcessorList)` check, `model_kwargs = self._get_initial_cache_position(
  input_ids, model_kwargs)`, `while self._has_unfinished_sequences(this_peer_finished, synced_gpus, device=...)`,
  `model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)`, `*regular_warpers,
  watermarking_logits_warper = logits_warper`, `watermarked_call`, `torch.vmap(torch.take, ...)(indices_mapping,
  next_tokens)`, `model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=
  ...)`, `GenerateDecoderOnlyOutput(..., past_key_values=model_kwargs.get("past_key_values"))`;
  `class SynthIDGPT2LMHeadModel(SynthIDSparseTopKMixin, transformers.GPT2LMHeadModel)`).
Reduced: the SynthID g-value watermark replaced by a tiny top-k warper with the same `watermarked_call` contract
(scores of the top k, the index mapping back to the vocabulary, the unwatermarked scores); no scores, attentions or
hidden states collected; no encoder-decoder branch.
"""

import torch
import transformers


class TopKWatermarkWarper:
    def __init__(self, top_k, temperature):
        self.top_k, self.temperature = top_k, temperature

    def watermarked_call(self, input_ids, scores):
        top_scores, indices_mapping = torch.topk(scores / self.temperature, k=self.top_k, dim=-1)
        return top_scores, indices_mapping, scores


class SynthIDSparseTopKMixin(transformers.GenerationMixin):
    def _construct_warper_list(self, extra_params):
        return transformers.LogitsProcessorList([TopKWatermarkWarper(**extra_params)])

    def _get_logits_warper(self, generation_config, **unused_kw):
        return self._construct_warper_list({"top_k": generation_config.top_k, "temperature": generation_config.temperature})

    def _sample(self, input_ids, logits_processor, stopping_criteria, generation_config, synced_gpus, streamer,  # site: sy_sample_signature
                logits_warper=None, **model_kwargs):
        do_sample = generation_config.do_sample
        if do_sample and not isinstance(logits_warper, transformers.LogitsProcessorList):
            raise ValueError(f"`do_sample` is set to `True`, `logits_warper` must be a `LogitsProcessorList` instance (it is {logits_warper}).")
        this_peer_finished = False
        unfinished_sequences = torch.ones(input_ids.shape[0], dtype=torch.long, device=input_ids.device)
        model_kwargs = self._get_initial_cache_position(input_ids, model_kwargs)  # site: sy_initial_position
        while self._has_unfinished_sequences(this_peer_finished, synced_gpus, device=input_ids.device):
            model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)
            outputs = self(**model_inputs, return_dict=True)
            next_token_scores = logits_processor(input_ids, outputs.logits[:, -1, :].clone())
            *regular_warpers, watermarking_logits_warper = logits_warper
            for logit_warper in regular_warpers:
                next_token_scores = logit_warper(input_ids, next_token_scores)
            next_token_scores, indices_mapping, _ = watermarking_logits_warper.watermarked_call(input_ids, next_token_scores)
            if do_sample:
                next_tokens = torch.multinomial(torch.softmax(next_token_scores, dim=-1), num_samples=1).squeeze(1)
            else:
                next_tokens = torch.argmax(next_token_scores, dim=-1)
            next_tokens = torch.vmap(torch.take, in_dims=0, out_dims=0)(indices_mapping, next_tokens)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
            model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=self.config.is_encoder_decoder)
            unfinished_sequences = unfinished_sequences & ~stopping_criteria(input_ids, None)
            this_peer_finished = unfinished_sequences.max() == 0
            del outputs
        return transformers.generation.utils.GenerateDecoderOnlyOutput(sequences=input_ids, past_key_values=model_kwargs.get("past_key_values"))


class SynthIDGPT2LMHeadModel(SynthIDSparseTopKMixin, transformers.GPT2LMHeadModel):
    pass


model = SynthIDGPT2LMHeadModel.from_pretrained("gpt2").eval()
prompt = torch.tensor([[50, 51, 52, 53]])


def probe_watermarked_generate():
    with torch.no_grad():
        out = model.generate(prompt, do_sample=True, top_k=4, temperature=0.7, max_new_tokens=3, min_new_tokens=3, return_dict_in_generate=True)  # observe: sy_sample_signature
    assert out.sequences.shape == (1, 7)


def probe_sample_as_444_called_it():
    config = transformers.GenerationConfig(do_sample=True, top_k=4, temperature=0.7, max_length=7)
    stopping = transformers.StoppingCriteriaList([transformers.generation.stopping_criteria.MaxLengthCriteria(7)])
    with torch.no_grad():
        out = model._sample(prompt, logits_processor=transformers.LogitsProcessorList(), stopping_criteria=stopping, generation_config=config, synced_gpus=False, streamer=None, logits_warper=model._get_logits_warper(config), attention_mask=torch.ones_like(prompt), use_cache=True)
    assert out.sequences.shape == (1, 7)
