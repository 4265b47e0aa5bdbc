"""OpenBioMed (PharMolix/OpenBioMed): BioMedGPT-10B couples molecule and protein encoders to a Llama language model
through projections; it vendors its own copy of a 4.28-era `modeling_llama.py` (LlamaForCausalLM over
LlamaPreTrainedModel(PreTrainedModel), legacy tuple caches: `past_key_values_length =
past_key_values[0][0].shape[2]`, `past_key_value = past_key_values[idx] if past_key_values is not None else None`, its
own `prepare_inputs_for_generation` and tuple `_reorder_cache`). `BioMedGPTV.__init__` builds
`self.llm = LlamaForCausalLM(self.llm_config)` from that vendored module; the training loss runs
`self.llm(inputs_embeds=..., attention_mask=..., labels=..., return_dict=True)`, and captioning calls
`self.llm.generate(inputs_embeds=..., attention_mask=..., do_sample=..., num_beams=..., max_length=...,
repetition_penalty=..., length_penalty=..., num_return_sequences=...)`; the chat demo's `Conversation.answer` builds
the context embeddings of the messages (molecules spliced in) and calls `self.model.llm.generate(inputs_embeds=embs,
max_length=..., num_beams=..., top_p=..., do_sample=False, repetition_penalty=..., length_penalty=...,
temperature=...)[0]`.

Provenance (mechanisms read; this code is written here, not copied):
- PharMolix/OpenBioMed @ce3ccab76f5dd3a48a02298f3c4c61bfb9b2501c
  open_biomed/models/multimodal/biomedgpt/modeling_llama.py (LlamaPreTrainedModel, LlamaModel.forward's legacy cache
  reads, LlamaForCausalLM.prepare_inputs_for_generation, _reorder_cache);
  open_biomed/models/multimodal/biomedgpt/biomedgpt.py (BioMedGPTV.__init__, forward, generate);
  open_biomed/utils/chat_utils.py (Conversation.ask / append_molecule / answer).
Reduced: the vendored decoder is one attention block with tuple caches; the molecule encoder is a random
projection of a fingerprint vector; no autocast, no padding helper, no tokenizer (ids are returned).
"""

import torch
from torch import nn
from transformers import LlamaConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutputWithPast


class LlamaPreTrainedModel(PreTrainedModel):
    config_class = LlamaConfig
    base_model_prefix = "model"


class LlamaForCausalLM(LlamaPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.embed_tokens = nn.Embedding(config.vocab_size, config.hidden_size)
        self.kv = nn.Linear(config.hidden_size, 2 * config.hidden_size)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def get_input_embeddings(self):
        return self.embed_tokens

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                inputs_embeds=None, labels=None, use_cache=None, return_dict=True, **kwargs):
        hidden = inputs_embeds if inputs_embeds is not None else self.embed_tokens(input_ids)
        k, v = self.kv(hidden).chunk(2, dim=-1)
        past_len = past_key_values[0][0].shape[1] if past_key_values is not None else 0  # clean: bm_past_len
        if past_key_values is not None:
            k = torch.cat([past_key_values[0][0], k], dim=1)
            v = torch.cat([past_key_values[0][1], v], dim=1)
        attn = torch.softmax(hidden @ k.transpose(1, 2) / hidden.shape[-1] ** 0.5, dim=-1) @ v
        logits = self.lm_head(hidden + attn)
        loss = None
        if labels is not None:
            loss = nn.functional.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
        return CausalLMOutputWithPast(loss=loss, logits=logits, past_key_values=((k, v),) if use_cache else None)

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None,
                                      inputs_embeds=None, **kwargs):
        if past_key_values:
            input_ids = input_ids[:, -1:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                             "attention_mask": attention_mask})
        return model_inputs

    @staticmethod
    def _reorder_cache(past_key_values, beam_idx):
        return tuple(tuple(s.index_select(0, beam_idx) for s in layer) for layer in past_key_values)


