"""MiniCPM-V's OmniLMM (OpenBMB): a vision-language causal LM whose `prepare_inputs_for_generation` is the 4.3x
pattern: `if past_key_values: input_ids = input_ids[:, -1:]`, then a dict of the ids (or the embeddings on the first
step), the cache, `use_cache` and the mask, plus the images. The MiniCPM-o 2.6 demo server keeps the LLM's cache on
the model (`llm_past_key_values`) between turns and starts a new session when
`llm_past_key_values[0][0].shape[2] > 8192`.

Provenance (mechanisms read; this code is written here, not copied):
- OpenBMB/MiniCPM-V @0dbb566de090067266abb76e702fb289f09934c5
  omnilmm/model/omnilmm.py (`OmniLMMForCausalLM.prepare_inputs_for_generation(self, input_ids, past_key_values=None,
  attention_mask=None, inputs_embeds=None, **kwargs)`: `if past_key_values: input_ids = input_ids[:, -1:]`,
  `model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"), "attention_mask":
  attention_mask, "images": kwargs.get("images", None)})`; `forward` passing `past_key_values` on) and
  web_demos/minicpm-o_2.6/model_server.py (`clear`: `if self.minicpmo_model.llm_past_key_values[0][0].shape[2] >
  8192: self.session_id += 1`).
Reduced: the Mistral backbone with a vision tower is a Llama without images (`images` stays None), the server's
model is a plain holder of the cache, no streaming audio.
"""

import torch
from transformers import AutoModelForCausalLM, LlamaForCausalLM


class OmniLMMForCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      **kwargs):
        if past_key_values:  # site: om_truthy_slice
            input_ids = input_ids[:, -1:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                             "attention_mask": attention_mask})
        return model_inputs


model = OmniLMMForCausalLM.from_pretrained("openbmb/OmniLMM-12B").eval()


class ServerState:
    def __init__(self, minicpmo_model):
        self.minicpmo_model = minicpmo_model
        self.session_id = 0

    def prefill(self, ids):
        with torch.no_grad():
            out = model(input_ids=ids, use_cache=True)  # clean: om_prefill
        self.minicpmo_model.llm_past_key_values = out.past_key_values  # clean: om_park_cache

    def clear(self):
        if self.minicpmo_model.llm_past_key_values[0][0].shape[2] > 8192:  # site: om_session_len
            self.session_id += 1


class Holder:
    llm_past_key_values = None


prompt = torch.tensor([[1, 90, 91, 92, 93]])


def probe_generate():
    seen = []
    model.register_forward_pre_hook(lambda module, args, kwargs: seen.append(kwargs["input_ids"].shape[1]),
                                    with_kwargs=True)
    mask = torch.ones_like(prompt)
    out = model.generate(prompt, attention_mask=mask, max_new_tokens=3, min_new_tokens=3, return_dict_in_generate=True)
    assert out.past_key_values.get_seq_length() == 7, "om_truthy_slice: the prompt never reached the cache"  # observe: om_truthy_slice
    assert seen == [5, 1, 1], f"om_truthy_slice: every step re-ran the sequence {seen}"  # observe: om_truthy_slice


def probe_park():
    state = ServerState(Holder())
    state.prefill(prompt)
    assert state.minicpmo_model.llm_past_key_values.get_seq_length() == 5


def probe_server():
    state = ServerState(Holder())
    state.prefill(prompt)
    state.clear()
    assert state.session_id == 0
