"""HELMET's Hugging Face model for long-context evaluation: to save memory on long prompts it prefills every token but
the last through the inner model (`self.model.model(...)`, no logits), and hands the returned cache to `generate`
inside the `BatchEncoding` with the full input ids and mask; a missing cache disables prefilling, Gemma models
disable it up front, and a Jamba model gets its own `HybridMambaAttentionDynamicCache` imported from the Jamba
modeling module before the prefill. The answer is decoded from `outputs['sequences']` after the input length.

Provenance (mechanisms read; this code is written here, not copied):
- princeton-nlp/HELMET @4526dfbdc512bd9ff721da336bff4e3e75ecfd27
  model_utils.py (`HFModel.__init__`: `AutoConfig.from_pretrained`, `AutoModelForCausalLM.from_pretrained(model_name,
  config=config, ...)`, `stop_token_ids` from `self.model.generation_config.eos_token_id`, `self.disable_prefill =
  False`, `if "gemma" in model_name.lower(): self.disable_prefill = True`; `HFModel.generate`: `if hasattr(self.model,
  "model") and not self.disable_prefill:`, `if "jamba" in str(type(self.model)).lower(): from
  transformers.models.jamba.modeling_jamba import HybridMambaAttentionDynamicCache; cache =
  HybridMambaAttentionDynamicCache(self.model.config, inputs.input_ids.shape[0], self.model.dtype, device=...)`,
  `prefill = self.model.model(input_ids=inputs.input_ids[..., :-1], attention_mask=inputs.attention_mask[..., :-1],
  **extra)`, `past_key_values = prefill.past_key_values`, `if past_key_values is None: self.disable_prefill = True`,
  `inputs = BatchEncoding({"input_ids": ..., "attention_mask": ..., "past_key_values": past_key_values})`,
  `self.model.generate(**inputs, max_new_tokens=..., min_new_tokens=..., do_sample=..., eos_token_id=...,
  pad_token_id=..., return_dict_in_generate=True, output_scores=False)`, `outputs['sequences'][0, input_len:]`).
Reduced: no chat template, truncation or stop-newline tokens, no torch.compile or flash attention; the Jamba
import kept in its own helper (the probe reaches the import without building a Jamba cache for a Llama config).
"""

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, BatchEncoding


def _jamba_cache_class():
    from transformers.models.jamba.modeling_jamba import HybridMambaAttentionDynamicCache  # site: hm_jamba_cache

    return HybridMambaAttentionDynamicCache


class HFModel:
    def __init__(self, model_name, generation_max_length=6, generation_min_length=6, do_sample=False):
        self.tokenizer = AutoTokenizer.from_pretrained(model_name, trust_remote_code=True)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.tokenizer.padding_side = "left"
        config = AutoConfig.from_pretrained(model_name, trust_remote_code=True)
        self.model = AutoModelForCausalLM.from_pretrained(model_name, config=config, trust_remote_code=True)
        self.generation_max_length = generation_max_length
        self.generation_min_length = generation_min_length
        self.do_sample = do_sample
        stop_token_ids = self.model.generation_config.eos_token_id
        self.stop_token_ids = [stop_token_ids] if not isinstance(stop_token_ids, list) else stop_token_ids
        self.disable_prefill = False
        if "gemma" in model_name.lower():
            self.disable_prefill = True  # clean: hm_gemma_disable
        self.last_prefill = None

    @torch.no_grad()
    def generate(self, prompt):
        inputs = self.tokenizer([prompt], return_tensors="pt", padding=True)
        input_len = inputs.input_ids.size(1)
        if hasattr(self.model, "model") and not self.disable_prefill:
            extra = {}
            if "jamba" in str(type(self.model)).lower():
                cache = _jamba_cache_class()(self.model.config, inputs.input_ids.shape[0], self.model.dtype)
                extra = {"past_key_values": cache}
            prefill = self.model.model(  # clean: hm_inner_prefill
                input_ids=inputs.input_ids[..., :-1], attention_mask=inputs.attention_mask[..., :-1], **extra
            )
            past_key_values = prefill.past_key_values  # clean: hm_prefill_cache
            if past_key_values is None:
                self.disable_prefill = True
            else:
                self.last_prefill = past_key_values.get_seq_length()  # clean: hm_prefill_length
                inputs = BatchEncoding({"input_ids": inputs.input_ids, "attention_mask": inputs.attention_mask,
                                        "past_key_values": past_key_values})
        outputs = self.model.generate(  # clean: hm_generate_prefilled
            **inputs,
            max_new_tokens=self.generation_max_length,
            min_new_tokens=self.generation_min_length,
            do_sample=self.do_sample,
            eos_token_id=self.stop_token_ids,
            pad_token_id=self.tokenizer.pad_token_id,
            return_dict_in_generate=True,
            output_scores=False,
        )
        text = self.tokenizer.decode(outputs["sequences"][0, input_len:], skip_special_tokens=True)
        return {"output": text, "input_len": input_len, "output_len": outputs["sequences"].size(1) - input_len}


llama = HFModel("meta-llama/Llama-3.1-8B-Instruct")
gemma = HFModel("google/gemma-2-9b-it")


def probe_prefilled():
    result = llama.generate("the quick brown fox jumps over the lazy dog")
    assert result["output_len"] == 6 and llama.last_prefill == result["input_len"] - 1


def probe_gemma_no_prefill():
    result = gemma.generate("the quick brown fox jumps over the lazy dog")
    assert result["output_len"] == 6 and gemma.last_prefill is None


def probe_jamba_cache():
    assert _jamba_cache_class() is not None
