"""Petals' client: the transformer blocks run on remote servers, so the client-side cache is a `Cache` subclass that
only counts tokens (`RemotePastKeyValues`: its own `_seen_tokens`, `get_seq_length`, `update_seen`, a
`get_max_length` that returns None, `hypo_ids` for beams); the distributed model's forward makes one when none is
given and counts the new tokens into it; a `RemoteGenerationMixin.generate` wrapper hands generate a
`RemotePastKeyValues` primed with the session position when `self._supports_cache_class`; a `_SkipTokensMixin`
overrides `prepare_inputs_for_generation` to drop the tokens a resumed session already sent, then calls super.

Provenance (mechanisms read; this code is written here, not copied):
- bigscience-workshop/petals @22afba627a7eb4fcfe9418c49472c6a51334b8ac
  src/petals/client/remote_generation.py (`class RemotePastKeyValues(Cache)`: `super().__init__()`,
  `self._seen_tokens = 0`, `get_seq_length` returning it, `update_seen`; `_SkipTokensMixin.
  prepare_inputs_for_generation(self, input_ids, **kwargs)`: `input_ids[:, _skipped_tokens.get():]`, then
  `super().prepare_inputs_for_generation(input_ids, **kwargs)`; `RemoteGenerationMixin.generate`: `if
  self._supports_cache_class and "past_key_values" not in kwargs:` a primed RemotePastKeyValues into kwargs) and
  src/petals/models/llama/model.py (DistributedLlamaModel.forward: `if past_key_values is None: past_key_values =
  RemotePastKeyValues()`, `past_key_values.update_seen(hidden_states.size(1))`).
Reduced: no swarm (the remote session is a position counter), the skip-tokens mixin on a local Llama, the
RemotePastKeyValues built directly as the distributed forward builds it.
"""

from contextvars import ContextVar
from typing import List, Optional

import torch
from transformers import AutoModelForCausalLM, LlamaForCausalLM
from transformers.cache_utils import Cache

DUMMY = torch.empty(0)
_skipped_tokens = ContextVar("skipped_tokens", default=0)


class RemotePastKeyValues(Cache):
    """only keeps the number of seen tokens. pretends to be a legit cache"""

    def __init__(self) -> None:
        super().__init__()  # site: pt_bare_cache_init
        self._seen_tokens = 0
        self.hypo_ids: Optional[torch.LongTensor] = None

    def __getitem__(self, _index: int) -> List[torch.Tensor]:
        return [DUMMY]

    def get_seq_length(self, layer_idx: Optional[int] = 0) -> int:
        return self._seen_tokens

    def get_max_length(self) -> Optional[int]:
        return None

    def update_seen(self, new_seen: int) -> None:
        self._seen_tokens += new_seen


class _SkipTokensMixin:
    def prepare_inputs_for_generation(self, input_ids: torch.LongTensor, **kwargs) -> dict:
        input_ids = input_ids[:, _skipped_tokens.get():]
        _skipped_tokens.set(0)
        return super().prepare_inputs_for_generation(input_ids, **kwargs)  # clean: pt_skip_super


class Session:
    position = 0


class RemoteGenerationMixin(_SkipTokensMixin):
    def generate(self, inputs=None, *args, session=None, **kwargs):
        session = session or Session()
        if self._supports_cache_class and "past_key_values" not in kwargs:  # site: pt_supports_cache_class
            past_key_values = RemotePastKeyValues()
            past_key_values.update_seen(session.position)
            kwargs["past_key_values"] = past_key_values
        return super().generate(inputs, *args, **kwargs)


class DistributedLlamaForCausalLM(RemoteGenerationMixin, LlamaForCausalLM):
    pass


class SkipTokensLlama(_SkipTokensMixin, LlamaForCausalLM):
    pass


prompt = torch.tensor([[1, 11, 22, 33, 44]])


def probe_skip_tokens():
    model = SkipTokensLlama.from_pretrained("petals-team/StableBeluga2")
    out = model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)  # clean: pt_skip_generate
    assert out.shape == (1, 9)


def probe_remote_generate():
    model = DistributedLlamaForCausalLM.from_pretrained("petals-team/StableBeluga2")
    model.generate(prompt, max_new_tokens=4, min_new_tokens=4)


def probe_remote_cache():
    cache = RemotePastKeyValues()
    cache.update_seen(5)
    assert cache.get_seq_length() == 5


def probe_plain_generate():
    model = AutoModelForCausalLM.from_pretrained("petals-team/StableBeluga2")
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, return_dict_in_generate=True)
    assert out.past_key_values.get_seq_length() == 7  # clean: pt_generated_length
