"""YaRN (context extension by NTK-by-parts rotary interpolation plus attention temperature): the project ships its
own Llama model file (copied from transformers 4.36 and given YaRN / dynamic-YaRN rotary embeddings selected by
`config.rope_scaling["type"]`). Its model forward treats any cache that is not a `Cache` as legacy: it converts it
with `DynamicCache.from_legacy_cache`, takes the past length from `get_usable_length(seq_length)` to build the
position ids (which the dynamic YaRN scale also reads), runs the layers, and hands a legacy caller back
`to_legacy_cache()`. The evaluation loader builds the model with `config.rope_scaling` set from the command line.

Provenance (mechanisms read; this code is written here, not copied):
- jquesnelle/yarn @995db5b575e75230b3384d658f8b944c9662f775
  scaled_rope/modeling_llama_yarn.py (LlamaModel.forward: `use_legacy_cache = not isinstance(past_key_values,
  Cache)`, `past_key_values = DynamicCache.from_legacy_cache(past_key_values)`, `past_key_values_length =
  past_key_values.get_usable_length(seq_length)`, `position_ids = torch.arange(past_key_values_length, seq_length +
  past_key_values_length)`, `next_cache = next_decoder_cache.to_legacy_cache() if use_legacy_cache else
  next_decoder_cache`; LlamaYaRNScaledRotaryEmbedding: `inv_freq = inv_freq_interpolation * (1 - inv_freq_mask) +
  inv_freq_extrapolation * inv_freq_mask`, `mscale`), eval/model_loader.py (load_model: `config.rope_scaling = {"type":
  "yarn", "factor": args.yarn, "original_max_position_embeddings": ...}`, `if args.no_use_cache: config.use_cache =
  False else: config.use_cache = True`, `model_cls.from_pretrained(model, config=config, ...)` with `model_cls =
  AutoModelForCausalLM` unless a custom model is asked for), eval/prompt-loop.py and eval/passkey.py (`pipe =
  pipeline("text-generation", model=model, tokenizer=tokenizer, pad_token_id=tokenizer.eos_token_id, ...)`,
  `pipe(prompt_text, num_return_sequences=1, max_new_tokens=args.max_new_tokens)[0]["generated_text"]`).
Reduced: the layers are transformers' Llama run by `super().forward` (with transformers' own rope), the YaRN
frequencies are computed but only their scale is kept; the three cache steps are helpers, each reached by its own
probe (in the project the first one that fails stops the forward).
"""

import math

import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM, pipeline
from transformers.cache_utils import Cache, DynamicCache


def _yarn_get_mscale(scale=1.0):
    return 1.0 if scale <= 1 else 0.1 * math.log(scale) + 1.0


def _from_legacy(past_key_values):
    return DynamicCache.from_legacy_cache(past_key_values)  # site: yr_from_legacy


def _usable_length(past_key_values, seq_length):
    return past_key_values.get_usable_length(seq_length)  # site: yr_usable_length


def _to_legacy(next_decoder_cache):
    return next_decoder_cache.to_legacy_cache()  # site: yr_to_legacy


class LlamaYaRNForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        scaling = getattr(config, "yarn_scaling", None) or {"factor": 1.0}
        self.mscale = _yarn_get_mscale(scaling["factor"])

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None, use_cache=None,
                **kwargs):
        seq_length = input_ids.shape[1]
        past_key_values_length = 0
        use_legacy_cache = False
        if use_cache:
            use_legacy_cache = not isinstance(past_key_values, Cache)
            if use_legacy_cache:
                past_key_values = _from_legacy(past_key_values)
            past_key_values_length = _usable_length(past_key_values, seq_length)
        if position_ids is None:
            position_ids = torch.arange(past_key_values_length, seq_length + past_key_values_length).unsqueeze(0)
        out = super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,  # clean: yr_super_forward
                              past_key_values=past_key_values, use_cache=use_cache, **kwargs)
        if use_legacy_cache:
            out.past_key_values = _to_legacy(out.past_key_values)
        return out


def load_model(model_name, no_use_cache=False, max_position_embeddings=None):
    config = AutoConfig.from_pretrained(model_name)
    if max_position_embeddings:
        config.max_position_embeddings = max_position_embeddings
    if no_use_cache:
        config.use_cache = False
    else:
        config.use_cache = True  # clean: yr_config_use_cache
    return AutoModelForCausalLM.from_pretrained(model_name, config=config)


def prompt_loop_once(model, prompt_text, max_new_tokens):
    tokenizer = AutoTokenizer.from_pretrained("NousResearch/Yarn-Llama-2-7b-64k")
    tokenizer.pad_token = tokenizer.eos_token
    pipe = pipeline("text-generation", model=model, tokenizer=tokenizer, pad_token_id=tokenizer.eos_token_id,
                    do_sample=False)
    return pipe(prompt_text, num_return_sequences=1, max_new_tokens=max_new_tokens)[0]["generated_text"]  # clean: yr_pipeline_generate


model = LlamaYaRNForCausalLM.from_pretrained("NousResearch/Yarn-Llama-2-7b-64k").eval()
model.config.yarn_scaling = {"type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096}
prompt = torch.tensor([[1, 130, 131, 132, 133]])


def _prefilled():
    with torch.no_grad():
        return LlamaForCausalLM.forward(model, prompt, use_cache=True).past_key_values


def probe_no_cache_forward():
    with torch.no_grad():
        out = model(prompt, use_cache=False)
    assert out.logits.shape[1] == 5


def probe_from_legacy():
    cache = _from_legacy(None)
    assert cache.get_seq_length() == 0


def probe_usable_length():
    _usable_length(_prefilled(), 1)


def probe_to_legacy():
    legacy = _to_legacy(_prefilled())
    assert legacy[0][0].shape[2] == 5


def probe_prompt_loop():
    loaded = load_model("NousResearch/Yarn-Llama-2-7b-64k", max_position_embeddings=65536)
    loaded.generation_config.min_new_tokens = 3
    text = prompt_loop_once(loaded, "the passkey is 42 remember it", 3)
    assert text.startswith("the passkey is 42 remember it")
