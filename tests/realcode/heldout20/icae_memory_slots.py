"""In-context autoencoder (ICAE) inference: a long context is compressed into a few memory-slot embeddings (the
encoder's last hidden states at appended memory tokens), the decoder is run on `inputs_embeds` = memory slots + prompt
embeddings, and the answer is decoded token by token by feeding the embedding of each new token with the
`past_key_values` of the previous forward, until EOS.

Provenance (mechanisms read; this code is written here, not copied):
- getao/icae @469a46886a92dd5e76b2d12a8bac0fb7ed7d4cdd
  code/icae_v2/pretrained_inference.py (`past_key_values = None`; the loop `out = model.icae(inputs_embeds=output,
  past_key_values=past_key_values, use_cache=True)`, `past_key_values = out.past_key_values`, `output =
  ...embed_tokens(next_token_id).unsqueeze(1)`, stop on EOS id 2).
Reduced: no LoRA encoder (the same model encodes, through its base model, and decodes); memory tokens are the last
rows of the embedding table; a few steps.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.2")
model.eval()
MEM_SIZE = 4
memory_token_ids = torch.arange(model.config.vocab_size - MEM_SIZE, model.config.vocab_size).unsqueeze(0)


@torch.no_grad()
def compress(context_ids):
    embs = model.get_input_embeddings()(torch.cat([context_ids, memory_token_ids], dim=1))
    hidden = model.model(inputs_embeds=embs, use_cache=False).last_hidden_state  # clean: ic_encode
    return hidden[:, -MEM_SIZE:]


@torch.no_grad()
def answer(memory_slots, prompt_ids, max_steps=4):
    output = torch.cat([memory_slots, model.get_input_embeddings()(prompt_ids)], dim=1)
    generate_text = []
    past_key_values = None
    for _ in range(max_steps):
        out = model(inputs_embeds=output, past_key_values=past_key_values, use_cache=True)  # clean: ic_decode_step
        logit = out.logits[:, -1, : model.config.vocab_size - 1]
        past_key_values = out.past_key_values  # clean: ic_keep_cache
        next_token_id = torch.argmax(logit, dim=-1)
        generate_text.append(next_token_id.item())
        output = model.get_input_embeddings()(next_token_id).unsqueeze(1)
    return generate_text, past_key_values


def probe_compress_and_answer():
    slots = compress(torch.tensor([[1, 40, 41, 42, 43, 44, 45, 46, 47]]))
    tokens, cache = answer(slots, torch.tensor([[1, 90, 91]]))
    assert len(tokens) == 4 and cache.get_seq_length() == MEM_SIZE + 3 + 3


def probe_answer_generate():
    slots = compress(torch.tensor([[1, 40, 41, 42]]))
    embeds = torch.cat([slots, model.get_input_embeddings()(torch.tensor([[1, 90]]))], dim=1)
    out = model.generate(inputs_embeds=embeds, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: ic_generate
    assert out.shape[1] == 3
