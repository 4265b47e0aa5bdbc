"""StreamingLLM's multi-round chat: the model's cache is kept across prompts, and before each prompt
`StartRecentKVCache.evict_for_space` makes room by keeping the first `start_size` positions (the attention sinks) and
the most recent ones; the eviction reads the cache length as `past_key_values[0][0].size(k_seq_dim)` and rebuilds the
cache as a list of `[k, v]` lists that the next forward is handed back as `past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- mit-han-lab/streaming-llm @2e5042606d69933d88fbf909bd77907456b9b4dd
  streaming_llm/kv_cache.py (`StartRecentKVCache.__call__` / `evict_for_space`: `seq_len =
  past_key_values[0][0].size(self.k_seq_dim)`, the list of `[torch.cat([k_slice(k, 0, start), k_slice(k, seq_len -
  recent + num_coming, seq_len)]), ...]` for `k, v in past_key_values`), examples/run_streaming_llama.py
  (`greedy_generate`: the prompt forward with `past_key_values`, `use_cache=True`, then one-token steps fed
  `outputs.past_key_values`; `streaming_inference`: `past_key_values = kv_cache.evict_for_space(past_key_values,
  seq_len + max_gen_len)` before each prompt), examples/eval_long_ppl.py (one token per forward with
  `past_key_values`, `past_key_values = outputs.past_key_values`, then `kv_cache(past_key_values)` when streaming).
Reduced: ids instead of the tokenizer and chat prompt; start/recent sizes of 2 and 6; a probe that needs no
eviction; `__call__` evicts through `evict_for_space`; no position-shift attention patch (enable_streaming_llm); a
second probe hands the eviction a tuple of the layers' tensors (built by the probe) so
the list it returns reaches the forward on every release.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.3")
model.eval()


def slice2d(x, start, end):
    return x[:, :, start:end, ...]


class StartRecentKVCache:
    def __init__(self, start_size=2, recent_size=6, k_seq_dim=2, v_seq_dim=2):
        self.start_size = start_size
        self.recent_size = recent_size
        self.cache_size = start_size + recent_size
        self.k_seq_dim = k_seq_dim
        self.v_seq_dim = v_seq_dim

    def __call__(self, past_key_values):
        if past_key_values is None:
            return None
        seq_len = past_key_values[0][0].size(self.k_seq_dim)  # site: sl_call_len
        if seq_len <= self.cache_size:
            return past_key_values
        return self.evict_for_space(past_key_values, 0)

    def evict_for_space(self, past_key_values, num_coming):
        if past_key_values is None:
            return None
        seq_len = past_key_values[0][0].size(self.k_seq_dim)  # site: sl_index_len
        if seq_len + num_coming <= self.cache_size:
            return past_key_values
        keep = seq_len - self.recent_size + num_coming
        return [
            [
                torch.cat([slice2d(k, 0, self.start_size), slice2d(k, keep, seq_len)], dim=self.k_seq_dim),
                torch.cat([slice2d(v, 0, self.start_size), slice2d(v, keep, seq_len)], dim=self.v_seq_dim),
            ]
            for k, v in past_key_values
        ]


@torch.no_grad()
def greedy_generate(model, input_ids, past_key_values, max_gen_len):
    outputs = model(input_ids=input_ids, past_key_values=past_key_values, use_cache=True)  # site: sl_prompt_forward
    past_key_values = outputs.past_key_values
    pred_token_idx = outputs.logits[:, -1, :].argmax(dim=-1).unsqueeze(1)
    generated_ids = [pred_token_idx.item()]
    for _ in range(max_gen_len - 1):
        outputs = model(input_ids=pred_token_idx, past_key_values=past_key_values, use_cache=True)  # clean: sl_step
        past_key_values = outputs.past_key_values  # clean: sl_keep_cache
        pred_token_idx = outputs.logits[:, -1, :].argmax(dim=-1).unsqueeze(1)
        generated_ids.append(pred_token_idx.item())
    return generated_ids, past_key_values


@torch.no_grad()
def streaming_inference(model, prompts, kv_cache=None, max_gen_len=3):
    past_key_values = None
    replies = []
    for input_ids in prompts:
        seq_len = input_ids.shape[1]
        if kv_cache is not None:
            past_key_values = kv_cache.evict_for_space(past_key_values, seq_len + max_gen_len)
        ids, past_key_values = greedy_generate(model, input_ids, past_key_values, max_gen_len=max_gen_len)
        replies.append(ids)
    return replies, past_key_values


@torch.no_grad()
def eval_long_ppl(model, input_ids, kv_cache=None):
    loss_fn = torch.nn.CrossEntropyLoss(reduction="none")
    past_key_values = None
    nlls = []
    for idx in range(input_ids.size(1) - 1):
        outputs = model(input_ids[:, idx : idx + 1], past_key_values=past_key_values, use_cache=True)  # clean: sl_ppl_forward
        logits = outputs.logits.view(-1, model.config.vocab_size)
        past_key_values = outputs.past_key_values  # clean: sl_ppl_keep
        nlls.append(loss_fn(logits, input_ids[:, idx + 1 : idx + 2].view(-1)))
        if kv_cache is not None:
            past_key_values = kv_cache(past_key_values)
    return torch.exp(torch.stack(nlls).mean()), past_key_values


prompts = [torch.tensor([[1, 17, 29, 41]]), torch.tensor([[1, 53, 67]])]


def probe_without_eviction():
    replies, cache = streaming_inference(model, prompts, kv_cache=None)
    assert [len(r) for r in replies] == [3, 3] and cache.get_seq_length() == 11


def probe_room_left():
    _, cache = greedy_generate(model, prompts[0], None, max_gen_len=2)
    assert StartRecentKVCache().evict_for_space(cache, 1) is cache


def probe_evicted_list():
    _, cache = greedy_generate(model, prompts[0], None, max_gen_len=3)
    legacy = tuple((layer.keys, layer.values) for layer in cache.layers)
    evicted = StartRecentKVCache().evict_for_space(legacy, 6)
    ids, _ = greedy_generate(model, prompts[1], evicted, max_gen_len=3)
    assert len(ids) == 3


def probe_ppl_full_cache():
    ppl, cache = eval_long_ppl(model, torch.tensor([[1, 17, 29, 41, 53, 67]]))
    assert torch.isfinite(ppl) and cache.get_seq_length() == 5


def probe_ppl_streaming():
    ppl, _ = eval_long_ppl(model, torch.tensor([[1, 17, 29, 41, 53, 67]]), kv_cache=StartRecentKVCache())
    assert torch.isfinite(ppl)
