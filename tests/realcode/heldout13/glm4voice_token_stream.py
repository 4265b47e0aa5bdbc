"""GLM-4-Voice's model server: the speech-and-text language model streams token ids (text and audio tokens mixed)
to the web front end. `ModelWorker.generate_stream` tokenizes the prompt, starts `model.generate(**inputs,
max_new_tokens=..., temperature=..., top_p=..., streamer=streamer)` in a thread with the project's `TokenStreamer`
(a `BaseStreamer` that drops the prompt once and queues ids until `end()`), and yields one JSON line per id.

Provenance (mechanisms read; this code is written here, not copied):
- THUDM/GLM-4-Voice @eb00ce9142e8d98b0ed7c57cd47e0d6d5dce9a1a
  model_server.py (`TokenStreamer(BaseStreamer)` with `put` skipping the prompt and queueing `value.tolist()`, `end`
  queueing the stop signal, `__next__` reading the queue; `ModelWorker.__init__`: `AutoModel.from_pretrained(model_path,
  trust_remote_code=True, quantization_config=..., device_map=...)`; `generate_stream`: `inputs = tokenizer([prompt],
  return_tensors="pt")`, `Thread(target=model.generate, kwargs=dict(**inputs, max_new_tokens=int(max_new_tokens),
  temperature=float(temperature), top_p=float(top_p), streamer=streamer))`, the JSON lines; `generate_stream_gate`
  catching any error into an error line).
Reduced: no FastAPI app, quantization or device map; `AutoModelForCausalLM` stands for the remote-code model that
`AutoModel` resolves to on the Hub (the oracle's AutoModel has no generation head); the probe fixes the length through
the model's generation config.
"""

import json
from queue import Queue
from threading import Thread

import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from transformers.generation.streamers import BaseStreamer


class TokenStreamer(BaseStreamer):
    def __init__(self, skip_prompt=False, timeout=None):
        self.skip_prompt = skip_prompt
        self.token_queue = Queue()
        self.stop_signal = None
        self.next_tokens_are_prompt = True
        self.timeout = timeout

    def put(self, value):
        if len(value.shape) > 1 and value.shape[0] > 1:
            raise ValueError("TextStreamer only supports batch size 1")
        elif len(value.shape) > 1:
            value = value[0]
        if self.skip_prompt and self.next_tokens_are_prompt:
            self.next_tokens_are_prompt = False
            return
        for token in value.tolist():
            self.token_queue.put(token)

    def end(self):
        self.token_queue.put(self.stop_signal)

    def __iter__(self):
        return self

    def __next__(self):
        value = self.token_queue.get(timeout=self.timeout)
        if value == self.stop_signal:
            raise StopIteration()
        return value


class ModelWorker:
    def __init__(self, model_path):
        self.glm_model = AutoModelForCausalLM.from_pretrained(model_path, trust_remote_code=True).eval()
        self.glm_tokenizer = AutoTokenizer.from_pretrained(model_path, trust_remote_code=True)

    @torch.inference_mode()
    def generate_stream(self, params):
        tokenizer, model = self.glm_tokenizer, self.glm_model
        prompt = params["prompt"]
        temperature = float(params.get("temperature", 1.0))
        top_p = float(params.get("top_p", 1.0))
        max_new_tokens = int(params.get("max_new_tokens", 256))
        inputs = tokenizer([prompt], return_tensors="pt")
        streamer = TokenStreamer(skip_prompt=True)
        thread = Thread(
            target=model.generate,
            kwargs=dict(  # clean: gv_thread_generate
                **inputs,
                max_new_tokens=int(max_new_tokens),
                temperature=float(temperature),
                top_p=float(top_p),
                streamer=streamer,
            ),
        )
        thread.start()
        for token_id in streamer:
            yield (json.dumps({"token_id": token_id, "error_code": 0}) + "\n").encode()

    def generate_stream_gate(self, params):
        try:
            yield from self.generate_stream(params)
        except Exception as e:
            print("Caught Unknown Error", e)
            yield (json.dumps({"text": "Server Error", "error_code": 1}) + "\n").encode()


worker = ModelWorker("THUDM/glm-4-voice-9b")


def probe_stream_tokens():
    worker.glm_model.generation_config.min_new_tokens = 5
    lines = list(worker.generate_stream({"prompt": "hello there how are you", "max_new_tokens": 5, "min_new_tokens": 5}))
    assert len(lines) == 5 and json.loads(lines[0])["error_code"] == 0
