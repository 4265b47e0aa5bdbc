"""A GCG adversarial-suffix search (an attack/eval harness): the tokens before the optimised suffix are run once
with `use_cache=True` and their cache kept as `self.prefix_cache`; the token gradient forwards the suffix with
that prefix cache, and the candidate loss expands the prefix cache per layer into a list of `[key, value]` lists
of batch size `search_batch_size` and forwards every candidate batch with it.

Provenance (mechanisms read; this code is written here, not copied):
- GraySwanAI/nanoGCG @0411809c16a70bd52fcf42d90dd0524d7b40cfdf nanogcg/gcg.py (`GCG.run`: `output =
  model(inputs_embeds=before_embeds, use_cache=True)`, `self.prefix_cache = output.past_key_values`;
  `compute_token_gradient`: `if self.prefix_cache: ... model(inputs_embeds=input_embeds,
  past_key_values=self.prefix_cache)` with the one-hot gradient taken through it, else the whole sequence;
  `compute_candidates_loss`: `prefix_cache_batch = [[x.expand(current_batch_size, -1, -1, -1) for x in
  self.prefix_cache[i]] for i in range(len(self.prefix_cache))]` then `self.model(inputs_embeds=
  input_embeds_batch, past_key_values=prefix_cache_batch)`, loss on the shifted target logits)
Reduced: sampling, filtering, the attack buffer and mellowmax are left out; the prefix expansion is its own
method so the candidate loss can be reached with a batch the probe builds; token ids are fixed.
"""

import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM

before_ids = torch.tensor([[1, 40, 41, 42, 43]])
optim_ids = torch.tensor([[50, 51, 52]])
after_ids = torch.tensor([[60, 61]])
target_ids = torch.tensor([[70, 71, 72]])


class GCG:
    def __init__(self, model, use_prefix_cache=True):
        self.model = model
        self.use_prefix_cache = use_prefix_cache
        self.embedding_layer = model.get_input_embeddings()
        self.prefix_cache = None

    def setup(self):
        embed = self.embedding_layer
        self.before_embeds, self.after_embeds, self.target_embeds = [
            embed(ids) for ids in (before_ids, after_ids, target_ids)]
        self.target_ids = target_ids
        if self.use_prefix_cache:
            with torch.no_grad():
                output = self.model(inputs_embeds=self.before_embeds, use_cache=True)  # clean: gc_prefix_forward
                self.prefix_cache = output.past_key_values

    def compute_token_gradient(self, optim_ids):
        onehot = F.one_hot(optim_ids, num_classes=self.embedding_layer.num_embeddings).to(self.model.dtype)
        onehot.requires_grad_()
        optim_embeds = onehot @ self.embedding_layer.weight
        if self.prefix_cache:
            input_embeds = torch.cat([optim_embeds, self.after_embeds, self.target_embeds], dim=1)
            output = self.model(inputs_embeds=input_embeds, past_key_values=self.prefix_cache)  # site: gc_grad_readonly
        else:
            input_embeds = torch.cat([self.before_embeds, optim_embeds, self.after_embeds, self.target_embeds], dim=1)
            output = self.model(inputs_embeds=input_embeds)  # clean: gc_full_forward
        shift = input_embeds.shape[1] - self.target_ids.shape[1]
        shift_logits = output.logits[..., shift - 1:-1, :]
        loss = F.cross_entropy(shift_logits.reshape(-1, shift_logits.size(-1)), self.target_ids.view(-1))
        return torch.autograd.grad(outputs=[loss], inputs=[onehot])[0]

    def expand_prefix(self, batch_size):
        return [[x.expand(batch_size, -1, -1, -1) for x in self.prefix_cache[i]]  # site: gc_prefix_index
                for i in range(len(self.prefix_cache))]

    def compute_candidates_loss(self, input_embeds, prefix_cache_batch):
        with torch.no_grad():
            outputs = self.model(inputs_embeds=input_embeds, past_key_values=prefix_cache_batch)  # site: gc_batch_forward
        shift = input_embeds.shape[1] - self.target_ids.shape[1]
        shift_logits = outputs.logits[..., shift - 1:-1, :]
        labels = self.target_ids.repeat(input_embeds.shape[0], 1)
        loss = F.cross_entropy(shift_logits.reshape(-1, shift_logits.size(-1)), labels.view(-1), reduction="none")
        return loss.view(input_embeds.shape[0], -1).mean(dim=-1)


def load():
    return AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B-Instruct", torch_dtype=torch.float32)


def candidates(gcg, n):
    with torch.no_grad():
        suffix = gcg.embedding_layer(optim_ids.repeat(n, 1))
        return torch.cat([suffix, gcg.after_embeds.repeat(n, 1, 1), gcg.target_embeds.repeat(n, 1, 1)], dim=1)


def probe_expand():
    gcg = GCG(load())
    gcg.setup()
    batch = gcg.expand_prefix(3)
    assert len(batch) == 2 and batch[0][0].shape[0] == 3 and batch[0][0].shape[2] == 5


def probe_candidates():
    gcg = GCG(load())
    gcg.setup()
    batch = [[torch.zeros(3, 1, 5, 64), torch.zeros(3, 1, 5, 64)] for _ in range(2)]
    loss = gcg.compute_candidates_loss(candidates(gcg, 3), batch)
    assert loss.shape == (3,)


def probe_gradient():
    gcg = GCG(load())
    gcg.setup()
    before = gcg.prefix_cache.get_seq_length()
    grad = gcg.compute_token_gradient(optim_ids)
    assert grad.shape == (1, 3, 320)
    assert gcg.prefix_cache.get_seq_length() == before, (  # observe: gc_grad_readonly
        f"gc_grad_readonly: the gradient forward grew the shared prefix cache from {before} to "
        f"{gcg.prefix_cache.get_seq_length()} tokens")


def probe_without_prefix():
    gcg = GCG(load(), use_prefix_cache=False)
    gcg.setup()
    grad = gcg.compute_token_gradient(optim_ids)
    assert grad.shape == (1, 3, 320) and gcg.prefix_cache is None


def probe_prefix():
    gcg = GCG(load())
    gcg.setup()
    assert gcg.prefix_cache.get_seq_length() == 5
