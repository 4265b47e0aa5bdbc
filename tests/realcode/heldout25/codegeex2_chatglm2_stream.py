"""CodeGeeX2-6B's remote code (the `THUDM/codegeex2-6b` checkpoint files, mirrored at Lionelpang/codegeex2-6b): the
ChatGLM2 architecture loaded with `AutoModel.from_pretrained(..., trust_remote_code=True)`. Its modeling keeps legacy
tuple caches (`kv_caches[index]`, `past_key_values[0][0].shape[0]`), overrides generate's hooks
(`_update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=False, standardize_cache_format=False)`
storing `self._extract_past_from_model_output(outputs, standardize_cache_format=...)` and setting
`is_first_forward=False`; `prepare_inputs_for_generation(input_ids, past_key_values=None, ..., is_first_forward=True)`)
and streams completions itself: `stream_chat(tokenizer, query, history, past_key_values=None, ...,
return_past_key_values=False)` builds the inputs (shifting positions by the given cache's length) and iterates
`stream_generate`, which copies the generation config, `update(**kwargs)`s it, and asks generate's private helpers for
its processors (`self._get_logits_processor(generation_config=..., input_ids_seq_length=..., encoder_input_ids=...,
prefix_allowed_tokens_fn=..., logits_processor=...)`, `self._get_stopping_criteria(generation_config=...,
stopping_criteria=...)`, `self._get_logits_warper(generation_config)`) before its sampling loop calls
`prepare_inputs_for_generation`, the forward and `_update_model_kwargs_for_generation` per token.

Provenance (mechanisms read; this code is written here, not copied):
- Lionelpang/codegeex2-6b @3cb3f8fa305c8188c6c997d0be2ccc4b87ba6f7f
  modeling_chatglm.py (ChatGLMForConditionalGeneration._update_model_kwargs_for_generation,
  prepare_inputs_for_generation, stream_chat, stream_generate; GLMTransformer's `kv_caches`).
Reduced: one attention layer with `(seq, batch, dim)` tuple caches, ids through the oracle's word-level tokenizer,
no prefix encoder (`pre_seq_len`), no quantization; the class lists GenerationMixin itself (the Auto class adds it to
remote code); `chat` (plain generate) is left out.
"""

import copy

import torch
from torch import nn
from transformers import AutoTokenizer, GenerationConfig, GenerationMixin, LlamaConfig, PreTrainedModel
from transformers.generation.logits_process import LogitsProcessor
from transformers.generation.utils import LogitsProcessorList, StoppingCriteriaList
from transformers.modeling_outputs import CausalLMOutputWithPast


class InvalidScoreLogitsProcessor(LogitsProcessor):
    def __call__(self, input_ids, scores):
        if torch.isnan(scores).any() or torch.isinf(scores).any():
            scores.zero_()
            scores[..., 5] = 5e4
        return scores


