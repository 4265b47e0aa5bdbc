"""CEPE (princeton-nlp/CEPE): long-context and retrieval-augmented QA with parallel context encoding. Its downstream
evaluation (`eval_downstream.py`) answers each test item two ways: `generate` tasks call `model.generate(**prefix_input,
max_new_tokens=..., min_new_tokens=..., return_dict_in_generate=True, output_scores=True)` on a Llama subclass whose
`prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
context_scores=None, num_context=None, **kwargs)` cuts the ids to the last one `if past_key_values:` and builds the
model inputs itself (the REPLUG baseline `LlamaForReplugCausalLM` hands `context_scores` / `num_context` on);
`loglikelihood` tasks run the prefix once with `use_cache=True`, keep `outputs.past_key_values`, and score every
candidate continuation with `model(**continuation_input, past_key_values=past_key_values)` against that one cache,
the prefix's last logits prepended. `eval_lm.py` measures long-text perplexity in chunks of `eval_step_size` tokens,
feeding back `outputs.past_key_values` each step.

Provenance (mechanisms read; this code is written here, not copied):
- princeton-nlp/CEPE @53ca69b757b84872a234a4272e217ed453516616 (2024-06-13): eval_downstream.py (the `generate` and
  `loglikelihood` branches of the evaluation loop), eval_lm.py (the chunked perplexity loop),
  modeling_llama_flash.py (`LlamaForReplugCausalLM.prepare_inputs_for_generation`, `LlamaForCausalLM.
  prepare_inputs_for_generation`).
Reduced: the stock Llama stands for the repository's own flash-attention copy (tuple caches, a cross-attention
encoder); the retrieval, the context encoder and REPLUG's score mixing are left out (`context_scores` / `num_context`
are carried but unused); the streaming-llm eviction of eval_lm.py is another repository's and left out; metrics,
dataloaders and sharding are left out; CPU, greedy, one item.
"""

import torch
import torch.nn.functional as F
from transformers import AutoTokenizer, LlamaForCausalLM


class LlamaForReplugCausalLM(LlamaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None,
                inputs_embeds=None, labels=None, use_cache=None, context_scores=None, num_context=None, **kwargs):
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,  # observe: cp_prepare_past
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, **kwargs)

    def prepare_inputs_for_generation(
        self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None, context_scores=None,  # site: cp_prepare_past
        num_context=None, **kwargs
    ):
        if past_key_values:
            input_ids = input_ids[:, -1:]

        position_ids = kwargs.get("position_ids", None)
        if attention_mask is not None and position_ids is None:
            position_ids = attention_mask.long().cumsum(-1) - 1
            position_ids.masked_fill_(attention_mask == 0, 1)
            if past_key_values:
                position_ids = position_ids[:, -1].unsqueeze(-1)

        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({
            "position_ids": position_ids,
            "past_key_values": past_key_values,
            "use_cache": kwargs.get("use_cache"),
            "attention_mask": attention_mask,
            "context_scores": context_scores,
            "num_context": num_context,
        })
        return model_inputs


