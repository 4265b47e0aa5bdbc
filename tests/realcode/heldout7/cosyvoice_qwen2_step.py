"""CosyVoice 2's speech-token LM: a Qwen2ForCausalLM used as an encoder of embeddings (`forward_one_step(xs, masks,
cache)` calls the model with `inputs_embeds`, `attention_mask=masks[:, -1, :]`, `use_cache=True`,
`past_key_values=cache` and returns the last hidden states and `outs.past_key_values`); inference embeds the
prompt (text + speech tokens), then loops one speech token at a time, the mask being rebuilt each step as a causal
square over the current input only (`torch.tril(torch.ones((1, L, L)))`), the cache threaded through.

Provenance (mechanisms read; this code is written here, not copied):
- FunAudioLLM/CosyVoice @ace7c47f41bbd303aa6bf1ea80e6f9fbd595cd40
  cosyvoice/llm/llm.py (Qwen2Encoder: `self.model = Qwen2ForCausalLM.from_pretrained(pretrain_path)`,
  `forward_one_step`: `input_masks = masks[:, -1, :]`, `self.model(inputs_embeds=xs, attention_mask=input_masks,
  output_hidden_states=True, return_dict=True, use_cache=True, past_key_values=cache)`, `new_cache =
  outs.past_key_values`; Qwen2LM.inference_wrapper's non-vLLM loop: `cache = None`, `y_pred, cache =
  self.llm.forward_one_step(lm_input, masks=torch.tril(torch.ones((1, lm_input.shape[1], lm_input.shape[1]),
  ...)).to(torch.bool), cache=cache)`, `lm_input = self.speech_embedding.weight[top_ids].reshape(1, 1, -1)`).
Reduced: greedy sampling, a random speech embedding table, no speaker embedding or vLLM path.
"""

import torch
from transformers import Qwen2ForCausalLM


class Qwen2Encoder(torch.nn.Module):
    def __init__(self, pretrain_path):
        super().__init__()
        self.model = Qwen2ForCausalLM.from_pretrained(pretrain_path)

    def forward_one_step(self, xs, masks, cache=None):
        input_masks = masks[:, -1, :]
        outs = self.model(  # clean: cv_step_mask
            inputs_embeds=xs,
            attention_mask=input_masks,
            output_hidden_states=True,
            return_dict=True,
            use_cache=True,
            past_key_values=cache,
        )
        xs = outs.hidden_states[-1]
        new_cache = outs.past_key_values  # clean: cv_new_cache
        return xs, new_cache


class Qwen2LM(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.llm = Qwen2Encoder("FunAudioLLM/CosyVoice2-0.5B/CosyVoice-BlankEN")
        hidden = self.llm.model.config.hidden_size
        self.speech_embedding = torch.nn.Embedding(40, hidden)
        self.llm_decoder = torch.nn.Linear(hidden, 40)

    @torch.inference_mode()
    def inference(self, lm_input, max_len=4):
        out_tokens = []
        cache = None
        for _ in range(max_len):
            steps = lm_input.shape[1]
            y_pred, cache = self.llm.forward_one_step(
                lm_input, masks=torch.tril(torch.ones((1, steps, steps))).to(torch.bool), cache=cache)
            top_ids = int(self.llm_decoder(y_pred[:, -1]).argmax(-1))
            out_tokens.append(top_ids)
            lm_input = self.speech_embedding.weight[top_ids].reshape(1, 1, -1)
        return out_tokens, cache


torch.manual_seed(0)
lm = Qwen2LM().eval()


def probe_prompt_step():
    hidden = lm.llm.model.config.hidden_size
    y_pred, cache = lm.llm.forward_one_step(torch.randn(1, 6, hidden), torch.tril(torch.ones(1, 6, 6)).to(torch.bool))
    assert y_pred.shape == (1, 6, hidden) and cache.get_seq_length() == 6


def probe_inference():
    hidden = lm.llm.model.config.hidden_size
    tokens, cache = lm.inference(torch.randn(1, 6, hidden), max_len=4)
    assert len(tokens) == 4 and cache.get_seq_length() == 9
