"""Chinese-Vicuna (Facico/Chinese-Vicuna), LoRA instruction-tuned LLaMA with a Gradio chat/serving front end. Its
inference helpers stream tokens to the web UI: `StreamGenerationMixin` re-implements generate's greedy and beam loops
as generators (`stream_greedy_search`, `stream_beam_search`) that call the model's own
`prepare_inputs_for_generation(input_ids, **model_kwargs)`, run `self(**model_inputs, return_dict=True)`, advance
`model_kwargs` with `self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=...)` and,
for beams, reorder `model_kwargs["past_key_values"]` with `self._reorder_cache(past, beam_idx)`;
`StreamPeftGenerationMixin.from_pretrained` wraps the base model and copies `model.base_model._reorder_cache` onto the
wrapper. The bundled Alpaca-LoRA-Serve tool streams with basaran's `StreamModel`, which re-runs
`prepare_inputs_for_generation` on the whole sequence at each step without carrying a cache, and the non-streaming
path is a plain `model.generate(generation_config=GenerationConfig(...), return_dict_in_generate=True)`.

Provenance (mechanisms read; this code is written here, not copied):
- Facico/Chinese-Vicuna @3b2a66aa9a5478ed830624766d078ffe7e0edc24 utils.py (StreamGenerationMixin.stream_generate,
  stream_greedy_search, stream_beam_search; StreamLlamaForCausalLM; StreamPeftGenerationMixin.from_pretrained),
  @fb1d477a288429994ce2bc2ef469cefc3b02afde tools/Alpaca-LoRA-Serve/gen.py (StreamModel.generate, get_output_batch),
  @f9bd3ffd4101eaf4e874c5a6d18b2ad4a03a9a24 generate.py (evaluate: GenerationConfig + generate).
Reduced: a tiny Llama from a config; no peft (the LoRA wrapper is a plain module holding `base_model`), no deepspeed
or accelerate hooks; the beam loop keeps its cache bookkeeping and replaces `BeamSearchScorer` by a top-k over the
beams (the scorer is not what this code does to the cache); the logits processors are built by hand. StreamModel
also set `output_attentions`/`output_hidden_states` in the kwargs it hands to `prepare_inputs_for_generation`, which
today's hook passes through, so the forward call receives them twice (a TypeError on every release, nothing to do
with the cache): left out here.
"""

import copy

import torch
from transformers import (GenerationConfig, LlamaConfig, LlamaForCausalLM, LogitsProcessorList,
                          MinNewTokensLengthLogitsProcessor, TemperatureLogitsWarper, TopPLogitsWarper)
from transformers.generation.utils import GenerationMixin

CONFIG = LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, pad_token_id=0)


class StreamGenerationMixin(GenerationMixin):
    @torch.no_grad()
    def stream_greedy_search(self, input_ids, logits_processor, max_new_tokens, **model_kwargs):
        for _ in range(max_new_tokens):
            model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)  # site: cv_greedy_prepare
            outputs = self(**model_inputs, return_dict=True)
            next_tokens_scores = logits_processor(input_ids, outputs.logits[:, -1, :])
            next_tokens = torch.argmax(next_tokens_scores, dim=-1)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
            model_kwargs = self._update_model_kwargs_for_generation(  # observe: cv_greedy_prepare
                outputs, model_kwargs, is_encoder_decoder=self.config.is_encoder_decoder
            )
            yield input_ids

    @torch.no_grad()
    def stream_beam_search(self, input_ids, num_beams, max_new_tokens, **model_kwargs):
        batch_size = input_ids.shape[0]
        input_ids = input_ids.repeat_interleave(num_beams, dim=0)
        model_kwargs["attention_mask"] = model_kwargs["attention_mask"].repeat_interleave(num_beams, dim=0)
        beam_scores = torch.zeros((batch_size, num_beams), dtype=torch.float)
        beam_scores[:, 1:] = -1e9
        beam_scores = beam_scores.view((batch_size * num_beams,))
        for _ in range(max_new_tokens):
            model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)
            outputs = self(**model_inputs, return_dict=True, output_attentions=False, output_hidden_states=False)
            next_token_scores = torch.log_softmax(outputs.logits[:, -1, :], dim=-1) + beam_scores[:, None]
            vocab_size = next_token_scores.shape[-1]
            next_token_scores = next_token_scores.view(batch_size, num_beams * vocab_size)
            top_scores, top_tokens = torch.topk(next_token_scores, num_beams, dim=1, largest=True, sorted=True)
            beam_idx = (torch.div(top_tokens, vocab_size, rounding_mode="floor")
                        + torch.arange(batch_size)[:, None] * num_beams).view(-1)
            beam_scores = top_scores.view(-1)
            input_ids = torch.cat([input_ids[beam_idx, :], (top_tokens % vocab_size).view(-1, 1)], dim=-1)
            model_kwargs = self._update_model_kwargs_for_generation(  # observe: cv_beam_reorder
                outputs, model_kwargs, is_encoder_decoder=self.config.is_encoder_decoder
            )
            if model_kwargs["past_key_values"] is not None:  # observe: cv_beam_reorder
                model_kwargs["past_key_values"] = self._reorder_cache(model_kwargs["past_key_values"], beam_idx)  # site: cv_beam_reorder
            yield input_ids


