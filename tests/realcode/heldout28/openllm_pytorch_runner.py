"""OpenLLM (bentoml/OpenLLM), a BentoML service that serves open LLMs behind an OpenAI-compatible API. Without vLLM it
falls back to `PyTorchRunnable`, whose `forward` streams a completion with a hand-written decode loop (FastChat's
`generate_stream` shape): a prefill call with `use_cache=True` on the prompt (for encoder-decoder models such as
Flan-T5, the encoder once, then `model.decoder(input_ids=start_ids, encoder_hidden_states=..., use_cache=True)` and
`model.lm_head`), then one token per step with `past_key_values=past_key_values`, keeping
`past_key_values = out.past_key_values` after every call, stopping on a stop token or string, and yielding
`GenerationOutput` chunks; finally `del past_key_values, out`.

Provenance (mechanisms read; this code is written here, not copied):
- bentoml/OpenLLM @005dd2ae2c9675abb0b0bf39a6028abce08dca48 openllm-python/src/openllm/_runners.py
  (PyTorchRunnable.__init__, generate_iterator, forward).
Reduced: tiny Llama and T5 models from configs and integer "tokens" instead of a tokenizer; the bentoml async method
is a plain generator yielding dicts; logprobs, stop strings and the logits processors (temperature, top-p,
repetition penalty) are left out, decoding is greedy as with `temperature < 1e-5`.
"""

import gc

import torch
from transformers import LlamaConfig, LlamaForCausalLM, T5Config, T5ForConditionalGeneration


class PyTorchRunnable:
    def __init__(self, model, eos_token_id):
        self.model = model
        self.eos_token_id = eos_token_id
        self.device = model.device
        self.is_encoder_decoder = model.config.is_encoder_decoder

    def forward(self, prompt_token_ids, request_id, stop_token_ids=(), max_new_tokens=256):
        stop_token_ids = list(stop_token_ids)
        if self.eos_token_id not in stop_token_ids:
            stop_token_ids.append(self.eos_token_id)
        with torch.inference_mode():
            output_token_ids = list(prompt_token_ids)
            input_len = len(prompt_token_ids)
            if self.is_encoder_decoder:
                encoder_output = self.model.encoder(input_ids=torch.as_tensor([prompt_token_ids],
                                                                              device=self.device))[0]
                start_ids = torch.as_tensor([[self.model.generation_config.decoder_start_token_id]],
                                            dtype=torch.int64, device=self.device)
            else:
                start_ids = torch.as_tensor([prompt_token_ids], device=self.device)

            past_key_values = out = token = None
            finish_reason = "length"
            for i in range(max_new_tokens):
                if i == 0:  # prefill
                    if self.is_encoder_decoder:
                        out = self.model.decoder(input_ids=start_ids, encoder_hidden_states=encoder_output,  # clean: ol_t5_prefill
                                                 use_cache=True)
                        logits = self.model.lm_head(out[0])
                    else:
                        out = self.model(input_ids=start_ids, use_cache=True)  # clean: ol_prefill
                        logits = out.logits
                else:
                    if self.is_encoder_decoder:  # decoding
                        out = self.model.decoder(
                            input_ids=torch.as_tensor([[token]], device=self.device),
                            encoder_hidden_states=encoder_output,
                            past_key_values=past_key_values,  # clean: ol_t5_decode
                            use_cache=True,
                        )
                        logits = self.model.lm_head(out[0])
                    else:
                        out = self.model(
                            input_ids=torch.as_tensor([[token]], device=self.device),
                            past_key_values=past_key_values,  # clean: ol_decode
                            use_cache=True,
                        )
                        logits = out.logits
                past_key_values = out.past_key_values  # clean: ol_keep_past

                last_token_logits = logits[0, -1, :]
                _, indices = torch.topk(last_token_logits, 2)
                token = [int(index) for index in indices.tolist()][0]
                output_token_ids.append(token)
                stopped = token in stop_token_ids
                yield {"request_id": request_id, "finished": False, "token_ids": output_token_ids[input_len:]}
                if stopped:
                    finish_reason = "stop"
                    break
            yield {"request_id": request_id, "finished": True, "token_ids": output_token_ids[input_len:],
                   "finish_reason": finish_reason}
        del past_key_values, out
        gc.collect()


torch.manual_seed(0)
llama = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                     eos_token_id=2, pad_token_id=0)).eval()
flan_t5 = T5ForConditionalGeneration(T5Config(vocab_size=120, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                                              num_decoder_layers=2, num_heads=4, decoder_start_token_id=0,
                                              eos_token_id=1, pad_token_id=0)).eval()


def probe_causal_stream():
    runner = PyTorchRunnable(llama, eos_token_id=2)
    chunks = list(runner.forward([1, 45, 67, 89, 23], "req-1", stop_token_ids=[], max_new_tokens=5))
    final = chunks[-1]["token_ids"]
    ref = llama.generate(torch.tensor([[1, 45, 67, 89, 23]]), do_sample=False, max_new_tokens=len(final),
                         min_new_tokens=len(final))
    assert ref[0, 5:].tolist() == final, "the streamed tokens differ from generate's"


def probe_seq2seq_stream():
    runner = PyTorchRunnable(flan_t5, eos_token_id=1)
    chunks = list(runner.forward([14, 15, 16, 17, 1], "req-2", max_new_tokens=4))
    final = chunks[-1]["token_ids"]
    ref = flan_t5.generate(torch.tensor([[14, 15, 16, 17, 1]]), do_sample=False, max_new_tokens=len(final),
                           min_new_tokens=len(final))
    assert ref[0, 1:].tolist() == final, "the streamed tokens differ from generate's"