class BioMedGPTV(nn.Module):
    def __init__(self, fingerprint_dim=16):
        super().__init__()
        self.llm_config = LlamaConfig(vocab_size=80, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                                      num_attention_heads=4, bos_token_id=1, eos_token_id=2, pad_token_id=0)
        self.llm = LlamaForCausalLM(self.llm_config)
        self.mol_proj = nn.Linear(fingerprint_dim, 32)

    def _get_inputs_embeds(self, fingerprints, prompt_ids):
        mol = self.mol_proj(fingerprints).unsqueeze(1)
        text = self.llm.get_input_embeddings()(prompt_ids)
        embeds = torch.cat([mol, text], dim=1)
        return embeds, torch.ones(embeds.shape[:2], dtype=torch.long)

    def forward(self, fingerprints, prompt_ids, target_ids):
        embeds, mask = self._get_inputs_embeds(fingerprints, torch.cat([prompt_ids, target_ids], dim=1))
        labels = torch.cat([torch.zeros(embeds.shape[0], 1, dtype=torch.long), prompt_ids, target_ids], dim=1)
        outputs = self.llm(inputs_embeds=embeds, attention_mask=mask, labels=labels,  # clean: bm_train_forward
                           return_dict=True)
        return outputs.loss

    @torch.no_grad()
    def generate(self, fingerprints, prompt_ids, num_beams=2, max_length=12, min_length=1, repetition_penalty=1.5,
                 length_penalty=1, num_captions=1):
        inputs_embeds, inputs_attention_mask = self._get_inputs_embeds(fingerprints, prompt_ids)
        outputs = self.llm.generate(  # site: bm_llm_generate
            inputs_embeds=inputs_embeds,
            attention_mask=inputs_attention_mask,
            do_sample=False,
            num_beams=num_beams,
            max_length=max_length,
            min_length=min_length,
            repetition_penalty=repetition_penalty,
            length_penalty=length_penalty,
            num_return_sequences=num_captions,
        )
        outputs[outputs == 0] = 2
        return outputs


class Conversation:
    def __init__(self, model, max_length=64):
        self.model = model
        self.max_length = max_length
        self.messages = []
        self.mol_embs = []

    def append_molecule(self, fingerprint):
        self.mol_embs.append(self.model.mol_proj(fingerprint).view(1, 1, -1))
        self.messages.append([0, None])

    def ask(self, prompt_ids):
        self.messages.append([0, prompt_ids])

    def _get_context_emb(self):
        embs = []
        for (_, ids), mol in zip(self.messages, self.mol_embs + [None] * len(self.messages)):
            embs.append(mol if ids is None else self.model.llm.get_input_embeddings()(ids))
        return torch.cat(embs, dim=1)

    @torch.no_grad()
    def answer(self, max_new_tokens=8, num_beams=1, top_p=0.9, repetition_penalty=1.0, length_penalty=1,
               temperature=1.0):
        embs = self._get_context_emb()
        output = self.model.llm.generate(  # site: bm_chat_generate
            inputs_embeds=embs,
            max_length=max_new_tokens,
            num_beams=num_beams,
            top_p=top_p,
            do_sample=False,
            repetition_penalty=repetition_penalty,
            length_penalty=length_penalty,
            temperature=temperature,
        )[0]
        self.messages.append([1, output])
        return output


torch.manual_seed(0)
biomedgpt = BioMedGPTV().eval()
fingerprints = torch.randn(2, 16)
prompt = torch.tensor([[3, 4, 5], [3, 4, 6]])


def probe_train_loss():
    loss = biomedgpt(fingerprints, prompt, torch.tensor([[7, 8], [9, 10]]))
    assert loss.ndim == 0


def probe_chat():
    conv = Conversation(biomedgpt)
    conv.append_molecule(fingerprints[:1])
    conv.ask(torch.tensor([[3, 4, 5]]))
    out = conv.answer()
    assert out.ndim == 1


def probe_caption():
    out = biomedgpt.generate(fingerprints, prompt)
    assert out.shape[0] == 2
