"""Robust distortion-free watermarking (Kuditipudi et al.): the watermarked text is sampled token by token from a
key sequence (exponential-minimum / Gumbel sampling with a seeded uniform `xi` per position). The project's own
`generate` loop runs the whole prompt once, then feeds only the last token with `past_key_values=past` and the grown
attention mask while `past` is truthy, keeping `output.past_key_values` each step; the unwatermarked baseline
`generate_rnd` is the same loop with multinomial sampling.

Provenance (mechanisms read; this code is written here, not copied):
- jthickstun/watermark @80d4ec8f4280da2a2cada03adfc8940593d1964c
  watermarking/generation.py (generate: key sequences from `torch.Generator` seeds, `past = None`, `for i in
  range(m):`, `if past: output = model(inputs[:,-1:], past_key_values=past, attention_mask=attn)`, `else: output =
  model(inputs)`, `probs = softmax(output.logits[:,-1])`, `tokens = sampler(probs, pis, xis[...])`, `past =
  output.past_key_values`, `attn = torch.cat([attn, attn.new_ones((attn.shape[0], 1))], dim=-1)`; generate_rnd: the
  same loop with `torch.multinomial`), watermarking/gumbel/sampler.py and key.py (the Gumbel sampler and its key),
  experiments/c4-experiment.py (`AutoModelForCausalLM.from_pretrained(args.model)`, OPT models).
Reduced: one key function and the Gumbel sampler written inline, no permutation (`pis` unused by this sampler), batch
of one, no detection; the model is any causal LM.
"""

import torch
from transformers import AutoModelForCausalLM


def gumbel_key_func(generator, n, vocab_size):
    xi = torch.rand((n, vocab_size), generator=generator)
    pi = torch.arange(vocab_size)
    return xi, pi


def gumbel_sampling(probs, pi, xi):
    return torch.argmax(xi ** (1 / torch.gather(probs, 1, pi)), axis=1).unsqueeze(-1)


def generate(model, prompts, vocab_size, n, m, seeds, key_func, sampler, random_offset=True):
    batch_size = len(prompts)
    generator = torch.Generator()
    xis, pis = [], []
    for seed in seeds:
        generator.manual_seed(int(seed))
        xi, pi = key_func(generator, n, vocab_size)
        xis.append(xi.unsqueeze(0))
        pis.append(pi.unsqueeze(0))
    xis = torch.vstack(xis)
    pis = torch.vstack(pis)
    if random_offset:
        offset = torch.randint(n, size=(batch_size,))
    else:
        offset = torch.zeros(size=(batch_size,), dtype=torch.int64)
    inputs = prompts.to(model.device)
    attn = torch.ones_like(inputs)
    past = None
    for i in range(m):
        with torch.no_grad():
            if past:  # clean: wm_past_truthy
                output = model(inputs[:, -1:], past_key_values=past, attention_mask=attn)  # clean: wm_step
            else:
                output = model(inputs)
        probs = torch.nn.functional.softmax(output.logits[:, -1], dim=-1).cpu()
        tokens = sampler(probs, pis, xis[torch.arange(batch_size), (offset.squeeze() + i) % n]).to(model.device)
        inputs = torch.cat([inputs, tokens], dim=-1)
        past = output.past_key_values  # clean: wm_keep_past
        attn = torch.cat([attn, attn.new_ones((attn.shape[0], 1))], dim=-1)
    return inputs.detach().cpu(), past


def generate_rnd(prompts, m, model):
    inputs = prompts.to(model.device)
    attn = torch.ones_like(inputs)
    past = None
    for i in range(m):
        with torch.no_grad():
            if past:
                output = model(inputs[:, -1:], past_key_values=past, attention_mask=attn)  # clean: wm_rnd_step
            else:
                output = model(inputs)
        probs = torch.nn.functional.softmax(output.logits[:, -1], dim=-1)
        tokens = torch.multinomial(probs, 1)
        inputs = torch.cat([inputs, tokens], dim=1)
        past = output.past_key_values
        attn = torch.cat([attn, attn.new_ones((attn.shape[0], 1))], dim=-1)
    return inputs.detach().cpu(), past


model = AutoModelForCausalLM.from_pretrained("facebook/opt-1.3b").eval()
vocab_size = model.get_output_embeddings().weight.shape[0]
prompt = torch.tensor([[1, 40, 41, 42, 43]])


def probe_watermarked():
    fed = []
    hook = model.register_forward_pre_hook(lambda module, args: fed.append(args[0].shape[1]))
    tokens, past = generate(model, prompt, vocab_size, 16, 4, [7], gumbel_key_func, gumbel_sampling,
                            random_offset=False)
    hook.remove()
    assert tokens.shape == (1, 9) and past.get_seq_length() == 8
    assert fed == [5, 1, 1, 1], "wm_past_truthy: the loop re-ran the whole sequence"


def probe_baseline():
    torch.manual_seed(0)
    tokens, past = generate_rnd(prompt, 3, model)
    assert tokens.shape == (1, 8) and past.get_seq_length() == 7
