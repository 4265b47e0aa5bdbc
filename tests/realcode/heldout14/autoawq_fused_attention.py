"""AutoAWQ's fused attention and calibration: the fused module replaces each decoder layer's attention, keeps its
own rolling key/value window with a `start_pos` counter, and decides from the keyword arguments the Hugging Face
layer hands it whether a new `generate` began (`"past_key_value" in kwargs`, a `DynamicCache` whose
`get_seq_length()` is 0, `use_cache`) so it can reset `start_pos`; the quantizer catches the first layer's inputs with
a `Catcher` module and runs `prepare_inputs_for_generation(samples, **layer_kwargs)` over the caught keywords; the
AWQ model's `generate` is the HF model's under `torch.inference_mode()`.

Provenance (mechanisms read; this code is written here, not copied):
- casper-hansen/AutoAWQ @88e4c76b20755db275574e6a03c83c84ba3bece5
  awq/modules/fused/attn.py (QuantAttentionFused.forward: `hf_is_first_forward = "past_key_value" in kwargs and
  kwargs["past_key_value"] is None`, `hf_is_new_cache_first_forward = "past_key_value" in kwargs and
  isinstance(kwargs["past_key_value"], DynamicCache) and kwargs["past_key_value"].get_seq_length() == 0`,
  `hf_is_generating = kwargs["use_cache"]`, `self.start_pos = 0` on a new generation, `self.start_pos += seqlen`),
  awq/quantize/quantizer.py (`init_quant`: the `Catcher` that records `inps` and `layer_kwargs` and raises
  ValueError, then `layer_kwargs = self.model.prepare_inputs_for_generation(samples, **layer_kwargs)` and
  `layer_kwargs.pop("input_ids")`) and awq/models/base.py (`generate` under `torch.inference_mode()`).
Reduced: the fused module wraps the model's own attention (no fused QKV kernels, no WindowedCache: the window
position is the only state kept), one calibration batch of token ids instead of a dataset.
"""

import torch
from torch import nn
from transformers import AutoModelForCausalLM
from transformers.cache_utils import DynamicCache


class QuantAttentionFused(nn.Module):
    def __init__(self, attn, max_seq_len=64):
        super().__init__()
        self.attn = attn
        self.max_seq_len = max_seq_len
        self.start_pos = 0
        self.is_hf_transformers = True

    def forward(self, hidden_states, *args, **kwargs):
        bsz, seqlen, _ = hidden_states.shape
        hf_is_generating = False
        hf_is_first_forward = "past_key_value" in kwargs and kwargs["past_key_value"] is None
        hf_is_new_cache_first_forward = (
            "past_key_value" in kwargs
            and isinstance(kwargs["past_key_value"], DynamicCache)
            and kwargs["past_key_value"].get_seq_length() == 0)  # site: aw_new_generation
        if self.is_hf_transformers and "use_cache" in kwargs:
            hf_is_generating = kwargs["use_cache"]  # site: aw_use_cache
        if (self.is_hf_transformers and (hf_is_first_forward or hf_is_new_cache_first_forward)) or (
                self.is_hf_transformers and not hf_is_generating):
            self.start_pos = 0
        out = self.attn(hidden_states, *args, **kwargs)
        self.start_pos += seqlen
        return out


class AutoAWQForCausalLM:
    def __init__(self, model):
        self.model = model

    @classmethod
    def from_quantized(cls, path, fuse_layers=True):
        model = AutoModelForCausalLM.from_pretrained(path)
        if fuse_layers:
            for layer in model.model.layers:
                layer.self_attn = QuantAttentionFused(layer.self_attn)
        return cls(model)

    def generate(self, *args, **kwargs):
        with torch.inference_mode():
            return self.model.generate(*args, **kwargs)  # clean: aw_generate


def init_quant(model, samples):
    modules = model.model.layers
    inps = []
    layer_kwargs = {}

    class Catcher(nn.Module):
        def __init__(self, module):
            super().__init__()
            self.module = module
            self.attention_type = getattr(module, "attention_type", "full_attention")

        def forward(self, *args, **kwargs):
            if len(args) > 0:
                hidden_states = args[0]
                del args
            else:
                first_key = list(kwargs.keys())[0]
                hidden_states = kwargs.pop(first_key)
            inps.append(hidden_states)
            layer_kwargs.update(kwargs)
            raise ValueError

    modules[0] = Catcher(modules[0])
    try:
        model(samples)
    except ValueError:
        pass
    modules[0] = modules[0].module
    layer_kwargs = model.prepare_inputs_for_generation(samples, **layer_kwargs)  # clean: aw_calibration_kwargs
    layer_kwargs.pop("input_ids")
    return inps[0], layer_kwargs


awq = AutoAWQForCausalLM.from_quantized("TheBloke/Mistral-7B-Instruct-v0.2-AWQ")
prompt = torch.tensor([[1, 20, 21, 22, 23]])


def probe_generate_twice():
    awq.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    awq.generate(prompt[:, :3], max_new_tokens=1, min_new_tokens=1, do_sample=False)
    fused = awq.model.model.layers[0].self_attn
    assert fused.start_pos == 3, f"aw_new_generation: the window kept {fused.start_pos} positions, not 3"  # observe: aw_new_generation


def probe_one_generation():
    awq.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    fused = awq.model.model.layers[0].self_attn
    assert fused.start_pos == 8, f"aw_use_cache: the window kept {fused.start_pos} positions, not 8"  # observe: aw_use_cache


def probe_calibration():
    model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.2")
    samples = torch.randint(5, 90, (2, 8))
    inps, layer_kwargs = init_quant(model, samples)
    assert inps.shape[:2] == (2, 8)
    out = model.model.layers[0](inps, **layer_kwargs)
    hidden = out[0] if isinstance(out, tuple) else out
    assert hidden.shape == inps.shape


def probe_calibration_generate():
    plain = AutoAWQForCausalLM.from_quantized("TheBloke/Mistral-7B-Instruct-v0.2-AWQ", fuse_layers=False)
    out = plain.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape == (1, 8)
