"""An SSM (Mamba) decoding helper written for the 4.x MambaCache: it builds the cache itself and reads the
recurrent states."""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("state-spaces/mamba-130m-hf")
prompt = torch.tensor([[1, 5, 9, 14, 20]])


def new_cache_import():
    from transformers.models.mamba.modeling_mamba import MambaCache  # site: mamba_import_modeling
    return MambaCache(model.config, max_batch_size=1, dtype=torch.float32)


def new_cache_batch_kw():
    from transformers import MambaCache  # observe: mamba_batch_size_kw
    return MambaCache(model.config, batch_size=1, dtype=torch.float32)  # site: mamba_batch_size_kw


def ssm_state(out):
    return out.cache_params.ssm_states[0]  # site: mamba_ssm_states


def probe_import():
    assert new_cache_import() is not None


def probe_batch_kw():
    assert new_cache_batch_kw() is not None


def probe_ssm_states():
    out = model(prompt, use_cache=True)
    assert ssm_state(out).shape[0] == 1


def probe_generate():
    out = model.generate(prompt, max_new_tokens=3, min_new_tokens=3, do_sample=False)  # clean: mamba_generate
    assert out.shape[-1] == 8
