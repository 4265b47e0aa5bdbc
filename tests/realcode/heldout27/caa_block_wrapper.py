"""Contrastive Activation Addition (nrimsky/CAA): `Llama7BChatWrapper` replaces every decoder layer of a Llama chat
model with a `BlockOutputWrapper` (and its `self_attn` with an `AttnWrapper`) that saves the block's activations
(`output[0]`), optionally adds a steering vector to every position after the end of the instruction
(`add_vector_after_position(matrix=output[0], vector, position_ids=kwargs["position_ids"], after=...)`), and rebuilds
the block's output tuple (`(augmented_output + self.add_activations,) + output[1:]`); `generate` finds the `[/INST]`
position, sets it on every layer and calls `self.model.generate(inputs=tokens, max_new_tokens=..., top_k=1)`;
`get_logits` runs one forward. During cached generation a block only sees the new token, so a wrapper that steers the
answer alone tells the prompt pass from a decoding step by the cache its layer receives.

Provenance (mechanisms read; this code is written here, not copied):
- nrimsky/CAA @0825e0cfc59386c6ab95777530c8ec7317c55712 llama_wrapper.py (AttnWrapper.forward,
  BlockOutputWrapper.forward / add / reset, Llama7BChatWrapper.__init__ / generate / get_logits /
  set_add_activations); utils/helpers.py (add_vector_after_position: `mask = position_ids > after`).
Reduced: a tiny Llama from a config, token ids instead of the chat template; no unembedding of internal decodings and
no dot-product tracking; the answer-only mode and its decode-step test (the cache in the wrapped block's keyword
arguments) are this case's own.
"""

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=4, num_key_value_heads=2, bos_token_id=1,
                                     eos_token_id=2, pad_token_id=0)).eval()


def add_vector_after_position(matrix, vector, position_ids, after=None):
    after_id = after if after is not None else position_ids.min().item() - 1
    mask = (position_ids > after_id).unsqueeze(-1)
    return matrix + mask.float() * vector


class AttnWrapper(torch.nn.Module):
    def __init__(self, attn):
        super().__init__()
        self.attn = attn
        self.activations = None

    def forward(self, *args, **kwargs):
        output = self.attn(*args, **kwargs)  # clean: ca_attn_wrapper
        self.activations = output[0]
        return output


class BlockOutputWrapper(torch.nn.Module):
    def __init__(self, block):
        super().__init__()
        self.block = block
        self.block.self_attn = AttnWrapper(self.block.self_attn)
        self.activations = None
        self.add_activations = None
        self.after_position = None
        self.answer_only = False
        self.steered_steps = 0

    def forward(self, *args, **kwargs):
        past = kwargs.get("past_key_values")  # site: ca_decode_step_cache
        decoding = past is not None and past.get_seq_length(self.block.self_attn.attn.layer_idx) > 0
        output = self.block(*args, **kwargs)
        self.activations = output[0]
        if self.add_activations is not None:
            if self.answer_only:
                if not decoding:
                    return output
                self.steered_steps += 1
                return output + self.add_activations
            augmented_output = add_vector_after_position(matrix=output[0], vector=self.add_activations,
                                                         position_ids=kwargs["position_ids"],
                                                         after=self.after_position)
            output = (augmented_output + self.add_activations,) + output[1:]  # site: ca_block_tuple
        return output


for i, layer in enumerate(model.model.layers):
    model.model.layers[i] = BlockOutputWrapper(layer)


def generate(tokens, instr_pos, max_new_tokens=3):
    for layer in model.model.layers:
        layer.after_position = instr_pos
    return model.generate(inputs=tokens, max_new_tokens=max_new_tokens, top_k=1)  # clean: ca_wrapped_generate


def get_logits(tokens):
    with torch.no_grad():
        return model(tokens).logits  # clean: ca_get_logits


def reset_all():
    for layer in model.model.layers:
        layer.add_activations = None
        layer.answer_only = False
        layer.steered_steps = 0


tokens = torch.tensor([[1, 20, 21, 22, 23, 24]])
vector = torch.randn(32) * 0.5


def probe_plain_generate():
    reset_all()
    model.generation_config.min_new_tokens = 3
    out = generate(tokens, instr_pos=4)
    logits = get_logits(tokens)
    assert out.shape == (1, 9) and logits.shape == (1, 6, 320)
    assert model.model.layers[0].block.self_attn.activations is not None


def probe_steer_after_instruction():
    reset_all()
    model.model.layers[1].add_activations = vector
    model.generation_config.min_new_tokens = 3
    out = generate(tokens, instr_pos=4)
    assert out.shape == (1, 9)


def probe_steer_answer_only():
    reset_all()
    model.model.layers[1].add_activations = vector
    model.model.layers[1].answer_only = True
    model.generation_config.min_new_tokens = 3
    out = generate(tokens, instr_pos=4)
    assert out.shape == (1, 9)
    steps = model.model.layers[1].steered_steps
    assert steps == 2, f"ca_decode_step_cache: the answer was steered at {steps} of 2 decoding steps"  # observe: ca_decode_step_cache