model = LlamaForReplugCausalLM.from_pretrained("hyen/CEPED-LLaMA-2-Chat-7B", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("hyen/CEPED-LLaMA-2-Chat-7B")


def score_continuations(prefix_input, continuation_inputs):
    outputs = model(**prefix_input, use_cache=True)  # clean: cp_prefix_run
    past_key_values = outputs.past_key_values  # clean: cp_prefix_cache
    last_token_logits = outputs.logits[0, -1:]
    scores = []
    for continuation in continuation_inputs:
        continuation_length = continuation.pop("continuation_length")
        continuation_input = dict(continuation)
        continuation_input["attention_mask"] = torch.cat(
            [prefix_input["attention_mask"], continuation_input["attention_mask"]], dim=1)
        continuation_outputs = model(
            **continuation_input,
            past_key_values=past_key_values,  # site: cp_shared_prefix
        )
        logits = continuation_outputs.logits.detach()[0]
        logits = torch.cat([last_token_logits, logits[:-1]], dim=0)
        assert logits.size(0) == continuation_length
        ids = continuation_input["input_ids"][0]
        prob = F.softmax(logits, dim=-1)
        scores.append(torch.log(prob[torch.arange(continuation_length), ids]).sum())
    return torch.stack(scores)


def chunked_nll(input_ids, step_size):
    past_key_values = None  # clean: cp_stream_none
    total = torch.zeros(())
    last_logit = None
    for i in range(0, input_ids.shape[1], step_size):
        chunk = input_ids[:, i:i + step_size]
        outputs = model(chunk, past_key_values=past_key_values, use_cache=True)  # clean: cp_stream_step
        past_key_values = outputs.past_key_values  # clean: cp_stream_keep
        if last_logit is None:
            logits, targets = outputs.logits[0, :-1], chunk[0, 1:]
        else:
            logits, targets = torch.cat([last_logit, outputs.logits[0, :-1]], dim=0), chunk[0]
        total += F.cross_entropy(logits, targets, reduction="sum")
        last_logit = outputs.logits[0, -1:]
    return total, past_key_values


def continuation(text):
    enc = tokenizer(text, return_tensors="pt", add_special_tokens=False)
    return {"input_ids": enc.input_ids, "attention_mask": enc.attention_mask,
            "continuation_length": enc.input_ids.shape[1]}


@torch.no_grad()
def probe_loglikelihood():
    prefix_input = dict(tokenizer("w11 w23 w35 w47 w59 w61 w73", return_tensors="pt"))
    texts = [" w101 w102 w103", " w201 w202 w203"]
    shared = score_continuations(prefix_input, [continuation(t) for t in texts])  # observe: cp_shared_prefix
    fresh = torch.stack([score_continuations(prefix_input, [continuation(t)])[0] for t in texts])
    assert torch.equal(shared, fresh), f"cp_shared_prefix: later continuations saw earlier ones ({shared} vs {fresh})"  # observe: cp_shared_prefix


@torch.no_grad()
def probe_generate():
    prefix_input = tokenizer("w11 w23 w35 w47 w59 w61 w73", return_tensors="pt")
    lengths = []
    model.model.register_forward_hook(
        lambda m, args, kwargs, out: lengths.append(kwargs["input_ids"].shape[1]), with_kwargs=True)
    outputs = model.generate(**prefix_input, max_new_tokens=3, min_new_tokens=3, do_sample=False,  # observe: cp_prepare_past
                             return_dict_in_generate=True, output_scores=True)
    assert outputs.sequences.shape[1] == prefix_input["input_ids"].shape[1] + 3
    n = prefix_input["input_ids"].shape[1]
    assert lengths == [n, 1, 1], f"cp_prepare_past: the decode steps did not run one token each ({lengths})"  # observe: cp_prepare_past


@torch.no_grad()
def probe_chunked_perplexity():
    ids = tokenizer("w5 w9 w13 w17 w21 w25 w29 w33 w37 w41 w45 w49 w53 w57",
                    return_tensors="pt").input_ids
    total, cache = chunked_nll(ids, step_size=4)
    full = model(ids).logits[0]
    want = F.cross_entropy(full[:-1], ids[0, 1:], reduction="sum")
    assert torch.allclose(total, want, atol=1e-3) and cache.get_seq_length() == ids.shape[1]


@torch.no_grad()
def probe_single_choice():
    prefix_input = dict(tokenizer("w11 w23 w35 w47 w59 w61 w73", return_tensors="pt"))
    got = score_continuations(prefix_input, [continuation(" w101 w102 w103")])
    ids = torch.tensor([101, 102, 103])
    full = model(torch.cat([prefix_input["input_ids"], ids[None]], dim=1)).logits[0, -4:-1]
    want = torch.log_softmax(full, dim=-1)[torch.arange(3), ids].sum()
    assert torch.allclose(got[0], want, atol=1e-4), (got, want)
