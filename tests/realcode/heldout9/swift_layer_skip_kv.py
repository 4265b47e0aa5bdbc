"""SWIFT (on-the-fly self-speculative decoding by layer skipping): the project runs its own Llama with a
pre-allocated key/value store instead of a transformers cache. `initialize_past_key_values(model)` reads each
layer's device from `model.model.layers[i].self_attn.q_proj.weight.device`, allocates one zero tensor per device
for the layers there (keys and values at `config.max_position_embeddings`) and a CPU tensor of current lengths, and
wraps every layer's key and value slots in the project's `KVCache`; swift_forward parks them on the model as
`past_key_values` / `past_key_values_data` / `current_length_data`, clones the prefilled data before the draft
phase (`clone_past_key_values`), and the baseline evaluation resets lengths with `reset_past_key_values`. The
baseline itself is transformers' `generate` with `max_new_tokens`.

Provenance (mechanisms read; this code is written here, not copied):
- hemingkx/SWIFT @88caed753c601a718c8ac39bb48c52fd6ef62025
  model/swift/kv_cache.py (class KVCache: `shape` from `current_length.item()`, `copy`, `cat` with `narrow` /
  `copy_` / `current_length.add_`; initialize_past_key_values: the per-layer device list, `past_key_values_data =
  torch.zeros(startnum * 2, batch_size, config.num_key_value_heads, config.max_position_embeddings, config.hidden_size
  // config.num_attention_heads, device=startdevice, dtype=model.dtype)`, `current_length_data = torch.zeros(
  config.num_hidden_layers * 2, dtype=torch.long, device="cpu")`, `past_key_values.append([KVCache(
  past_key_values_data_list[...][2 * bias + j], current_length_data[i * 2 + j]) for j in range(2)])`;
  clone_past_key_values), model/swift/utils.py (reset_past_key_values: `past_key_values[i][j].current_length.fill_(0)`;
  swift_draft: `draft_past_key_values_data.append(past_key_values_data[i].clone())`),
  evaluation_llama/inference_swift.py (swift_forward: `model.past_key_values = past_key_values`, `model.past_key_values_data = past_key_values_data`,
  `model.current_length_data = current_length_data`, `input_past_key_values_data.append(past_key_values_data[i]
  .clone())`) and evaluation_llama/inference_baseline.py (baseline_forward: `model.generate(input_ids,
  attention_mask=attention_mask, do_sample=do_sample, temperature=temperature, top_p=top_p,
  max_new_tokens=max_new_tokens, pad_token_id=tokenizer.eos_token_id)`).
Reduced: the project's skipping Llama and tree verification are gone; transformers' Llama stands for it (its
config, devices and projections); a prefill writes layer 0's projected keys into the project's store through `cat`.
"""

import torch
from transformers import AutoModelForCausalLM


class KVCache:
    def __init__(self, data, current_length):
        self.data = data
        self.current_length = current_length

    @property
    def shape(self):
        return (self.data.shape[0], self.data.shape[1], self.current_length.item(), self.data.shape[3])

    def cat(self, tensor, dim=2):
        dst = self.data.narrow(dim, self.current_length, tensor.shape[dim])
        dst.copy_(tensor)
        self.current_length.add_(tensor.shape[dim])
        return torch.narrow(self.data, 2, 0, self.current_length)


def initialize_past_key_values(model):
    config = model.config
    batch_size = 1
    devices = [model.model.layers[i].self_attn.q_proj.weight.device for i in range(config.num_hidden_layers)]
    past_key_values_data_list = []
    startnum = 0
    startdevice = devices[0]
    for device in devices:
        if startdevice != device:
            past_key_values_data_list.append(torch.zeros(startnum * 2, batch_size, config.num_key_value_heads,
                                                         config.max_position_embeddings,
                                                         config.hidden_size // config.num_attention_heads,
                                                         device=startdevice, dtype=model.dtype))
            startdevice = device
            startnum = 0
        startnum += 1
    past_key_values_data_list.append(torch.zeros(startnum * 2, batch_size, config.num_key_value_heads,
                                                 config.max_position_embeddings,
                                                 config.hidden_size // config.num_attention_heads,
                                                 device=startdevice, dtype=model.dtype))
    current_length_data = torch.zeros(config.num_hidden_layers * 2, dtype=torch.long, device="cpu")
    past_key_values = []
    for i in range(config.num_hidden_layers):
        past_key_values.append([KVCache(past_key_values_data_list[0][2 * i + j], current_length_data[i * 2 + j])  # clean: sw_wrap_layer
                                for j in range(2)])
    return past_key_values, past_key_values_data_list, current_length_data


def clone_past_key_values(model, past_key_values_data_list, current_length_data):
    past_key_values = []
    for i in range(model.config.num_hidden_layers):
        past_key_values.append([KVCache(past_key_values_data_list[0][2 * i + j], current_length_data[i * 2 + j])
                                for j in range(2)])
    return past_key_values


def reset_past_key_values(past_key_values):
    for i in range(len(past_key_values)):
        for j in range(2):
            past_key_values[i][j].current_length.fill_(0)  # clean: sw_reset_lengths
    return past_key_values


@torch.inference_mode()
def swift_prefill(input_ids, model):
    past_key_values, past_key_values_data, current_length_data = initialize_past_key_values(model)
    model.past_key_values = past_key_values  # clean: sw_park_own
    model.past_key_values_data = past_key_values_data
    model.current_length_data = current_length_data
    attn = model.model.layers[0].self_attn
    hidden = model.model.embed_tokens(input_ids)
    bsz, q_len, _ = hidden.shape
    key_states = attn.k_proj(hidden).view(bsz, q_len, -1, attn.head_dim).transpose(1, 2)
    model.past_key_values[0][0].cat(key_states, dim=2)  # clean: sw_cat_parked
    input_past_key_values_data = []
    for i in range(len(past_key_values_data)):
        input_past_key_values_data.append(past_key_values_data[i].clone())  # clean: sw_clone_data
    draft_past_key_values = clone_past_key_values(model, input_past_key_values_data, current_length_data.clone())
    return draft_past_key_values


def baseline_forward(input_ids, model, max_new_tokens, temperature=0.0, top_p=0.85, do_sample=False, pad_token_id=2):
    attention_mask = torch.ones(input_ids.shape, dtype=torch.long, device=model.device)
    output_ids = model.generate(input_ids, attention_mask=attention_mask, do_sample=do_sample, temperature=temperature,  # clean: sw_baseline_generate
                                top_p=top_p, max_new_tokens=max_new_tokens, pad_token_id=pad_token_id)
    return output_ids, len(output_ids[0][len(input_ids[0]):])


model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-13b-hf", torch_dtype=torch.float32)
prompt = torch.tensor([[1, 70, 71, 72, 73]])


def probe_prefill():
    draft = swift_prefill(prompt, model)
    assert model.past_key_values[0][0].shape[2] == 5 and draft[0][0].shape[2] == 5


def probe_reset():
    swift_prefill(prompt, model)
    with torch.inference_mode():
        reset_past_key_values(model.past_key_values)
    assert model.past_key_values[0][0].shape[2] == 0


def probe_baseline():
    model.generation_config.min_new_tokens = 4
    output_ids, new_token = baseline_forward(prompt, model, max_new_tokens=4)
    assert new_token == 4
