"""Prompt Cache (modular attention reuse): the prompt modules of a schema are encoded once with their own position
ids, and each module's slice of the returned cache (`kv_cache[i][0]` / `kv_cache[i][1]` over the module's token range)
is kept per layer as a pair of tensors without the batch dimension. Serving a prompt concatenates the selected modules'
pairs into a list of `(k, v)` per layer, adds back the batch dimension and hands that list to the model as
`past_key_values` for the prefill of the uncached suffix; decoding then carries `out.past_key_values` forward one
token at a time with explicit position ids. Without modules (`no_cache`), the engine prefills the whole prompt.

Provenance (mechanisms read; this code is written here, not copied):
- yale-sys/prompt-cache @9027040d4b4e3fce911b060590dd4a71783b12b9
  promptcache/cache_engine.py (`SchemaCache._process`: `d_output = self.lm(input_ids=..., position_ids=...,
  attention_mask=..., use_cache=True)`, `kv_cache = d_output.past_key_values`, per token sequence `offset`/`length`
  slices of `kv_cache[i][0]` and `kv_cache[i][1]` stored in a `TokenSequenceCache`; `PromptCache.cache` returning `[(k,
  v) ...]` per layer), promptcache/generation_engine.py (`GenerationEngine.generate`: `cache = [(k[0].unsqueeze(0),
  k[1].unsqueeze(0)) for k in cache]`, `out = self.lm(input_ids=input_ids, position_ids=position_ids,
  past_key_values=cache, use_cache=True)`, then `past_key_values = out.past_key_values` and one-token steps with
  `position_ids = [[position_offset + i]]`) and promptcache/model/__init__.py (`LanguageModel` holding `hf_model`).
Reduced: one schema of two modules (the served prompt's module cache filled by the probe, as if loaded), no XML prompt parser, no scaffolding or batching, no device/host copies, greedy
decoding.
"""

import torch
from transformers import AutoModelForCausalLM


class LanguageModel:
    def __init__(self, name):
        self.hf_model = AutoModelForCausalLM.from_pretrained(name)
        self.hf_model.eval()

    def __call__(self, **kwargs):
        return self.hf_model(**kwargs)  # observe: pc_module_list


class SchemaCache:
    def __init__(self, lm, modules):
        self.lm = lm
        self.modules = modules
        self.cache_l1 = {}

    @torch.no_grad()
    def process(self):
        token_ids = [t for m in self.modules for t in m]
        d_output = self.lm(
            input_ids=torch.tensor([token_ids]),
            position_ids=torch.arange(len(token_ids)).unsqueeze(0),
            use_cache=True,
        )
        kv_cache = d_output.past_key_values  # clean: pc_module_outputs
        offset = 0
        for n, module in enumerate(self.modules):
            length = len(module)
            self.cache_l1[n] = [
                (kv_cache[i][0][0, :, offset:offset + length, :],  # site: pc_slice_module
                 kv_cache[i][1][0, :, offset:offset + length, :])
                for i in range(self.lm.hf_model.config.num_hidden_layers)
            ]
            offset += length

    def cache(self, selected):
        layers = self.lm.hf_model.config.num_hidden_layers
        return [
            (torch.cat([self.cache_l1[n][i][0] for n in selected], dim=1),
             torch.cat([self.cache_l1[n][i][1] for n in selected], dim=1))
            for i in range(layers)
        ]


class GenerationEngine:
    def __init__(self, lm):
        self.lm = lm

    @torch.no_grad()
    def generate(self, token_ids, position_ids, max_new_tokens, cache=None):
        output_ids = list(token_ids)
        position_offset = max(position_ids) + 1
        past_key_values = None
        new_token_id = 0
        for i in range(max_new_tokens):
            if past_key_values is None:
                if cache is not None:
                    cache = [(k[0].unsqueeze(0), k[1].unsqueeze(0)) for k in cache]
                out = self.lm(
                    input_ids=torch.tensor([token_ids]),
                    position_ids=torch.tensor([position_ids]),
                    past_key_values=cache,  # site: pc_module_list
                    use_cache=True,
                )
                past_key_values = out.past_key_values  # clean: pc_keep_prefill
            else:
                out = self.lm(  # clean: pc_decode_step
                    input_ids=torch.tensor([[new_token_id]]),
                    position_ids=torch.tensor([[position_offset + i]]),
                    past_key_values=past_key_values,
                    use_cache=True,
                )
                past_key_values = out.past_key_values  # clean: pc_keep_step
            new_token_id = int(torch.argmax(out.logits[0, -1]))
            output_ids.append(new_token_id)
        return output_ids, past_key_values


lm = LanguageModel("meta-llama/Llama-2-7b-chat-hf")
schema = SchemaCache(lm, [[1, 21, 22, 23], [31, 32, 33]])
engine = GenerationEngine(lm)


def probe_no_cache():
    prompt = [1, 21, 22, 23, 31, 32, 33, 40, 41]
    output_ids, past = engine.generate(prompt, list(range(len(prompt))), 3)
    assert len(output_ids) == 12 and past.get_seq_length() == 11


def probe_modules():
    schema.process()
    assert len(schema.cache_l1) == 2


def probe_served_prompt():
    cfg = lm.hf_model.config
    head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // cfg.num_attention_heads
    cached = [(torch.zeros(cfg.num_key_value_heads, 7, head_dim), torch.zeros(cfg.num_key_value_heads, 7, head_dim))
              for _ in range(cfg.num_hidden_layers)]
    engine.generate([40, 41], [7, 8], 2, cache=cached)
