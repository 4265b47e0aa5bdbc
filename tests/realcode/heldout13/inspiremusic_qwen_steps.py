"""InspireMusic's music-token language model: a Qwen2 causal LM used as an embedding-in, hidden-state-out backbone.
Training runs a full forward on the embedded sequence with its padding mask; inference decodes step by step with
`forward_one_step(xs, masks, cache)`, which calls the model with `inputs_embeds=`, `use_cache=True`,
`past_key_values=cache` and returns the last hidden states and the new cache. The decoding loop starts with `state =
None`, feeds the whole conditioning prompt (a batch of two for classifier-free guidance) and then one embedded token
per step, each time with a mask of ones the size of what it feeds (`torch.ones(lm_input.shape[0],
lm_input.shape[1])`).

Provenance (mechanisms read; this code is written here, not copied):
- FunAudioLLM/InspireMusic @0aefb55b58b8df91accdc4aed20c99e44741e0a7
  inspiremusic/transformer/qwen_encoder.py (`QwenEmbeddingEncoder`: `Qwen2ForCausalLM.from_pretrained(pretrain_path,
  ...)`; `forward(input_embeds, ilens)`: `self.model(inputs_embeds=..., attention_mask=input_masks,
  output_hidden_states=True, return_dict=True)`; `forward_one_step(self, xs, masks, cache=None)`: `self.model(
  inputs_embeds=xs, attention_mask=masks, output_hidden_states=True, return_dict=True, use_cache=True,
  past_key_values=cache)`, `new_cache = outs.past_key_values`) and inspiremusic/llm/llm.py (`inference`: `state =
  None`, `y_pred, _, state = self.llm.forward_one_step(lm_input, torch.ones(lm_input.shape[0], lm_input.shape[1],
  ...).to(torch.bool), cache=state)`, CFG rows mixed with `infer_cfg_ratio`, `lm_input =
  self.speech_embedding.weight[top_ids].reshape(1, 1, -1)` repeated for the two rows).
Reduced: random conditioning embeddings, greedy choice over a small head, float32 weights; the probe compares a step's
hidden state with the same sequence run at once.
"""

import torch
from torch import nn
from transformers import Qwen2ForCausalLM


class QwenEmbeddingEncoder(nn.Module):
    def __init__(self, pretrain_path="Qwen/Qwen2.0-0.5B"):
        super().__init__()
        self.model = Qwen2ForCausalLM.from_pretrained(pretrain_path)
        self.model.eval()

    def forward(self, input_embeds, input_masks):
        outs = self.model(  # clean: im_full_forward
            inputs_embeds=input_embeds, attention_mask=input_masks, output_hidden_states=True, return_dict=True
        )
        return outs.hidden_states[-1], input_masks

    def forward_one_step(self, xs, masks, cache=None):
        outs = self.model(  # clean: im_step_forward
            inputs_embeds=xs,
            attention_mask=masks,
            output_hidden_states=True,
            return_dict=True,
            use_cache=True,
            past_key_values=cache,
        )
        xs = outs.hidden_states[-1]
        new_cache = outs.past_key_values  # clean: im_new_cache
        return xs, masks, new_cache


llm = QwenEmbeddingEncoder()
hidden = llm.model.config.hidden_size
torch.manual_seed(0)
speech_embedding = nn.Embedding(32, hidden)
llm_decoder = nn.Linear(hidden, 32)


@torch.no_grad()
def inference(lm_input, max_len=3, infer_cfg_ratio=3.0):
    out_tokens, states = [], []
    state = None
    for i in range(max_len):
        y_pred, _, state = llm.forward_one_step(
            lm_input, torch.ones(lm_input.shape[0], lm_input.shape[1]).to(torch.bool), cache=state  # site: im_step_mask
        )
        states.append(y_pred[:, -1])
        logits = llm_decoder(y_pred[:, -1])
        logits = infer_cfg_ratio * logits[0] + (1 - infer_cfg_ratio) * logits[1]
        top_id = int(logits.argmax())
        out_tokens.append(top_id)
        lm_input = speech_embedding.weight[top_id].reshape(1, 1, -1).repeat(2, 1, 1)
    return out_tokens, states, state


prompt = torch.randn(2, 5, hidden)


def probe_prompt_state():
    _, _, state = inference(prompt, max_len=1)
    assert state.get_seq_length() == 5


def probe_full_forward():
    with torch.no_grad():
        states, masks = llm(prompt, torch.ones(2, 5, dtype=torch.long))
    assert states.shape == (2, 5, hidden)


def probe_steps_match_full():
    tokens, states, state = inference(prompt, max_len=2)
    assert state.get_seq_length() == 6
    full = torch.cat([prompt, speech_embedding.weight[tokens[0]].reshape(1, 1, -1).repeat(2, 1, 1)], dim=1)
    with torch.no_grad():
        reference, _ = llm(full, torch.ones(2, 6, dtype=torch.long))
    assert torch.allclose(states[1], reference[:, -1], atol=1e-4), "im_step_mask: " + str(  # observe: im_step_mask
        (states[1] - reference[:, -1]).abs().max())
