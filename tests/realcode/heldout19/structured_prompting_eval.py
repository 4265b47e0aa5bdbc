"""LMOps' structured prompting (in-context learning evaluation with many demonstrations): each group of
demonstrations is encoded once with `use_cache=True`, its output cache iterated layer by layer and copied to the CPU
as a tuple of (key, value) tuples, the groups' tuples concatenated along the sequence axis, and every test input
(classification) or input + candidate answer (multiple choice) scored with that tuple as `past_key_values`. The
zero-shot validator scores the input once and expands its output cache to the number of candidates with
`expand_past_key_value`, which iterates over the cache and expands each layer's key and value.

Provenance (mechanisms read; this code is written here, not copied):
- microsoft/LMOps @4f2a9deb5f08e459fd44c2e4792344d78ca89fc3
  structured_prompting/hf-version/eval_many.py (`past_key_values = model(input_ids=demo_encoding.unsqueeze(0),
  attention_mask=..., use_cache=True).past_key_values`, `for layer_past in past_key_values: layer_past = tuple(
  past_state.cpu() for past_state in layer_past)`, `past_key_values = select_past_key_value(all_past_key_values)`;
  `validate(...)`: `attention_mask = torch.cat((past_attention_mask, torch.ones(input_encoding.shape)), dim=1)`,
  `model(input_ids=input_encoding, attention_mask=attention_mask, past_key_values=past_key_values,
  prefix_parallel=chunk_num).logits` for classification, the same on `torch.cat((input_encoding,
  candidate_encoding), dim=1)` per candidate for multiple choice, mean log-softmax of the candidate's tokens),
  structured_prompting/hf-version/utils/functional.py (`select_past_key_value`: `for layer_past in zip(
  *past_key_value): key, value = tuple(zip(*layer_past))`, `torch.cat(key, dim=1)`; `expand_past_key_value(
  past_key_value, class_num)`: `for layer_past in past_key_value: key = layer_past[0]`, `key.expand(class_num, -1,
  -1, -1)`) and structured_prompting/hf-version/utils/validate.py (`output = model(input_ids=..., use_cache=True)`,
  `model(input_ids=answer_encoding.input_ids, past_key_values=expand_past_key_value(output.past_key_values,
  answer_shape[0])).logits`).
Reduced: no tokenizer or datasets (token ids in), the Llama path only (the repository's own parallel-attention
BLOOM and its `prefix_parallel` keyword dropped), demonstrations concatenated on the sequence axis of a
batch-first cache, one test example per probe.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("huggyllama/llama-7b").eval()


def select_past_key_value(past_key_value):
    present = ()
    for layer_past in zip(*past_key_value):
        key, value = tuple(zip(*layer_past))
        key = torch.cat(key, dim=2)  # clean: sp_concat_demos
        value = torch.cat(value, dim=2)
        present += ((key, value), )
    return present


def expand_past_key_value(past_key_value, class_num):
    present = ()
    for layer_past in past_key_value:  # site: sp_expand_output
        key = layer_past[0]
        value = layer_past[1]
        present += ((key.expand(class_num, -1, -1, -1), value.expand(class_num, -1, -1, -1)), )
    return present


@torch.no_grad()
def encode_demonstrations(demo_encoding_batch, attention_mask_batch):
    all_past_key_values = []
    for demo_encoding, attention_mask in zip(demo_encoding_batch, attention_mask_batch):
        past_key_values = model(input_ids=demo_encoding.unsqueeze(0), attention_mask=attention_mask.unsqueeze(0),
                                use_cache=True).past_key_values
        past_key_values_cpu = ()
        for layer_past in past_key_values:  # site: sp_offload_demos
            layer_past = tuple(past_state.cpu() for past_state in layer_past)  # observe: sp_offload_demos
            past_key_values_cpu = past_key_values_cpu + (layer_past, )
        all_past_key_values.append(past_key_values_cpu)
    return select_past_key_value(all_past_key_values)


@torch.no_grad()
def score_classification(input_encoding, label_ids, past_key_values, past_attention_mask):
    attention_mask = torch.cat((past_attention_mask, torch.ones(input_encoding.shape)), dim=1)
    logits = model(  # site: sp_tuple_classify
        input_ids=input_encoding,
        attention_mask=attention_mask,
        past_key_values=past_key_values,
    ).logits
    return logits[0][-1][label_ids]


@torch.no_grad()
def score_choices(input_encoding, candidates, past_key_values, past_attention_mask):
    all_logits = []
    for candidate_encoding in candidates:
        multi_encoding = torch.cat((input_encoding, candidate_encoding), dim=1)
        attention_mask = torch.cat((past_attention_mask, torch.ones(multi_encoding.shape)), dim=1)
        logits = model(  # site: sp_tuple_choice
            input_ids=multi_encoding,
            attention_mask=attention_mask,
            past_key_values=past_key_values,
        ).logits
        logits = torch.log_softmax(logits[0, (input_encoding.shape[1] - 1):-1], dim=-1)
        all_logits.append(logits[torch.arange(logits.shape[0]), candidate_encoding.flatten()].mean())
    return torch.stack(all_logits)


@torch.no_grad()
def zero_shot_scores(input_ids, answer_ids):
    output = model(input_ids=input_ids, use_cache=True)  # clean: sp_zero_shot_input
    input_logits = output.logits
    if answer_ids.shape[1] > 1:
        answer_logits = model(  # observe: sp_expand_output
            input_ids=answer_ids,
            past_key_values=expand_past_key_value(output.past_key_values, answer_ids.shape[0]),
        ).logits
        return torch.cat((input_logits[0, -1:].repeat(answer_ids.shape[0], 1, 1), answer_logits[:, :-1]), dim=1)
    return input_logits[0, -1:].repeat(answer_ids.shape[0], 1, 1)


def _legacy_demos(groups=2, length=4):
    head_dim = model.config.hidden_size // model.config.num_attention_heads
    shape = (1, model.config.num_key_value_heads, length, head_dim)
    return [tuple((torch.randn(shape), torch.randn(shape)) for _ in range(model.config.num_hidden_layers))
            for _ in range(groups)]


demos = torch.tensor([[1, 50, 51, 52], [1, 60, 61, 62]])
demo_masks = torch.ones_like(demos)
test_input = torch.tensor([[70, 71]])


def probe_encode_demos():
    past = encode_demonstrations(demos, demo_masks)
    assert past[0][0].shape[2] == 8


def probe_concat():
    past = select_past_key_value(_legacy_demos())
    assert past[0][0].shape[2] == 8


def probe_classify():
    past = select_past_key_value(_legacy_demos())
    scores = score_classification(test_input, torch.tensor([80, 81]), past, torch.ones(1, 8))
    assert scores.shape == (2,)


def probe_choices():
    past = select_past_key_value(_legacy_demos())
    scores = score_choices(test_input, [torch.tensor([[80, 81]]), torch.tensor([[82, 83]])], past, torch.ones(1, 8))
    assert scores.shape == (2,)


def probe_zero_shot_label():
    logits = zero_shot_scores(test_input, torch.tensor([[80], [81]]))
    assert logits.shape[:2] == (2, 1)


def probe_zero_shot_choices():
    logits = zero_shot_scores(test_input, torch.tensor([[80, 81], [82, 83]]))
    assert logits.shape[:2] == (2, 2)
