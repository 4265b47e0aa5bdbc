"""A compiler frontend's decode test: the Llama model is wrapped so its inputs and outputs are flat lists of
tensors (a device compiler takes no nested structures), so the wrapper flattens the cache the model returns into
[k0, v0, k1, v1, ...], rebuilds `[[k, v], ...]` lists from the flat inputs for the next step, reads the past
length from the first key, and feeds the lists back to the model as `past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- tenstorrent/tt-forge-fe @0ca79851ffb753ce638d9cb97dfd9fdb959ee812 forge/test/mlir/llama/tests/test_llama_decode.py
  (`flatten_pastkv`: `for past_key_values in past_key_values_list: new_past_key_values_list.extend(list(
  past_key_values))`; `unflatten_pastkv` groups the flat list into `[k, v]` lists; `LlamaModelWrapper.forward(
  input_ids, attention_mask, position_ids=None, *past_key_values)`: `past_key_values_length =
  past_key_values[0][0].shape[-2]`, `self.model(..., past_key_values=past_key_values, inputs_embeds=...)`, then
  `model_outputs.extend(flatten_pastkv(outputs.past_key_values))`; the test's decode loop feeds
  `framework_outputs[1:]` back)
Reduced: the 4-D causal mask helper, the zero padding of the cache and the device compile are left out; the
wrapper forwards the 2-D mask.
"""

import torch
from transformers import AutoModelForCausalLM


def flatten_pastkv(past_key_values_list):
    new_past_key_values_list = []
    for past_key_values in past_key_values_list:  # site: tf_flatten_iter
        new_past_key_values_list.extend(list(past_key_values))
    return new_past_key_values_list


def unflatten_pastkv(past_key_values_list):
    assert len(past_key_values_list) % 2 == 0, "past_key_values_list length should be a multiple of two"
    return [past_key_values_list[idx: idx + 2] for idx in range(0, len(past_key_values_list), 2)]


class LlamaModelWrapper(torch.nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model
        self.embed_tokens = model.model.embed_tokens

    def forward(self, input_ids, attention_mask, position_ids=None, *past_key_values):
        inputs_embeds = self.embed_tokens(input_ids)
        past_key_values = unflatten_pastkv(past_key_values) if len(past_key_values) > 0 else None
        past_key_values_length = past_key_values[0][0].shape[-2] if past_key_values is not None else 0  # clean: tf_own_list_len
        if position_ids is None:
            position_ids = torch.arange(past_key_values_length, past_key_values_length + input_ids.shape[1])[None]
        outputs = self.model(attention_mask=attention_mask, position_ids=position_ids,  # site: tf_list_forward
                             past_key_values=past_key_values, inputs_embeds=inputs_embeds)
        model_outputs = [outputs.logits]
        if outputs.past_key_values is not None:
            model_outputs.extend(flatten_pastkv(outputs.past_key_values))
        return model_outputs


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B", use_cache=True, return_dict=True)
framework_model = LlamaModelWrapper(model).eval()
input_ids = torch.tensor([[1, 30, 31, 32, 33]])


def probe_prefill():
    outputs = framework_model(input_ids, torch.ones_like(input_ids))
    assert len(outputs) == 1 + 2 * model.config.num_hidden_layers, "tf_flatten_iter: the flat cache lost its layout"  # observe: tf_flatten_iter
    assert outputs[1].shape[-2] == input_ids.shape[1], "tf_flatten_iter: the flat keys are not per-token tensors"  # observe: tf_flatten_iter


def probe_no_cache_prefill():
    model.config.use_cache = False
    outputs = framework_model(input_ids, torch.ones_like(input_ids))
    model.config.use_cache = True
    assert len(outputs) == 1


def probe_decode_step():
    kv = torch.zeros(1, model.config.num_key_value_heads, 5, 64)
    next_token = torch.tensor([[40]])
    outputs = framework_model(next_token, torch.ones(1, 6, dtype=torch.long), None,
                              *([kv, kv] * model.config.num_hidden_layers))
    assert outputs[0].shape[1] == 1
