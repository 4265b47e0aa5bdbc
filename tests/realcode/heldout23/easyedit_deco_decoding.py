"""EasyEdit's decoding-time interventions (zjunlp/EasyEdit): DeCo, the dynamic-correction decoding its steering
editor switches on by assigning `transformers.generation.utils.GenerationMixin.generate = deco_generate`, runs its own
copy of a 4.38-era greedy loop: it builds `model_kwargs` (attention mask, `use_cache`, `output_hidden_states`) as
generate's step 4 did, then at each step calls `self.prepare_inputs_for_generation(input_ids, **model_kwargs)`, runs
the model, contrasts the final layer's logits with the early-exit layers' (`lm_head(norm(hidden_states[layer]))`), and
carries the cache with `self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=...)`; its
beam branch reorders the cache with `self._temporary_reorder_cache(past, beam_idx)` and its sampling branch asks
`self._get_logits_warper(generation_config)`. The editing evaluations generate with `generate_fast`, a manual top-k
loop that feeds `model(input_ids=input_ids[:, cur_context], past_key_values=past_key_values, use_cache=True)` only
the positions not yet cached and keeps `model_out.past_key_values`.

Provenance (mechanisms read; this code is written here, not copied):
- zjunlp/EasyEdit @14cea8245f06715684592ab55184939b99d70784
  easyeditor/models/deco/generate.py (`generate`'s `model_kwargs["use_cache"] = generation_config.use_cache`,
  `_deco_greedy_decoding`: `model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)`, `outputs =
  self(**model_inputs, return_dict=True, ...)`, `lm_head(norm(outputs.hidden_states[candidate_premature_layer]))`,
  `final_token_logits = next_token_logits + alpha * premature_max_probs * selected_premature_layer_logits`,
  `model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=self.config.
  is_encoder_decoder)`; `_deco_beam_search`: `model_kwargs["past_key_values"] = self._temporary_reorder_cache(
  model_kwargs["past_key_values"], beam_idx)`; the sample branch's `logits_warper = self._get_logits_warper(
  generation_config)`), easyeditor/editors/steer_editor.py (`transformers.generation.utils.GenerationMixin.generate
  = deco_generate`) and easyeditor/util/generate.py (`generate_fast`: `past_key_values, cur_context = None, slice(0,
  attention_mask.sum(1).min().item())`, `model(input_ids=input_ids[:, cur_context], attention_mask=None if 'llama' in
  model.name_or_path.lower() ... else attention_mask[:, cur_context], past_key_values=past_key_values,
  use_cache=True)`, `past_key_values = model_out.past_key_values`, `cur_context = slice(cur_context.stop,
  cur_context.stop + 1)`).
Reduced: DeCo's candidate selection kept, its logits processors and stopping criteria replaced by a fixed number of
steps; the beam branch reduced to one reorder after a forward; generate_fast without padding or sampling (argmax).
"""

import torch
import transformers
from torch.nn import functional as F
from transformers import AutoModelForCausalLM, GenerationConfig


def deco_generate(self, input_ids, attention_mask=None, alpha=0.6, early_exit_layers=(0, 1), max_new_tokens=3,
                  threshold_top_k=5, **kwargs):
    model_kwargs = {"attention_mask": attention_mask if attention_mask is not None else torch.ones_like(input_ids),
                    "use_cache": True}
    lm_head, norm = self.lm_head, self.model.norm
    for _ in range(max_new_tokens):
        model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)
        outputs = self(**model_inputs, return_dict=True, output_hidden_states=True)
        next_token_logits = outputs.logits[:, -1, :]
        probs = F.softmax(next_token_logits, dim=-1)
        _, candidate_tokens_ids = torch.topk(probs, dim=-1, k=threshold_top_k)
        early = torch.stack([lm_head(norm(outputs.hidden_states[i]))[:, -1, :] for i in early_exit_layers])
        early_probs = F.softmax(early, dim=-1)[:, :, candidate_tokens_ids[0]]
        premature = early_probs.max().item()
        selected = early_exit_layers[int(early_probs.argmax()) // early_probs.size(-1)]
        final_token_logits = next_token_logits + alpha * premature * lm_head(norm(outputs.hidden_states[selected]))[:, -1, :]
        next_tokens = torch.argmax(final_token_logits, dim=-1)
        input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
        model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs, is_encoder_decoder=self.config.is_encoder_decoder)  # site: ee_update_kwargs
    return input_ids, model_kwargs


def deco_beam_reorder(self, outputs, model_kwargs, beam_idx):
    model_kwargs["past_key_values"] = outputs.past_key_values
    model_kwargs["past_key_values"] = self._temporary_reorder_cache(model_kwargs["past_key_values"], beam_idx)  # site: ee_temporary_reorder
    return model_kwargs


def deco_sample_warpers(self, generation_config):
    return self._get_logits_warper(generation_config)  # site: ee_logits_warper


transformers.generation.utils.GenerationMixin.generate = deco_generate
model = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-2-7b-chat-hf").eval()


def generate_fast(model, input_ids, attention_mask, max_out_len):
    past_key_values, cur_context = None, slice(0, attention_mask.sum(1).min().item())
    with torch.no_grad():
        while input_ids.size(1) < max_out_len:
            model_out = model(input_ids=input_ids[:, cur_context], attention_mask=None if "llama" in model.name_or_path.lower() else attention_mask[:, cur_context], past_key_values=past_key_values, use_cache=True)  # clean: ee_fast_step
            past_key_values = model_out.past_key_values  # clean: ee_fast_keep
            new_toks = model_out.logits[:, -1, :].argmax(-1, keepdim=True)
            if cur_context.stop == input_ids.size(1):
                attention_mask = torch.cat([attention_mask, attention_mask.new_ones(input_ids.size(0), 1)], dim=1)
                input_ids = torch.cat([input_ids, new_toks], dim=1)
            cur_context = slice(cur_context.stop, cur_context.stop + 1)
    return input_ids, past_key_values


prompt = torch.tensor([[1, 80, 81, 82, 83]])


def probe_deco():
    fed = []
    handle = model.model.embed_tokens.register_forward_hook(lambda module, args, out: fed.append(args[0].shape[1]))
    with torch.no_grad():
        ids, _ = model.generate(prompt, max_new_tokens=3, min_new_tokens=3)
    handle.remove()
    assert ids.shape == (1, 8)
    assert fed == [5, 1, 1], "ee_update_kwargs: the steps after the first ran the whole sequence again"  # observe: ee_update_kwargs


def probe_beam_reorder():
    with torch.no_grad():
        outputs = model(input_ids=prompt.repeat(2, 1), use_cache=True)
    deco_beam_reorder(model, outputs, {}, torch.tensor([1, 0]))


def probe_warpers():
    deco_sample_warpers(model, GenerationConfig(do_sample=True, top_k=5))


def probe_fast():
    ids, past = generate_fast(model, prompt, torch.ones_like(prompt), 8)
    assert ids.shape == (1, 8) and past.get_seq_length() == 7
