"""HuatuoGPT (FreedomIntelligence/HuatuoGPT): a medical consultation chat model (a Baichuan/Llama-family decoder
fine-tuned on doctor-patient dialogues). Its streaming command-line demo does not call `generate`: `chat_stream`
builds the `<病人>：... <HuatuoGPT>：` prompt from the history, runs a first forward `model(ids, use_cache=True)`, keeps
`past_key_values = out.past_key_values`, then feeds one sampled token per step with `model(input_ids=[[token]],
use_cache=True, past_key_values=past_key_values)` (temperature sampling, argmax below 1e-4), yields the decoded text
every `stream_interval` tokens, stops at the end-of-sequence id, and `del past_key_values` at the end.

Provenance (mechanisms read; this code is written here, not copied):
- FreedomIntelligence/HuatuoGPT @1412a5d250f411b5739576fda6e3683ba99ebcd1
  huatuo_cli_demo_stream.py (load_model, chat_stream, generate_prompt).
Reduced: the checkpoint is the oracle's tiny stand-in, greedy (temperature 0) only, ids are yielded instead of decoded
text, no device juggling.
"""

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer

model_name = "FreedomIntelligence/HuatuoGPT-7B"
tokenizer = AutoTokenizer.from_pretrained(model_name, padding_side="right", use_fast=True)
model = AutoModelForCausalLM.from_pretrained(model_name, low_cpu_mem_usage=True).eval()


def generate_prompt(query, history):
    prompt = "a conversation between a patient and HuatuoGPT"
    for old_query, response in history:
        prompt += f" patient {old_query} HuatuoGPT {response}"
    return prompt + f" patient {query} HuatuoGPT"


@torch.inference_mode()
def chat_stream(query, history, max_new_tokens=6, temperature=0.0, stream_interval=2, stop_token_ids=()):
    input_ids = tokenizer(generate_prompt(query, history)).input_ids
    output_ids = list(input_ids)
    past_key_values = None
    for i in range(max_new_tokens):
        if i == 0:
            out = model(torch.as_tensor([input_ids]), use_cache=True)  # clean: hu_prefill
            logits = out.logits
            past_key_values = out.past_key_values  # clean: hu_first_past
        else:
            out = model(input_ids=torch.as_tensor([[token]]), use_cache=True,  # clean: hu_step
                        past_key_values=past_key_values)
            logits = out.logits
            past_key_values = out.past_key_values  # clean: hu_step_past
        last_token_logits = logits[0][-1]
        if temperature < 1e-4:
            token = int(torch.argmax(last_token_logits))
        else:
            token = int(torch.multinomial(torch.softmax(last_token_logits / temperature, dim=-1), 1))
        output_ids.append(token)
        stopped = token in stop_token_ids
        if i % stream_interval == 0 or i == max_new_tokens - 1 or stopped:
            yield output_ids[len(input_ids):], past_key_values.get_seq_length()
        if stopped:
            break
    del past_key_values


def probe_stream():
    chunks = list(chat_stream("my head hurts since yesterday", [("hello", "how can I help")]))
    new_ids, cached = chunks[-1]
    assert len(new_ids) == 6
    prompt_len = len(tokenizer(generate_prompt("my head hurts since yesterday", [("hello", "how can I help")])).input_ids)
    assert cached == prompt_len + 5
