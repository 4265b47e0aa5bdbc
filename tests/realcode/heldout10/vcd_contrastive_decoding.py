"""Visual Contrastive Decoding (VCD, DAMO-NLP-SG): hallucination mitigation for LLaVA-1.5. `evolve_vcd_sampling()`
replaces `transformers.generation.utils.GenerationMixin.sample` with the project's own sampling loop, which for every
step also runs the model on a noised copy of the image (`prepare_inputs_for_generation_cd`, the same inputs with
`images_cd`) and samples from `(1 + alpha) * logits - alpha * logits_cd` under a plausibility cutoff. The LLaVA model
keeps the 4.3x-era hook: `if past_key_values: input_ids = input_ids[:, -1:]`, `inputs_embeds` only when there is no
cache yet, and a dict of its own with `past_key_values`, `use_cache`, `attention_mask` and `images`. The evaluation
script calls `model.generate(input_ids, images=..., images_cd=..., cd_alpha=..., cd_beta=..., do_sample=True,
max_new_tokens=..., use_cache=True)`.

Provenance (mechanisms read; this code is written here, not copied):
- DAMO-NLP-SG/VCD @039af55ecd68005ea767b8579a5766f038a780ad
  vcd_utils/vcd_sample.py (`def sample(self, input_ids, logits_processor=None, ..., **model_kwargs)`, the loop
  `model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)`, `use_cd =
  model_kwargs.get("images_cd") != None`, `model_inputs_cd = self.prepare_inputs_for_generation_cd(input_ids,
  **model_kwargs_cd)`, `cutoff = torch.log(torch.tensor(cd_beta)) + next_token_logits.max(dim=-1,
  keepdim=True).values`, `diffs = (1+cd_alpha)*next_token_logits - cd_alpha*next_token_logits_cd`,
  `self._update_model_kwargs_for_generation(outputs, model_kwargs, ...)`; `def evolve_vcd_sampling():
  transformers.generation.utils.GenerationMixin.sample = sample`),
  experiments/llava/model/language_model/llava_llama.py (LlavaLlamaForCausalLM.forward with `images`, `images_cd`,
  `cd_beta`, `cd_alpha`; prepare_inputs_for_generation / prepare_inputs_for_generation_cd: `if past_key_values:
  input_ids = input_ids[:, -1:]`, `model_inputs.update({"past_key_values": past_key_values, "use_cache": ...,
  "attention_mask": attention_mask, "images": kwargs.get("images", None)})`) and
  experiments/eval/object_hallucination_vqa_llava.py (`evolve_vcd_sampling()` at import, the generate call).
Reduced: the CLIP tower and projector are one linear layer whose output replaces the first prompt positions; no
tokenizer or conversation template; the sampling loop keeps only the contrastive step (no streamer, synced GPUs or
output dicts) and stops after max_new_tokens; the model is a LlamaForCausalLM subclass built from its Vicuna base's
config.
"""

import torch
import transformers
from torch import nn
from transformers import AutoConfig, LlamaForCausalLM
from transformers.modeling_outputs import CausalLMOutputWithPast


def sample(self, input_ids, logits_processor=None, stopping_criteria=None, logits_warper=None, max_length=None,
           pad_token_id=None, eos_token_id=None, **model_kwargs):
    for _ in range(max_length or 4):
        model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)
        outputs = self(**model_inputs, return_dict=True)
        next_token_logits = outputs.logits[:, -1, :]
        model_kwargs_cd = model_kwargs.copy()
        if model_kwargs.get("images_cd") is not None:
            model_inputs_cd = self.prepare_inputs_for_generation_cd(input_ids, **model_kwargs_cd)
            outputs_cd = self(**model_inputs_cd, return_dict=True)
            next_token_logits_cd = outputs_cd.logits[:, -1, :]
            cd_alpha = model_kwargs.get("cd_alpha") or 0.5
            cd_beta = model_kwargs.get("cd_beta") or 0.1
            cutoff = torch.log(torch.tensor(cd_beta)) + next_token_logits.max(dim=-1, keepdim=True).values
            diffs = (1 + cd_alpha) * next_token_logits - cd_alpha * next_token_logits_cd
            next_token_logits = diffs.masked_fill(next_token_logits < cutoff, -float("inf"))
        next_tokens = torch.multinomial(nn.functional.softmax(next_token_logits, dim=-1), num_samples=1)
        input_ids = torch.cat([input_ids, next_tokens], dim=-1)
        model_kwargs = self._update_model_kwargs_for_generation(outputs, model_kwargs)
    return input_ids


def evolve_vcd_sampling():
    transformers.generation.utils.GenerationMixin.sample = sample  # site: vcd_patch_sample


