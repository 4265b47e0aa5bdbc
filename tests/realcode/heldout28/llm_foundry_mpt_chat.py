"""LLM Foundry (mosaicml/llm-foundry), MosaicML's training and inference code for MPT. `scripts/inference/hf_chat.py`
is a terminal chat: it keeps the conversation as text, re-tokenises it every turn and calls
`model.generate(input_ids, **generate_kwargs)` with `use_cache`, sampling settings and eos/pad ids from the command
line. MPT checkpoints load with `trust_remote_code`, so generate runs MPTForCausalLM's own hooks:
`prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs)` reads
`kwargs['attention_mask']`, refuses right padding, feeds only the last token once `past_key_values` is set, and returns
`past_key_values` and `use_cache` with the inputs.

Provenance (mechanisms read; this code is written here, not copied):
- mosaicml/llm-foundry @0085285a957badb20c34a462551d25aa5c0a5fc1 llmfoundry/models/mpt/modeling_mpt.py
  (MPTForCausalLM.prepare_inputs_for_generation), @00552daff62cd7e56efa863d77d797c654894a6c
  scripts/inference/hf_chat.py (conversation, main's generate_kwargs).
Reduced: the MPT hooks sit on a tiny Llama from a config (MPT's own attention, ALiBi and prefix-LM are not what they
do to the cache); the chat gets its turns from a list and token ids instead of a tokenizer.
"""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

CONFIG = LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1, eos_token_id=2, pad_token_id=0)
USER_MSG_FMT = [7, 8]
ASSISTANT_MSG_FMT = [9, 10]


class MPTForCausalLM(LlamaForCausalLM):
    def prepare_inputs_for_generation(
        self,
        input_ids,
        past_key_values=None,  # site: mp_prepare_past
        inputs_embeds=None,
        **kwargs,
    ):
        attention_mask = kwargs["attention_mask"].bool()  # observe: mp_prepare_past
        if attention_mask[:, -1].sum() != attention_mask.shape[0]:
            raise NotImplementedError("MPT does not support generation with right padding.")
        # only last token for inputs_ids if past is defined in kwargs
        if past_key_values is not None:  # observe: mp_prepare_past
            input_ids = input_ids[:, -1].unsqueeze(-1)
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({
            "attention_mask": attention_mask,
            "past_key_values": past_key_values,
            "use_cache": kwargs.get("use_cache", True),
        })
        return model_inputs


def conversation(model, user_inp, history, **generate_kwargs):
    conversation = history + USER_MSG_FMT + user_inp
    input_ids = torch.tensor([conversation])
    with torch.no_grad():
        output_ids = model.generate(input_ids, **generate_kwargs)  # clean: mf_chat_generate
    new_tokens = output_ids[0, len(input_ids[0]):]
    return new_tokens.tolist(), conversation + ASSISTANT_MSG_FMT + new_tokens.tolist()


def generate_kwargs_from_args(max_new_tokens=512, use_cache=True, do_sample=True):
    return {  # clean: mf_generate_kwargs
        "max_new_tokens": max_new_tokens,
        "temperature": 1.0,
        "top_p": 1.0,
        "top_k": 50,
        "use_cache": use_cache,
        "do_sample": do_sample,
        "eos_token_id": 2,
        "pad_token_id": 2,
    }


torch.manual_seed(0)
llama = LlamaForCausalLM(CONFIG).eval()
torch.manual_seed(0)
mpt = MPTForCausalLM(CONFIG).eval()


def probe_chat():
    llama.generation_config.min_new_tokens = 3
    kwargs = generate_kwargs_from_args(max_new_tokens=3, do_sample=False)
    history = [1]
    for turn in ([40, 41, 42], [50, 51]):
        reply, history = conversation(llama, turn, history, **kwargs)
        assert len(reply) == 3


def probe_mpt_generate():
    seen = []
    mpt.register_forward_pre_hook(lambda mod, args, kw: seen.append(kw["input_ids"].shape[1]), with_kwargs=True)
    prompt = torch.tensor([[1, 40, 41, 42, 43]])
    out = mpt.generate(prompt, attention_mask=torch.ones_like(prompt), do_sample=False, max_new_tokens=3,
                       min_new_tokens=3)
    assert out.shape == (1, 8)
    assert seen == [5, 1, 1], f"mp_prepare_past: the steps fed {seen} tokens, not the prompt then one each"  # observe: mp_prepare_past
