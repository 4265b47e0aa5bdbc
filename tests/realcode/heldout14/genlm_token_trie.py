"""genlm-backend's `AsyncTransformer` (the Hugging Face backend of GenLM's constrained / sequential-Monte-Carlo
generation): a token trie whose nodes keep next-token log-probabilities and, where a prompt was cached with
`cache_kv`, the model's `past_key_values`; a lookup walks the trie to the deepest node with a cache and runs the
model on the remaining tokens only; concurrent queries are batched by right-padding each query's past (read as
`past[layer][key_or_value]`, its length from `past[0][0].shape[2]`) into legacy tuples, converted with
`DynamicCache.from_legacy_cache` before the batched forward.

Provenance (mechanisms read; this code is written here, not copied):
- genlm/genlm-backend @48c765cca5d4f4b4cec1bcbce5f3207e689228f0
  genlm/backend/llm/hf.py (Query.__init__: `self.past_len = past[0][0].shape[2]`; Query.past_padded:
  `torch.cat((self.past[layer][j], torch.zeros(...)), dim=2)`; AsyncTransformer.cache_kv: `result =
  self.model(torch.tensor([prompt_tokens]))`, `node.past_key_values = result.past_key_values`;
  batch_evaluate_queries: the padded per-layer lists, `pasts = DynamicCache.from_legacy_cache(pasts)`,
  `self.model(input_ids, attention_mask=..., position_ids=..., past_key_values=pasts, use_cache=pasts is not
  None)`; walk_cache; next_token_logprobs_sync: `self.model(torch.tensor([token_ids[base:]]),
  past_key_values=node.past_key_values, use_cache=node.past_key_values is not None)`) and genlm/backend/cache.py
  (TokenTrie nodes holding `past_key_values`).
Reduced: a dictionary of token prefixes instead of the trie, no asyncio (a query's future is a plain holder), one
query per batch, no LoRA switching.
"""

import torch
from transformers import AutoModelForCausalLM, DynamicCache


class Future:
    result = None

    def set_result(self, value):
        self.result = value


class Query:
    def __init__(self, prompt, future, past=None):
        self.prompt = prompt
        self.future = future
        self.past = past
        if self.past is not None:
            self.past_len = past[0][0].shape[2]  # site: gl_past_len
        else:
            self.past_len = 0

    def past_padded(self, layer, j, to_length, past_shape):
        if self.past is not None:
            pad = torch.zeros(1, past_shape[1], to_length - self.past_len, past_shape[3])
            return torch.cat((self.past[layer][j], pad), dim=2)
        return torch.zeros(1, past_shape[1], to_length, past_shape[3])


class Node:
    def __init__(self, logprobs=None, past_key_values=None):
        self.logprobs = logprobs
        self.past_key_values = past_key_values


class AsyncTransformer:
    def __init__(self, model):
        self.model = model
        self.cache = {(): Node()}
        self.queries = []

    @torch.no_grad()
    def cache_kv(self, prompt_tokens):
        result = self.model(torch.tensor([prompt_tokens]))  # clean: gl_cache_prompt
        node = Node(torch.log_softmax(result.logits[0, -1], dim=0))
        node.past_key_values = result.past_key_values  # clean: gl_store_kv
        self.cache[tuple(prompt_tokens)] = node

    def walk_cache(self, token_ids):
        past, base, node = None, 0, self.cache[()]
        for i in range(len(token_ids) + 1):
            found = self.cache.get(tuple(token_ids[:i]))
            if found is None:
                continue
            node = found
            if found.past_key_values is not None:  # clean: gl_walk_past
                past, base = found.past_key_values, i
        return node, past, base

    @torch.no_grad()
    def batch_evaluate_queries(self):
        queries, self.queries = self.queries, []
        past_example = next((q.past for q in queries if q.past), False)
        max_past_length = max(q.past_len for q in queries)
        input_ids = torch.tensor([q.prompt for q in queries])
        if past_example:
            pasts = [[torch.cat([q.past_padded(layer, j, max_past_length, past_example[0][0].shape) for q in queries])
                      for j in range(2)] for layer in range(len(past_example))]
        else:
            pasts = None
        pasts = DynamicCache.from_legacy_cache(pasts)  # site: gl_from_legacy
        results = self.model(input_ids, past_key_values=pasts, use_cache=pasts is not None)
        for i, q in enumerate(queries):
            q.future.set_result(results.logits[i])

    def add_query(self, query, future, past):
        self.queries.append(Query(query, future, past))

    @torch.no_grad()
    def next_token_logprobs_sync(self, token_ids):
        node, past, base = self.walk_cache(token_ids)
        logits = self.model(torch.tensor([token_ids[base:]]), past_key_values=past,  # clean: gl_sync_forward
                            use_cache=past is not None).logits[0]
        return torch.log_softmax(logits[-1], dim=0)


llm = AsyncTransformer(AutoModelForCausalLM.from_pretrained("gpt2"))
prompt = [11, 12, 13, 14]


def probe_sync_lookup():
    llm.cache_kv(prompt)
    logprobs = llm.next_token_logprobs_sync(prompt + [20, 21])
    assert logprobs.shape[0] > 20


def probe_batch_without_past():
    future = Future()
    llm.add_query(prompt, future, None)
    llm.batch_evaluate_queries()
    assert future.result.shape[0] == 4


def probe_query_with_past():
    llm.cache_kv(prompt)
    node, past, base = llm.walk_cache(prompt + [30])
    future = Future()
    llm.add_query([30], future, past)
    assert llm.queries[0].past_len == 4
