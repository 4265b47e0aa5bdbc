"""MIDI-Model (SkyTNT/midi-model): a symbolic-music LM over MIDI event tokens with two Llama stacks: `net` reads one
summed embedding per MIDI event (a row of event + parameter tokens) and `net_token` decodes the next event's tokens
one by one from that hidden state. `MIDIModel.generate` keeps a `DynamicCache()` for the event stack across events
(`self.forward(input_tensor[:, past_len:], cache=cache1)`, `LlamaModel.forward(inputs_embeds=...,
past_key_values=cache, use_cache=cache is not None)`) and a fresh `DynamicCache()` per event for the token stack
(`forward_token(hidden, x, cache=cache2)`, only the last token once cached). `export.py` wraps both stacks for ONNX with
flat legacy caches in and out: `cache = DynamicCache.from_legacy_cache(past_kv)`, the stack's forward with
`past_key_values=cache, use_cache=True`, `return ..., cache.to_legacy_cache()`, fed by `get_past_kv` (random
`(batch, heads, past_seq, head_size)` pairs per layer).

Provenance (mechanisms read; this code is written here, not copied):
- SkyTNT/midi-model @f504d5cb58f769ab0f2909c679238f6621034573
  midi_model.py (MIDIModel.forward_token, forward, generate); export.py (MIDIModelBase, MIDIModelToken, get_past_kv);
  app.py (the same two-cache loop in the demo).
Reduced: tiny Llama stacks, integer event rows instead of the MIDI tokenizer (no event/parameter masks, greedy
instead of top-p/top-k), no ONNX export itself (the wrappers are called as the exporter traces them), no LoRA.
"""

import torch
from torch import nn
from transformers import DynamicCache, LlamaConfig, LlamaModel

EVENT_LEN = 4
net_config = LlamaConfig(vocab_size=48, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=4, use_cache=False)
token_config = LlamaConfig(vocab_size=48, hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                           num_attention_heads=4, num_key_value_heads=4, use_cache=False)


class MIDIModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = LlamaModel(net_config)
        self.net_token = LlamaModel(token_config)
        self.lm_head = nn.Linear(32, 48, bias=False)

    def forward_token(self, hidden_state=None, x=None, cache=None):
        if hidden_state is not None:
            hidden_state = hidden_state.unsqueeze(1)
        if x is not None:
            x = self.net_token.embed_tokens(x)
            if hidden_state is not None:
                x = torch.cat([hidden_state, x], dim=1)
            hidden_state = x
        hidden_state = self.net_token.forward(inputs_embeds=hidden_state,  # clean: mm_token_forward
                                              past_key_values=cache,
                                              use_cache=cache is not None).last_hidden_state
        return self.lm_head(hidden_state)

    def forward(self, x, cache=None):
        x = self.net.embed_tokens(x).sum(dim=-2)
        x = self.net.forward(inputs_embeds=x,  # clean: mm_event_forward
                             past_key_values=cache,
                             use_cache=cache is not None)
        return x.last_hidden_state

    @torch.inference_mode()
    def generate(self, prompt, max_len=6):
        input_tensor = prompt
        cur_len = input_tensor.shape[1]
        cache1 = DynamicCache()  # clean: mm_event_cache
        past_len = 0
        while cur_len < max_len:
            hidden = self.forward(input_tensor[:, past_len:], cache=cache1)[:, -1]
            next_token_seq = None
            cache2 = DynamicCache()
            for i in range(EVENT_LEN):
                x = next_token_seq
                if i != 0:
                    hidden = None
                    x = x[:, -1:]
                logits = self.forward_token(hidden, x, cache=cache2)[:, -1:]
                samples = logits.argmax(-1)
                next_token_seq = samples if i == 0 else torch.cat([next_token_seq, samples], dim=1)
            input_tensor = torch.cat([input_tensor, next_token_seq.unsqueeze(1)], dim=1)
            past_len = cur_len
            cur_len += 1
        return input_tensor, cache1


class MIDIModelBase(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.net = model.net

    def forward(self, x, past_kv):
        cache = DynamicCache.from_legacy_cache(past_kv)  # site: mm_base_from_legacy
        x = self.net.embed_tokens(x).sum(dim=-2)
        x = self.net.forward(inputs_embeds=x, past_key_values=cache, use_cache=True)
        return x.last_hidden_state, cache.to_legacy_cache()


class MIDIModelToken(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.net_token = model.net_token
        self.lm_head = model.lm_head

    def forward(self, hidden_state, x, past_kv):
        cache = DynamicCache.from_legacy_cache(past_kv)  # site: mm_token_from_legacy
        x = torch.cat([hidden_state, self.net_token.embed_tokens(x)], dim=1)
        hidden_state = self.net_token.forward(inputs_embeds=x, past_key_values=cache, use_cache=True).last_hidden_state
        return self.lm_head(hidden_state), cache.to_legacy_cache()


def get_past_kv(config, batch_size=1, past_seq_len=16):
    head_size = config.hidden_size // config.num_attention_heads
    return [(torch.rand(batch_size, config.num_attention_heads, past_seq_len, head_size),
             torch.rand(batch_size, config.num_attention_heads, past_seq_len, head_size))
            for _ in range(config.num_hidden_layers)]


torch.manual_seed(0)
model = MIDIModel().eval()


def probe_generate():
    prompt = torch.tensor([[[1, 0, 0, 0], [5, 6, 7, 8]]])
    out, cache1 = model.generate(prompt, max_len=5)
    assert out.shape == (1, 5, EVENT_LEN)
    assert cache1.get_seq_length() == 4


def probe_export_base():
    base = MIDIModelBase(model).eval()
    with torch.no_grad():
        hidden, present = base(torch.tensor([[[5, 6, 7, 8]]]), get_past_kv(net_config))
    assert present[0][0].shape[2] == 17


def probe_export_token():
    token = MIDIModelToken(model).eval()
    with torch.no_grad():
        logits, present = token(torch.randn(1, 1, 32), torch.tensor([[5, 6]]), get_past_kv(token_config))
    assert present[0][0].shape[2] == 19
