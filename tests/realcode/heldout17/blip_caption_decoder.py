"""BLIP (image captioning, Salesforce): the text decoder is the project's own BERT (models/med.py) with
cross-attention to the ViT's image embeddings: its self-attention concatenates the layer's past `(key, value)` tuple
with the new keys and values and returns the pair; `BertModel.forward` reads the past length as
`past_key_values[0][0].shape[2]`; `BertLMHeadModel(BertPreTrainedModel)` (its own `BertPreTrainedModel(
PreTrainedModel)`) returns `past_key_values=outputs.past_key_values`, defines the 4.x generate hooks
`prepare_inputs_for_generation(self, input_ids, past=None, attention_mask=None, **model_kwargs)` and
`_reorder_cache(self, past, beam_idx)` over tuples, and `BLIP_Decoder.generate` calls
`self.text_decoder.generate(input_ids=..., max_length=..., min_length=..., num_beams=..., eos_token_id=...,
pad_token_id=..., repetition_penalty=..., **model_kwargs)` with the image embeddings in `model_kwargs`.

Provenance (mechanisms read; this code is written here, not copied):
- salesforce/BLIP @056a169437371659074aa2732649d5de3bffb4a8
  models/med.py (BertSelfAttention.forward: `elif past_key_value is not None: key_layer = torch.cat([past_key_value[0],
  key_layer], dim=2)`, `past_key_value = (key_layer, value_layer)`; BertEncoder: `past_key_value = past_key_values[i]
  if past_key_values is not None else None`, `next_decoder_cache += (layer_outputs[-1],)`; BertModel.forward:
  `past_key_values_length = past_key_values[0][0].shape[2] if past_key_values is not None else 0`;
  `class BertPreTrainedModel(PreTrainedModel)`, `class BertLMHeadModel(BertPreTrainedModel)`;
  `prepare_inputs_for_generation(self, input_ids, past=None, attention_mask=None, **model_kwargs)`: `if past is not
  None: input_ids = input_ids[:, -1:]`, `"past_key_values": past`, the encoder states from `model_kwargs`;
  `_reorder_cache`: `reordered_past += (tuple(past_state.index_select(0, beam_idx) for past_state in layer_past),)`)
  and models/blip.py (BLIP_Decoder.generate: `image_embeds = image_embeds.repeat_interleave(num_beams, dim=0)`,
  `model_kwargs = {"encoder_hidden_states": image_embeds, "encoder_attention_mask": image_atts}`, `outputs =
  self.text_decoder.generate(input_ids=input_ids, max_length=max_length, min_length=min_length,
  num_beams=num_beams, eos_token_id=self.tokenizer.sep_token_id, pad_token_id=self.tokenizer.pad_token_id,
  repetition_penalty=repetition_penalty, **model_kwargs)`).
Reduced: one attention layer per block, no feed-forward, dropout, head pruning or gradient checkpointing (the
project's imports of the pruning helpers from `transformers.modeling_utils` left out), no ViT (random image
embeddings), no tokenizer (token ids, bos 1, sep 2, pad 0); a greedy loop over the decoder's own forward, as the
project's training-time code calls it, shows the tuple cache it keeps.
"""

import torch
from torch import nn
from transformers import BertConfig
from transformers.modeling_outputs import CausalLMOutputWithCrossAttentions
from transformers.modeling_utils import PreTrainedModel


class BertSelfAttention(nn.Module):
    def __init__(self, config, is_cross_attention):
        super().__init__()
        self.heads = config.num_attention_heads
        self.head_size = config.hidden_size // config.num_attention_heads
        width = config.encoder_width if is_cross_attention else config.hidden_size
        self.query = nn.Linear(config.hidden_size, config.hidden_size)
        self.key = nn.Linear(width, config.hidden_size)
        self.value = nn.Linear(width, config.hidden_size)

    def split(self, x):
        return x.view(x.shape[0], x.shape[1], self.heads, self.head_size).permute(0, 2, 1, 3)

    def forward(self, hidden_states, encoder_hidden_states=None, past_key_value=None):
        query_layer = self.split(self.query(hidden_states))
        if encoder_hidden_states is not None:
            key_layer = self.split(self.key(encoder_hidden_states))
            value_layer = self.split(self.value(encoder_hidden_states))
        elif past_key_value is not None:
            key_layer = torch.cat([past_key_value[0], self.split(self.key(hidden_states))], dim=2)  # clean: bl_own_past_keys
            value_layer = torch.cat([past_key_value[1], self.split(self.value(hidden_states))], dim=2)
        else:
            key_layer = self.split(self.key(hidden_states))
            value_layer = self.split(self.value(hidden_states))
        past_key_value = (key_layer, value_layer)
        context = torch.softmax(query_layer @ key_layer.transpose(-1, -2) / self.head_size ** 0.5, dim=-1) @ value_layer
        return context.permute(0, 2, 1, 3).reshape(hidden_states.shape), past_key_value


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertSelfAttention(config, False)
        self.crossattention = BertSelfAttention(config, True)

    def forward(self, hidden_states, encoder_hidden_states, past_key_value=None):
        attn, present = self.attention(hidden_states, past_key_value=past_key_value)
        hidden_states = hidden_states + attn
        cross, _ = self.crossattention(hidden_states, encoder_hidden_states=encoder_hidden_states)
        return hidden_states + cross, present


