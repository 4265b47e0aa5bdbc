"""Freeze-Omni (VITA-MLLM): a speech-to-speech dialogue model around a frozen Qwen2 LLM. `AudioLLM` keeps the
conversation's cache in the caller's `extra_inputs` dict: `set_system_role` runs the system prompt's embeddings
through `_generate_one_step` and returns `past_key_values`; `recognize` encodes each audio chunk (streaming
encoder + adapter), adds the chat prefix on the first chunk, sets `inputs['past_key_values'] =
extra_inputs['past_key_values']`, prepends a mask as long as the cache (`inputs['past_key_values'][0][0].size(2)`,
the first layer's keys), and calls `_generate_one_step(copy.deepcopy(inputs), stat)`. That runs the decoder
(`self.llm_decoder.model(**inputs)`), lets a small head on the last hidden state pick the dialogue state ('cl' keep
listening, 'ss' start speaking, 'el' end) and returns `outputs['past_key_values']`; in the speaking states it samples
the next text token from `lm_head`.

Provenance (mechanisms read; this code is written here, not copied):
- VITA-MLLM/Freeze-Omni @6ac4b3d18683a37721107e7396e78d0e17f86fd9
  models/audioLLM.py (AudioLLM.set_system_role: `assert extra_inputs.get('past_key_values', None) is None`,
  `inputs_embeds = self.llm_decoder.transformer.wte(chat_prefix)`, `_, past_key_values, stat, _ =
  self._generate_one_step(copy.deepcopy(inputs), "sl")`; recognize: `inputs['past_key_values'] =
  extra_inputs['past_key_values']`, `past_mask = torch.full([1, inputs['past_key_values'][0][0].size(2)], True)`,
  `attention_mask = torch.cat((past_mask, attention_mask), 1)`, the 'cs' branch feeding `extra_inputs['last_id']`;
  _generate_one_step: `outputs = self.llm_decoder.model(**inputs)`, `state_logits =
  self.predictor_head(outputs['last_hidden_state'])[0, :]`, `return None, outputs['past_key_values'], 'cl', None`,
  `last_logit = self.llm_decoder.lm_head(outputs['last_hidden_state'][:, -1:, :])`).
Reduced: the chunked speech encoder and CNN adapter are one linear layer over random frames; no chat template
tokenizer (prefix and suffix are token ids), no prompt/prefix tuning, greedy decoding instead of top-k/top-p, float32
instead of `.half()`; the probes run under `torch.no_grad()`, as the inference scripts do; the state head's choice
can be forced by the caller (the tiny model's head is random); the mask length is read through one helper.
"""

import copy

import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM


def _cached_length(past_key_values):
    return past_key_values[0][0].size(2)  # site: fo_cached_length


class AudioLLM(torch.nn.Module):
    def __init__(self, llm_path, enc_out_dim=20):
        super().__init__()
        self.llm_decoder = AutoModelForCausalLM.from_pretrained(llm_path, torch_dtype="auto", trust_remote_code=True)
        hidden = self.llm_decoder.config.hidden_size
        self.adpter = torch.nn.Linear(enc_out_dim, hidden)
        self.predictor_head = torch.nn.Linear(hidden, 4)
        self.role_ids = torch.tensor([[5, 6, 7, 8]])
        self.suffix_ids = torch.tensor([[9, 10]])
        self.eod_id = 2

    def set_system_role(self, extra_inputs):
        assert extra_inputs.get("past_key_values", None) is None, "past key values already exist!!!"  # clean: fo_no_cache_yet
        inputs_embeds = self.llm_decoder.model.embed_tokens(self.role_ids)
        inputs = {"inputs_embeds": inputs_embeds, "attention_mask": torch.full(self.role_ids.shape, True)}
        _, past_key_values, stat, _ = self._generate_one_step(copy.deepcopy(inputs), "sl")  # clean: fo_system_role
        return past_key_values

    def recognize(self, speech, extra_inputs):
        assert extra_inputs.get("past_key_values", None) is not None, "must set system role first!!!"
        if extra_inputs["stat"] in ("sl", "cl"):
            inputs_embeds = self.adpter(speech)
            attention_mask = torch.full(inputs_embeds.shape[:2], True)
        if extra_inputs["stat"] == "ss":
            inputs_embeds = self.llm_decoder.model.embed_tokens(self.suffix_ids)
            attention_mask = torch.full(self.suffix_ids.shape, True)
        if extra_inputs["stat"] != "cs":
            inputs = {"inputs_embeds": inputs_embeds, "attention_mask": attention_mask}
        else:
            inputs = {"input_ids": extra_inputs["last_id"], "attention_mask": torch.full([1, 1], True)}
        inputs["past_key_values"] = extra_inputs["past_key_values"]
        past_mask = torch.full([1, _cached_length(inputs["past_key_values"])], True)
        inputs["attention_mask"] = torch.cat((past_mask, inputs["attention_mask"]), 1)
        last_id, past_key_values, stat, hidden_state = self._generate_one_step(copy.deepcopy(inputs),
                                                                               extra_inputs["stat"],
                                                                               forced=extra_inputs.get("forced"))
        return last_id, stat, past_key_values, hidden_state

    @torch.no_grad()
    def _generate_one_step(self, inputs, stat, forced=None):
        outputs = self.llm_decoder.model(**inputs)  # clean: fo_decoder_step
        if stat in ("sl", "cl"):
            prob = F.softmax(self.predictor_head(outputs["last_hidden_state"])[0, :, :-1], dim=-1)
            new_stat = forced or ("ss" if prob[-1][1] > 0.5 else "cl")
            return None, outputs["past_key_values"], new_stat, None  # clean: fo_output_cache
        last_logit = self.llm_decoder.lm_head(outputs["last_hidden_state"][:, -1:, :])
        last_id = last_logit.argmax(-1)
        if int(last_id[0][0]) == self.eod_id:
            return None, outputs["past_key_values"], "sl", outputs["last_hidden_state"][:, -1:, :]
        return last_id, outputs["past_key_values"], "cs", outputs["last_hidden_state"][:, -1:, :]


model = AudioLLM("Qwen/Qwen2-7B-Instruct").eval()


@torch.no_grad()
def probe_system_role():
    past = model.set_system_role({})
    assert past.get_seq_length() == 4


@torch.no_grad()
def probe_dialogue():
    extra = {"past_key_values": model.set_system_role({}), "stat": "sl", "forced": "cl"}
    _, stat, extra["past_key_values"], _ = model.recognize(torch.randn(1, 3, 20), extra)
    extra.update(stat="ss", forced=None)
    last_id, stat, extra["past_key_values"], _ = model.recognize(None, extra)
    assert extra["past_key_values"].get_seq_length() == 9
