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
