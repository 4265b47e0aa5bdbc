"""A long-context chat service that turns on the quantized KV cache for every model family it serves."""

import torch
from transformers import AutoModelForCausalLM

prompt = torch.tensor([[3, 4, 5, 6, 7]])
QUANT = {"cache_implementation": "quantized", "cache_config": {"backend": "quanto", "nbits": 4}}


def chat(model_id):
    model = AutoModelForCausalLM.from_pretrained(model_id)
    return model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False, **QUANT)  # observe: quant_sliding_model


def probe_gemma2():
    assert chat("google/gemma-2-2b-it").shape[-1] == 8  # site: quant_sliding_model


def probe_llama():
    assert chat("meta-llama/Llama-3.2-1B").shape[-1] == 8  # clean: quant_full_attention
