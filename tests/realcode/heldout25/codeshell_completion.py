"""CodeShell (WisdomShell/codeshell): a 7B code LLM (GPT-BigCode-style blocks with rotary embeddings) whose modeling
file ships with the checkpoint. Its decoder keeps the legacy cache format: `CodeShellModel.forward` reads
`past_length = past_key_values[0][0].size(-2)` unless `past_key_values is None` (then a tuple of Nones per block),
each attention concatenates `layer_past[0]` / `layer_past[1]` with the new keys and returns `(key_states,
value_states)` as its present; `chat` / `generate_stream` and the IDE plugin's completion endpoint call
`self.generate(...)` with an `EndOfFunctionCriteria` stopping criterion over the decoded tail (fill-in-the-middle
prompts `<fim_prefix>...<fim_suffix>...<fim_middle>`).

Provenance (mechanisms read; this code is written here, not copied):
- WisdomShell/codeshell @09d1adc88ccada1a92924c69ece0cf0e73899b1b
  model/modeling_codeshell.py (CodeShellAttention.forward: `layer_past`, `torch.cat([layer_past[0], key_states],
  dim=2)`, `layer_past = (key_states, value_states) if use_cache else None`; CodeShellModel.forward: the
  `past_key_values is None` test and `past_key_values[0][0].size(-2)`; EndOfFunctionCriteria;
  CodeShellForCausalLM.generate_stream / chat calling `self.generate`).
Reduced: one block of single-head attention, no rotary embedding, ids instead of a tokenizer (the stop criterion
tests a stop id); the class lists GenerationMixin itself (loaded with trust_remote_code, the Auto class adds it);
its `prepare_inputs_for_generation` override is left out (generate's own hook feeds the forward the cache), and
generation runs through `model.generate` directly instead of a streaming thread.
"""

import torch
from torch import nn
from transformers import GenerationMixin, GPT2Config, PreTrainedModel, StoppingCriteria, StoppingCriteriaList
from transformers.modeling_outputs import CausalLMOutputWithPast

FIM_PREFIX, FIM_SUFFIX, FIM_MIDDLE = 5, 6, 7


class CodeShellAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, hidden_states, layer_past=None, use_cache=False):
        q, k, v = self.qkv(hidden_states).unsqueeze(1).chunk(3, dim=-1)
        if layer_past is not None:
            k = torch.cat([layer_past[0], k], dim=2)  # clean: cs_layer_concat
            v = torch.cat([layer_past[1], v], dim=2)
        present = (k, v) if use_cache else None
        t = q.shape[2]
        out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=layer_past is None and t > 1)
        return self.proj(out.squeeze(1)), present


class CodeShellForCausalLM(PreTrainedModel, GenerationMixin):
    config_class = GPT2Config

    def __init__(self, config):
        super().__init__(config)
        self.wte = nn.Embedding(config.vocab_size, config.n_embd)
        self.wpe = nn.Embedding(config.n_positions, config.n_embd)
        self.h = nn.ModuleList([CodeShellAttention(config.n_embd)])
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.post_init()

    def forward(self, input_ids=None, attention_mask=None, position_ids=None, use_cache=None, return_dict=True,
                past_key_values=None,  # site: cs_forward_cache
                **kwargs):
        if past_key_values is None:
            past_length = 0
            past_key_values = tuple([None] * len(self.h))
        else:
            past_length = past_key_values[0][0].size(-2)  # observe: cs_forward_cache
        positions = torch.arange(past_length, past_length + input_ids.shape[1]).unsqueeze(0)
        hidden = self.wte(input_ids) + self.wpe(positions)
        presents = ()
        for block, layer_past in zip(self.h, past_key_values):
            out, present = block(hidden, layer_past=layer_past, use_cache=use_cache)
            hidden = hidden + out
            presents = presents + (present,)
        return CausalLMOutputWithPast(logits=self.lm_head(hidden), past_key_values=presents if use_cache else None)


class EndOfFunctionCriteria(StoppingCriteria):
    def __init__(self, input_length, stop_id):
        self.input_length = input_length
        self.stop_id = stop_id

    def __call__(self, input_ids, scores, **kwargs):
        return (input_ids[:, self.input_length:] == self.stop_id).any(dim=1)


config = GPT2Config(vocab_size=64, n_embd=32, n_layer=1, n_head=1, n_positions=64, bos_token_id=1, eos_token_id=2)
torch.manual_seed(0)
model = CodeShellForCausalLM(config).eval()


def fim_prompt(prefix_ids, suffix_ids):
    return torch.tensor([[FIM_PREFIX, *prefix_ids, FIM_SUFFIX, *suffix_ids, FIM_MIDDLE]])


def complete(prefix_ids, suffix_ids, max_new_tokens=4):
    input_ids = fim_prompt(prefix_ids, suffix_ids)
    stopping = StoppingCriteriaList([EndOfFunctionCriteria(input_ids.shape[1], stop_id=3)])
    out = model.generate(input_ids, max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens, do_sample=False,
                         use_cache=True, stopping_criteria=stopping, pad_token_id=config.eos_token_id)
    return out[0, input_ids.shape[1]:]


def score_prefix(prefix_ids):
    ids = torch.tensor([prefix_ids])
    with torch.no_grad():
        first = model(ids[:, :-1], use_cache=True)  # clean: cs_prefix_forward
        nxt = model(ids[:, -1:], past_key_values=first.past_key_values, use_cache=True)  # clean: cs_tuple_step
    return nxt.logits[0, -1]


def probe_complete():
    model.generation_config.min_new_tokens = 4
    middle = complete([10, 11, 12], [20, 21])
    assert middle.shape[0] >= 1
    ids = fim_prompt([10, 11, 12], [20, 21])
    out = model.generate(ids, max_new_tokens=2, min_new_tokens=2, do_sample=False, output_logits=True,
                         return_dict_in_generate=True, pad_token_id=config.eos_token_id)
    ref = score_prefix(out.sequences[0, :-1].tolist())
    assert torch.allclose(out.logits[-1][0], ref, atol=1e-4), "cs_forward_cache: the second step ran without the prompt's cache"  # observe: cs_forward_cache


def probe_score_prefix():
    logits = score_prefix([10, 11, 12, 13])
    assert logits.shape == (64,)
