"""text-generation-webui's ExLlamaV3 loader behind transformers' `generate`: `Exllamav3HF(PreTrainedModel,
GenerationMixin)` wraps a non-transformers model; its `prepare_inputs_for_generation` passes every keyword through,
and its `__call__` keeps the previous token sequence (`past_seq`), re-fills its own cache only from the longest
common prefix, and returns the token list as `past_key_values` (used as a prefix only by the CFG negative pass).
generate_reply_HF builds one `generate_params` dict for every loader, `cache_implementation='static'` included when
the UI's static-cache box is ticked, and `max_new_tokens` from the UI.

Provenance (mechanisms read; this code is written here, not copied):
- oobabooga/text-generation-webui @1dcde41d03d13fc768316f4d2256a8a6dd044268
  modules/exllamav3_hf.py (class Exllamav3HF(PreTrainedModel, GenerationMixin): `hf_config =
  PretrainedConfig.from_pretrained(model_dir)`, `super().__init__(hf_config)`, `self.generation_config =
  GenerationConfig()`, `self.past_seq = None`; `prepare_inputs_for_generation(self, input_ids, **kwargs): return
  {'input_ids': input_ids, **kwargs}`; `__call__`: `past_key_values = kwargs.get('past_key_values', None)`, `if
  is_negative and past_key_values is not None: seq = past_key_values + seq`, the longest-prefix comparison with
  `past_seq`, `return CausalLMOutputWithPast(logits=logits, past_key_values=seq if use_cache else None, loss=loss)`)
  and modules/text_generation.py (generate_reply_HF: `generate_params = {}`, `for k in [..., 'max_new_tokens',
  ...]: generate_params[k] = state[k]`, `if state['static_cache']:
  generate_params['cache_implementation'] = 'static'`, `shared.model.generate(**generate_params)`).
Reduced: the ExLlamaV3 model and cache are stood for by a transformers Llama run without a cache on the whole
sequence (the prefix bookkeeping is kept); no CFG, samplers, streaming or UI state beyond two flags.
"""

import torch
from transformers import AutoModelForCausalLM, GenerationConfig, GenerationMixin, PretrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast


class Exllamav3HF(PreTrainedModel, GenerationMixin):
    def __init__(self, model_dir):
        hf_config = PretrainedConfig.from_pretrained(model_dir)
        super().__init__(hf_config)
        self.generation_config = GenerationConfig()
        self.ex_model = AutoModelForCausalLM.from_pretrained(model_dir)
        self.past_seq = None
        self.refilled_from = None

    def _validate_model_class(self):
        pass

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        return {"input_ids": input_ids, **kwargs}  # clean: wu_pass_through

    @property
    def device(self):
        return torch.device("cpu")

    def __call__(self, *args, **kwargs):
        use_cache = kwargs.get("use_cache", True)
        past_key_values = kwargs.get("past_key_values", None)
        input_ids = kwargs["input_ids"]
        is_negative = False
        seq = input_ids[0].tolist()
        if is_negative and past_key_values is not None:
            seq = past_key_values + seq
        seq_tensor = torch.tensor(seq)
        longest_prefix = 0
        if self.past_seq is not None:
            min_length = min(self.past_seq.shape[0], seq_tensor.shape[0])
            indices = torch.nonzero(~torch.eq(self.past_seq[:min_length], seq_tensor[:min_length]))
            longest_prefix = indices[0].item() if len(indices) > 0 else min_length
        self.refilled_from = longest_prefix
        with torch.no_grad():
            logits = self.ex_model(input_ids=seq_tensor.view(1, -1), use_cache=False).logits[:, -1:, :].float()
        self.past_seq = seq_tensor
        return CausalLMOutputWithPast(logits=logits, past_key_values=seq if use_cache else None)  # clean: wu_token_list_past


def generate_reply_HF(model, input_ids, state):
    generate_params = {}
    for k in ["max_new_tokens", "do_sample"]:
        if k in state:
            generate_params[k] = state[k]
    if state["static_cache"]:
        generate_params["cache_implementation"] = "static"  # clean: wu_static_cache
    generate_params["inputs"] = input_ids
    return model.generate(**generate_params)  # clean: wu_generate


input_ids = torch.tensor([[1, 80, 81, 82]])


def probe_wrapper_generate():
    model = Exllamav3HF("turboderp/Llama-3.1-8B-Instruct-exl3")
    model.generation_config.min_new_tokens = 3
    out = generate_reply_HF(model, input_ids, {"max_new_tokens": 3, "min_new_tokens": 3, "do_sample": False,
                                                       "static_cache": False})
    assert out.shape[1] == 7 and model.refilled_from == 5


def probe_wrapper_static():
    model = Exllamav3HF("turboderp/Llama-3.1-8B-Instruct-exl3")
    model.generation_config.min_new_tokens = 3
    out = generate_reply_HF(model, input_ids, {"max_new_tokens": 3, "min_new_tokens": 3, "do_sample": False,
                                                       "static_cache": True})
    assert out.shape[1] == 7


def probe_transformers_static():
    model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.1-8B-Instruct")
    model.generation_config.min_new_tokens = 3
    out = generate_reply_HF(model, input_ids, {"max_new_tokens": 3, "min_new_tokens": 3, "do_sample": False,
                                                       "static_cache": True})
    assert out.shape[1] == 7
