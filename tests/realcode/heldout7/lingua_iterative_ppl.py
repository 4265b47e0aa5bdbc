"""LLMLingua's iterative token-level prompt compression: a small causal LM scores the prompt's tokens by perplexity,
segment by segment, keeping the key/value cache between segments (`get_ppl(..., past_key_values=...)` reads the
cached length as `past_key_values[0][0].shape[2]` and forwards only the new tokens); after each segment the tokens it
dropped are cut out of every layer of the cache (`[[cat(k[..., :s, :], k[..., s + e:, :]), ...] for k, v in
past_key_values]`), the cache is truncated to the part already scored, and the resulting list of per-layer
[key, value] pairs goes back into the next `get_ppl` forward.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/LLMLingua @e0e9d99beb94098bbd924aa53c2c112eac41c758
  llmlingua/prompt_compressor.py (PromptCompressor.get_ppl: `past_length = past_key_values[0][0].shape[2]`,
  `self.model(input_ids[:, past_length:end], attention_mask=attention_mask[:, :end],
  past_key_values=past_key_values, use_cache=True)`, `past_key_values = response.past_key_values`, the token loss;
  iterative_compress_prompt: the span removal comprehension over `for k, v in past_key_values`, the truncation
  `[[k[:, :, : end - iterative_size], v[:, :, : end - iterative_size]] for k, v in past_key_values]`, the list fed
  back to get_ppl).
Reduced: tokenisation, budgets and the condition-compare branch are left out; each cache step is its own
function so that every step is reached.
"""

import torch
from transformers import AutoModelForCausalLM


class PromptCompressor:
    def __init__(self, model_name="NousResearch/Llama-2-7b-hf"):
        self.model = AutoModelForCausalLM.from_pretrained(model_name, torch_dtype=torch.float32)
        self.max_position_embeddings = self.model.config.max_position_embeddings

    def cached_length(self, past_key_values):
        if past_key_values is None:
            return 0
        return past_key_values[0][0].shape[2]  # site: ll_past_length

    def get_ppl(self, input_ids, attention_mask, past_key_values=None, end=None):
        past_length = self.cached_length(past_key_values)
        if end is None:
            end = input_ids.shape[1]
        end = min(end, past_length + self.max_position_embeddings)
        with torch.no_grad():
            response = self.model(  # site: ll_list_forward
                input_ids[:, past_length:end],
                attention_mask=attention_mask[:, :end],
                past_key_values=past_key_values,
                use_cache=True,
            )
        past_key_values = response.past_key_values  # clean: ll_keep_cache
        shift_logits = response.logits[..., :-1, :].contiguous()
        shift_labels = input_ids[..., past_length + 1 : end].contiguous()
        loss = torch.nn.functional.cross_entropy(
            shift_logits.view(-1, shift_logits.size(-1)), shift_labels.view(-1), reduction="none"
        )
        return loss, past_key_values


def drop_span(past_key_values, s, e):
    return [  # site: ll_drop_span
        [torch.cat([k[..., :s, :], k[..., s + e :, :]], dim=-2), torch.cat([v[..., :s, :], v[..., s + e :, :]], dim=-2)]
        for k, v in past_key_values
    ]


def keep_scored(past_key_values, end, iterative_size):
    return [[k[:, :, : end - iterative_size], v[:, :, : end - iterative_size]] for k, v in past_key_values]  # site: ll_truncate


compressor = PromptCompressor()
ids = torch.tensor([[1, 7, 11, 19, 23, 29, 31, 37, 41, 43, 47, 53]])
mask = torch.ones_like(ids)


def probe_first_segment():
    loss, cache = compressor.get_ppl(ids[:, :6], mask[:, :6])
    assert loss.shape == (5,) and cache.get_seq_length() == 6


def probe_next_segment():
    _, cache = compressor.get_ppl(ids[:, :6], mask[:, :6])
    loss, cache = compressor.get_ppl(ids, mask, past_key_values=cache)
    assert loss.shape == (5,)


def probe_drop_span():
    _, cache = compressor.get_ppl(ids[:, :6], mask[:, :6])
    pairs = drop_span(cache, 1, 2)
    assert len(pairs) == 2 and pairs[0][0].shape[-2] == 4


def probe_truncate():
    _, cache = compressor.get_ppl(ids[:, :6], mask[:, :6])
    pairs = keep_scored(cache, 6, 2)
    assert len(pairs) == 2 and pairs[0][0].shape[-2] == 4


def probe_list_forward():
    pairs = [[torch.randn(1, 1, 4, 64), torch.randn(1, 1, 4, 64)] for _ in range(2)]
    loss, _ = compressor.get_ppl(ids[:, :8], mask[:, :8], past_key_values=pairs)
    assert loss.shape == (3,)
