"""ARGS (alignment as reward-guided search, deeplearning-wisc/args): each decoding step runs the LLM on
`LLM.prepare_inputs_for_generation(input_ids=tokens, attention_mask=..., past_key_values=cached, use_cache=True)`
with the whole sequence so far, keeps `mout.past_key_values` for the next step, pre-screens the top-k next tokens,
scores each candidate continuation with a reward model fed the same prepared inputs and its own cache, and keeps the
best candidate's row of the reward model's cache with `self.LLM._reorder_cache(rm_cached, top_k_ids.repeat(k))`.

Provenance (mechanisms read; this code is written here, not copied):
- deeplearning-wisc/args @db0e1c19662a5836877226f8171d77a07aff98bf
  argsearch.py (`ARGS.generate`: `cached = None`, `if cached is None: mout = self.LLM(**self.LLM.
  prepare_inputs_for_generation(input_ids=tokens, attention_mask=create_attention_mask(...), past_key_values=None,
  use_cache=True))` / `else: ... past_key_values=cached ...`, `cached = mout.past_key_values`; `generate_step`:
  `torch.topk(out_logits, k=pre_screen_beam_width)`, `torch.dstack((expanded_tis, prescreen_tokens))`, `rm_out =
  self.RM(**self.LLM.prepare_inputs_for_generation(input_ids=flat_trme, ..., past_key_values=rm_cached,
  use_cache=True))`, `rm_cached = rm_out.past_key_values`, `rm_cached = self.LLM._reorder_cache(rm_cached,
  top_k_ids.repeat(pre_screen_beam_width,))`; `create_attention_mask`; the module-level `rcache` helper that
  index-selects every tensor of a legacy tuple).
Reduced: the reward model is a second causal LM whose reward is its last position's first logit (the original loads
an AutoModelForSequenceClassification), greedy choice only, no chunked "greedy_large" path, CPU devices.
"""

import torch
from transformers import AutoModelForCausalLM


def create_attention_mask(seq_len, bsz=1):
    return torch.ones((bsz, seq_len), dtype=torch.long)


def rcache(past_key_values, beam_idx):
    reordered_past = ()
    for layer_past in past_key_values:
        reordered_past += (tuple(past_state.index_select(0, beam_idx) for past_state in layer_past),)  # clean: ag_rcache_tuple
    return reordered_past


class ARGS:
    def __init__(self, llm_path, rm_path):
        self.LLM = AutoModelForCausalLM.from_pretrained(llm_path).eval()
        self.RM = AutoModelForCausalLM.from_pretrained(rm_path).eval()

    def prefill(self, tokens):
        inputs = self.LLM.prepare_inputs_for_generation(input_ids=tokens, attention_mask=create_attention_mask(tokens.shape[1], tokens.shape[0]), past_key_values=None, use_cache=True)  # clean: ag_prepare_first
        mout = self.LLM(**inputs)
        return mout, mout.past_key_values  # clean: ag_keep_cache

    def step(self, tokens, cached):
        mout = self.LLM(**self.LLM.prepare_inputs_for_generation(input_ids=tokens, attention_mask=create_attention_mask(tokens.shape[1], tokens.shape[0]), past_key_values=cached, use_cache=True))  # site: ag_prepare_cached
        return mout, mout.past_key_values

    def score(self, flat_trme, rm_cached):
        rm_out = self.RM(**self.LLM.prepare_inputs_for_generation(input_ids=flat_trme, attention_mask=create_attention_mask(flat_trme.shape[1], flat_trme.shape[0]), past_key_values=rm_cached, use_cache=True))
        return rm_out.logits[:, -1, 0], rm_out.past_key_values

    def generate_step(self, mout, input_ids, pre_screen_beam_width=4, weight=1.0, rm_cached=None):
        out_logits = mout.logits[:, -1]
        prescreen_logits, prescreen_tokens = torch.topk(out_logits, dim=-1, k=pre_screen_beam_width)
        expanded_tis = torch.unsqueeze(input_ids, 1).repeat(1, pre_screen_beam_width, 1)
        to_rm_eval = torch.dstack((expanded_tis, prescreen_tokens))
        flat_trme = to_rm_eval.view(out_logits.shape[0] * pre_screen_beam_width, -1)
        rewards, rm_cached = self.score(flat_trme, rm_cached)
        new_scores = rewards * weight + prescreen_logits.flatten()
        _, top_k_ids = torch.topk(new_scores, dim=-1, k=1)
        rm_cached = self.LLM._reorder_cache(rm_cached, top_k_ids.repeat(pre_screen_beam_width,))  # site: ag_reorder_rm
        return flat_trme[top_k_ids], rm_cached

    @torch.no_grad()
    def generate(self, tokens, max_new_token=3, topk=4):
        cached = None
        rm_cached = None
        for _ in range(max_new_token):
            if cached is None:
                mout, cached = self.prefill(tokens)
            else:
                mout, cached = self.step(tokens, cached)
            tokens, rm_cached = self.generate_step(mout, tokens, topk, 1.0, rm_cached)
        return tokens


args = ARGS("meta-llama/Llama-2-7b-hf", "argsearch/llama-7b-rm-float32")
prompt = torch.tensor([[1, 12, 13, 14, 15]])


def probe_prefill():
    mout, cached = args.prefill(prompt)
    assert mout.logits.shape[1] == 5 and cached.get_seq_length() == 5


def probe_step():
    _, cached = args.prefill(prompt)
    longer = torch.cat([prompt, torch.tensor([[16]])], dim=-1)
    mout, cached = args.step(longer, cached)
    assert mout.logits.shape[1] == 1, "ag_prepare_cached: the step ran the whole sequence again"  # observe: ag_prepare_cached
    assert cached.get_seq_length() == 6, "ag_prepare_cached: the cache did not grow by the one new token"  # observe: ag_prepare_cached


def probe_search():
    tokens = args.generate(prompt, max_new_token=2)
    assert tokens.shape == (1, 7)


def probe_rcache():
    legacy = tuple((torch.zeros(4, 2, 5, 8), torch.ones(4, 2, 5, 8)) for _ in range(2))
    picked = rcache(legacy, torch.tensor([2, 2, 2, 2]))
    assert picked[0][1].shape == (4, 2, 5, 8)