class LlavaLlamaForCausalLM(LlamaForCausalLM):
    def __init__(self, config):
        super().__init__(config)
        self.mm_projector = nn.Linear(12, config.hidden_size)

    def prepare_inputs_labels_for_multimodal(self, input_ids, images):
        embeds = self.get_input_embeddings()(input_ids)
        if images is not None and input_ids.shape[1] > images.shape[1]:
            embeds = torch.cat([self.mm_projector(images).to(embeds.dtype), embeds[:, images.shape[1]:]], dim=1)
        return embeds

    def forward(self, input_ids=None, attention_mask=None, past_key_values=None, inputs_embeds=None, labels=None,
                use_cache=None, output_attentions=None, output_hidden_states=None, images=None, images_cd=None,
                cd_beta=None, cd_alpha=None, return_dict=None):
        if inputs_embeds is None:
            inputs_embeds = self.prepare_inputs_labels_for_multimodal(input_ids, images)
        outputs = self.model(inputs_embeds=inputs_embeds, attention_mask=attention_mask,  # clean: vcd_decoder_call
                             past_key_values=past_key_values, use_cache=use_cache, return_dict=True)
        logits = self.lm_head(outputs[0])
        return CausalLMOutputWithPast(logits=logits, past_key_values=outputs.past_key_values)  # clean: vcd_output_cache

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, attention_mask=None, inputs_embeds=None,
                                      **kwargs):
        if past_key_values:  # site: vcd_slice_new_tokens
            input_ids = input_ids[:, -1:]
        if inputs_embeds is not None and past_key_values is None:
            model_inputs = {"inputs_embeds": inputs_embeds}
        else:
            model_inputs = {"input_ids": input_ids}
        model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),  # site: vcd_hook_drops_cache
                             "attention_mask": attention_mask, "images": kwargs.get("images", None)})
        return model_inputs

    def prepare_inputs_for_generation_cd(self, input_ids, past_key_values=None, attention_mask=None,
                                         inputs_embeds=None, **kwargs):
        if past_key_values:
            input_ids = input_ids[:, -1:]
        model_inputs = {"input_ids": input_ids}
        model_inputs.update({"past_key_values": past_key_values, "use_cache": kwargs.get("use_cache"),
                             "attention_mask": attention_mask, "images": kwargs.get("images_cd", None)})
        return model_inputs


evolve_vcd_sampling()
config = AutoConfig.from_pretrained("lmsys/vicuna-7b-v1.5")
model = LlavaLlamaForCausalLM(config).eval()
input_ids = torch.tensor([[1, 0, 0, 50, 51, 52]])
image = torch.randn(1, 2, 12)
image_cd = image + 0.5 * torch.randn(1, 2, 12)


def probe_contrastive_generate():
    torch.manual_seed(0)
    calls = []
    plain = model.prepare_inputs_for_generation_cd
    model.prepare_inputs_for_generation_cd = lambda *a, **k: calls.append(1) or plain(*a, **k)
    with torch.inference_mode():
        output_ids = model.generate(input_ids, images=image, images_cd=image_cd, cd_alpha=1.0, cd_beta=0.1,
                                    do_sample=True, max_new_tokens=3, min_new_tokens=3, use_cache=True)
    assert output_ids.shape == (1, 9)
    assert calls, "vcd_patch_sample: the contrastive pass never ran"  # observe: vcd_patch_sample


def step_lengths():
    lengths = []
    handle = model.register_forward_pre_hook(
        lambda m, args, kwargs: lengths.append((kwargs.get("input_ids") if kwargs.get("inputs_embeds") is None
                                                else kwargs["inputs_embeds"]).shape[1]), with_kwargs=True)
    with torch.inference_mode():
        model.generate(input_ids, images=image, do_sample=False, max_new_tokens=3, min_new_tokens=3, use_cache=True)
    handle.remove()
    return lengths


def probe_prefill_length():
    lengths = step_lengths()
    assert lengths[0] == 6, f"vcd_slice_new_tokens: the prompt step ran {lengths[0]} tokens"  # observe: vcd_slice_new_tokens


def probe_decode_lengths():
    lengths = step_lengths()
    assert lengths[1:] == [1, 1], f"vcd_hook_drops_cache: decode steps ran {lengths[1:]} tokens"  # observe: vcd_hook_drops_cache


def probe_forward_steps():
    with torch.inference_mode():
        first = model(input_ids=input_ids, images=image, use_cache=True)
        second = model(input_ids=input_ids[:, -1:], past_key_values=first.past_key_values, use_cache=True)
    assert second.past_key_values.get_seq_length() == 7
