"""InfLLM's chat server loop (a FastChat-style `generate_stream` for long-context chat) and its greedy searcher:
between turns the cache is parked on the model (`model._fschat_pkv`); the next turn measures how much of the prompt
it already holds with a `get_length` helper that reads the first layer, `pkv[0]` (a 3-tuple carries its length
last, a (k, v) pair its keys' length), and feeds only the tokens after it; the prefill and each decoding step call
the model with `past_key_values=` the previous output's cache. The greedy searcher prefills a long prompt in chunks
(each chunk with the attention mask up to its end), then decodes one token at a time, and keeps the cache in
`self.past_kv`.

Provenance (mechanisms read; this code is written here, not copied):
- thunlp/InfLLM @12b70798f56e56ebb23c53c7018091a3f540a028
  inf_llm/chat.py (`if hasattr(model, "_fschat_pkv"): past_key_values = model._fschat_pkv`; `def get_length(pkv):
  pkv = pkv[0]`, `if isinstance(pkv, tuple): if len(pkv) == 3: return pkv[-1] else: return pkv[0].size(-2)`,
  `return pkv.length`; `input_ids = input_ids[start_length:]`; prefill `model(input_ids=start_ids,
  use_cache=True, past_key_values=past_key_values)`, decoding `model(input_ids=..., use_cache=True,
  past_key_values=past_key_values if not sent_interrupt else None)`; `model._fschat_pkv = past_key_values`) and
  inf_llm/utils/greedy_search.py (GreedySearch._decode: chunked prefill `self.model(input_ids=input_ids[:, st:ed],
  attention_mask=attention_mask[:, :ed], use_cache=True, return_dict=True, past_key_values=past_key_values)`, the
  last prompt token, the decode loop, `self.past_kv = past_key_values`).
Reduced: InfLLM's context-memory attention patch is not applied (plain Llama attention), token ids instead of
text, greedy decoding, no stop strings or logprobs.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("mistralai/Mistral-7B-Instruct-v0.2").eval()


def get_length(pkv):
    if pkv is None:
        return 0
    pkv = pkv[0]  # site: il_first_layer
    if isinstance(pkv, tuple):
        if len(pkv) == 3:
            return pkv[-1]
        return pkv[0].size(-2)
    return pkv.length


@torch.inference_mode()
def generate_stream(input_ids, max_new_tokens=3, clear_kv_cache=False):
    output_ids = list(input_ids)
    if clear_kv_cache or not hasattr(model, "_fschat_pkv"):
        past_key_values = None
    else:
        past_key_values = model._fschat_pkv
    start_length = get_length(past_key_values)
    assert len(input_ids) > start_length
    start_ids = torch.as_tensor([input_ids[start_length:]])
    for i in range(max_new_tokens):
        if i == 0:
            out = model(input_ids=start_ids, use_cache=True, past_key_values=past_key_values)  # clean: il_prefill
        else:
            out = model(input_ids=torch.as_tensor([[token]]), use_cache=True, past_key_values=past_key_values)  # clean: il_decode
        past_key_values = out.past_key_values  # clean: il_keep_cache
        token = int(out.logits[0, -1].argmax())
        output_ids.append(token)
    model._fschat_pkv = past_key_values  # clean: il_park_cache
    return output_ids[len(input_ids):]


class GreedySearch:
    def __init__(self, model):
        self.model = model
        self.past_kv = None

    @torch.inference_mode()
    def _decode(self, input_ids, max_length=3, chunk_size=4):
        attention_mask = torch.ones_like(input_ids)
        past_key_values = self.past_kv
        generated = []
        for i in range(max_length + 1):
            if i == 0:
                for st in range(0, input_ids.size(1) - 1, chunk_size):
                    ed = min(input_ids.size(1) - 1, st + chunk_size)
                    out = self.model(input_ids=input_ids[:, st:ed], attention_mask=attention_mask[:, :ed],  # clean: il_chunk_prefill
                                     use_cache=True, return_dict=True, past_key_values=past_key_values)
                    past_key_values = out.past_key_values
            out = self.model(input_ids=input_ids[:, -1:], attention_mask=attention_mask, use_cache=True,  # clean: il_greedy_step
                             return_dict=True, past_key_values=past_key_values)
            past_key_values = out.past_key_values
            word = out.logits[:, -1, :].argmax(dim=-1)
            if i == max_length:
                break
            generated.append(int(word))
            input_ids = torch.cat((input_ids, word.view(1, 1)), dim=-1)
            attention_mask = torch.cat((attention_mask, torch.ones((1, 1), dtype=attention_mask.dtype)), dim=-1)
        self.past_kv = past_key_values
        return generated


def probe_first_turn():
    out = generate_stream([1, 10, 20, 30, 40])
    assert len(out) == 3 and model._fschat_pkv.get_seq_length() == 7


def probe_second_turn():
    first = generate_stream([1, 10, 20, 30, 40])
    generate_stream([1, 10, 20, 30, 40] + first + [50, 60])


def probe_greedy_chunks():
    searcher = GreedySearch(model)
    out = searcher._decode(torch.tensor([[1, 3, 5, 7, 9, 11, 13, 15, 17, 19]]))
    assert len(out) == 3 and searcher.past_kv.get_seq_length() == 13
