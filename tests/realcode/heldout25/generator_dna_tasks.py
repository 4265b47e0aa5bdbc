"""GENERator (GenerTeam/GENERator): a generative genomic foundation model (a Llama decoder over 6-mer DNA tokens).
Its sequence-recovery task continues each truncated sequence with greedy `model.generate(**inputs,
max_new_tokens=..., pad_token_id=..., do_sample=False, logits_processor=...)` (a processor suppressing the special
tokens) and keeps the last `gen_len` tokens; its sequence-understanding task, in "sliding_window" length-extension
mode, sets `config.sliding_window` and monkey-patches `LlamaAttention.forward` with a wrapper
`_sliding_llama_forward(self, hidden_states, position_embeddings, attention_mask=None, past_key_value=None,
cache_position=None, **kwargs)` that injects `kwargs["sliding_window"]` and calls the original forward positionally
(`_orig_forward(self, hidden_states, position_embeddings, attention_mask, past_key_value, cache_position, **kwargs)`)
before loading `AutoModelForSequenceClassification`.

Provenance (mechanisms read; this code is written here, not copied):
- GenerTeam/GENERator @96242a43b981e8e10139b00f04a952a6c4262612
  src/tasks/downstream/sequence_recovery.py (SuppressSpecialTokensLogitsProcessor use, the batched
  `model.generate(...)` and the `outputs[:, -args.gen_len:]` decode);
  src/tasks/downstream/sequence_understanding.py (setup_model: the "sliding_window" branch, `_sliding_llama_forward`,
  `LlamaAttention.forward = _sliding_llama_forward`).
Reduced: tiny Llama models built from a config, a word-level stand-in for the 6-mer tokenizer (ids only); no liger
kernel, no flash attention (the default attention), no sharding across GPUs.
"""

import torch
from transformers import (
    LlamaConfig,
    LlamaForCausalLM,
    LlamaForSequenceClassification,
    LogitsProcessor,
    LogitsProcessorList,
)

SPECIAL_IDS = [0, 1, 2]
config = LlamaConfig(vocab_size=96, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, pad_token_id=0, bos_token_id=1, eos_token_id=2, num_labels=2)


class SuppressSpecialTokensLogitsProcessor(LogitsProcessor):
    def __init__(self, special_token_ids):
        self.special_token_ids = special_token_ids

    def __call__(self, input_ids, scores):
        scores[:, self.special_token_ids] = -float("inf")
        return scores


def recover_batch(model, input_ids, attention_mask, gen_len):
    logits_processor = LogitsProcessorList([SuppressSpecialTokensLogitsProcessor(SPECIAL_IDS)])
    with torch.inference_mode():
        outputs = model.generate(input_ids=input_ids, attention_mask=attention_mask,  # clean: gn_recover_generate
                                 max_new_tokens=gen_len, pad_token_id=config.pad_token_id, do_sample=False,
                                 logits_processor=logits_processor)
    return outputs[:, -gen_len:]


def enable_sliding_window(cfg, window):
    cfg.sliding_window = window
    from transformers.models.llama.modeling_llama import LlamaAttention

    _orig_forward = LlamaAttention.forward

    def _sliding_llama_forward(
        self,
        hidden_states,
        position_embeddings,
        attention_mask=None,
        past_key_value=None,  # site: gn_sliding_patch
        cache_position=None,
        **kwargs,
    ):
        kwargs["sliding_window"] = self.config.sliding_window
        return _orig_forward(  # observe: gn_sliding_patch
            self,
            hidden_states,
            position_embeddings,
            attention_mask,
            past_key_value,
            cache_position,
            **kwargs,
        )

    LlamaAttention.forward = _sliding_llama_forward


def classify(model, input_ids):
    with torch.no_grad():
        return model(input_ids=input_ids).logits  # clean: gn_classify_forward


def probe_recovery():
    torch.manual_seed(0)
    lm = LlamaForCausalLM(config).eval()
    lm.generation_config.min_new_tokens = 3
    ids = torch.tensor([[1, 11, 12, 13, 14], [1, 21, 22, 23, 24]])
    preds = recover_batch(lm, ids, torch.ones_like(ids), gen_len=3)
    assert preds.shape == (2, 3)
    assert not any(int(t) in SPECIAL_IDS for t in preds.flatten())


def probe_understanding_plain():
    torch.manual_seed(0)
    clf = LlamaForSequenceClassification(config).eval()
    assert classify(clf, torch.tensor([[1, 11, 12, 13, 14, 15]])).shape == (1, 2)


def probe_understanding_sliding():
    enable_sliding_window(config, 4)
    torch.manual_seed(0)
    clf = LlamaForSequenceClassification(config).eval()
    logits = classify(clf, torch.tensor([[1, 11, 12, 13, 14, 15]]))
    assert logits.shape == (1, 2)
