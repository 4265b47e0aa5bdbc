"""Functionary (MeetKai/functionary): a function-calling chat model and its OpenAI-compatible server. Its plain
transformers backend streams a reply token by token with a loop of its own: `past_key_values = None`, at step 0 a
prefill `model(input_ids, use_cache=True)`, afterwards `model(input_ids=token_ts, use_cache=True,
past_key_values=past_key_values)` with only the last token, `past_key_values = out.past_key_values` after every step,
the warpers of a `LogitsProcessorList` applied by hand, the text delta yielded per token, and at the end `del
past_key_values, out` to free the cache.

Provenance (mechanisms read; this code is written here, not copied):
- MeetKai/functionary @e240e8c54684718aa9357ccf9d59ff035a6ff351 (2026-06-30; functionary/inference_stream.py last
  changed at 3323257, 2024-08-07)
  functionary/inference_stream.py (`prepare_logits_processor(temperature, repetition_penalty, top_p, top_k)`:
  `TemperatureLogitsWarper`, `TopPLogitsWarper`, `TopKLogitsWarper` in a `LogitsProcessorList`;
  `generate_text_stream`: the prefill / decode branches on `i == 0`, `past_key_values = out.past_key_values`, the greedy
  `torch.topk(last_token_logits, 2)`, the decode-diff of the text, the stop-token check, `del past_key_values, out`).
- the same commit, functionary/train_vision/models/modeling_llava.py (`FixedLlavaLlamaForCausalLM`, a subclass of
  LLaVA's `LlavaLlamaForCausalLM`: `prepare_inputs_labels_for_multimodal(self, input_ids, position_ids,
  attention_mask, past_key_values, labels, images, image_sizes=None)` returning its inputs unchanged when there is no
  vision tower or image or `input_ids.shape[1] == 1`; `forward(self, input_ids=None, attention_mask=None,
  position_ids=None, past_key_values=None, inputs_embeds=None, labels=None, use_cache=None, output_attentions=None,
  output_hidden_states=None, images=None, image_sizes=None, return_dict=None, cache_position=None)` with no
  `**kwargs`, calling `super().forward(...)` without `cache_position`).
Reduced: no chat template, functions or tools in the prompt (functionary.inference's prompt templates are not about the
cache), greedy only, no repetition penalty, CPU, the stream collected into a list by the probe;
the vision model is a Llama subclass without a vision tower (the image merging is not about the cache), and its
forward's replacement of `logits` by a dict (for its training metrics) is left out.
"""

import gc

import torch
from transformers import AutoTokenizer, LlamaForCausalLM
from transformers.generation.logits_process import LogitsProcessorList, TopKLogitsWarper


def prepare_logits_processor(top_k):
    processor_list = LogitsProcessorList()
    if top_k > 0:
        processor_list.append(TopKLogitsWarper(top_k))
    return processor_list


def generate_text_stream(*, model, tokenizer, prompt, max_new_tokens=256, stop_token_ids=()):
    device = model.device
    logits_processor = prepare_logits_processor(top_k=5)
    input_ids = tokenizer(prompt, return_tensors="pt").input_ids
    output_ids = input_ids.clone().detach()
    past_key_values = None  # clean: fn_no_cache_yet
    token_ts = None
    for i in range(max_new_tokens):
        if i == 0:
            out = model(input_ids, use_cache=True)  # clean: fn_prefill
        else:
            out = model(input_ids=token_ts, use_cache=True, past_key_values=past_key_values)  # clean: fn_decode_step
        logits = out.logits
        past_key_values = out.past_key_values  # clean: fn_keep_cache
        last_token_logits = logits_processor(output_ids, logits[:, -1, :])[0]
        token_int = int(torch.topk(last_token_logits, 2).indices[0])
        token_ts = torch.as_tensor([[token_int]], device=device)
        current = tokenizer.decode(output_ids[0].tolist(), skip_special_tokens=False)
        output_ids = torch.cat((output_ids, token_ts), 1)
        yield tokenizer.decode(output_ids[0].tolist(), skip_special_tokens=False)[len(current):], past_key_values
        if token_int in stop_token_ids:
            break
    del past_key_values, out  # clean: fn_free_cache
    gc.collect()


class FixedLlavaLlamaForCausalLM(LlamaForCausalLM):
    def get_vision_tower(self):
        return None

    def prepare_inputs_labels_for_multimodal(
        self, input_ids, position_ids, attention_mask, past_key_values, labels, images, image_sizes=None
    ):
        vision_tower = self.get_vision_tower()
        if vision_tower is None or images is None or input_ids.shape[1] == 1:
            return input_ids, position_ids, attention_mask, past_key_values, None, labels  # clean: fn_mm_passthrough
        raise NotImplementedError("image merging")

    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        position_ids=None,
        past_key_values=None,  # site: fn_llava_forward_cache
        inputs_embeds=None,
        labels=None,
        use_cache=None,
        output_attentions=None,
        output_hidden_states=None,
        images=None,
        image_sizes=None,
        return_dict=None,
        cache_position=None,
    ):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds,
             labels) = self.prepare_inputs_labels_for_multimodal(
                input_ids, position_ids, attention_mask, past_key_values, labels, images, image_sizes)
        return super().forward(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=past_key_values,  # clean: fn_llava_pass_cache
            inputs_embeds=inputs_embeds,
            labels=labels,
            use_cache=use_cache,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            return_dict=return_dict,
        )


vision_model = FixedLlavaLlamaForCausalLM.from_pretrained("meetkai/functionary-vision", torch_dtype=torch.float32).eval()
model = LlamaForCausalLM.from_pretrained("meetkai/functionary-small-v3.2", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("meetkai/functionary-small-v3.2")


@torch.no_grad()
def probe_stream():
    prompt = "what is the weather in paris today"
    n_prompt = tokenizer(prompt, return_tensors="pt").input_ids.shape[1]
    seen = [cache.get_seq_length() for _, cache in generate_text_stream(
        model=model, tokenizer=tokenizer, prompt=prompt, max_new_tokens=3)]
    assert seen == [n_prompt, n_prompt + 1, n_prompt + 2], seen


def probe_vision_train_forward():
    ids = tokenizer("describe the chart", return_tensors="pt").input_ids
    out = vision_model(input_ids=ids, labels=ids, images=None)
    assert out.loss is not None and out.logits.shape[1] == ids.shape[1]


@torch.no_grad()
def probe_vision_generate():
    inputs = tokenizer("describe the chart", return_tensors="pt")
    lengths = []
    vision_model.model.register_forward_hook(lambda m, args, kwargs, out: lengths.append(
        kwargs["input_ids"].shape[1] if kwargs.get("input_ids") is not None else kwargs["inputs_embeds"].shape[1]),
        with_kwargs=True)
    out = vision_model.generate(**inputs, max_new_tokens=3, min_new_tokens=3)  # observe: fn_llava_forward_cache
    assert out.shape[1] == inputs["input_ids"].shape[1] + 3
    assert lengths[1:] == [1, 1], f"fn_llava_forward_cache: the decode steps re-ran the sequence ({lengths})"  # observe: fn_llava_forward_cache
