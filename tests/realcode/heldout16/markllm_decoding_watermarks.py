"""MarkLLM's decoding-time watermarks that run their own forward loop instead of `generate`: the PF (permute-flip)
watermark walks a fixed-length token buffer, feeding `tokens[prev_pos:cur_pos]` with `past_key_values=
outputs.past_key_values if prev_pos > 0 else None` and sampling the next token from a seeded key over the last n-gram;
the Adaptive watermark keeps `past` between steps, feeds the last id with the grown attention mask while `past` is
truthy, and biases the logits before top-k/top-p sampling.

Provenance (mechanisms read; this code is written here, not copied):
- THU-BPM/MarkLLM @112fa7419b115efc82f229a59a86fb14c5528c80
  watermark/pf/pf.py (PF.generate_watermarked_text: `tokens = torch.full((total_len,), pad_id)`, `for cur_pos in
  range(start_pos, total_len): outputs = self.config.generation_model.forward(tokens[prev_pos:cur_pos].unsqueeze(0),
  use_cache=True, past_key_values=outputs.past_key_values if prev_pos > 0 else None)`, `next_toks =
  self.utils.sample_next(outputs.logits[:, -1, :], ngram_tokens, temperature, top_p)`, `prev_pos = cur_pos`;
  PFUtils.sample_next: sorted top-p, `rs = torch.rand(vocab_size, generator=self.rng)`, argmax of `log_probs -
  rs.log()`), watermark/adaptive/adaptive.py (Adaptive.generate_watermarked_text: `past = None`, `if past: output =
  self.config.generation_model(input_ids[:,-1:], attention_mask=attn, past_key_values=past)`, `else: output =
  self.config.generation_model(input_ids)`, `past = output.past_key_values`, `attn = torch.cat([attn,
  attn.new_ones(...)])`), watermark/base.py (BaseWatermark.generate_unwatermarked_text:
  `self.config.generation_model.generate(**encoded_prompt, **self.config.gen_kwargs)`, the transformers config's
  `gen_kwargs` dict).
Reduced: the seed is a hash of the n-gram's ids, no payload roll, the Adaptive bias is a fixed green list (no
semantic measure model), no repetition penalty or stopping criteria, token ids in and out.
"""

import torch
from transformers import AutoModelForCausalLM


class PFWatermark:
    def __init__(self, model, vocab_size, max_new_tokens, ngram=2, pad_id=0, temperature=0.9, top_p=1.0):
        self.model = model
        self.vocab_size = vocab_size
        self.max_new_tokens = max_new_tokens
        self.ngram = ngram
        self.pad_id = pad_id
        self.temperature = temperature
        self.top_p = top_p
        self.rng = torch.Generator()

    def sample_next(self, logits, ngram_tokens):
        probs = torch.softmax(logits / self.temperature, dim=-1)
        probs_sort, probs_idx = torch.sort(probs, dim=-1, descending=True)
        probs_sum = torch.cumsum(probs_sort, dim=-1)
        probs_sort[probs_sum - probs_sort > self.top_p] = 0.0
        probs_sort.div_(probs_sort.sum(dim=-1, keepdim=True))
        self.rng.manual_seed(int(ngram_tokens.sum()) * 15485863 % (2 ** 31))
        rs = torch.rand(self.vocab_size, generator=self.rng)[probs_idx]
        next_idx = torch.argmax(probs_sort.log() - rs.log(), dim=-1, keepdim=True)
        return torch.gather(probs_idx, -1, next_idx).reshape(-1)

    @torch.no_grad()
    def generate_watermarked(self, prompt_tokens):
        total_len = len(prompt_tokens) + self.max_new_tokens
        tokens = torch.full((total_len,), self.pad_id).long()
        tokens[: len(prompt_tokens)] = torch.tensor(prompt_tokens).long()
        start_pos = len(prompt_tokens)
        prev_pos = 0
        fed = []
        for cur_pos in range(start_pos, total_len):
            outputs = self.model.forward(  # clean: mk_pf_forward
                tokens[prev_pos:cur_pos].unsqueeze(0), use_cache=True,
                past_key_values=outputs.past_key_values if prev_pos > 0 else None,
            )
            fed.append(cur_pos - prev_pos)
            ngram_tokens = tokens[cur_pos - self.ngram:cur_pos]
            tokens[cur_pos] = self.sample_next(outputs.logits[:, -1, :], ngram_tokens)[0]
            prev_pos = cur_pos
        return tokens.tolist(), fed, outputs.past_key_values


class AdaptiveWatermark:
    def __init__(self, model, max_new_tokens, green, delta=2.0):
        self.model = model
        self.max_new_tokens = max_new_tokens
        self.green = green
        self.delta = delta

    @torch.no_grad()
    def generate_watermarked(self, input_ids):
        output_ids = torch.tensor([[]], dtype=torch.int64)
        attn = torch.ones_like(input_ids)
        past = None
        for i in range(self.max_new_tokens):
            if past:
                output = self.model(input_ids[:, -1:], attention_mask=attn, past_key_values=past)  # clean: mk_adaptive_step
            else:
                output = self.model(input_ids)
            logits = output.logits[:, -1, :]
            logits[:, self.green] += self.delta
            next_id = torch.argmax(logits, dim=-1, keepdim=True)
            input_ids = torch.cat((input_ids, next_id), dim=-1)
            output_ids = torch.cat((output_ids, next_id), dim=-1)
            past = output.past_key_values  # clean: mk_adaptive_keep
            attn = torch.cat([attn, attn.new_ones((attn.shape[0], 1))], dim=-1)
        return output_ids, past


def generate_unwatermarked(model, encoded_prompt, gen_kwargs):
    return model.generate(**encoded_prompt, **gen_kwargs)  # clean: mk_unwatermarked_generate


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf").eval()
vocab_size = model.config.vocab_size


def probe_pf():
    pf = PFWatermark(model, vocab_size, 4)
    tokens, fed, past = pf.generate_watermarked([1, 70, 71, 72, 73])
    assert len(tokens) == 9 and fed == [5, 1, 1, 1] and past.get_seq_length() == 8


def probe_adaptive():
    adaptive = AdaptiveWatermark(model, 3, green=torch.arange(0, vocab_size, 2))
    output_ids, past = adaptive.generate_watermarked(torch.tensor([[1, 80, 81, 82]]))
    assert output_ids.shape == (1, 3) and past.get_seq_length() == 6


def probe_unwatermarked():
    encoded_prompt = {"input_ids": torch.tensor([[1, 84, 85, 86]]), "attention_mask": torch.ones(1, 4, dtype=torch.long)}
    gen_kwargs = {"max_new_tokens": 3, "min_new_tokens": 3, "do_sample": True, "top_k": 0}
    out = generate_unwatermarked(model, encoded_prompt, gen_kwargs)
    assert out.shape == (1, 7)
