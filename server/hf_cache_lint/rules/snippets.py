"""The opening every rule example shares: load a tokenizer and a model, tokenize a prompt."""

from __future__ import annotations

LLAMA = "meta-llama/Llama-3.2-1B"
MAMBA = "state-spaces/mamba-130m-hf"


def prelude(*names: str, model: str = "AutoModelForCausalLM", checkpoint: str = LLAMA) -> str:
    """`from transformers import ...` (sorted, with `names`), then tokenizer, model and `inputs`."""
    imports = ", ".join(sorted({model, "AutoTokenizer", *names}))
    return (f"from transformers import {imports}\n\n"
            f'tokenizer = AutoTokenizer.from_pretrained("{checkpoint}")\n'
            f'model = {model}.from_pretrained("{checkpoint}")\n'
            'inputs = tokenizer("The capital of France is", return_tensors="pt")\n')


def own_generate_wrapper(cache_implementation: str) -> str:
    """A user's `nn.Module` whose own `generate` takes cache keywords (not transformers'), and a call to it."""
    return ("import torch.nn as nn\n\n\n"
            "class Wrapper(nn.Module):\n"
            "    def __init__(self, lm):\n"
            "        super().__init__()\n"
            "        self.lm = lm\n\n"
            "    def generate(self, inputs, past_key_values=None, cache_implementation=None, use_model_defaults=True):\n"
            "        return self.lm.generate(**inputs, max_new_tokens=3)\n\n\n"
            "wrapper = Wrapper(model)\n"
            f'out = wrapper.generate(inputs, past_key_values=DynamicCache(), cache_implementation="{cache_implementation}", '
            "use_model_defaults=False)\n")
