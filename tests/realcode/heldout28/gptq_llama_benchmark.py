"""GPTQ-for-LLaMa (qwopqwop200/GPTQ-for-LLaMa), the 4-bit GPTQ quantiser of LLaMA and its inference scripts: a
token-by-token latency benchmark (`llama.py --benchmark N`), an offloading inference script that keeps the first
`pre_layer` decoder layers on the GPU and moves the others in for each forward (`llama_inference_offload.py`), and
the plain sampling script (`llama_inference.py`).

The benchmark feeds the prompt one token at a time with `model(input_ids[:, i:i+1], past_key_values=cache['past'],
attention_mask=...)`, keeps `cache['past'] = list(out.past_key_values)` for the next step, and registers a forward
hook per decoder layer that drops that layer's entry (`cache['past'][i] = None`) once the layer has run, to free
memory. The offloading script replaces `modeling_llama`'s model class before building the causal LM (its `load_quant`
patches the module attribute), and its `forward` reads the past length from `past_key_values[0][0].shape[2]` to build
the attention mask before walking the layers.

Provenance (mechanisms read; this code is written here, not copied):
- qwopqwop200/GPTQ-for-LLaMa @002c95b57dbf408b8a118fdfde4ac55ea592e25e llama.py (benchmark, llama_multigpu's
  hooks), @19f1c32c1b57bcb022ddcf77ee7e52987d8871f0 llama_inference_offload.py (Offload_LLaMAModel.forward,
  load_quant, the `model.generate(..., do_sample=True, min_length=, max_length=, top_p=, temperature=)` of __main__),
  llama_inference.py (the same sampling call on the non-offloaded model).
Reduced: a tiny Llama from a config instead of a quantised checkpoint (no quant layers, no CUDA: DEV is the CPU);
the offloading forward keeps its past-length read and layer moves and hands the rest to the stock model's forward
(the 4.28-era body it copied is gone from transformers), with `position_ids` and `**kwargs` as later forwards take.
"""

import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.models.llama import modeling_llama

DEV = torch.device("cpu")
CONFIG = LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, pad_token_id=0)
torch.manual_seed(0)
model = LlamaForCausalLM(CONFIG).eval()


def benchmark(model, input_ids, check=False):
    input_ids = input_ids.to(DEV)
    cache = {"past": None}

    def clear_past(i):
        def tmp(layer, inp, out):
            if cache["past"]:
                cache["past"][i] = None
        return tmp

    for i, layer in enumerate(model.model.layers):
        layer.register_forward_hook(clear_past(i))

    if check:
        loss = torch.nn.CrossEntropyLoss()
        tot = 0.0
    with torch.no_grad():
        attention_mask = torch.ones((1, input_ids.numel()), device=DEV)
        times = []
        for i in range(input_ids.numel()):
            tick = time.time()
            out = model(
                input_ids[:, i:i + 1],
                past_key_values=cache["past"],  # site: gq_past_list
                attention_mask=attention_mask[:, :(i + 1)].reshape((1, -1)),
            )
            times.append(time.time() - tick)
            if check and i != input_ids.numel() - 1:
                tot += loss(out.logits[0].to(DEV), input_ids[:, (i + 1)].to(DEV)).float()
            cache["past"] = list(out.past_key_values)
            del out
    ppl = torch.exp(tot / (input_ids.numel() - 1)).item() if check else None
    return sorted(times)[len(times) // 2], ppl


class Offload_LlamaModel(modeling_llama.LlamaModel):
    preload = 1

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                inputs_embeds=None, use_cache=None, **kwargs):
        past_key_values_length = past_key_values[0][0].shape[2] if past_key_values is not None else 0  # site: gq_offload_past_len
        if attention_mask is None:
            attention_mask = torch.ones((input_ids.shape[0], past_key_values_length + input_ids.shape[1]),
                                        dtype=torch.long, device=input_ids.device)
        for idx in range(len(self.layers)):
            if idx > self.preload - 1:
                self.layers[idx] = self.layers[idx].to(DEV)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, use_cache=use_cache,
                               **kwargs)


def load_quant(config, pre_layer):
    modeling_llama.LlamaModel = Offload_LlamaModel
    torch.manual_seed(0)
    offloaded = LlamaForCausalLM(config).eval()
    offloaded.seqlen = 2048
    for i in range(pre_layer):
        offloaded.model.layers[i].to(DEV)
    offloaded.model.preload = pre_layer
    return offloaded


def sample(model, input_ids, min_length=10, max_length=50, top_p=0.95, temperature=0.8):
    with torch.no_grad():
        generated_ids = model.generate(  # clean: gq_sample_generate
            input_ids,
            do_sample=True,
            min_length=min_length,
            max_length=max_length,
            top_p=top_p,
            temperature=temperature,
        )
    return generated_ids


def probe_benchmark():
    median, ppl = benchmark(model, torch.tensor([[1, 17, 42, 99, 7, 63]]), check=True)
    assert median >= 0 and ppl > 0


def probe_sample():
    torch.manual_seed(1)
    out = sample(model, torch.tensor([[1, 17, 42, 99]]), min_length=9, max_length=9)
    assert out.shape == (1, 9)


def probe_offload_sample():
    offloaded = load_quant(CONFIG, pre_layer=1)
    assert isinstance(offloaded.model, Offload_LlamaModel)
    torch.manual_seed(1)
    out = sample(offloaded, torch.tensor([[1, 17, 42, 99]]), min_length=9, max_length=9)
    assert out.shape == (1, 9)
