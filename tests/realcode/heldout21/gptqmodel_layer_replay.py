"""GPTQModel (ModelCloud): layer-by-layer GPTQ quantization. Before quantizing, the looper saves the model config's
`use_cache` and sets it False; it captures the first decoder layer's calibration inputs with a forward pre-hook
(`register_forward_pre_hook(store_input_hook, with_kwargs=True)`) that stores the hidden states, the attention mask,
the position ids and every other keyword the model passed the layer, then aborts the forward with a StopForward
exception; the calibration forward itself is `self.model(**example, use_cache=use_cache)` with `use_cache=False`.
Each layer is then replayed on the captured inputs: the stored keywords are copied except `past_key_values` /
`past_key_value`, `use_cache=False` is forced, and the layer is called as `module(*layer_input,
**additional_inputs)`. Afterwards the saved `use_cache` is restored and the quantized model generates as usual.

Provenance (mechanisms read; this code is written here, not copied):
- ModelCloud/GPTQModel @f4c327a17eb3e24524d5a97a3d682e3696ae6a28 (the looper last changed 2026-08-05)
  gptqmodel/looper/stage_inputs_capture.py (`store_input_hook(module, args, kwargs)`: `layer_inputs.append(...)`,
  `kwargs.get("attention_mask")`, `kwargs.get("position_ids", None)`, `for (k, v) in kwargs.items(): if k not in
  ["hidden_states", "attention_mask", "position_ids"]: one_kwargs[k] = nested_move_to(v, ...)`, `raise
  STOP_FORWARD_EXCEPTION`; `handle = layers[0].register_forward_pre_hook(store_input_hook, with_kwargs=True)`),
  gptqmodel/models/base.py (`run_input_capture` -> `return self.model(**example, use_cache=use_cache)`),
  gptqmodel/looper/module_looper.py (`forward_pass_use_cache = self.gptq_model.model.config.use_cache if
  hasattr(...) else False`, `self.gptq_model.model.config.use_cache = False`, `cache_inputs(...,
  use_cache=False)`, the restore at the end) and gptqmodel/looper/forward_executor.py (`for key, value in
  layer_input_kwargs[batch_idx].items(): if key in ["past_key_values", "past_key_value"]: continue`,
  `additional_inputs["use_cache"] = False`).
Reduced: one calibration batch, one device, no quantizer (the replayed layer's output is compared with the model's
own hidden state after that layer), no progress bars, device-balancing or MoE contexts.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer


class StopForward(Exception):
    pass


model = AutoModelForCausalLM.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")


def cache_inputs(layers, calibration_data, use_cache):
    layer_inputs, attention_masks, position_ids, layer_input_kwargs = [], [], [], []

    def store_input_hook(module, args, kwargs):
        layer_input = list(args) if args else [kwargs["hidden_states"]]
        layer_inputs.append(layer_input)
        attention_masks.append(kwargs.get("attention_mask"))
        position_ids.append(kwargs.get("position_ids", None))
        one_kwargs = {}
        for (k, v) in kwargs.items():
            if k not in ["hidden_states", "attention_mask", "position_ids"]:
                one_kwargs[k] = v
        layer_input_kwargs.append(one_kwargs)
        raise StopForward

    handle = layers[0].register_forward_pre_hook(store_input_hook, with_kwargs=True)
    try:
        for example in calibration_data:
            try:
                model(**example, use_cache=use_cache)  # clean: gm_capture_forward
            except StopForward:
                pass
    finally:
        handle.remove()
    return layer_inputs, attention_masks, position_ids, layer_input_kwargs


def replay_layer(module, captured, batch_idx=0):
    layer_inputs, attention_masks, position_ids, layer_input_kwargs = captured
    additional_inputs = {"attention_mask": attention_masks[batch_idx]}
    if position_ids[batch_idx] is not None:
        additional_inputs["position_ids"] = position_ids[batch_idx]
    for key, value in layer_input_kwargs[batch_idx].items():
        if key in ["past_key_values", "past_key_value"]:  # clean: gm_skip_cache_kwargs
            continue
        additional_inputs[key] = value
    additional_inputs["use_cache"] = False
    out = module(*layer_inputs[batch_idx], **additional_inputs)  # clean: gm_layer_replay
    return out[0] if isinstance(out, tuple) else out


def quantize_loop(calibration_data):
    forward_pass_use_cache = model.config.use_cache if hasattr(model.config, "use_cache") else False
    model.config.use_cache = False  # clean: gm_disable_cache
    with torch.inference_mode():
        captured = cache_inputs(model.model.layers, calibration_data, use_cache=False)
        replayed = replay_layer(model.model.layers[0], captured)
    model.config.use_cache = forward_pass_use_cache
    return replayed


calibration_data = [tokenizer("the quick brown fox jumps over the lazy dog", return_tensors="pt")]


def probe_replay_matches():
    replayed = quantize_loop(calibration_data)
    with torch.inference_mode():
        reference = model(**calibration_data[0], output_hidden_states=True).hidden_states[1]
    assert torch.allclose(replayed, reference, atol=1e-5)


def probe_generate_after():
    quantize_loop(calibration_data)
    out = model.generate(**calibration_data[0], max_new_tokens=4, min_new_tokens=4, do_sample=False)  # clean: gm_generate_after
    assert out.shape[1] == calibration_data[0]["input_ids"].shape[1] + 4
    assert model.config.use_cache
