"""KVmix (mixed-precision KV-cache quantization driven by a per-layer profile): the repository ships its own copies
of the 4.3x Llama and Mistral modeling files, whose `LlamaForCausalLM` keeps the hooks of that era
(`prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
**kwargs)` cutting the input to its last token `if past_key_values:`, building `position_ids` from the attention
mask, returning `past_key_values` and `use_cache` as given; a static `_reorder_cache` rebuilding the legacy tuples
with `index_select` for beam search), and its comparison script loads that class with `from_pretrained` and
generates with it next to the stock model.

Provenance (mechanisms read; this code is written here, not copied):
- LfLab-AI/KVmix @44e80fd8e61076f2323faf91ee37d379de5e392d
  models/modeling_llama.py (LlamaForCausalLM.prepare_inputs_for_generation: `if past_key_values: input_ids =
  input_ids[:, -1:]`, `position_ids = attention_mask.long().cumsum(-1) - 1`, `position_ids.masked_fill_(
  attention_mask == 0, 1)`, `if past_key_values: position_ids = position_ids[:, -1].unsqueeze(-1)`, the
  `inputs_embeds` first-step branch, `model_inputs.update({"position_ids": ..., "past_key_values":
  past_key_values, "use_cache": kwargs.get("use_cache"), "attention_mask": attention_mask})`; `_reorder_cache`:
  `for layer_past in past_key_values: reordered_past += (tuple(past_state.index_select(0, beam_idx...) for
  past_state in layer_past),)`) and Inference-comparision.py (`LlamaForCausalLM.from_pretrained(...,
  config=config)` from the copied module, `model.eval()`, generation beside the stock class).
Reduced: the copied class subclasses transformers' own LlamaForCausalLM and keeps only the two hooks (the copied
attention, decoder and model classes and the quantized KVmix variant are not reduced here), no profiling.
"""

import torch
from transformers import AutoModelForCausalLM
from transformers import LlamaForCausalLM as HFLlamaForCausalLM


class LlamaForCausalLM(HFLlamaForCausalLM):
    def prepare_inputs_for_generation(
        self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs
    ):  # site: km_prepare_inputs
        if past_key_values:
            input_ids = input_ids[:, -1:]
        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -1].unsqueeze(-1)
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update(
            {
                "position_ids": position_ids,
                "past_key_values": past_key_values,
                "use_cache": kwargs.get("use_cache"),
                "attention_mask": attention_mask,
            }
        )
        return model_inputs

    @staticmethod
    def _reorder_cache(past_key_values, beam_idx):
        reordered_past = ()
        for layer_past in past_key_values:  # site: km_reorder_layers
            reordered_past += (
                tuple(past_state.index_select(0, beam_idx.to(past_state.device)) for past_state in layer_past),  # observe: km_reorder_layers
            )
        return reordered_past


kvmix_model = LlamaForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
kvmix_model.eval()
stock_model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-hf")
stock_model.load_state_dict(kvmix_model.state_dict())
stock_model.eval()
inputs = {"input_ids": torch.tensor([[1, 40, 41, 42, 43, 44]]), "attention_mask": torch.ones(1, 6, dtype=torch.long)}


def probe_greedy_compare():
    stock = stock_model.generate(**inputs, max_new_tokens=4, min_new_tokens=4, do_sample=False)  # clean: km_stock_generate
    mine = kvmix_model.generate(**inputs, max_new_tokens=4, min_new_tokens=4, do_sample=False)  # observe: km_prepare_inputs
    assert torch.equal(stock, mine), f"km_prepare_inputs: {mine.tolist()} != {stock.tolist()}"  # observe: km_prepare_inputs


def probe_stock_only():
    out = stock_model.generate(**inputs, max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape == (1, 9)


@torch.no_grad()
def beam_prefill():
    return stock_model(torch.tensor([[1, 2, 3], [1, 4, 5]])).past_key_values  # clean: km_prefill_cache


def probe_prefill():
    assert beam_prefill().get_seq_length() == 3


def probe_reorder_for_beams():
    cache = beam_prefill()
    reordered = LlamaForCausalLM._reorder_cache(cache, torch.tensor([1, 1]))
    assert len(reordered) == stock_model.config.num_hidden_layers and len(reordered[0]) == 2
