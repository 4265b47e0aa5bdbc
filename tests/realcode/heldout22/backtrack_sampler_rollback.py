"""backtrack_sampler (Mihaiii/backtrack_sampler): a sampler that lets a strategy (anti-slop phrase bans, creative
writing, human guidance, a chain of them) take back tokens it already drew. Its transformers provider keeps one
`DynamicCache()` on the object, asks `model.generate(input, max_new_tokens=1, do_sample=False, temperature=1,
num_return_sequences=1, return_dict_in_generate=True, output_scores=True, past_key_values=self.past_key_values)` for
each token's scores (the whole sequence so far is passed; generate feeds only what the cache has not seen), keeps
`outputs.past_key_values`, and when the strategy backtracks `n` tokens calls `self.past_key_values.crop(-1 * n)`;
`reset()` drops the cache for a fresh `DynamicCache()`. The sampler applies temperature, min-p / top-k / top-p and the
strategy's hooks itself and yields the tokens the strategy will not take back any more.

Provenance (mechanisms read; this code is written here, not copied):
- Mihaiii/backtrack_sampler @c8fc2423c97bbe814b44c492b851cf4e3948f001 (2026-01-07): provider/transformers_provider.py
  (`TransformersProvider.__init__`, `generate`, `remove_latest_cache`, `reset`), backtrack_sampler.py
  (`BacktrackSampler.generate`'s loop: provider.generate, strategy hooks, `remove_latest_cache(intial_len -
  len(continuation_tokens))`, release index), strategy/base_strategy.py (the hooks);
  the earlier single-file version's `past_key_values.crop(len(continuation_tokens) - intial_len)` is the same call.
Reduced: one strategy, which takes back the last two tokens once the continuation first reaches three (what the
anti-slop strategy does when a banned phrase completes), instead of phrase matching; greedy instead of
`torch.multinomial` (the probe compares each step's scores with an uncached generate); no llama.cpp provider; CPU.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache


class TakeBackOnce:
    def __init__(self, at=3, n=2):
        self.at, self.n, self.done = at, n, False

    def on_logits(self, logits, continuation_tokens):
        return logits

    def on_probs(self, probs, continuation_tokens):
        return probs

    def on_next_token(self, continuation_tokens, probs):
        pass

    def backtrack(self, continuation_tokens):
        if not self.done and len(continuation_tokens) >= self.at:
            self.done = True
            return continuation_tokens[:-self.n]
        return continuation_tokens

    def get_keep_index(self):
        return 0

    def reset(self):
        self.done = False


class TransformersProvider:
    def __init__(self, model, tokenizer, device=torch.device("cpu")):
        self.model = model.to(device)
        self.tokenizer = tokenizer
        self.past_key_values = DynamicCache()  # clean: bs_fresh_cache
        self.device = device

    def encode(self, text, add_special_tokens=True):
        return self.tokenizer.encode(text, add_special_tokens=add_special_tokens)

    def generate(self, input_ids, *args, **kwargs):
        input = torch.tensor([input_ids], device=self.device)
        outputs = self.model.generate(
            input,
            max_new_tokens=1,
            min_new_tokens=1,
            do_sample=False,
            pad_token_id=self.tokenizer.pad_token_id,
            num_return_sequences=1,
            return_dict_in_generate=True,
            output_scores=True,
            past_key_values=self.past_key_values,  # clean: bs_generate_cache
            *args,
            **kwargs,
        )
        self.past_key_values = outputs.past_key_values  # clean: bs_keep_cache
        return outputs.scores[0]

    def remove_latest_cache(self, nr):
        self.past_key_values.crop(-1 * nr)  # clean: bs_crop_back

    def reset(self):
        del self.past_key_values
        self.past_key_values = DynamicCache()  # clean: bs_reset


class BacktrackSampler:
    def __init__(self, provider, strategy):
        self.provider = provider
        self.strategy = strategy
        self.trace = []

    @torch.no_grad()
    def generate(self, prompt, max_new_tokens=None):
        input_tokens = self.provider.encode(prompt, add_special_tokens=False)
        continuation_tokens = []
        release_index = 0
        while True:
            generated_sequence = input_tokens + continuation_tokens
            if max_new_tokens is not None and len(continuation_tokens) >= max_new_tokens:
                for token in continuation_tokens[release_index:]:
                    yield token
                break
            logits = self.provider.generate(generated_sequence)
            self.trace.append((list(generated_sequence), logits, self.provider.past_key_values.get_seq_length()))
            logits = self.strategy.on_logits(logits, continuation_tokens)
            probs = self.strategy.on_probs(torch.softmax(logits, dim=-1), continuation_tokens)
            next_token = int(probs.argmax(-1))
            continuation_tokens.append(next_token)
            self.strategy.on_next_token(continuation_tokens, probs)
            intial_len = len(continuation_tokens)
            continuation_tokens = self.strategy.backtrack(continuation_tokens)
            if intial_len > len(continuation_tokens):
                self.provider.remove_latest_cache(intial_len - len(continuation_tokens))
            while release_index < self.strategy.get_keep_index():
                yield continuation_tokens[release_index]
                release_index += 1
        self.strategy.reset()
        self.provider.reset()


model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")


@torch.no_grad()
def probe_backtrack():
    provider = TransformersProvider(model, tokenizer)
    sampler = BacktrackSampler(provider, TakeBackOnce())
    tokens = list(sampler.generate("w14 w28 w42 w56 w70", 4))
    assert len(tokens) == 4
    assert len(sampler.trace) == 6
    for sequence, logits, cached in sampler.trace:
        assert cached == len(sequence)
        fresh = model.generate(torch.tensor([sequence]), max_new_tokens=1, min_new_tokens=1, do_sample=False,
                               return_dict_in_generate=True, output_scores=True).scores[0]
        assert torch.allclose(logits, fresh, atol=1e-3)  # the cached and the fresh pass sum in other orders
    assert provider.past_key_values.get_seq_length() == 0
