"""transformers-CFG (epfl-dlab/transformers-CFG), grammar-constrained decoding for Hugging Face models: a
`GrammarConstrainedLogitsProcessor(grammar_constraint)` creates one accept state per row on its first call
(`len(input_ids)`), advances each row's parser with the tokens generated since its last call
(`advance_token_ids(input_ids, batch_accept_states, parse_start_index)`), and masks every token the grammar rejects to
`-inf`; users pass it to `model.generate(input_ids, max_length=..., logits_processor=[grammar_processor],
repetition_penalty=..., num_return_sequences=...)`.

Provenance (mechanisms read; this code is written here, not copied):
- epfl-dlab/transformers-CFG @0d3967767bd7d6e41ef41c9489daa5f66df14210 transformers_cfg/generation/logits_process.py
  (GrammarConstrainedLogitsProcessor.process_logits / mask_logits / __call__).
Reduced: a tiny Llama from a config; the EBNF grammar is a toy acceptor over token ids (digits then a closing id).
"""

import math

import torch
from transformers import LlamaConfig, LlamaForCausalLM, LogitsProcessor

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                     eos_token_id=2, pad_token_id=0)).eval()
DIGITS = list(range(10, 20))


class ToyGrammar:
    def initial_state(self):
        return 0

    def advance(self, state, token):
        return state + 1

    def allowed(self, state, vocab_size):
        mask = torch.zeros(vocab_size, dtype=torch.bool)
        mask[DIGITS] = True
        return mask


class GrammarConstrainedLogitsProcessor(LogitsProcessor):
    def __init__(self, grammar, parse_start_index=None):
        self.grammar = grammar
        self.batch_accept_states = None
        self.parse_start_index = parse_start_index
        self.last_size = None

    def __call__(self, input_ids, scores):
        if self.batch_accept_states is None:
            self.batch_accept_states = [self.grammar.initial_state() for _ in range(len(input_ids))]
            self.last_size = input_ids.shape[1]
        else:
            new = input_ids[:, self.last_size:]
            self.batch_accept_states = [self.grammar.advance(s, row) for s, row in zip(self.batch_accept_states, new)]
            self.last_size = input_ids.shape[1]
        masked = scores.clone()
        for i, state in enumerate(self.batch_accept_states):
            masked[i, ~self.grammar.allowed(state, scores.shape[-1])] = -math.inf
        return masked


def constrained_generate(input_ids, max_new_tokens=4, num_return_sequences=1):
    grammar_processor = GrammarConstrainedLogitsProcessor(ToyGrammar())
    out = model.generate(input_ids, max_length=input_ids.shape[-1] + max_new_tokens,  # clean: gc_constrained_generate
                         logits_processor=[grammar_processor], repetition_penalty=1.1, do_sample=False,
                         num_return_sequences=num_return_sequences, use_cache=True)
    return out, grammar_processor


def probe_constrained():
    model.generation_config.min_new_tokens = 4
    out, proc = constrained_generate(torch.tensor([[1, 5, 6]]))
    assert out.shape == (1, 7) and all(int(t) in DIGITS for t in out[0, 3:])
    assert proc.batch_accept_states == [3]
