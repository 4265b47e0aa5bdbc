"""LMFlow (OptimalScale/LMFlow), its `SpeculativeInferencer` (speculative sampling after Leviathan et al.): the draft
proposes `gamma` tokens one `generate` call at a time (`predict_next_token`: `model.inference(input_ids,
max_new_tokens=num_new_tokens, return_dict_in_generate=True, output_scores=True, do_sample=True, num_beams=1)`,
the probability from `pred.scores[0]`), the target scores the whole draft in one cache-less forward
(`model.get_backend_model()(input_ids=output_draft["sequence"], return_dict=True)`), accepted tokens are kept and
the loop restarts from the new sequence. `HFDecoderModel.inference` is `backend_model.generate(input_ids=inputs,
pad_token_id=tokenizer.pad_token_id, **kwargs)` under `torch.no_grad()`.

Provenance (mechanisms read; this code is written here, not copied):
- OptimalScale/LMFlow @f3597dba134e8bb3d2cfedeaaae6fc7296ace924
  src/lmflow/pipeline/inferencer.py (SpeculativeInferencer.score_to_prob, sample, predict_next_token,
  autoregressive_sampling, inference's speculative_sampling steps 1-5 and its outer loop),
  src/lmflow/models/hf_decoder_model.py (HFDecoderModel.__inference: the accelerate branch's generate call).
Reduced: greedy probabilities (temperature 0: one-hot argmax), no accelerate/deepspeed/vLLM backends, the model
wrapper holds the backend model and a pad id; token ids instead of text.
"""

import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM


class HFDecoderModel:
    def __init__(self, model_name, pad_token_id=0):
        self.backend_model = AutoModelForCausalLM.from_pretrained(model_name)
        self.backend_model.generation_config.min_new_tokens = 1
        self.pad_token_id = pad_token_id

    def get_backend_model(self):
        return self.backend_model

    def inference(self, inputs, **kwargs):
        with torch.no_grad():
            outputs = self.backend_model.generate(input_ids=inputs, pad_token_id=self.pad_token_id, **kwargs)  # clean: lf_backend_generate
        return outputs


def score_to_prob(scores, temperature=0.0):
    if temperature <= 1e-6:
        return F.one_hot(scores.argmax(dim=1), num_classes=scores.size(1)).float()
    return (scores / temperature).softmax(dim=1)


def sample(prob, num_samples=1):
    sampled_indices = torch.multinomial(prob, num_samples=num_samples, replacement=True)
    return {"sampled_token": sampled_indices, "sampled_prob": prob.gather(dim=1, index=sampled_indices),
            "all_prob": prob}


def predict_next_token(model, input_ids, num_new_tokens=1):
    output = model.inference(input_ids, max_new_tokens=num_new_tokens, return_dict_in_generate=True,  # clean: lf_predict
                             output_scores=True, do_sample=True, num_beams=1)
    return output


def autoregressive_sampling(input_ids, model, temperature=0.0, num_new_tokens=5):
    sequence = input_ids
    new_tokens = []
    for _ in range(num_new_tokens):
        pred = predict_next_token(model=model, input_ids=sequence, num_new_tokens=1)
        prob = score_to_prob(pred.scores[0], temperature=temperature)  # clean: lf_scores
        sampled = sample(prob=prob, num_samples=1)
        new_tokens.append(sampled)
        sequence = torch.cat([sequence, sampled["sampled_token"]], dim=1)
    return {"sequence": sequence, "new_tokens": new_tokens}


def speculative_sampling(input_ids, model, draft_model, gamma=3, temperature=0.0):
    len_input_ids = input_ids.shape[1]
    output_draft = autoregressive_sampling(input_ids=input_ids, model=draft_model, num_new_tokens=gamma)
    with torch.no_grad():
        output = model.get_backend_model()(input_ids=output_draft["sequence"], return_dict=True)  # clean: lf_target_forward
    accepted = [False] * gamma
    for i in range(gamma):
        draft_token = output_draft["new_tokens"][i]["sampled_token"]
        draft_prob = output_draft["new_tokens"][i]["sampled_prob"]
        token_prob = score_to_prob(output.logits[:, len_input_ids + i - 1, :], temperature=temperature)[0, draft_token]
        if torch.rand_like(token_prob) > token_prob / draft_prob:
            break
        accepted[i] = True
    if not all(accepted):
        all_prob = score_to_prob(output.logits[:, len_input_ids + i - 1, :], temperature=temperature)
        adjusted_prob = torch.max(torch.zeros_like(all_prob), all_prob - output_draft["new_tokens"][i]["all_prob"])
        prob = adjusted_prob / adjusted_prob.sum(dim=1, keepdim=True) if adjusted_prob.sum() > 0 else all_prob
    else:
        prob = score_to_prob(output.logits[:, -1, :], temperature=temperature)
    token_from_target_model = sample(prob)["sampled_token"]
    return torch.concat([output_draft["sequence"][:, :len_input_ids + sum(accepted)], token_from_target_model], dim=1)


def inference(model, draft_model, inputs, gamma=3, max_new_tokens=6):
    num_generated_new_tokens = 0
    len_raw_input = inputs.shape[1]
    while num_generated_new_tokens < max_new_tokens:
        sampling_result = speculative_sampling(inputs, model, draft_model, gamma=gamma)
        num_generated_new_tokens += sampling_result.shape[1] - inputs.shape[1]
        inputs = sampling_result
    return inputs[:, :len_raw_input + max_new_tokens]


target = HFDecoderModel("meta-llama/Llama-2-7b-hf")
draft = HFDecoderModel("JackFram/llama-160m")
prompt = torch.tensor([[1, 45, 96, 173, 17]])


def probe_draft_tokens():
    out = autoregressive_sampling(prompt, draft, num_new_tokens=3)
    assert out["sequence"].shape[1] == prompt.shape[1] + 3


def probe_speculative_inference():
    out = inference(target, draft, prompt, gamma=3, max_new_tokens=6)
    assert out.shape[1] == prompt.shape[1] + 6
