"""AirLLM (lyogavin/airllm): runs 70B+ chat models on a 4 GB GPU by streaming the decoder layers from disk one at a
time. Its model class is a `GenerationMixin` of its own: `__init__` sets `self._supports_cache_class = False`,
`can_generate()` is True, and it overrides `prepare_inputs_for_generation(self, input_ids, past_key_values=None,
attention_mask=None, inputs_embeds=None, **kwargs)` in the 4.3x Llama way: when a cache is given, its length is
`get_past_key_values_cache_seq_len(past_key_values)` = `past_key_values[0][0].shape[2]` (the legacy tuple's first
layer's keys), the ids are cut to what the cache has not seen, position ids come from the attention mask's cumsum
(cut to the new ids `if past_key_values:`), and the dict hands `past_key_values` and `use_cache` on. Its forward turns
`use_cache` off whenever `transformers.cache_utils` imports ("we don't support kv cache for new version yet").

Provenance (mechanisms read; this code is written here, not copied):
- lyogavin/airllm @a451187 (2024-08-11, the last release of the 2024 design; the repository's newest commit is
  5765c2173003e0c67a43495cfcf82f1879a8e1b1, a rewrite to hook-based layer streaming)
  air_llm/airllm/airllm_base.py (`try: from transformers.cache_utils import Cache, DynamicCache;
  cache_utils_installed = True`, `AirLLMBaseModel.__init__`'s `self._supports_cache_class = False`, `can_generate`,
  `prepare_inputs_for_generation`, `get_past_key_values_cache_seq_len`, `forward`'s `if cache_utils_installed:
  use_cache = False` and its per-layer `past_key_value=(k_cache, v_cache)` branch for older releases).
Reduced: the stock Llama stands for the layer-streamed one (no safetensors shards, no per-layer loading, no
profiling), so its forward is the model's own; the per-layer tuple branch (dead code on every release with
cache_utils) is left out; CPU, greedy.
"""

import torch
from transformers import AutoTokenizer, LlamaForCausalLM

try:
    from transformers.cache_utils import Cache, DynamicCache  # noqa: F401

    cache_utils_installed = True
except ImportError:
    cache_utils_installed = False


class AirLLMLlama(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self._supports_cache_class = False  # clean: al_supports_flag

    def can_generate(self):
        return True

    def get_past_key_values_cache_seq_len(self, past_key_values):
        return past_key_values[0][0].shape[2]  # site: al_cache_len

    def prepare_inputs_for_generation(
        self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs
    ):
        if past_key_values is not None:  # clean: al_cache_given
            past_length = self.get_past_key_values_cache_seq_len(past_key_values)
            if input_ids.shape[1] > past_length:
                remove_prefix_length = past_length
            else:
                remove_prefix_length = input_ids.shape[1] - 1
            input_ids = input_ids[:, remove_prefix_length:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -input_ids.shape[1]:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({
            "position_ids": position_ids,
            "past_key_values": past_key_values,  # clean: al_hand_on
            "use_cache": kwargs.get("use_cache"),
            "attention_mask": attention_mask,
        })
        return model_inputs

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None, use_cache=None,
                **kwargs):
        if cache_utils_installed:
            use_cache = False  # clean: al_no_cache
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               past_key_values=past_key_values, use_cache=use_cache, **kwargs)


model = AirLLMLlama.from_pretrained("garage-bAInd/Platypus2-70B-instruct", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("garage-bAInd/Platypus2-70B-instruct")


def probe_layered_generate():
    inputs = tokenizer("what is the capital of united states", return_tensors="pt")
    out = model.generate(**inputs, max_new_tokens=3, min_new_tokens=3, use_cache=True)
    assert out.shape[1] == inputs["input_ids"].shape[1] + 3


def probe_forward_without_cache():
    inputs = tokenizer("what is the capital of united states", return_tensors="pt")
    out = model(**inputs, use_cache=True)
    assert out.logits.shape[1] == inputs["input_ids"].shape[1]
    assert not out.past_key_values



def probe_prefill_inputs():
    inputs = tokenizer("what is the capital", return_tensors="pt")
    got = model.prepare_inputs_for_generation(inputs["input_ids"], attention_mask=inputs["attention_mask"])
    assert got["past_key_values"] is None and got["position_ids"].shape == inputs["input_ids"].shape
