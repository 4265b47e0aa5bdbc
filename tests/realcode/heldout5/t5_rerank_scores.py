"""Pointwise and pairwise T5 rerankers in a retrieval toolkit: each (query, document) prompt is encoded with the
`Relevant:` suffix, the decoder is run for one step from `decoder_start_token_id` (`decoder_input_ids` in the
same call, the cache the model builds left to it), and the score is the log-softmax of the `true` logit against
the `false` one; the pairwise reranker scores (query, doc0, doc1) triples the same way and sums both directions.

Provenance (mechanisms read; this code is written here, not copied):
- terrierteam/pyterrier_t5 @0bb2bfe16149555ffdf017fc9143c94644af0947 pyterrier_t5/__init__.py
  (`MonoT5ReRanker.transform`: `enc['decoder_input_ids'] = torch.full((len(queries[rng]), 1),
  DECODER_START, dtype=torch.long)`, `result = self.model(**enc).logits`, `result[:, 0,
  (self.REL, self.NREL)]`, `F.log_softmax(result, dim=1)[:, 0]`; `DuoT5ReRanker.transform` with the three encoded
  parts concatenated per key; `mT5ReRanker` falls back to 512 positions)
Reduced: the tokenizer is loaded with `AutoTokenizer` and called directly (the original's `T5Tokenizer` and
`batch_encode_plus` are tokenizer concerns, not the cache's); no PyTerrier transformer base or data frames (lists of strings), the prompt is joined as text, the
position budget read with a 512 fallback as the mT5 reranker does, the decoder start id is T5's pad id as a constant (the
checkpoints' `decoder_start_token_id`, which model configs no longer carry on every release); fixed short texts; the pairwise reranker passes `use_cache=True` explicitly.
"""

import torch
from torch.nn import functional as F
from transformers import AutoTokenizer, T5ForConditionalGeneration

DECODER_START = 0  # T5's pad id, what the checkpoints' decoder_start_token_id is


class MonoT5ReRanker:
    def __init__(self, tok_model="t5-base", model="castorini/monot5-base-msmarco", batch_size=4):
        self.batch_size = batch_size
        self.tokenizer = AutoTokenizer.from_pretrained(tok_model)
        self.model = T5ForConditionalGeneration.from_pretrained(model)
        self.model.eval()
        self.REL = self.tokenizer.encode("true")[0]
        self.NREL = self.tokenizer.encode("false")[0]

    def score(self, queries, texts):
        scores = []
        for start_idx in range(0, len(queries), self.batch_size):
            rng = slice(start_idx, start_idx + self.batch_size)
            enc = self.tokenizer([f"Query: {q} Document: {d} Relevant:" for q, d in zip(queries[rng], texts[rng])],
                                                   return_tensors="pt", padding="longest")
            enc = dict(enc)
            enc["decoder_input_ids"] = torch.full((len(queries[rng]), 1), DECODER_START,
                                                  dtype=torch.long)
            with torch.no_grad():
                result = self.model(**enc).logits  # clean: t5_mono_forward
            result = result[:, 0, (self.REL, self.NREL)]
            scores += F.log_softmax(result, dim=1)[:, 0].tolist()
        return scores


class DuoT5ReRanker(MonoT5ReRanker):
    def score_pairs(self, query, text0, text1):
        enc = self.tokenizer([f"Query: {query} Document0: {text0} Document1: {text1} Relevant:"],
                                               return_tensors="pt", padding="longest")
        enc = dict(enc)
        enc["decoder_input_ids"] = torch.full((1, 1), DECODER_START, dtype=torch.long)
        with torch.no_grad():
            result = self.model(**enc, use_cache=True).logits  # clean: t5_duo_forward
        result = result[:, 0, (self.REL, self.NREL)]
        return F.log_softmax(result, dim=1)[:, 0].item()


def probe_mono():
    reranker = MonoT5ReRanker()
    scores = reranker.score(["what is a cache"] * 3, ["a cache stores keys", "the sky is blue", "values too"])
    assert len(scores) == 3 and all(s <= 0 for s in scores)


def probe_duo():
    reranker = DuoT5ReRanker(model="castorini/duot5-base-msmarco")
    forward = reranker.score_pairs("what is a cache", "a cache stores keys", "the sky is blue")
    backward = reranker.score_pairs("what is a cache", "the sky is blue", "a cache stores keys")
    assert forward <= 0 and backward <= 0
