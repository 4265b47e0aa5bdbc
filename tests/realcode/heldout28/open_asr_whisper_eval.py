"""Open ASR Leaderboard (huggingface/open_asr_leaderboard), the evaluation harness behind the leaderboard's WER and
RTFx figures: `transformers/run_eval.py` loads a speech seq2seq model (Whisper) or a CTC model, and with
`--torch_compile` compiles `model.forward` and enables the static k/v cache for auto-regressive models
(`model.generation_config.cache_implementation = "static"`). Its `benchmark(batch)` pads the last minibatch to the
batch size (so a compiled graph is not rebuilt), runs `model.generate(**inputs, **gen_kwargs,
min_new_tokens=min_new_tokens)` under an SDPA backend choice, strips the padded rows and decodes; warm-up batches
pass `min_new_tokens=max_new_tokens`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/open_asr_leaderboard @15f139b9049311bcb54816b7eee76a255c8456a3 transformers/run_eval.py (main,
  benchmark).
Reduced: a tiny Whisper from a config and random log-mel features instead of a dataset and processor; no
torch.compile (minutes on the CPU; the cache settings are the ones the compiled run uses), no WER; the token ids are
returned instead of decoded text.
"""

import time

import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
from transformers import WhisperConfig, WhisperForConditionalGeneration

torch.manual_seed(0)
model = WhisperForConditionalGeneration(WhisperConfig(
    vocab_size=120, num_mel_bins=8, encoder_layers=1, decoder_layers=2, d_model=32, encoder_attention_heads=4,
    decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_source_positions=16,
    max_target_positions=32, decoder_start_token_id=1, pad_token_id=0, eos_token_id=2, bos_token_id=1,
    begin_suppress_tokens=None, suppress_tokens=None)).eval()


def configure(model, max_new_tokens, torch_compile=True):
    gen_kwargs = {"max_new_tokens": max_new_tokens}  # clean: oa_gen_kwargs
    if torch_compile:
        # enable static k/v cache for autoregressive models
        model.generation_config.cache_implementation = "static"  # clean: oa_static_cache
    return gen_kwargs


def benchmark(model, features, gen_kwargs, batch_size, torch_compile=True, min_new_tokens=None):
    minibatch_size = features.shape[0]
    start_time = time.time()
    padding_size = None
    if minibatch_size != batch_size and torch_compile:
        padding_size = batch_size - minibatch_size
        features = torch.cat([features, features[-1:].repeat(padding_size, 1, 1)], dim=0)
    sdpa_backends = [SDPBackend.MATH] if torch_compile else [SDPBackend.FLASH_ATTENTION, SDPBackend.MATH]
    with sdpa_kernel(sdpa_backends):
        pred_ids = model.generate(input_features=features, **gen_kwargs, min_new_tokens=min_new_tokens)  # clean: oa_generate
    if padding_size is not None:
        pred_ids = pred_ids[:-padding_size, ...]
    runtime = time.time() - start_time
    return pred_ids, minibatch_size * [runtime / minibatch_size]


def probe_static_batches():
    gen_kwargs = configure(model, max_new_tokens=5)
    warm, _ = benchmark(model, torch.randn(4, 8, 32), gen_kwargs, batch_size=4, min_new_tokens=5)
    last, times = benchmark(model, torch.randn(3, 8, 32), gen_kwargs, batch_size=4, min_new_tokens=5)
    assert (warm.shape, last.shape, len(times)) == ((4, 5), (3, 5), 3), (warm.shape, last.shape, len(times))
    model.generation_config.cache_implementation = None
    alone = model.generate(input_features=torch.randn(3, 8, 32), max_new_tokens=5, min_new_tokens=5)
    assert alone.shape == last.shape
