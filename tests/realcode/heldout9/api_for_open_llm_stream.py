"""api-for-open-llm's streaming generator (an OpenAI-compatible server over transformers models): the prompt is
prefilled in one forward (for an encoder-decoder model: the encoder once, then the decoder from its start token with
`encoder_hidden_states`), and each following token runs the model, or `model.decoder`, on `past_key_values=None if
sent_interrupt else past_key_values` with `use_cache=True`, keeping `out.past_key_values`; greedy picks the top of
two candidates, stop tokens end the loop, and the cache is deleted at the end.

Provenance (mechanisms read; this code is written here, not copied):
- xusenlinzy/api-for-open-llm @1410ac39e2dcae4462cfff3e8a7e00d2789f2816
  libs/langchain_llm/langchain_llm/generation/stream.py (generate_stream: `if model.config.is_encoder_decoder:
  encoder_output = model.encoder(input_ids=...)[0]`, `start_ids = torch.as_tensor([[model.generation_config
  .decoder_start_token_id]], ...)`; prefill `out = model.decoder(input_ids=start_ids, encoder_hidden_states=
  encoder_output, use_cache=True)`, `logits = model.lm_head(out[0])` or `out = model(torch.as_tensor([input_ids]),
  use_cache=True)`; `past_key_values = out.past_key_values`; decoding `model.decoder(input_ids=...,
  encoder_hidden_states=encoder_output, use_cache=True, past_key_values=None if sent_interrupt else
  past_key_values)` or `model(input_ids=..., use_cache=True, past_key_values=None if sent_interrupt else
  past_key_values)`; greedy `torch.topk(last_token_logits, 2)`; `del past_key_values, out`).
Reduced: no logits processors, logprobs, stop strings, detokenization or yielded chunks; returns the token ids.
"""

import torch
from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM


@torch.inference_mode()
def generate_stream(model, params):
    input_ids = params.get("inputs")
    max_new_tokens = int(params.get("max_tokens", 256))
    stop_token_ids = params.get("stop_token_ids") or []
    output_ids = list(input_ids)
    device = model.device
    if model.config.is_encoder_decoder:
        encoder_output = model.encoder(input_ids=torch.as_tensor([input_ids], device=device))[0]
        start_ids = torch.as_tensor([[model.generation_config.decoder_start_token_id]], dtype=torch.int64, device=device)
    else:
        start_ids = torch.as_tensor([input_ids], device=device)
    past_key_values, sent_interrupt = None, False
    generated = []
    for i in range(max_new_tokens):
        if i == 0:
            if model.config.is_encoder_decoder:
                out = model.decoder(input_ids=start_ids, encoder_hidden_states=encoder_output, use_cache=True)  # clean: ap_decoder_prefill
                logits = model.lm_head(out[0])
            else:
                out = model(torch.as_tensor([input_ids], device=device), use_cache=True)  # clean: ap_prefill
                logits = out.logits
            past_key_values = out.past_key_values  # clean: ap_keep_prefill
        else:
            if model.config.is_encoder_decoder:
                out = model.decoder(input_ids=torch.as_tensor([output_ids if sent_interrupt else [token]], device=device),  # clean: ap_decoder_step
                                    encoder_hidden_states=encoder_output, use_cache=True,
                                    past_key_values=None if sent_interrupt else past_key_values)
                sent_interrupt = False
                logits = model.lm_head(out[0])
            else:
                out = model(input_ids=torch.as_tensor([output_ids if sent_interrupt else [token]], device=device),  # clean: ap_decoder_only_step
                            use_cache=True, past_key_values=None if sent_interrupt else past_key_values)
                sent_interrupt = False
                logits = out.logits
            past_key_values = out.past_key_values
        last_token_logits = logits[0, -1, :]
        _, indices = torch.topk(last_token_logits, 2)
        tokens = [int(index) for index in indices.tolist()]
        token = tokens[0]
        output_ids.append(token)
        generated.append(token)
        if token in stop_token_ids:
            break
    del past_key_values, out
    return generated


def probe_decoder_only():
    model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct")
    generated = generate_stream(model, {"inputs": [1, 100, 101, 102], "max_tokens": 4})
    assert len(generated) == 4


def probe_encoder_decoder():
    model = AutoModelForSeq2SeqLM.from_pretrained("google/flan-t5-large")
    generated = generate_stream(model, {"inputs": [5, 6, 7, 1], "max_tokens": 4})
    assert len(generated) == 4
