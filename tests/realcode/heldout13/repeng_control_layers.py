"""repeng's control vectors: `ControlModel` replaces chosen decoder layers of a causal LM with `ControlModule`
wrappers whose forward runs the wrapped block with whatever the model passes it (`*args, **kwargs`, the cache
included), then adds the layer's control vector to the hidden states (the first element when the block returns a
tuple), masked by the left padding read from `kwargs["position_ids"]` when the model passes it, and renormalised.
Generation goes through `ControlModel.generate`, which hands everything to the wrapped model's `generate`; the
wrapper delegates unknown attributes to the block.

Provenance (mechanisms read; this code is written here, not copied):
- vgel/repeng @0ba7196d81f7c5de28b1159c9d1732440afd97ce
  repeng/control.py (`ControlModel.__init__`: `layers = model_layer_list(model)`, `layers[layer_id] =
  ControlModule(layer)` for each id; `set_control` / `set_raw_control` / `reset`; `generate(self, *args, **kwargs):
  return self.model.generate(*args, **kwargs)`; `ControlModule.forward(self, *args, **kwargs)`: `output =
  self.block(*args, **kwargs)`, `modified = output[0]` if a tuple, `if "position_ids" in kwargs:` padding mask from
  `(pos == 0).cumsum(1).argmax(1, keepdim=True)`, `self.params.operator(modified, control * mask)`, optional
  renormalisation, `output = (modified,) + output[1:]`; `__getattr__` delegating to `block`; `model_layer_list`
  finding `model.layers`).
Reduced: one controlled layer, a fixed control vector instead of one trained from PCA on contrastive prompts, no
GGUF export.
"""

import torch
from transformers import AutoModelForCausalLM


class ControlModule(torch.nn.Module):
    def __init__(self, block):
        super().__init__()
        self.block = block
        self.control = None
        self.normalize = False

    def forward(self, *args, **kwargs):
        output = self.block(*args, **kwargs)  # clean: rp_block_call
        if self.control is None:
            return output
        control = self.control.reshape(1, 1, -1)
        modified = output[0] if isinstance(output, tuple) else output
        norm_pre = torch.norm(modified, dim=-1, keepdim=True)
        if "position_ids" in kwargs and kwargs["position_ids"] is not None:
            pos = kwargs["position_ids"]
            zero_indices = (pos == 0).cumsum(1).argmax(1, keepdim=True)
            col_indices = torch.arange(pos.size(1)).unsqueeze(0)
            mask = (col_indices >= zero_indices).float().reshape(modified.shape[0], modified.shape[1], 1)
        else:
            mask = 1.0
        modified = modified + control * mask
        if self.normalize:
            modified = modified / torch.norm(modified, dim=-1, keepdim=True) * norm_pre
        return (modified,) + output[1:] if isinstance(output, tuple) else modified

    def __getattr__(self, name):
        if name in ("block", "control", "normalize"):
            return super().__getattr__(name)
        return getattr(super().__getattr__("block"), name)


class ControlModel(torch.nn.Module):
    def __init__(self, model, layer_ids):
        super().__init__()
        self.model = model
        layers = model.model.layers
        self.layer_ids = list(layer_ids)
        for layer_id in self.layer_ids:
            layers[layer_id] = ControlModule(layers[layer_id])

    def set_raw_control(self, control):
        for layer_id in self.layer_ids:
            self.model.model.layers[layer_id].control = None if control is None else control[layer_id]

    def generate(self, *args, **kwargs):
        return self.model.generate(*args, **kwargs)  # clean: rp_generate

    def __call__(self, *args, **kwargs):
        return self.model(*args, **kwargs)


base = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.1")
model = ControlModel(base, [1])
direction = {1: torch.ones(base.config.hidden_size) * 0.5}
prompt = torch.tensor([[1, 30, 31, 32, 33]])


def probe_controlled_generate():
    model.set_raw_control(direction)
    out = model.generate(prompt, max_new_tokens=5, min_new_tokens=5, do_sample=False)
    model.set_raw_control(None)
    assert out.shape[1] == 10


def probe_cache_matches_full():
    model.set_raw_control(direction)
    with torch.no_grad():
        first = model(prompt, use_cache=True)
        step = model(torch.tensor([[34]]), past_key_values=first.past_key_values, use_cache=True)
        full = model(torch.tensor([[1, 30, 31, 32, 33, 34]]))
    model.set_raw_control(None)
    assert torch.allclose(step.logits[0, -1], full.logits[0, -1], atol=1e-4)