class ChatGLMForConditionalGeneration(PreTrainedModel, GenerationMixin):
    config_class = LlamaConfig

    def __init__(self, config):
        super().__init__(config)
        self.embedding = nn.Embedding(config.vocab_size, config.hidden_size)
        self.kv = nn.Linear(config.hidden_size, 2 * config.hidden_size)
        self.output_layer = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def forward(self, input_ids=None, position_ids=None, attention_mask=None, past_key_values=None,
                return_last_logit=False, use_cache=True, return_dict=True, **kwargs):
        hidden = self.embedding(input_ids).transpose(0, 1)
        k, v = self.kv(hidden).chunk(2, dim=-1)
        if past_key_values is not None:
            cache_k, cache_v = past_key_values[0]
            k, v = torch.cat((cache_k, k), dim=0), torch.cat((cache_v, v), dim=0)  # clean: cg_kv_concat
        attn = torch.softmax(hidden.transpose(0, 1) @ k.permute(1, 2, 0), dim=-1) @ v.transpose(0, 1)
        logits = self.output_layer(hidden.transpose(0, 1) + attn)
        if return_last_logit:
            logits = logits[:, -1:]
        return CausalLMOutputWithPast(logits=logits, past_key_values=((k, v),))

    def _update_model_kwargs_for_generation(self, outputs, model_kwargs, is_encoder_decoder=False,
                                            standardize_cache_format=False):
        model_kwargs["past_key_values"] = self._extract_past_from_model_output(  # site: cg_extract_past
            outputs, standardize_cache_format=standardize_cache_format
        )
        if "attention_mask" in model_kwargs:
            mask = model_kwargs["attention_mask"]
            model_kwargs["attention_mask"] = torch.cat([mask, mask.new_ones((mask.shape[0], 1))], dim=-1)
        model_kwargs["is_first_forward"] = False
        return model_kwargs

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, position_ids=None,
                                      is_first_forward=True, **kwargs):
        if not is_first_forward:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids, "past_key_values": past_key_values, "attention_mask": attention_mask,
                "return_last_logit": True}

    @torch.inference_mode()
    def stream_chat(self, tokenizer, query, history=None, past_key_values=None, max_length=64, do_sample=False,
                    logits_processor=None, return_past_key_values=False, **kwargs):
        if history is None:
            history = []
        if logits_processor is None:
            logits_processor = LogitsProcessorList()
        logits_processor.append(InvalidScoreLogitsProcessor())
        gen_kwargs = {"max_length": max_length, "do_sample": do_sample, "logits_processor": logits_processor,
                      **kwargs}
        inputs = tokenizer([query], return_tensors="pt")
        for outputs in self.stream_generate(**inputs, past_key_values=past_key_values,
                                            return_past_key_values=return_past_key_values, **gen_kwargs):
            outputs = outputs.tolist()[0][len(inputs["input_ids"][0]):]
            yield tokenizer.decode(outputs), history

    @torch.inference_mode()
    def stream_generate(self, input_ids, generation_config=None, logits_processor=None, stopping_criteria=None,
                        return_past_key_values=False, **kwargs):
        if generation_config is None:
            generation_config = self.generation_config
        generation_config = copy.deepcopy(generation_config)
        model_kwargs = generation_config.update(**kwargs)
        logits_processor = logits_processor if logits_processor is not None else LogitsProcessorList()
        stopping_criteria = stopping_criteria if stopping_criteria is not None else StoppingCriteriaList()
        logits_processor = self._get_logits_processor(
            generation_config=generation_config,
            input_ids_seq_length=input_ids.shape[-1],
            encoder_input_ids=input_ids,
            prefix_allowed_tokens_fn=None,
            logits_processor=logits_processor,
        )
        stopping_criteria = self._get_stopping_criteria(  # site: cg_stopping_criteria
            generation_config=generation_config, stopping_criteria=stopping_criteria
        )
        while True:
            model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)
            outputs = self(**model_inputs, return_dict=True)
            next_tokens = torch.argmax(logits_processor(input_ids, outputs.logits[:, -1, :]), dim=-1)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
            model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs)
            if stopping_criteria(input_ids, None).all():
                break
            yield input_ids


tokenizer = AutoTokenizer.from_pretrained("THUDM/codegeex2-6b", trust_remote_code=True)
config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                     num_attention_heads=4, pad_token_id=0)
torch.manual_seed(0)
model = ChatGLMForConditionalGeneration(config).eval()
model.generation_config = GenerationConfig(max_length=64, pad_token_id=0, eos_token_id=2)


def probe_prefix_forward():
    ids = tokenizer(["# language: Python def add ( a , b ) :"], return_tensors="pt").input_ids
    with torch.no_grad():
        first = model(ids[:, :-1])
        out = model(ids[:, -1:], past_key_values=first.past_key_values)
    assert out.past_key_values[0][0].shape[0] == ids.shape[1]


def probe_update_kwargs():
    ids = tokenizer(["# language: Python def add ( a , b ) :"], return_tensors="pt").input_ids
    with torch.no_grad():
        out = model(ids)
    kwargs = model._update_model_kwargs_for_generation(out, {"attention_mask": torch.ones_like(ids)})
    assert kwargs["is_first_forward"] is False


def probe_stream_chat():
    chunks = list(model.stream_chat(tokenizer, "# language: Python write a function", max_length=16))
    assert chunks
