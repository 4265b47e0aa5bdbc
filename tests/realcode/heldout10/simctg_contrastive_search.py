"""SimCTG's contrastive search (yxuansu, GPT-2 version): each step takes the top-k candidates of the next-token
distribution, enlarges the cache to k beams (`enlarge_past_key_values`: for every layer, for every tensor in it,
`unsqueeze(1).expand(...)` to batch*k rows, collected into lists), runs the model once on the k candidates with that
cache, scores each candidate by probability minus its maximum cosine similarity to the context's hidden states, and
keeps the selected beam's rows of every key and value (`select_past_key_values`, lists again). The first step runs
the prompt with `past_key_values=None` and keeps `output.past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- yxuansu/SimCTG @6087aa81f12b7fb38956a128d770868e0c655821
  simctg/utlisgpt.py (ContrastiveDecodingOneStepFast: `output = model(input_ids=ids, past_key_values=past_key_values,
  use_cache=True, output_hidden_states=True)` on the first step, `past_key_values = output.past_key_values`,
  `past_key_values = enlarge_past_key_values(past_key_values, beam_width)`, `output = model(input_ids=top_k_ids.view(-1,
  1), attention_mask=torch.ones_like(top_k_ids.view(-1, 1)), past_key_values=past_key_values,
  output_hidden_states=True, use_cache=True)`, `past_key_values = select_past_key_values(past_key_values, beam_width,
  selected_idx)`; enlarge_past_key_values / select_past_key_values: `for layer in past_key_values: items = [] for item
  in layer: bsz, num_head, seq_len, esz = item.size()`, `new_key_values.append(items)`; ranking_fast).
Reduced: batch size one, no tokenizer or decoding loop; the first step, the enlarge and select helpers and the
candidates' forward are reached by their own probes (a step stops at the first that raises): the list cache a step
builds is fed to the model by `probe_candidates`, from the lists the project's own helper makes of a legacy pair
tuple.
"""

import torch
import torch.nn.functional as F
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("gpt2-large").eval()


def ranking_fast(context_hidden, next_hidden, next_top_k_probs, alpha, beam_width):
    norm_context_hidden = context_hidden / context_hidden.norm(dim=2, keepdim=True)
    norm_next_hidden = next_hidden / next_hidden.norm(dim=2, keepdim=True)
    cosine_matrix = torch.matmul(norm_context_hidden, norm_next_hidden.transpose(1, 2)).squeeze(-1)
    scores, _ = torch.max(cosine_matrix, dim=-1)
    scores = (1.0 - alpha) * next_top_k_probs.view(-1) - alpha * scores
    return torch.stack(torch.split(scores, beam_width)).max(dim=-1)[1]


def enlarge_past_key_values(past_key_values, beam_width):
    new_key_values = []
    for layer in past_key_values:  # site: sc_enlarge_layers
        items = []
        for item in layer:
            bsz, num_head, seq_len, esz = item.size()  # observe: sc_enlarge_layers
            items.append(item.unsqueeze(1).expand(-1, beam_width, -1, -1, -1).reshape(bsz * beam_width, num_head,
                                                                                      seq_len, esz))
        new_key_values.append(items)
    return new_key_values


def select_past_key_values(past_key_values, beam_width, selected_idx):
    new_key_values = []
    for layer in past_key_values:  # site: sc_select_layers
        items = []
        for item in layer:
            bsz_and_beam, num_head, seq_len, esz = item.size()  # observe: sc_select_layers
            bsz = int(bsz_and_beam // beam_width)
            item = torch.stack(torch.split(item, beam_width, dim=0))
            items.append(item[range(bsz), selected_idx, :, :, :])
        new_key_values.append(items)
    return new_key_values


def run_candidates(top_k_ids, past_key_values):
    return model(input_ids=top_k_ids.view(-1, 1), attention_mask=torch.ones_like(top_k_ids.view(-1, 1)),  # site: sc_list_into_forward
                 past_key_values=past_key_values, output_hidden_states=True, use_cache=True)


@torch.no_grad()
def first_step(ids, past_key_values=None):
    output = model(input_ids=ids, past_key_values=past_key_values, use_cache=True, output_hidden_states=True)  # clean: sc_first_step
    past_key_values = output.past_key_values  # clean: sc_keep_first
    return past_key_values, output.hidden_states[-1], output.logits[:, -1, :]


@torch.no_grad()
def contrastive_step(ids, beam_width, alpha, past_key_values, last_hidden_states, logit_for_next_step,
                     first_step_=False):
    if first_step_:
        past_key_values, last_hidden_states, logit_for_next_step = first_step(ids, past_key_values)
    bsz, seqlen, embed_dim = last_hidden_states.size()
    next_probs = F.softmax(logit_for_next_step, dim=-1)
    _, top_k_ids = torch.topk(logit_for_next_step, dim=-1, k=beam_width)
    top_k_probs = torch.gather(next_probs, dim=1, index=top_k_ids)
    past_key_values = enlarge_past_key_values(past_key_values, beam_width)
    output = run_candidates(top_k_ids, past_key_values)
    past_key_values = output.past_key_values
    logits = output.logits[:, -1, :]
    next_hidden = output.hidden_states[-1]
    context_hidden = last_hidden_states.unsqueeze(1).expand(-1, beam_width, -1, -1).reshape(bsz * beam_width, seqlen,
                                                                                            embed_dim)
    selected_idx = ranking_fast(context_hidden, next_hidden, top_k_probs, alpha, beam_width)
    next_id = top_k_ids[range(len(top_k_ids)), selected_idx].unsqueeze(-1)
    next_hidden = torch.stack(torch.split(next_hidden.squeeze(dim=1), beam_width))[range(bsz), selected_idx, :]
    last_hidden_states = torch.cat([last_hidden_states, next_hidden.unsqueeze(1)], dim=1)
    past_key_values = select_past_key_values(past_key_values, beam_width, selected_idx)
    logits = torch.stack(torch.split(logits, beam_width))[range(bsz), selected_idx, :]
    return next_id, past_key_values, last_hidden_states, logits


prompt = torch.tensor([[11, 25, 37, 49, 50]])


def probe_first_step():
    past, hidden, logits = first_step(prompt)
    assert past.get_seq_length() == 5 and hidden.shape[1] == 5


def probe_enlarge():
    past, _, _ = first_step(prompt)
    enlarged = enlarge_past_key_values(past, 2)
    assert enlarged[0][0].shape[0] == 2


def probe_candidates():
    with torch.no_grad():
        output = model(input_ids=prompt, use_cache=True)
    legacy = tuple((layer.keys, layer.values) for layer in output.past_key_values.layers)
    enlarged = enlarge_past_key_values(legacy, 2)
    with torch.no_grad():
        out = run_candidates(torch.tensor([[7, 8]]), enlarged)
    assert out.logits.shape[0] == 2


def probe_select():
    with torch.no_grad():
        output = model(input_ids=prompt.expand(2, -1), use_cache=True)
    selected = select_past_key_values(output.past_key_values, 2, torch.tensor([1]))
    assert selected[0][0].shape[0] == 1