class BertPreTrainedModel(PreTrainedModel):
    config_class = BertConfig
    base_model_prefix = "bert"

    def _init_weights(self, module):
        if isinstance(module, (nn.Linear, nn.Embedding)):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)


class BertModel(BertPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])
        self.post_init()

    def forward(self, input_ids, encoder_hidden_states=None, past_key_values=None, use_cache=True):
        past_key_values_length = past_key_values[0][0].shape[2] if past_key_values is not None else 0  # clean: bl_own_past_length
        positions = torch.arange(past_key_values_length, past_key_values_length + input_ids.shape[1])
        hidden_states = self.embeddings(input_ids) + 0.01 * positions[None, :, None]
        next_decoder_cache = () if use_cache else None
        for i, layer_module in enumerate(self.layer):
            past_key_value = past_key_values[i] if past_key_values is not None else None
            hidden_states, present = layer_module(hidden_states, encoder_hidden_states, past_key_value)
            if use_cache:
                next_decoder_cache += (present,)
        return hidden_states, next_decoder_cache


class BertLMHeadModel(BertPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.bert = BertModel(config)
        self.cls = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, encoder_hidden_states=None, encoder_attention_mask=None,
                past_key_values=None, use_cache=True, return_dict=True, is_decoder=True, **kwargs):
        sequence_output, next_cache = self.bert(input_ids, encoder_hidden_states=encoder_hidden_states,
                                                past_key_values=past_key_values, use_cache=use_cache)
        return CausalLMOutputWithCrossAttentions(logits=self.cls(sequence_output), past_key_values=next_cache)

    def prepare_inputs_for_generation(self, input_ids, past=None, attention_mask=None, **model_kwargs):
        if attention_mask is None:
            attention_mask = input_ids.new_ones(input_ids.shape)
        if past is not None:
            input_ids = input_ids[:, -1:]
        return {
            "input_ids": input_ids,
            "attention_mask": attention_mask,
            "past_key_values": past,
            "encoder_hidden_states": model_kwargs.get("encoder_hidden_states", None),
            "encoder_attention_mask": model_kwargs.get("encoder_attention_mask", None),
            "is_decoder": True,
        }

    def _reorder_cache(self, past, beam_idx):
        reordered_past = ()
        for layer_past in past:
            reordered_past += (tuple(past_state.index_select(0, beam_idx) for past_state in layer_past),)  # clean: bl_own_reorder
        return reordered_past


class BLIP_Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        config = BertConfig(vocab_size=96, hidden_size=32, num_hidden_layers=2, num_attention_heads=4)
        config.encoder_width = 24
        self.text_decoder = BertLMHeadModel(config)
        self.prompt_ids = torch.tensor([[1, 11, 12, 13]])

    def generate(self, image_embeds, num_beams=3, max_length=8, min_length=8, repetition_penalty=1.0):
        image_embeds = image_embeds.repeat_interleave(num_beams, dim=0)
        image_atts = torch.ones(image_embeds.size()[:-1], dtype=torch.long)
        model_kwargs = {"encoder_hidden_states": image_embeds, "encoder_attention_mask": image_atts}
        input_ids = self.prompt_ids.repeat(image_embeds.shape[0] // num_beams, 1)[:, :-1]
        outputs = self.text_decoder.generate(input_ids=input_ids, max_length=max_length, min_length=min_length, num_beams=num_beams, eos_token_id=2, pad_token_id=0, repetition_penalty=repetition_penalty, **model_kwargs)  # site: bl_decoder_generate
        return outputs

    @torch.no_grad()
    def greedy(self, image_embeds, steps=3):
        ids = self.prompt_ids
        out = self.text_decoder(ids, encoder_hidden_states=image_embeds)
        past = out.past_key_values  # clean: bl_keep_own_past
        for _ in range(steps):
            next_id = out.logits[:, -1].argmax(-1, keepdim=True)
            ids = torch.cat([ids, next_id], dim=-1)
            inputs = self.text_decoder.prepare_inputs_for_generation(ids, past=past, encoder_hidden_states=image_embeds)
            out = self.text_decoder(**inputs)
            past = out.past_key_values
        return ids, past


decoder = BLIP_Decoder().eval()
image_embeds = torch.randn(1, 5, 24)


def probe_caption():
    decoder.generate(image_embeds)


def probe_greedy():
    ids, past = decoder.greedy(image_embeds)
    assert ids.shape == (1, 7) and past[0][0].shape[2] == 7


def probe_beam_reorder():
    _, past = decoder.greedy(image_embeds)
    reordered = decoder.text_decoder._reorder_cache(past, torch.tensor([0]))
    assert reordered[0][0].shape == past[0][0].shape
