"""A Watermark for Large Language Models (jwkirchenbauer/lm-watermarking): `WatermarkLogitsProcessor` seeds a
generator from the previous token (`_seed_rng(input_ids[b_idx])`), draws the green list of `gamma * vocab` tokens and
adds `delta` to their logits at every step; the demo's `generate` builds `partial(model.generate,
logits_processor=LogitsProcessorList([watermark_processor]), **gen_kwargs)` (multinomial sampling with `top_k=0` or
`num_beams`, `max_new_tokens`) and a second partial without the processor, runs both on the same tokenized prompt and
decodes `output[:, tokd_input["input_ids"].shape[-1]:]`; the evaluation scores text with the oracle model's loss.
The reliability release generates in left-padded batches; batch loops that stop finished rows drop them from the
batch, cache included.

Provenance (mechanisms read; this code is written here, not copied):
- jwkirchenbauer/lm-watermarking @472ed74daf5868f4d109c8213ec5a63b32bf4b94 demo_watermark.py (generate, load_model),
  @bbe1fb8803a5976062c2f923c478c1be859140a5 watermark_processor.py (WatermarkLogitsProcessor),
  @3d071a0ed373f301689d40e3a570ec1dcca5d223 watermark_reliability_release/utils/generation.py (load_model,
  left padding for decoder-only models).
Reduced: a tiny Llama from a config; greedy instead of sampling so the probes are deterministic; the hand-written
batch loop that drops finished rows (with the tuple-of-layers cache it keeps, and the Cache method that does the
same) is this case's own, written the way 4.3x-era batch decoders did it.
"""

from functools import partial

import torch
from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessor, LogitsProcessorList

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                     eos_token_id=2, pad_token_id=0)).eval()


class WatermarkLogitsProcessor(LogitsProcessor):
    def __init__(self, vocab_size, gamma=0.25, delta=2.0, hash_key=15485863):
        self.vocab_size, self.gamma, self.delta, self.hash_key = vocab_size, gamma, delta, hash_key
        self.rng = torch.Generator()
        self.calls = 0

    def _greenlist_ids(self, input_ids):
        self.rng.manual_seed(self.hash_key * int(input_ids[-1].item()))
        perm = torch.randperm(self.vocab_size, generator=self.rng)
        return perm[: int(self.vocab_size * self.gamma)]

    def __call__(self, input_ids, scores):
        self.calls += 1
        for b_idx in range(input_ids.shape[0]):
            scores[b_idx, self._greenlist_ids(input_ids[b_idx])] += self.delta
        return scores


def generate(tokd_input, max_new_tokens=4, n_beams=1):
    watermark_processor = WatermarkLogitsProcessor(vocab_size=320)
    gen_kwargs = {"max_new_tokens": max_new_tokens, "min_new_tokens": max_new_tokens, "do_sample": False, "num_beams": n_beams}
    generate_without_watermark = partial(model.generate, **gen_kwargs)
    generate_with_watermark = partial(model.generate, logits_processor=LogitsProcessorList([watermark_processor]),
                                      **gen_kwargs)
    output_without_watermark = generate_without_watermark(**tokd_input)  # clean: wm_generate_plain
    output_with_watermark = generate_with_watermark(**tokd_input)  # clean: wm_generate_watermarked
    start = tokd_input["input_ids"].shape[-1]
    return output_without_watermark[:, start:], output_with_watermark[:, start:], watermark_processor.calls


def oracle_loss(input_ids):
    with torch.no_grad():
        return model(input_ids=input_ids, labels=input_ids, use_cache=False).loss  # clean: wm_oracle_loss


@torch.no_grad()
def batch_decode_drop_finished(input_ids, attention_mask, steps, finished_after):
    out = model(input_ids=input_ids, attention_mask=attention_mask, use_cache=True)
    past = out.past_key_values
    alive = list(range(input_ids.shape[0]))
    for step in range(steps):
        still = [i for i in alive if finished_after.get(i, steps) > step]
        keep, alive = torch.tensor([alive.index(i) for i in still]), still
        past = tuple(tuple(t[keep] for t in layer) for layer in past)  # site: wm_drop_rows_tuple
        input_ids, attention_mask = input_ids[keep], attention_mask[keep]
        next_tokens = out.logits[keep, -1:].argmax(-1)
        input_ids = torch.cat([input_ids, next_tokens], dim=-1)
        attention_mask = torch.cat([attention_mask, attention_mask.new_ones(len(keep), 1)], dim=-1)
        out = model(input_ids=next_tokens, attention_mask=attention_mask, past_key_values=past, use_cache=True)  # observe: wm_drop_rows_tuple
    return input_ids


@torch.no_grad()
def batch_decode_select(input_ids, attention_mask, steps, finished_after):
    out = model(input_ids=input_ids, attention_mask=attention_mask, use_cache=True)
    past = out.past_key_values
    alive = list(range(input_ids.shape[0]))
    for step in range(steps):
        still = [i for i in alive if finished_after.get(i, steps) > step]
        keep, alive = torch.tensor([alive.index(i) for i in still]), still
        past.batch_select_indices(keep)  # clean: wm_batch_select
        input_ids, attention_mask = input_ids[keep], attention_mask[keep]
        next_tokens = out.logits[keep, -1:].argmax(-1)
        input_ids = torch.cat([input_ids, next_tokens], dim=-1)
        attention_mask = torch.cat([attention_mask, attention_mask.new_ones(len(keep), 1)], dim=-1)
        out = model(input_ids=next_tokens, attention_mask=attention_mask, past_key_values=past, use_cache=True)  # clean: wm_select_step
    return input_ids


batch = torch.tensor([[0, 0, 90, 91, 92], [93, 94, 95, 96, 97], [0, 98, 99, 100, 101]])
batch_mask = (batch != 0).long()


def probe_demo_generate():
    tokd_input = {"input_ids": torch.tensor([[1, 90, 91, 92]]), "attention_mask": torch.ones(1, 4, dtype=torch.long)}
    model.generation_config.min_new_tokens = 4
    plain, marked, calls = generate(tokd_input)
    assert plain.shape == (1, 4) and marked.shape == (1, 4) and calls == 4
    assert oracle_loss(torch.cat([tokd_input["input_ids"], marked], dim=-1)) > 0


def probe_drop_finished_tuple():
    out = batch_decode_drop_finished(batch, batch_mask, steps=3, finished_after={1: 1})
    assert out.shape == (2, 8)


def probe_drop_finished_select():
    out = batch_decode_select(batch, batch_mask, steps=3, finished_after={1: 1})
    assert out.shape == (2, 8)
