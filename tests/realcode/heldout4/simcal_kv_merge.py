"""KV-merging evaluation: one eager forward with attentions and hidden states gives the prompt's cache, a baseline
decodes token by token from it (the cache rides in the next step's input dict), its memory is summed by walking
the cache as (key, value) pairs, and a PyramidInfer-style merge indexes the cache per layer and head, keeps the
most-attended tokens and returns a list of (key, value) pairs that the next decode steps take as their past.

Provenance (mechanisms read; this code is written here, not copied):
- William-kaihhu/SimCalKV @1cb252603146fce395659a2242c3a61a4c762e90 task_evaluation/qwen/qwen_eval.py
  (`outputs = model(**inputs, output_attentions=True, output_hidden_states=True)`, `past_key_values =
  outputs.past_key_values`; `measure_kv_memory`: `for k, v in past_key_values`; the decode input dict
  `{"input_ids": ..., "attention_mask": ..., "past_key_values": past_key_values_merged}`)
- William-kaihhu/SimCalKV @8aa1e07964ba03d4e26ab7f2a1a847c13246a40a task_evaluation/qwen/pyramid_qwen.py
  (`divide_by_layer`: `K_matrix = key_value_cache[layer_idx][0]`, `V_matrix = key_value_cache[layer_idx][1]`;
  `Decode`: `num_kv_heads = key_value_cache[i][0].shape[1]`, appends `(Kc_layer, Vc_layer)` tuples to a list)
- William-kaihhu/SimCalKV @a4d5a630951d8ec23a4373b0ec65a7e1f8b57a4e task_evaluation/qwen/utils.py
  (`generate_token_with_past(model, inputs)`: `outputs = model(**inputs)`, returns `outputs.past_key_values`;
  `generate_text` loops it, carrying the cache in the next input dict)
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-7B-Instruct", attn_implementation="eager")
inputs = {"input_ids": torch.tensor([[1, 8, 16, 24, 32, 40, 48, 56, 64, 72]]),
          "attention_mask": torch.ones(1, 10, dtype=torch.long)}


def generate_token_with_past(model, inputs):
    with torch.no_grad():
        outputs = model(**inputs)  # site: sc_merged_forward
        next_token_id = outputs.logits[0, -1, :].argmax()
        past_key_values = outputs.past_key_values
    return next_token_id, past_key_values


def generate_text(model, max_tokens, inputs):
    generated = []
    next_inputs = inputs
    for _ in range(max_tokens):
        next_token_id, past_key_values = generate_token_with_past(model, next_inputs)
        next_inputs = {"input_ids": next_token_id.reshape((1, 1)),
                       "attention_mask": torch.cat([next_inputs["attention_mask"], torch.ones(1, 1, dtype=torch.long)], dim=1),
                       "past_key_values": past_key_values}
        generated.append(next_token_id)
    return next_inputs["past_key_values"], next_inputs["attention_mask"], generated


def measure_kv_memory(past_key_values):
    total_bytes = 0
    for k, v in past_key_values:  # site: sc_memory_iter
        total_bytes += k.numel() * k.element_size()
        total_bytes += v.numel() * v.element_size()
    return total_bytes / (1024 ** 2)


def divide_by_layer(layer_idx, head_idx, key_value_cache, attention, ratio):
    K_matrix, V_matrix = key_value_cache[layer_idx][0], key_value_cache[layer_idx][1]  # site: sc_layer_index
    K_of_head = K_matrix[0, head_idx]
    V_of_head = V_matrix[0, head_idx]
    s = K_of_head.shape[0]
    token_scores = attention[layer_idx][0].sum(dim=0).sum(dim=0)
    keep = torch.topk(token_scores, s - int(s * ratio)).indices.sort().values
    return K_of_head[keep], V_of_head[keep]


def Decode(model, key_value_cache, attention, ratio):
    past_key_values_merged = []
    for i in range(len(model.model.layers)):
        num_kv_heads = key_value_cache[i][0].shape[1]  # site: sc_head_count
        Kc_layer = torch.stack([divide_by_layer(i, j, key_value_cache, attention, ratio)[0]
                                for j in range(num_kv_heads)], dim=0).unsqueeze(0)
        Vc_layer = torch.stack([divide_by_layer(i, j, key_value_cache, attention, ratio)[1]
                                for j in range(num_kv_heads)], dim=0).unsqueeze(0)
        past_key_values_merged.append((Kc_layer, Vc_layer))
        if i % 2 == 0:
            ratio = ratio + 0.01
    return past_key_values_merged


def prompt_pass():
    with torch.no_grad():
        outputs = model(**inputs, output_attentions=True, output_hidden_states=True)
        past_key_values = outputs.past_key_values  # clean: sc_prompt_cache
    return past_key_values, outputs.attentions


def probe_baseline():
    next_token_id, past_key_values = generate_token_with_past(model, inputs)
    total_kv, mask, generated = generate_text(model, 3, {
        "input_ids": next_token_id.reshape((1, 1)),
        "attention_mask": torch.cat([inputs["attention_mask"], torch.ones(1, 1, dtype=torch.long)], dim=1),
        "past_key_values": past_key_values})
    assert total_kv.get_seq_length() == 13 and len(generated) == 3


def probe_memory():
    past_key_values, _ = prompt_pass()
    assert measure_kv_memory(past_key_values) > 0


def probe_merge():
    past_key_values, attention = prompt_pass()
    merged = Decode(model, past_key_values, attention, 0.2)
    assert len(merged) == 2


def probe_divide():
    past_key_values, attention = prompt_pass()
    keys, values = divide_by_layer(0, 0, past_key_values, attention, 0.2)
    assert keys.shape[0] == 8


def probe_merged_decode():
    past_key_values, attention = prompt_pass()
    legacy = [(layer.keys, layer.values) for layer in past_key_values.layers]
    merged = Decode(model, legacy, attention, 0.2)
    next_token_id = torch.tensor(5)
    generate_text(model, 2, {"input_ids": next_token_id.reshape((1, 1)),
                             "attention_mask": torch.ones(1, 9, dtype=torch.long),
                             "past_key_values": merged})


def probe_prompt():
    past_key_values, attention = prompt_pass()
    assert past_key_values.get_seq_length() == 10 and len(attention) == 2
