"""Three Bricks (facebookresearch/three_bricks, robust watermarks for LLMs): `WmGenerator.generate` is the LLaMA
reference sampling loop driven through a Hugging Face model: the prompts are left-aligned in a pad-filled token
tensor, and from the shortest prompt's end each step calls `self.model.forward(tokens[:, prev_pos:cur_pos],
use_cache=True, past_key_values=outputs.past_key_values if prev_pos > 0 else None)`, so the first call prefills the
common prefix without a cache and each later call feeds one column with the previous output's cache; the next token
is sampled from a seed hashed over the last n-gram (the watermark), and a prompt's own tokens are kept where it is
longer than the column being generated. The detector scores texts with `self.model.forward(input_ids,
return_dict=True)` for its perplexity-aware scores.

Provenance (mechanisms read; this code is written here, not copied):
- facebookresearch/three_bricks @ee9c7a286bd19e2c05c69d380c5d54bb47f17673
  wm/generator.py (`WmGenerator.__init__`'s `hashtable = torch.randperm(1000003)`, `hashint`, `get_seed_rng` with the
  "hash" and "additive" seedings; `generate`: `tokens = torch.full((bsz, total_len), self.pad_id)`, `input_text_mask
  = tokens != self.pad_id`, `start_pos = min_prompt_size`, `prev_pos = 0`, `outputs = self.model.forward(tokens[:,
  prev_pos:cur_pos], use_cache=True, past_key_values=outputs.past_key_values if prev_pos > 0 else None)`,
  `ngram_tokens = tokens[:, cur_pos-self.ngram:cur_pos]`, `torch.where(input_text_mask[:, cur_pos], tokens[:,
  cur_pos], next_toks)`, `prev_pos = cur_pos`; `OpenaiGenerator.sample_next`: the seeded `torch.rand` and
  `argmax(rs ** (1/probs))` over the top-p tokens) and wm/detector.py (`outputs = self.model.forward(input_ids,
  return_dict=True)`).
Reduced: token ids instead of a tokenizer, the "additive" seeding only, top-p dropped (the whole distribution), no
EOS cut; the detector reduced to its forward and the mean log-probability of the text.
"""

import torch
from transformers import AutoModelForCausalLM


class WmGenerator:
    def __init__(self, model, ngram=1, seed=0, salt_key=35317, pad_id=0):
        self.model = model
        self.ngram, self.seed, self.salt_key, self.pad_id = ngram, seed, salt_key, pad_id
        self.max_seq_len = 64
        self.hashtable = torch.randperm(1000003)
        self.rng = torch.Generator()
        self.rng.manual_seed(seed)

    def hashint(self, integer_tensor):
        return self.hashtable[integer_tensor % len(self.hashtable)]

    def get_seed_rng(self, input_ids):
        return int(self.hashint(self.salt_key * torch.sum(input_ids)).item())

    @torch.no_grad()
    def generate(self, prompt_tokens, max_gen_len, temperature=0.8):
        bsz = len(prompt_tokens)
        min_prompt_size = min(len(t) for t in prompt_tokens)
        max_prompt_size = max(len(t) for t in prompt_tokens)
        total_len = min(self.max_seq_len, max_gen_len + max_prompt_size)
        tokens = torch.full((bsz, total_len), self.pad_id).long()
        for k, t in enumerate(prompt_tokens):
            tokens[k, :len(t)] = torch.tensor(t).long()
        input_text_mask = tokens != self.pad_id
        start_pos = min_prompt_size
        prev_pos = 0
        for cur_pos in range(start_pos, total_len):
            outputs = self.model.forward(tokens[:, prev_pos:cur_pos], use_cache=True, past_key_values=outputs.past_key_values if prev_pos > 0 else None)  # clean: tb_forward_step
            ngram_tokens = tokens[:, cur_pos - self.ngram:cur_pos]
            next_toks = self.sample_next(outputs.logits[:, -1, :], ngram_tokens, temperature)
            tokens[:, cur_pos] = torch.where(input_text_mask[:, cur_pos], tokens[:, cur_pos], next_toks)
            prev_pos = cur_pos
        return tokens, outputs.past_key_values

    def sample_next(self, logits, ngram_tokens, temperature=0.8):
        probs = torch.softmax(logits / temperature, dim=-1)
        next_tokens = []
        for ii in range(ngram_tokens.shape[0]):
            self.rng.manual_seed(self.get_seed_rng(ngram_tokens[ii]))
            rs = torch.rand(probs.shape[-1], generator=self.rng)
            next_tokens.append(torch.argmax(rs ** (1 / probs[ii])))
        return torch.stack(next_tokens)


class WmDetector:
    def __init__(self, model):
        self.model = model

    @torch.no_grad()
    def mean_logprob(self, input_ids):
        outputs = self.model.forward(input_ids, return_dict=True)  # clean: tb_detector_forward
        logprobs = torch.log_softmax(outputs.logits[:, :-1], dim=-1)
        return logprobs.gather(-1, input_ids[:, 1:, None]).mean().item()


model = AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b").eval()


def probe_generate():
    generator = WmGenerator(model, ngram=2)
    tokens, past = generator.generate([[1, 11, 12, 13], [1, 21, 22, 23, 24, 25]], max_gen_len=3)
    assert tokens.shape == (2, 9)
    assert past.get_seq_length() == 8
    assert tokens[1, 5].item() == 25


def probe_detect():
    score = WmDetector(model).mean_logprob(torch.tensor([[1, 11, 12, 13, 14]]))
    assert score < 0
