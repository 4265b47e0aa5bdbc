"""huggingface/exporters (Core ML export of transformers models): `export_pytorch` traces a `Wrapper(torch.nn.Module)`
whose `forward(*all_inputs)` takes flat tensors, because a Core ML model has no nested inputs. With `use_past` the
last `num_layers * 2` inputs are the past keys and values: the wrapper rebuilds them as a list of `(key, value)`
pairs into `model_kwargs["past_key_values"]`, runs the model with `return_dict=False`, takes the cache as the last
item of the output tuple and flattens it back with `past_key_values[i][j]` into the `presents` it returns after the
logits (softmaxed when the output description asks). Without `use_past` only the logits come out. Validation runs
the reference model on the same dummy inputs (past inputs regrouped into a list of `(key, value)` tuples) with
`return_dict=True`, and unpacks its cache into `present_{i}_key` / `_value` outputs with
`ref_outputs_dict["past_key_values"][i][0]` / `[1]`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/exporters @7a545974275c7af167a2fa4e16c4574359f2acec
  src/exporters/coreml/convert.py (class Wrapper: `model_kwargs = {"return_dict": False}`; `if self.config.use_past:
  remaining -= self.config.num_layers * 2; past_key_values = []; for i in range(self.config.num_layers):
  past_key_values.append((all_inputs[remaining + i*2], all_inputs[remaining + i*2 + 1]))`,
  `model_kwargs["past_key_values"] = past_key_values`; `elif self.config.modality == "text": if remaining >= 2:
  model_kwargs["attention_mask"] = all_inputs[1]`; `outputs = self.model(inputs, **model_kwargs)`; `if
  self.config.use_past: ... past_key_values_index = -2 if self.config.seq2seq == "decoder" else -1; past_key_values =
  outputs[past_key_values_index]; for i in range(len(past_key_values)): for j in range(2): presents = presents +
  (past_key_values[i][j],)`; the text-generation branch `return (prediction,) + presents`; export_pytorch's
  `torch.jit.trace(wrapper, example_input)`), src/exporters/coreml/config.py (`use_past`, the dummy past inputs
  `past_key_values_{i}_key` / `_value` of shape (batch, heads, past length, head dim)) and
  src/exporters/coreml/validate.py (`validate_model_outputs`: `if name.startswith("past_key_values_"): if
  name.endswith("_key"): past_key_values.append((ref_value,)) else: past_key_values[-1] += (ref_value,)`,
  `reference_model_inputs["past_key_values"] = past_key_values`, `ref_outputs_dict =
  reference_model(**reference_model_inputs, return_dict=True)`, `if "past_key_values" in ref_outputs_dict: for i in
  range(len(ref_outputs_dict["past_key_values"])): ref_outputs_dict[f"present_{i}_key"] =
  ref_outputs_dict["past_key_values"][i][0]`).
Reduced: a small config object instead of CoreMLConfig (its inputs and outputs descriptions), the wrapper runs
eagerly (the trace and the coremltools conversion left out), text-generation only, dummy inputs built inline; the
validation compares the reference logits with the wrapper's instead of a Core ML model's outputs.
"""

from dataclasses import dataclass

import torch
from transformers import GPT2LMHeadModel


@dataclass
class ExportConfig:
    use_past: bool
    num_layers: int
    task: str = "text-generation"
    modality: str = "text"
    seq2seq: str = None
    do_softmax: bool = True


class Wrapper(torch.nn.Module):
    def __init__(self, model, config):
        super().__init__()
        self.model = model.eval()
        self.config = config

    def forward(self, *all_inputs):
        remaining = len(all_inputs)
        inputs = all_inputs[0]
        model_kwargs = {"return_dict": False}
        if self.config.use_past:
            remaining -= self.config.num_layers * 2
            past_key_values = []
            for i in range(self.config.num_layers):
                past_key_values.append((all_inputs[remaining + i * 2], all_inputs[remaining + i * 2 + 1]))
            model_kwargs["past_key_values"] = past_key_values
        if self.config.modality == "text" and remaining >= 2:
            model_kwargs["attention_mask"] = all_inputs[1]
        outputs = self.model(inputs, **model_kwargs)  # site: ex_list_past
        presents = ()
        if self.config.use_past:
            if len(outputs) < 2:
                raise ValueError("expected at least two output tensors, got one")
            past_key_values_index = -2 if self.config.seq2seq == "decoder" else -1
            past_key_values = outputs[past_key_values_index]
            for i in range(len(past_key_values)):
                for j in range(2):
                    presents = presents + (past_key_values[i][j],)
        if self.config.do_softmax:
            prediction = torch.nn.functional.softmax(outputs[0], dim=-1)
        else:
            prediction = outputs[0]
        return (prediction,) + presents


model = GPT2LMHeadModel.from_pretrained("gpt2")
layers = model.config.n_layer
heads = model.config.n_head
head_dim = model.config.n_embd // heads


def dummy_inputs(seq_len, past_len):
    ids = torch.tensor([[5, 6, 7, 8, 9][:seq_len]])
    mask = torch.ones(1, past_len + seq_len, dtype=torch.long)
    past = [torch.zeros(1, heads, past_len, head_dim) for _ in range(layers * 2)]
    return (ids, mask, *past)


def validate_model_outputs(reference_model, named_inputs, exported_outputs, atol=1e-4):
    reference_model_inputs = {}
    past_key_values = []
    for name, ref_value in named_inputs.items():
        if name.startswith("past_key_values_"):
            if name.endswith("_key"):
                past_key_values.append((ref_value,))
            else:
                past_key_values[-1] += (ref_value,)
        else:
            reference_model_inputs[name] = ref_value
    if len(past_key_values) > 0:
        reference_model_inputs["past_key_values"] = past_key_values
    ref_outputs_dict = reference_model(**reference_model_inputs, return_dict=True)
    if "past_key_values" in ref_outputs_dict:
        for i in range(len(ref_outputs_dict["past_key_values"])):
            ref_outputs_dict[f"present_{i}_key"] = ref_outputs_dict["past_key_values"][i][0]  # site: ex_ref_presents
            ref_outputs_dict[f"present_{i}_value"] = ref_outputs_dict["past_key_values"][i][1]
    logits = torch.nn.functional.softmax(ref_outputs_dict["logits"], dim=-1)
    assert torch.allclose(logits, exported_outputs[0], atol=atol)
    return ref_outputs_dict


def probe_without_past():
    wrapper = Wrapper(model, ExportConfig(use_past=False, num_layers=layers))
    out = wrapper(torch.tensor([[5, 6, 7]]), torch.ones(1, 3, dtype=torch.long))  # clean: ex_plain_export
    assert len(out) == 1 and out[0].shape[1] == 3


def probe_validate():
    wrapper = Wrapper(model, ExportConfig(use_past=False, num_layers=layers))
    named = {"input_ids": torch.tensor([[5, 6, 7]]), "attention_mask": torch.ones(1, 3, dtype=torch.long)}
    exported = wrapper(named["input_ids"], named["attention_mask"])
    validate_model_outputs(model, named, exported)


def probe_with_past():
    wrapper = Wrapper(model, ExportConfig(use_past=True, num_layers=layers))
    out = wrapper(*dummy_inputs(1, 4))
    assert len(out) == 1 + 2 * layers and out[1].shape[2] == 5
