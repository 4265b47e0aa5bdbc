"""huggingface/speech-to-speech's speech-to-text stage: `WhisperSTTHandler.setup` loads the model, and when a
compile mode is asked sets `model.generation_config.cache_implementation = "static"` and wraps `model.forward` in
`torch.compile(..., fullgraph=True)`; `warmup` generates on a dummy input one or two times, with
`min_new_tokens` set to `max_new_tokens` under CUDA-graph modes (`{"min_new_tokens": ..., "max_new_tokens": ...,
**gen_kwargs}`); each utterance is then transcribed with `model.generate(input_features, **gen_kwargs)`.

Provenance (mechanisms read; this code is written here, not copied):
- huggingface/speech-to-speech @9f59bc72f66ee84b006e2682b9547144e7f74827
  src/speech_to_speech/STT/whisper_stt_handler.py (WhisperSTTHandler.setup: `AutoModelForSpeechSeq2Seq.from_pretrained`,
  `self.model.generation_config.cache_implementation = "static"`, `self.model.forward = torch.compile(self.model.forward,
  mode=self.compile_mode, fullgraph=True)`; warmup: `n_steps`, `warmup_gen_kwargs`, `self.model.generate(dummy_input,
  **warmup_gen_kwargs)`; process: `self.model.generate(input_features, **self.gen_kwargs)`).
Reduced: the oracle has no Whisper checkpoint, so the encoder-decoder is T5 (token ids instead of log-mel features);
no processor, no language detection, no CUDA events.
"""

import torch
from transformers import AutoModelForSeq2SeqLM


class STTHandler:
    def setup(self, model_name="t5-small", compile_mode=None, gen_kwargs={}):
        self.compile_mode = compile_mode
        self.gen_kwargs = gen_kwargs
        self.model = AutoModelForSeq2SeqLM.from_pretrained(model_name)
        if self.compile_mode:
            self.model.generation_config.cache_implementation = "static"  # clean: s2_static_config
            self.model.forward = torch.compile(self.model.forward, mode=self.compile_mode, fullgraph=True)  # clean: s2_compile
        self.warmup()

    def warmup(self):
        n_steps = 1 if self.compile_mode == "default" else 2
        dummy_input = torch.randint(2, 30, (1, 12))
        if self.compile_mode not in (None, "default"):
            warmup_gen_kwargs = {"min_new_tokens": self.gen_kwargs["max_new_tokens"],
                                 "max_new_tokens": self.gen_kwargs["max_new_tokens"], **self.gen_kwargs}
        else:
            warmup_gen_kwargs = self.gen_kwargs
        for _ in range(n_steps):
            _ = self.model.generate(dummy_input, **warmup_gen_kwargs)  # clean: s2_warmup

    def process(self, input_features):
        return self.model.generate(input_features, **self.gen_kwargs)  # clean: s2_transcribe


def probe_compiled():
    handler = STTHandler()
    handler.setup(compile_mode="reduce-overhead", gen_kwargs={"max_new_tokens": 4, "min_new_tokens": 4})
    out = handler.process(torch.tensor([[5, 6, 7, 8, 9]]))
    assert out.shape[1] == 5


def probe_eager():
    handler = STTHandler()
    handler.setup(gen_kwargs={"max_new_tokens": 3, "min_new_tokens": 3})
    out = handler.process(torch.tensor([[5, 6, 7]]))
    assert out.shape[1] == 4
