"""DoLa (voidism/DoLa), decoding by contrasting layers: the `DoLa` class's `generate` runs the model's own
`generate` in `baseline` mode and, in `dola` / `dola-static` mode once the method moved into transformers
(dola_migrate.py), passes `dola_layers=[premature_layer]` or `dola_layers=candidate_premature_layers` to the same
`generate` call with `output_scores=True, return_dict_in_generate=True` and a keyword stopping criterion; `lm_score`
scores an answer from one forward pass (`self.model(input_ids)[0]`, log-softmax over the answer span) and, in dola
mode, picks per position the candidate premature layer of largest Jensen-Shannon divergence from the mature layer.
Before the migration the repository decoded in its own transformers-4.28.1 fork; a greedy DoLa loop outside a fork
steps with `prepare_inputs_for_generation(input_ids, **model_kwargs)`, a forward with `output_hidden_states=True`,
that divergence over the hidden states, and `_update_model_kwargs_for_generation`.

Provenance (mechanisms read; this code is written here, not copied):
- voidism/DoLa @60eb13f77cad03d79f7fa07dd59841c9417fd64c dola_migrate.py (DoLa.generate modes baseline / dola-static /
  dola, DoLa.lm_score and its JS-divergence layer choice, KeywordStoppingCriteria); the fork
  (transformers-4.28.1/src/transformers/generation/utils.py @82dcec56bc1aaa94da44d5e3b541c8680961e635) was listed,
  not read: the hand-written loop here is this case's own, in the shape of generate's greedy loop of 4.4x.
Reduced: a tiny Llama from a config; the stop words are token ids; the hand-written loop is greedy with the premature
layer picked by JS divergence over the hidden states (no relative-top filter, no repetition penalty).
"""

import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM
from transformers.generation.stopping_criteria import StoppingCriteria, StoppingCriteriaList

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=4,
                                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                     eos_token_id=2, pad_token_id=0)).eval()


class KeywordStoppingCriteria(StoppingCriteria):
    def __init__(self, list_token_ids_sequence):
        self.token_ids_sequences = [torch.tensor(s, dtype=torch.long) for s in list_token_ids_sequence]

    def __call__(self, input_ids, scores, **kwargs):
        for seq in self.token_ids_sequences:
            if input_ids.shape[-1] >= len(seq) and bool(torch.all(input_ids[0, -len(seq):] == seq)):
                return True
        return False


stopping_criteria = StoppingCriteriaList([KeywordStoppingCriteria([[300, 301]])])


def dola_generate(input_ids, max_new_tokens=4, mode="baseline", premature_layer=None,
                  candidate_premature_layers=(), **kwargs):
    max_len = input_ids.shape[-1] + max_new_tokens
    with torch.no_grad():
        if mode == "baseline":
            outputs = model.generate(input_ids, max_length=max_len, num_return_sequences=1,  # clean: dl_baseline_generate
                                     output_scores=True, return_dict_in_generate=True, do_sample=False,
                                     stopping_criteria=stopping_criteria, **kwargs)
        else:
            outputs = model.generate(input_ids, max_length=max_len, num_return_sequences=1,  # site: dl_dola_layers
                                     output_scores=True, return_dict_in_generate=True, do_sample=False,
                                     stopping_criteria=stopping_criteria,
                                     dola_layers=list(candidate_premature_layers), **kwargs)
    return outputs.sequences[:, input_ids.shape[-1]:][0], outputs.scores


def premature_logits_during_generate(input_ids, layer, max_new_tokens=3):
    out = model.generate(input_ids, max_new_tokens=max_new_tokens, do_sample=False,  # clean: dl_hidden_generate
                         output_hidden_states=True, return_dict_in_generate=True, use_cache=True)
    return [model.lm_head(model.model.norm(step[layer][:, -1])) for step in out.hidden_states]


def lm_score(prefix_ids, continue_ids):
    input_ids = torch.cat([prefix_ids, continue_ids], dim=-1)
    with torch.no_grad():
        outputs = model(input_ids)[0].squeeze(0)  # clean: dl_lm_score
    outputs = outputs.log_softmax(-1)[prefix_ids.shape[-1] - 1: -1, :]
    return outputs[range(outputs.shape[0]), continue_ids[0]].sum().item()


def dola_greedy_decode(input_ids, max_new_tokens, mature_layer, candidate_premature_layers):
    model_kwargs = {"attention_mask": torch.ones_like(input_ids), "use_cache": True}
    lengths = []
    for _ in range(max_new_tokens):
        model_inputs = model.prepare_inputs_for_generation(input_ids, **model_kwargs)  # site: dl_greedy_prepare
        lengths.append(model_inputs["input_ids"].shape[1])
        outputs = model(**model_inputs, return_dict=True, output_hidden_states=True)
        hidden = outputs.hidden_states
        final = F.softmax(model.lm_head(model.model.norm(hidden[mature_layer][:, -1])), dim=-1)
        js = []
        for layer in candidate_premature_layers:
            early = F.softmax(model.lm_head(model.model.norm(hidden[layer][:, -1])), dim=-1)
            m = 0.5 * (final + early)
            js.append(0.5 * (F.kl_div(final.log(), m, reduction="batchmean")
                             + F.kl_div(early.log(), m, reduction="batchmean")))
        premature = candidate_premature_layers[int(torch.stack(js).argmax())]
        early = model.lm_head(model.model.norm(hidden[premature][:, -1])).log_softmax(-1)
        scores = final.log() - early
        next_tokens = scores.argmax(dim=-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        model_kwargs = model._update_model_kwargs_for_generation(outputs, model_kwargs)  # observe: dl_greedy_prepare
    return input_ids, lengths


prompt = torch.tensor([[1, 5, 6, 7, 8]])


def probe_baseline():
    model.generation_config.min_new_tokens = 4
    tokens, scores = dola_generate(prompt, max_new_tokens=4)
    assert tokens.shape == (4,) and len(scores) == 4


def probe_premature_logits():
    model.generation_config.min_new_tokens = 3
    logits = premature_logits_during_generate(prompt, layer=2)
    assert len(logits) == 3 and logits[1].shape == (1, 320)


def probe_dola_dynamic():
    model.generation_config.min_new_tokens = 4
    tokens, scores = dola_generate(prompt, max_new_tokens=4, mode="dola", candidate_premature_layers=[0, 2])
    assert tokens.shape == (4,)


def probe_lm_score():
    score = lm_score(prompt, torch.tensor([[9, 10]]))
    assert score < 0


def probe_greedy_dola_loop():
    sequences, lengths = dola_greedy_decode(prompt, 4, mature_layer=4, candidate_premature_layers=[0, 2])
    assert sequences.shape == (1, 9)
    assert lengths == [5, 1, 1, 1], f"dl_greedy_prepare: every step re-ran the whole sequence {lengths}"  # observe: dl_greedy_prepare
