"""Janus / Janus-Pro / JanusFlow image generation with classifier-free guidance: the prompt is embedded twice per
image (conditional rows and unconditional rows with the prompt padded out), then the language model's decoder
(`language_model.model`, no LM head) is called step by step with `inputs_embeds`, `use_cache=True` and
`past_key_values=outputs.past_key_values if i != 0 else None`; a generation head turns the last hidden state into
image-token logits mixed by the CFG weight. JanusFlow instead re-runs the image latents every ODE step over the
prompt's cache: after step 0 it cuts every layer's `(k, v)` to the prompt length, builds a tuple of pairs, and
passes that tuple as `past_key_values` to the next steps.

Provenance (mechanisms read; this code is written here, not copied):
- deepseek-ai/Janus @1daa72fa409002d40931bd7b36a9280362469ead
  generation_inference.py (`tokens[i, 1:-1] = vl_chat_processor.pad_id` for the odd rows, `inputs_embeds =
  mmgpt.language_model.get_input_embeddings()(tokens)`, `outputs = mmgpt.language_model.model(inputs_embeds=
  inputs_embeds, use_cache=True, past_key_values=outputs.past_key_values if i != 0 else None)`, `logits =
  mmgpt.gen_head(hidden_states[:, -1, :])`, `logit_uncond + cfg_weight * (logit_cond - logit_uncond)`, the next
  token's embedding `mmgpt.prepare_gen_img_embeds(next_token)`) and demo/app_janusflow.py (step 0:
  `vl_gpt.language_model.model(inputs_embeds=llm_emb, use_cache=True, attention_mask=attention_mask,
  past_key_values=None)`, `for kv_cache in past_key_values: k, v = kv_cache[0], kv_cache[1]`,
  `past_key_values.append((k[:, :, :inputs_embeds.shape[1], :], v[:, :, :inputs_embeds.shape[1], :]))`,
  `past_key_values = tuple(past_key_values)`, later steps pass that tuple).
Reduced: the vision tokenizer, gen head and embeddings are small linear layers over a Llama decoder; a few image
tokens instead of 576; JanusFlow's loop (the original iterates a list it has just emptied) iterates the step-0
output's cache, as its slicing intends; one ODE step after the first.
"""

import torch
from transformers import AutoModelForCausalLM


class MultiModalityCausalLM(torch.nn.Module):
    def __init__(self, language_model, image_vocab=64):
        super().__init__()
        self.language_model = language_model
        hidden = language_model.config.hidden_size
        self.gen_head = torch.nn.Linear(hidden, image_vocab)
        self.gen_embed = torch.nn.Embedding(image_vocab, hidden)

    def prepare_gen_img_embeds(self, image_ids):
        return self.gen_embed(image_ids)


mmgpt = MultiModalityCausalLM(AutoModelForCausalLM.from_pretrained("deepseek-ai/Janus-Pro-1B")).eval()
pad_id = 0


@torch.inference_mode()
def generate(input_ids, parallel_size=2, cfg_weight=5.0, image_token_num_per_image=4):
    tokens = torch.zeros((parallel_size * 2, len(input_ids)), dtype=torch.long)
    for i in range(parallel_size * 2):
        tokens[i, :] = input_ids
        if i % 2 != 0:
            tokens[i, 1:-1] = pad_id
    inputs_embeds = mmgpt.language_model.get_input_embeddings()(tokens)
    generated_tokens = torch.zeros((parallel_size, image_token_num_per_image), dtype=torch.long)
    outputs = None
    for i in range(image_token_num_per_image):
        outputs = mmgpt.language_model.model(inputs_embeds=inputs_embeds, use_cache=True,  # clean: jn_step
                                             past_key_values=outputs.past_key_values if i != 0 else None)
        hidden_states = outputs.last_hidden_state
        logits = mmgpt.gen_head(hidden_states[:, -1, :])
        logit_cond, logit_uncond = logits[0::2, :], logits[1::2, :]
        logits = logit_uncond + cfg_weight * (logit_cond - logit_uncond)
        next_token = logits.argmax(-1, keepdim=True)
        generated_tokens[:, i] = next_token.squeeze(dim=-1)
        next_token = torch.cat([next_token, next_token], dim=1).view(-1)
        inputs_embeds = mmgpt.prepare_gen_img_embeds(next_token).unsqueeze(dim=1)
    return generated_tokens, outputs.past_key_values


def _prompt_cache(outputs, prompt_len):
    past_key_values = []
    for kv_cache in outputs.past_key_values:  # clean: jn_iterate_layers
        k, v = kv_cache[0], kv_cache[1]
        past_key_values.append((k[:, :, :prompt_len, :], v[:, :, :prompt_len, :]))
    return tuple(past_key_values)


@torch.inference_mode()
def flow_steps(input_ids, latent_tokens=3, num_inference_steps=2):
    inputs_embeds = mmgpt.language_model.get_input_embeddings()(input_ids.repeat(2, 1))
    past_key_values = None
    for step in range(num_inference_steps):
        z_emb = torch.randn(2, latent_tokens, inputs_embeds.shape[-1])
        llm_emb = torch.cat([inputs_embeds, z_emb], dim=1) if step == 0 else z_emb
        attention_mask = torch.ones((2, inputs_embeds.shape[1] + latent_tokens), dtype=torch.long)
        if step == 0:
            outputs = mmgpt.language_model.model(inputs_embeds=llm_emb, use_cache=True, attention_mask=attention_mask,
                                                 past_key_values=None)
            past_key_values = _prompt_cache(outputs, inputs_embeds.shape[1])
        else:
            outputs = mmgpt.language_model.model(inputs_embeds=llm_emb, use_cache=True, attention_mask=attention_mask,  # site: jn_flow_tuple
                                                 past_key_values=past_key_values)
    return outputs.last_hidden_state


prompt = torch.tensor([1, 17, 23, 29, 31, 2])


def probe_generate():
    image_tokens, cache = generate(prompt)
    assert image_tokens.shape == (2, 4) and cache.get_seq_length() == 9


def probe_flow():
    flow_steps(prompt.unsqueeze(0))


def probe_prompt_cache():
    with torch.inference_mode():
        outputs = mmgpt.language_model.model(inputs_embeds=torch.randn(2, 8, 128), use_cache=True)
    pairs = _prompt_cache(outputs, 6)
    assert len(pairs) == 2 and pairs[0][0].shape[2] == 6
