"""distil-whisper (distilled Whisper speech recognition, huggingface): the evaluation script builds one `gen_kwargs`
dict (`max_length`, `return_timestamps`, `num_beams`, `top_k=0`, and `assistant_model` when a draft model is given:
a `WhisperForCausalLM` decoder-only distilled model, for speculative decoding) and transcribes each batch with
`model.generate(inputs, attention_mask=attention_mask, **batch_gen_kwargs)`; its speed benchmark generates a fixed
number of tokens from dummy encoder outputs, `model.generate(encoder_outputs=dummy_encoder_outputs,
min_new_tokens=n_tokens, max_new_tokens=n_tokens, **gen_kwargs)`. The README's speculative decoding example loads
`WhisperForCausalLM.from_pretrained("distil-whisper/distil-large-v2")` as the assistant of
`WhisperForConditionalGeneration`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/distil-whisper @cc96130f6e4cc74cab4545f3c6e7e5c204ced871
  training/run_eval.py (`assistant_model = WhisperForCausalLM.from_pretrained(data_args.assistant_model_name_or_path,
  torch_dtype=dtype, attn_implementation=..., low_cpu_mem_usage=..., cache_dir=...)`; `gen_kwargs = {"max_length":
  data_args.generation_max_length, "return_timestamps": data_args.return_timestamps, "num_beams":
  data_args.num_beams, "top_k": 0}`, `if assistant_model is not None: gen_kwargs["assistant_model"] =
  assistant_model`; benchmark: `output_ids = model.generate(inputs, attention_mask=attention_mask,
  **batch_gen_kwargs)`; the fixed-token benchmark `model.generate(encoder_outputs=dummy_encoder_outputs,
  min_new_tokens=n_tokens, max_new_tokens=n_tokens, **gen_kwargs)`) and README.md (speculative decoding:
  `assistant_model = AutoModelForCausalLM.from_pretrained(assistant_model_id, ...)`, `generate_kwargs={
  "assistant_model": assistant_model}`).
Reduced: both models are built from small Whisper configs (no checkpoint download; the oracle cannot build Whisper
checkpoints), random log-mel features, no processor, dataset or WER; English-only (no language / task keywords),
no long-form arguments.
"""

import torch
from transformers import WhisperConfig, WhisperForCausalLM, WhisperForConditionalGeneration
from transformers.modeling_outputs import BaseModelOutput

config = WhisperConfig(vocab_size=120, num_mel_bins=8, encoder_layers=2, decoder_layers=2, d_model=32,
                       encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64,
                       max_source_positions=16, max_target_positions=32, decoder_start_token_id=1, pad_token_id=0,
                       eos_token_id=2, bos_token_id=1)
model = WhisperForConditionalGeneration(config).eval()
assistant_model = WhisperForCausalLM(WhisperConfig(**{**config.to_dict(), "decoder_layers": 1})).eval()


def build_gen_kwargs(generation_max_length=10, num_beams=1, return_timestamps=False, assistant=None):
    gen_kwargs = {
        "max_length": generation_max_length,
        "return_timestamps": return_timestamps,
        "num_beams": num_beams,
        "top_k": 0,
    }
    if assistant is not None:
        gen_kwargs["assistant_model"] = assistant  # clean: dsw_assistant_kwarg
    return gen_kwargs


def benchmark(inputs, attention_mask, gen_kwargs):
    with torch.no_grad():
        output_ids = model.generate(inputs, attention_mask=attention_mask, **gen_kwargs)  # clean: dsw_generate_batch
    return output_ids


def fixed_token_speed(dummy_encoder_outputs, gen_kwargs, n_tokens=4):
    with torch.no_grad():
        return model.generate(encoder_outputs=dummy_encoder_outputs, min_new_tokens=n_tokens, max_new_tokens=n_tokens, **gen_kwargs)  # clean: dsw_encoder_outputs_generate


inputs = torch.randn(2, 8, 32)
attention_mask = torch.ones(2, 32, dtype=torch.long)


def probe_eval():
    output_ids = benchmark(inputs, attention_mask, build_gen_kwargs())
    assert output_ids.shape[0] == 2


def probe_speculative():
    output_ids = benchmark(inputs[:1], attention_mask[:1], build_gen_kwargs(assistant=assistant_model))
    assert output_ids.shape[0] == 1


def probe_speed():
    gen_kwargs = build_gen_kwargs()
    gen_kwargs.pop("max_length")
    dummy = BaseModelOutput(last_hidden_state=torch.randn(1, 16, 32))
    out = fixed_token_speed(dummy, gen_kwargs)
    assert out.shape[1] >= 4
