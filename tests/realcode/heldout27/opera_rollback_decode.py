"""OPERA (shikiw/OPERA), over-trust penalty and retrospection-allocation decoding for multimodal LLMs: the LLaVA-1.5
language model it ships (minigpt4/models/llava_llama.py) overrides `prepare_inputs_for_generation(self, input_ids,
past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs)`: once `past_key_values` is set only the last
token is fed, and the image tensor rides along as `images` in the model inputs. The forked beam search
(transformers-4.29.2/src/transformers/generation/utils.py, `opera_decoding=True`) keeps a history of each step's
state and, when the attention pattern shows a knowledge-aggregation column, rolls the beams back to an earlier
position and re-decodes from the cache kept for it (the "retrospection").

Provenance (mechanisms read; this code is written here, not copied):
- shikiw/OPERA @2a0a23444573a5d0fbbfffdd830b50dcac810c89 minigpt4/models/llava_llama.py
  (LlavaLlamaForCausalLM.prepare_inputs_for_generation), minigpt4/models/modeling_llama.py
  (LlamaForCausalLM.prepare_inputs_for_generation, _reorder_cache). The forked
  transformers-4.29.2/src/transformers/generation/utils.py (@5fc3aa4ea1645d0b7dadd6e6434fe6a0a229c33a) was listed, not
  read: the rollback here follows the retrospection the repository describes, not that file's code.
The MiniGPT-4 side's copied Llama (minigpt4/models/modeling_llama.py, transformers 4.29) keeps the static
`_reorder_cache(past_key_values, beam_idx)` that beam search calls to reorder the cache, written over the (key, value)
tuples of each layer; this case puts it on the LLaVA class.
Reduced: a tiny Llama subclass from a config, no vision tower (`images` is passed through and ignored); plain greedy
and beam generation without the over-trust penalty; the hand-written rollback keeps each step's cache as legacy (key, value) tuples (the 4.36-4.4x way of taking
a copy of a DynamicCache) and rebuilds a cache from the tuples it rolls back to.
"""

import torch
from transformers import DynamicCache, LlamaConfig, LlamaForCausalLM


class LlavaLlamaForCausalLM(LlamaForCausalLM):
    def forward(self, input_ids=None, images=None, **kwargs):
        return super().forward(input_ids=input_ids, **kwargs)  # observe: op_reorder_cache

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,  # site: op_prepare_past
                                      inputs_embeds=None, **kwargs):
        if past_key_values:
            input_ids = input_ids[:, -1:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        self.seen_lengths.append(input_ids.shape[1])
        model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                             "attention_mask": attention_mask, "images": kwargs.get("images", None)})
        return model_inputs

    @staticmethod
    def _reorder_cache(past_key_values, beam_idx):
        reordered_past = ()
        for layer_past in past_key_values:
            reordered_past += (tuple(past_state.index_select(0, beam_idx) for past_state in layer_past),)  # site: op_reorder_cache
        return reordered_past


torch.manual_seed(0)
model = LlavaLlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                          num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                          eos_token_id=2, pad_token_id=0)).eval()
model.seen_lengths = []


@torch.no_grad()
def decode_with_history(input_ids, steps):
    history = []
    past = None
    for _ in range(steps):
        feed = input_ids if past is None else input_ids[:, -1:]
        out = model(input_ids=feed, past_key_values=past, use_cache=True)
        past = out.past_key_values
        history.append(past.to_legacy_cache())  # site: op_snapshot_legacy
        input_ids = torch.cat([input_ids, out.logits[:, -1:].argmax(-1)], dim=-1)
    return input_ids, history


@torch.no_grad()
def rollback(history, position):
    return DynamicCache.from_legacy_cache(history[position])  # site: op_restore_legacy


def layer_tuples(cache):
    return tuple((layer.keys.clone(), layer.values.clone()) for layer in cache.layers)


image = torch.zeros(1, 3, 8, 8)
prompt = torch.tensor([[1, 50, 51, 52, 53]])


def probe_llava_generate():
    model.seen_lengths = []
    out = model.generate(prompt, images=image, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape == (1, 8)
    assert model.seen_lengths == [5, 1, 1], f"op_prepare_past: inputs fed per step {model.seen_lengths}"  # observe: op_prepare_past


def probe_beam_search():
    model.seen_lengths = []
    out = model.generate(prompt, images=image, num_beams=2, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape == (1, 8)


def probe_history():
    ids, history = decode_with_history(prompt, 3)
    assert ids.shape == (1, 8) and len(history) == 3


def probe_rollback():
    with torch.no_grad():
        out = model(input_ids=prompt, use_cache=True)
    snapshot = layer_tuples(out.past_key_values)
    cache = rollback([snapshot], 0)
    assert cache.get_seq_length() == 5
