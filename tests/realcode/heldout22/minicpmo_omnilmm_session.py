"""MiniCPM-o (OpenBMB/MiniCPM-o): the repository of OpenBMB's omni-modal chat models, with the 2024 OmniLMM-12B
chat code and the 2025 MiniCPM-o 2.6 real-time web demo. OmniLMM's `OmniLMMForCausalLM(MistralForCausalLM)` answers
through `generate_vllm`, which merges the image into `inputs_embeds` and calls `self.generate(inputs_embeds=...,
**kwargs)`; its `prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,
inputs_embeds=None, **kwargs)` (a 4.3x Llama copy) cuts the ids to the last one `if past_key_values:`, hands
`inputs_embeds` on only while `past_key_values is None`, and builds the dict itself (`images` from kwargs); its model's
forward embeds the ids (and the image) itself when `inputs_embeds is None and past_key_values is None`. The web
demo's session server keeps the model's `llm_past_key_values` across a conversation's streamed prefills, and its
`clear()` starts a new session when `self.minicpmo_model.llm_past_key_values[0][0].shape[2] > 8192`, inside a
`try` that re-raises anything as `ValueError(f"Clear error: {str(e)}")`.

Provenance (mechanisms read; this code is written here, not copied):
- OpenBMB/MiniCPM-o @3ec4cb0e868b22d0b0dcfed5546edb50900bc878 (2026-05-19): omnilmm/model/omnilmm.py (2024-02-29:
  `OmniLMMModel.forward`, `OmniLMMForCausalLM.forward`, `prepare_inputs_for_generation`, `generate_vllm`), chat.py
  (`OmniLMM12B.decode`'s generate keywords), web_demos/minicpm-o_2.6/model_server.py (2025-01-24: the session's
  `clear()` and its cache-length check, the session id bump "to clear all kv cache").
Reduced: no vision tower or resampler (`images` is carried and unused; the embeds are the token embeddings), a
Mistral from its config stands for OmniLMM-12B; the remote MiniCPM-o 2.6 model's streaming prefill is a plain
forward over each chunk keeping `outputs.past_key_values` on the session (the demo's model attribute); no audio, VAD,
TTS, FastAPI or logging; greedy, CPU.
"""

import torch
from transformers import AutoTokenizer, LlamaForCausalLM, MistralForCausalLM, MistralModel
from transformers.modeling_outputs import CausalLMOutputWithPast


class OmniLMMModel(MistralModel):
    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, inputs_embeds=None, use_cache=None,
                output_attentions=None, output_hidden_states=None, images=None, return_dict=None, **kwargs):
        if inputs_embeds is None and past_key_values is None:
            inputs_embeds = self.embed_tokens(input_ids)
            input_ids = None
        return super().forward(  # observe: om_prepare_past
            input_ids=input_ids, attention_mask=attention_mask, past_key_values=past_key_values,
            inputs_embeds=inputs_embeds, use_cache=use_cache, output_attentions=output_attentions,
            output_hidden_states=output_hidden_states, return_dict=return_dict, **kwargs)


class OmniLMMForCausalLM(MistralForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.model = OmniLMMModel(config)
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, inputs_embeds=None, labels=None,
                use_cache=None, images=None, return_dict=None, **kwargs):
        outputs = self.model(input_ids=input_ids, attention_mask=attention_mask,
                             past_key_values=past_key_values,  # clean: om_lm_pass
                             inputs_embeds=inputs_embeds, use_cache=use_cache, images=images, **kwargs)
        logits = self.lm_head(outputs[0])
        loss = None
        if labels is not None:
            loss = torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
        return CausalLMOutputWithPast(loss=loss, logits=logits, past_key_values=outputs.past_key_values)

    def prepare_inputs_for_generation(
        self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, **kwargs  # site: om_prepare_past
    ):
        if past_key_values:
            input_ids = input_ids[:, -1:]

        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}

        model_inputs.update({
            "past_key_values": past_key_values,
            "use_cache": kwargs.get("use_cache"),
            "attention_mask": attention_mask,
            "images": kwargs.get("images", None),
        })
        return model_inputs

    def generate_vllm(self, input_ids=None, images=None, **kwargs):
        with torch.inference_mode():
            inputs_embeds = self.model.embed_tokens(input_ids)
            return self.generate(inputs_embeds=inputs_embeds, **kwargs)


class SessionServer:
    def __init__(self, llm, tokenizer):
        self.llm = llm
        self.tokenizer = tokenizer
        self.session_id = 0
        self.llm_past_key_values = None  # clean: om_session_empty

    def streaming_prefill(self, text):
        ids = self.tokenizer(text, return_tensors="pt", add_special_tokens=False).input_ids
        outputs = self.llm(input_ids=ids, past_key_values=self.llm_past_key_values, use_cache=True)  # clean: om_prefill_step
        self.llm_past_key_values = outputs.past_key_values  # clean: om_keep_session_cache
        return outputs.logits[:, -1]

    def clear(self):
        try:
            if self.llm_past_key_values[0][0].shape[2] > 8192:  # site: om_clear_len
                self.session_id += 1
                self.llm_past_key_values = None
        except Exception as e:
            raise ValueError(f"Clear error: {str(e)}")  # observe: om_clear_len


omni = OmniLMMForCausalLM.from_pretrained("openbmb/OmniLMM-12B", torch_dtype=torch.float32).eval()
llm = LlamaForCausalLM.from_pretrained("openbmb/MiniCPM-o-2_6", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("openbmb/OmniLMM-12B")


@torch.no_grad()
def probe_generate_vllm():
    input_ids = tokenizer("w12 w34 w56 w78 w90 w21 w43", return_tensors="pt").input_ids
    lengths = []
    omni.model.register_forward_hook(lambda m, args, kwargs, out: lengths.append(
        kwargs["input_ids"].shape[1] if kwargs.get("input_ids") is not None else kwargs["inputs_embeds"].shape[1]),
        with_kwargs=True)
    out = omni.generate_vllm(input_ids=input_ids, images=None, max_new_tokens=3, min_new_tokens=3,  # observe: om_prepare_past
                             do_sample=False, output_scores=True, return_dict_in_generate=True)
    assert out.sequences.shape[1] == 3
    assert lengths == [7, 1, 1], f"om_prepare_past: the steps did not feed the prompt once, then one token ({lengths})"  # observe: om_prepare_past


@torch.no_grad()
def probe_train_forward():
    ids = tokenizer("w12 w34 w56 w78", return_tensors="pt").input_ids
    out = omni(input_ids=ids, labels=ids)
    assert out.loss is not None and out.logits.shape[1] == 4


@torch.no_grad()
def probe_session():
    server = SessionServer(llm, tokenizer)
    server.streaming_prefill("w3 w5 w7 w9")
    server.streaming_prefill("w11 w13")
    assert server.llm_past_key_values.get_seq_length() == 6


@torch.no_grad()
def probe_session_clear():
    server = SessionServer(llm, tokenizer)
    server.streaming_prefill("w3 w5 w7 w9")
    server.clear()
    assert server.session_id == 0
