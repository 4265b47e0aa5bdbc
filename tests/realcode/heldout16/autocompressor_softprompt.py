"""AutoCompressors (prompt compression into summary vectors): a causal LM mixin splits a long context into segments;
each segment is run with the previous summary vectors prepended as a soft prompt and summary tokens appended, whose
last hidden states become the next soft prompt. With a cache, the model's output carries `past_key_values` as a dict
`{"past_key_values": cache, "softprompt": softprompt}` that the next call unpacks; the past length is read from
`past_key_values[0][0].size(2)`. Its `prepare_inputs_for_generation` hands the arguments to the parent's hook by
position and adds the soft prompt.

Provenance (mechanisms read; this code is written here, not copied):
- princeton-nlp/AutoCompressors @80352a4233c4a70504c75bf95c5f3e6d2533a863
  auto_compressor.py (AutoCompressorMixin.get_past_key_values_len: `return 0 if past_key_values is None else
  past_key_values[0][0].size(2)`; forward: `if past_key_values is not None and isinstance(past_key_values, dict):
  past_key_values, softprompt = past_key_values["past_key_values"], past_key_values["softprompt"]`,
  `past_key_values_length = self.get_past_key_values_len(past_key_values) - past_key_values_softprompt_length`,
  segments split with `torch.split(inputs_embeds, segment_lengths, dim=1)`, forward_segment: `segment_embeds =
  torch.cat([softprompt, segment_embeds, summary_token_embeds], dim=1)` run by the base model with
  `past_key_values=segment_past_key_values`, `new_softprompt = outputs.last_hidden_state[:, total_length -
  summary_length:]`, the output's `past_key_values={"past_key_values": past_key_values, "softprompt": softprompt}`;
  prepare_inputs_for_generation: `model_inputs = super().prepare_inputs_for_generation(input_ids, past_key_values,
  attention_mask, inputs_embeds, **kwargs)`, `model_inputs["softprompt"] = kwargs.get("softprompt", None)`).
Reduced: Llama only (no OPT positional-embedding padding), no summary accumulation option, no gradient checkpointing,
no loss; the summary embeddings are a small `nn.Embedding`.
"""

import torch
from transformers import LlamaForCausalLM
from transformers.modeling_outputs import CausalLMOutputWithPast


class LlamaAutoCompressorModel(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.summary_length = 2
        self.embed_summary = torch.nn.Embedding(self.summary_length, config.hidden_size)

    def get_past_key_values_len(self, past_key_values):
        return 0 if past_key_values is None else past_key_values[0][0].size(2)  # site: ac_past_len

    def forward_segment(self, softprompt, segment_embeds, summary_token_embeds, past_key_values, use_cache):
        segment_embeds = torch.cat([softprompt, segment_embeds, summary_token_embeds], dim=1)
        outputs = self.model(inputs_embeds=segment_embeds, past_key_values=past_key_values, use_cache=use_cache)  # clean: ac_segment_forward
        total_length = segment_embeds.size(1)
        summary_length = summary_token_embeds.size(1)
        segment_last_hiddens = outputs.last_hidden_state[:, softprompt.size(1):total_length - summary_length]
        new_softprompt = outputs.last_hidden_state[:, total_length - summary_length:]
        return outputs, segment_last_hiddens, new_softprompt

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, use_cache=None, segment_lengths=None,
                softprompt=None, output_softprompt=None, **kwargs):
        if past_key_values is not None and isinstance(past_key_values, dict):
            past_key_values, softprompt = past_key_values["past_key_values"], past_key_values["softprompt"]
            past_key_values_softprompt_length = softprompt.size(1)
        else:
            past_key_values_softprompt_length = 0
        past_key_values_length = self.get_past_key_values_len(past_key_values) - past_key_values_softprompt_length
        inputs_embeds = self.get_input_embeddings()(input_ids)
        summary_ids = torch.arange(self.summary_length).unsqueeze(0).expand(inputs_embeds.size(0), -1)
        summary_token_embeds = self.embed_summary(summary_ids)
        if past_key_values is None:
            segment_lengths = segment_lengths if segment_lengths is not None else input_ids.size(1)
            inputs_embeds_list = torch.split(inputs_embeds, segment_lengths, dim=1)
            summary_list = ((summary_token_embeds,) * (len(inputs_embeds_list) - 1)
                            + (summary_token_embeds if output_softprompt else summary_token_embeds[:, :0],))
        else:
            inputs_embeds_list = (inputs_embeds,)
            summary_list = (summary_token_embeds[:, :0],)
        if softprompt is None:
            softprompt = inputs_embeds[:, :0]
        hiddens = []
        for step, summary_embeds in enumerate(summary_list):
            segment_softprompt = softprompt[:, :0] if past_key_values_softprompt_length > 0 else softprompt
            outputs, segment_hiddens, new_softprompt = self.forward_segment(
                segment_softprompt, inputs_embeds_list[step], summary_embeds, past_key_values, use_cache)
            hiddens.append(segment_hiddens)
            if new_softprompt.size(1) > 0:
                softprompt = new_softprompt
            past_key_values = None
            past_key_values_softprompt_length = 0
        logits = self.lm_head(torch.cat(hiddens, dim=1))
        self.last_past_length = past_key_values_length
        return CausalLMOutputWithPast(
            logits=logits,
            past_key_values={"past_key_values": outputs.past_key_values, "softprompt": softprompt},  # clean: ac_wrap_cache
        )

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      **kwargs):
        model_inputs = super().prepare_inputs_for_generation(input_ids, past_key_values, attention_mask, inputs_embeds,  # site: ac_positional_super
                                                             **kwargs)
        model_inputs["softprompt"] = kwargs.get("softprompt", None)
        return model_inputs


model = LlamaAutoCompressorModel.from_pretrained("princeton-nlp/AutoCompressor-Llama-2-7b-6k").eval()
context = torch.tensor([[1, 20, 21, 22, 23, 24, 25, 26, 27]])


def probe_summarize():
    with torch.no_grad():
        out = model(context, segment_lengths=3, output_softprompt=True)
    assert out.past_key_values["softprompt"].shape == (1, 2, model.config.hidden_size)


def probe_continue():
    with torch.no_grad():
        first = model(context[:, :4], use_cache=True)
        model(torch.tensor([[30]]), past_key_values=first.past_key_values, use_cache=True)
    assert model.last_past_length == 4


def probe_prepare_inputs():
    ids = torch.tensor([[1, 40, 41]])
    mask = torch.ones_like(ids)
    softprompt = torch.zeros(1, 2, model.config.hidden_size)
    inputs = model.prepare_inputs_for_generation(ids, past_key_values=None, attention_mask=mask, softprompt=softprompt)
    assert inputs["softprompt"] is softprompt
    attention_mask = inputs.get("attention_mask")
    assert attention_mask is not None and attention_mask.shape == mask.shape, "ac_positional_super: the parent hook did not get the mask as the mask"  # observe: ac_positional_super
