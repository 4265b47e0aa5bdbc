"""FastChat's model worker streaming loop (`generate_stream`): a prefill forward with `use_cache=True`, then one token
per step with `past_key_values=out.past_key_values`, for decoder-only models through the model's forward and for
encoder-decoder models (T5/Flan-T5) through `model.decoder(..., encoder_hidden_states=...)` and `model.lm_head`;
on an interrupted stream (`sent_interrupt`) the cache is dropped (`past_key_values=None`) and the whole output is
fed again.

Provenance (mechanisms read; this code is written here, not copied):
- lm-sys/FastChat @0e6d3e4beaab66f4d3f93db72541a4abab8af28d
  fastchat/serve/inference.py (generate_stream: `encoder_output = model.encoder(input_ids=...)[0]`,
  `start_ids` from `decoder_start_token_id`, the prefill `model.decoder(input_ids=start_ids,
  encoder_hidden_states=encoder_output, use_cache=True)` / `model(input_ids=start_ids, use_cache=True)`,
  `past_key_values = out.past_key_values`, the decode steps `past_key_values=past_key_values if not
  sent_interrupt else None`, `logits = model.lm_head(out[0])`).
Reduced: no logits processors, stop strings or logprobs; greedy.
"""

import torch
from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM


@torch.inference_mode()
def generate_stream(model, input_ids, max_new_tokens=4, interrupt_at=None):
    output_ids = list(input_ids)
    if model.config.is_encoder_decoder:
        encoder_output = model.encoder(input_ids=torch.as_tensor([input_ids]))[0]
        start_ids = torch.as_tensor([[model.generation_config.decoder_start_token_id]], dtype=torch.int64)
    else:
        start_ids = torch.as_tensor([input_ids])
    past_key_values = out = None
    sent_interrupt = False
    for i in range(max_new_tokens):
        if i == 0:
            if model.config.is_encoder_decoder:
                out = model.decoder(input_ids=start_ids, encoder_hidden_states=encoder_output, use_cache=True)  # clean: fc_t5_prefill
                logits = model.lm_head(out[0])
            else:
                out = model(input_ids=start_ids, use_cache=True)  # clean: fc_prefill
                logits = out.logits
            past_key_values = out.past_key_values  # clean: fc_keep_cache
        else:
            if model.config.is_encoder_decoder:
                out = model.decoder(  # clean: fc_t5_step
                    input_ids=torch.as_tensor([[token] if not sent_interrupt else output_ids[len(input_ids) - 1:]]),
                    encoder_hidden_states=encoder_output,
                    use_cache=True,
                    past_key_values=past_key_values if not sent_interrupt else None,
                )
                sent_interrupt = False
                logits = model.lm_head(out[0])
            else:
                out = model(  # clean: fc_step
                    input_ids=torch.as_tensor([[token] if not sent_interrupt else output_ids]),
                    use_cache=True,
                    past_key_values=past_key_values if not sent_interrupt else None,
                )
                sent_interrupt = False
                logits = out.logits
            past_key_values = out.past_key_values
        token = int(logits[0, -1].argmax())
        output_ids.append(token)
        if interrupt_at == i:
            sent_interrupt = True
    return output_ids, past_key_values


def probe_causal():
    model = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5").eval()
    ids, cache = generate_stream(model, [1, 6, 10, 14, 18], max_new_tokens=4)
    assert len(ids) == 9 and cache.get_seq_length() == 8


def probe_causal_interrupted():
    model = AutoModelForCausalLM.from_pretrained("lmsys/vicuna-7b-v1.5").eval()
    ids, cache = generate_stream(model, [1, 6, 10, 14, 18], max_new_tokens=4, interrupt_at=1)
    assert len(ids) == 9 and cache.get_seq_length() == 8


def probe_t5():
    model = AutoModelForSeq2SeqLM.from_pretrained("google/flan-t5-xl").eval()
    ids, _ = generate_stream(model, [5, 9, 13, 1], max_new_tokens=4)
    assert len(ids) == 8