class StreamLlamaForCausalLM(LlamaForCausalLM, StreamGenerationMixin):
    pass


class StreamPeftModel(torch.nn.Module):
    """The LoRA wrapper the web UI loads (PeftModelForCausalLM + StreamGenerationMixin in the original)."""

    def __init__(self, model, lora_config):
        super().__init__()
        self.base_model = model
        self.peft_config = lora_config

    @classmethod
    def from_pretrained(cls, model, model_id):
        lora_config = {"r": 8, "lora_alpha": 16, "target_modules": ["q_proj", "v_proj"], "model_id": model_id}
        model = cls(model, lora_config)
        model._reorder_cache = model.base_model._reorder_cache  # site: cv_reorder_alias
        return model


class StreamModel:
    """basaran's StreamModel, as vendored by Alpaca-LoRA-Serve: stream decoding without a carried cache."""

    def __init__(self, model):
        self.model = model

    def generate(self, input_ids, **kwargs):
        input_length = input_ids.shape[-1]
        config = copy.deepcopy(self.model.generation_config)
        kwargs = config.update(**kwargs)
        kwargs["use_cache"] = True
        processor = LogitsProcessorList()
        if config.min_new_tokens is not None and config.min_new_tokens > 0 and config.eos_token_id is not None:
            processor.append(MinNewTokensLengthLogitsProcessor(prompt_length_to_skip=input_length,
                                                               min_new_tokens=config.min_new_tokens,
                                                               eos_token_id=config.eos_token_id))
        if config.temperature is not None and config.temperature > 0 and config.temperature != 1.0:
            processor.append(TemperatureLogitsWarper(config.temperature))
        if config.top_p is not None and 0 < config.top_p < 1:
            processor.append(TopPLogitsWarper(config.top_p))
        while True:
            inputs = self.model.prepare_inputs_for_generation(input_ids, **kwargs)  # clean: cv_serve_prepare
            with torch.inference_mode():
                outputs = self.model(**inputs, return_dict=True, output_attentions=False, output_hidden_states=False)
                logits = processor(input_ids, outputs.logits[:, -1, :])
            if (config.top_p is not None and config.top_p <= 0) or (config.temperature is not None
                                                                     and config.temperature <= 0):
                tokens = torch.argmax(logits, dim=-1)[:, None]
            else:
                tokens = torch.multinomial(torch.softmax(logits, dim=-1), num_samples=1)
            input_ids = torch.cat([input_ids, tokens], dim=-1)
            yield tokens.squeeze(1)
            if input_ids.shape[-1] - input_length >= config.max_new_tokens:
                break


def evaluate(model, input_ids, max_new_tokens=8, num_beams=4):
    generation_config = GenerationConfig(temperature=0.1, top_p=0.75, top_k=40, num_beams=num_beams, bos_token_id=1,
                                         eos_token_id=2, pad_token_id=0, max_new_tokens=max_new_tokens,
                                         min_new_tokens=max_new_tokens)
    with torch.no_grad():
        generation_output = model.generate(  # clean: cv_generate
            input_ids=input_ids,
            generation_config=generation_config,
            return_dict_in_generate=True,
            output_scores=False,
            repetition_penalty=1.3,
        )
    return generation_output.sequences


torch.manual_seed(0)
model = StreamLlamaForCausalLM(CONFIG).eval()
PROMPT = torch.tensor([[1, 37, 52, 90, 11]])


def forward_lengths(m):
    seen = []
    m.register_forward_pre_hook(lambda mod, args, kwargs: seen.append(kwargs["input_ids"].shape[1]),
                                with_kwargs=True)
    return seen


def probe_stream_greedy():
    seen = forward_lengths(model)
    steps = list(model.stream_greedy_search(PROMPT, LogitsProcessorList(), 4,
                                            attention_mask=torch.ones_like(PROMPT)))
    assert steps[-1].shape == (1, 9)
    assert seen == [5, 1, 1, 1], f"cv_greedy_prepare: each step re-fed the sequence into the cache: {seen}"  # observe: cv_greedy_prepare


def probe_stream_beam():
    steps = list(model.stream_beam_search(PROMPT, 2, 3, attention_mask=torch.ones_like(PROMPT)))
    assert steps[-1].shape == (2, 8)


def probe_lora_wrapper():
    wrapped = StreamPeftModel.from_pretrained(model, "lora-Vicuna/checkpoint-final")
    assert wrapped.base_model is model


def probe_serve_stream():
    streamer = StreamModel(model)
    tokens = torch.stack(list(streamer.generate(PROMPT, min_new_tokens=4, max_new_tokens=4, top_p=0)), dim=1)
    assert tokens.shape == (1, 4)


def probe_evaluate():
    out = evaluate(model, PROMPT, max_new_tokens=6, num_beams=4)
    assert out.shape == (1, 11)
