"""ReProver (lean-dojo/ReProver): LeanDojo's retrieval-augmented prover. Best-first proof search asks a tactic
generator for candidates at each proof state: `HuggingFaceGenerator.initialize` loads the ByT5 tactic generator with
`AutoModelForSeq2SeqLM.from_pretrained` (falling back to `AutoModelForCausalLM` on a ValueError, `decoder_only`), and
`generate(state, ..., num_samples)` tokenizes the (premise-augmented) state and runs beam search:
`self.generator.generate(input_ids=..., attention_mask=..., max_length=..., num_beams=num_samples,
length_penalty=..., do_sample=False, num_return_sequences=num_samples, early_stopping=False, output_scores=True,
return_dict_in_generate=True)`, then pairs the decoded `output.sequences` with `output.sequences_scores`, dropping
duplicates; the search tree expands the highest-scoring unexpanded node next.

Provenance (mechanisms read; this code is written here, not copied):
- lean-dojo/ReProver @fd6d99c01e8bd8fd8f3fd1de4cd0bc4a7f158eaa
  prover/tactic_generator.py (HuggingFaceGenerator.initialize / generate);
  prover/proof_search.py (the best-first loop over the priority queue of nodes).
Reduced: the oracle's tiny stand-in for the checkpoint is a decoder-only Llama, so `initialize` takes ReProver's
own `AutoModelForCausalLM` fallback (`decoder_only`, the prompt stripped from the decoded text); the word-level
tokenizer stands for ByT5's bytes; no Lean
(a node's children are the candidate strings), no ray actors, no retrieval; synchronous instead of async.
"""

import heapq

from transformers import AutoModelForCausalLM, AutoModelForSeq2SeqLM, AutoTokenizer

MODEL_PATH = "kaiyuy/leandojo-lean4-tacgen-byt5-small"


class HuggingFaceGenerator:
    def __init__(self, model_path, max_inp_seq_len=16, max_oup_seq_len=32, length_penalty=0.0):
        self.model_path = model_path
        self.max_inp_seq_len = max_inp_seq_len
        self.max_oup_seq_len = max_oup_seq_len
        self.length_penalty = length_penalty

    def initialize(self):
        try:
            self.generator = AutoModelForSeq2SeqLM.from_pretrained(self.model_path)
            self.decoder_only = False
        except ValueError:
            self.generator = AutoModelForCausalLM.from_pretrained(self.model_path)
            self.decoder_only = True
        self.generator = self.generator.eval()
        self.tokenizer = AutoTokenizer.from_pretrained(self.model_path)

    def generate(self, state, num_samples):
        tokenized = self.tokenizer(state, max_length=self.max_inp_seq_len, truncation=True, return_tensors="pt")
        output = self.generator.generate(  # clean: rp_beam_generate
            input_ids=tokenized.input_ids,
            attention_mask=tokenized.attention_mask,
            max_length=self.max_oup_seq_len,
            num_beams=num_samples,
            length_penalty=self.length_penalty,
            do_sample=False,
            num_return_sequences=num_samples,
            early_stopping=False,
            output_scores=True,
            return_dict_in_generate=True,
        )
        texts = self.tokenizer.batch_decode(output.sequences, skip_special_tokens=True)
        scores = output.sequences_scores.tolist()  # clean: rp_sequence_scores
        seen, result = set(), []
        for t, s in zip(texts, scores):
            if self.decoder_only and t.startswith(state):
                t = t[len(state):].strip()
            if t not in seen:
                seen.add(t)
                result.append((t, s))
        return result


def best_first_search(gen, goal, max_expansions=2, num_samples=3):
    queue = [(0.0, goal)]
    expanded = []
    while queue and len(expanded) < max_expansions:
        neg_score, state = heapq.heappop(queue)
        expanded.append(state)
        for tactic, score in gen.generate(state, num_samples):
            heapq.heappush(queue, (neg_score - score, f"{state} {tactic}".strip()))
    return expanded


def probe_search():
    gen = HuggingFaceGenerator(MODEL_PATH)
    gen.initialize()
    gen.generator.generation_config.min_length = 4
    expanded = best_first_search(gen, "n : Nat goal n + 0 = n")
    assert len(expanded) == 2
