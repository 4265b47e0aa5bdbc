"""trlx's ILQL policy (offline RL for language models, CarperAI): `AutoModelForCausalLMWithILQLHeads` wraps a
transformers causal LM. Its base wrapper caches the names of the base model's forward arguments once
(`inspect.getfullargspec(base_model.forward).args`), and `get_compatible_forward_kwargs` keeps only the keywords
that appear there, "to avoid incompatible args across architectures". `forward` passes input ids, mask, position
ids and `past_key_values` through that filter, asks for hidden states, runs the Q/V heads, and returns the logits,
the heads and `outputs.past_key_values`; the rollout `generate` samples with the advantage-shifted policy, feeding
each step's cache, the sampled token, the grown mask and the next position back into `forward`.

Provenance (mechanisms read; this code is written here, not copied):
- CarperAI/trlx @232866e6d404036d935912fc64ee3edecfc51213
  trlx/models/modeling_ilql.py (AutoModelForCausalLMWithILQLHeads.forward: `forward_kwargs =
  self.get_compatible_forward_kwargs(input_ids=..., attention_mask=..., position_ids=..., past_key_values=...)`,
  `forward_kwargs["output_hidden_states"] = True`, `outputs = self.base_model(**forward_kwargs)`, `return
  outputs.logits, qs, target_qs, vs, outputs.past_key_values`; generate: `position_ids = attention_mask.cumsum(-1) -
  1`, the loop `out = self.forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
  past_key_values=past_key_values)`, `logits, _, target_qs, vs, past_key_values = out`, `input_ids =
  torch.multinomial(pi, num_samples=1)`, `attention_mask = torch.hstack(...)`, `position_ids = (position_ids[:, -1] +
  1).view(-1, 1)`) and trlx/models/modeling_base.py @2318d046b94714b5259b752d20a04826e4cce7f7 (PreTrainedModelWrapper
  .__init__: `self.forward_kwargs = inspect.getfullargspec(self.base_model.forward).args`;
  get_compatible_forward_kwargs: `{k: v for k, v in kwargs.items() if k in self.forward_kwargs}`).
Reduced: `get_compatible_forward_kwargs` drops only the keywords left None (the project's filter by
`getfullargspec(base_model.forward).args` finds no argument of the decorated transformers forward: `["self"]` on
4.57.6, `[]` on 5.24.0, so it drops even `input_ids`; a signature matter outside the cache, not reproduced); the
ILQL heads are two linear layers (Q and V, no target-Q copy or two-Q minimum), greedy instead of top-k sampling over
the shifted policy, no logit mask, no DeepSpeed switch, a Llama base model.
"""

import torch
import torch.nn.functional as F
import transformers


class PreTrainedModelWrapper(torch.nn.Module):
    def __init__(self, base_model):
        super().__init__()
        self.base_model = base_model

    def get_compatible_forward_kwargs(self, **kwargs):
        return {k: v for k, v in kwargs.items() if v is not None or k == "past_key_values"}


class AutoModelForCausalLMWithILQLHeads(PreTrainedModelWrapper):
    def __init__(self, base_model, beta=1.0):
        super().__init__(base_model)
        hidden = base_model.config.hidden_size
        self.q_head = torch.nn.Linear(hidden, base_model.config.vocab_size)
        self.v_head = torch.nn.Linear(hidden, 1)
        self.beta = beta

    def forward(self, input_ids, attention_mask=None, position_ids=None, past_key_values=None):
        forward_kwargs = self.get_compatible_forward_kwargs(input_ids=input_ids, attention_mask=attention_mask,
                                                            position_ids=position_ids, past_key_values=past_key_values)
        forward_kwargs["output_hidden_states"] = True
        outputs = self.base_model(**forward_kwargs)  # clean: tx_base_forward
        hs = outputs.hidden_states[-1]
        return outputs.logits, self.q_head(hs), self.v_head(hs), outputs.past_key_values

    @torch.no_grad()
    def generate(self, input_ids, attention_mask=None, past_key_values=None, max_new_tokens=4, eos_token_id=2):
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        position_ids = attention_mask.cumsum(-1) - 1
        samples = input_ids.clone()
        for _ in range(max_new_tokens):
            out = self.forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,  # clean: tx_rollout_step
                               past_key_values=past_key_values)
            logits, qs, vs, past_key_values = out  # clean: tx_unpack_cache
            adv = qs[:, -1, :] - vs[:, -1, :]
            pi = F.log_softmax(logits[:, -1, :], -1) + self.beta * adv
            input_ids = pi.argmax(-1, keepdim=True)
            samples = torch.hstack((samples, input_ids))
            attention_mask = torch.hstack((attention_mask, torch.ones_like(input_ids)))
            position_ids = (position_ids[:, -1] + 1).view(-1, 1)
        return samples, past_key_values


base = transformers.AutoModelForCausalLM.from_pretrained("EleutherAI/pythia-160m")
policy = AutoModelForCausalLMWithILQLHeads(base).eval()
prompt = torch.tensor([[1, 41, 42, 43, 44]])


def probe_rollout():
    samples, past = policy.generate(prompt, None, None, 4)
    assert samples.shape == (1, 9) and past.get_seq_length() == 8


def probe_prefill():
    logits, qs, vs, past = policy(prompt)
    assert logits.shape[1] == 5 and past.get_seq_length() == 5
