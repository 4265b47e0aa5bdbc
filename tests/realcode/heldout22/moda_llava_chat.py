"""MODA (KwaiVGI/MODA): a multimodal chat model built on the LLaVA-NeXT code. Its `LlavaLlamaForCausalLM` overrides
`generate(inputs, images, image_sizes, modalities, **kwargs)` to embed the prompt itself (`embed_tokens` for text,
the image-merging helper otherwise) and call `super().generate(position_ids=..., attention_mask=...,
inputs_embeds=..., vflag=None, tflag=None, **kwargs)`; its `forward` has an explicit keyword list (`past_key_values`,
`images`, `image_sizes`, `modalities`, `dpo_forward`, `cache_position=None`) and no `**kwargs`, runs the image
merging when `inputs_embeds is None` and hands `past_key_values` on to `super().forward(...)`; its
`prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs)` pops the image
keywords, calls `super().prepare_inputs_for_generation(input_ids, past_key_values=past_key_values,
inputs_embeds=inputs_embeds, **kwargs)` and puts them back.

Provenance (mechanisms read; this code is written here, not copied):
- KwaiVGI/MODA @aa627aed8db210c672f4f742b0556b9a6cda554e (2025-07-10): moda/model/language_model/llava_llama.py
  (`LlavaLlamaForCausalLM.forward`, `generate`, `prepare_inputs_for_generation`), llava_qwen.py, llava_gemma.py,
  llava_mistral.py and llava_mixtral.py (the same three methods on `Qwen2ForCausalLM` / `GemmaForCausalLM` /
  `MistralForCausalLM` / `MixtralForCausalLM`; Gemma's forward hands `cache_position` on),
  the mixin they import from llava_arch.py, `LlavaMetaForCausalLM` (not read: it holds the image merging, left out).
Reduced: the stock Llama stands for the base class llava_llama.py imports, modeling_llama_local.py's copy of the
4.40 Llama (its own attention, `DynamicCache.from_legacy_cache` / `to_legacy_cache` round trips and a
`prepare_inputs_for_generation` calling `past_key_values.get_max_length()`): that copy is left out, so the
override's `super()` is transformers' own; no vision tower, so the image-merging helper is its text-only
pass-through (`images is None`); the vision flags (`vflag` / `tflag`, always None here) are carried as the
repository does; the `dpo_forward` branch and `generate_with_flag` are left out; CPU, greedy.
"""

import torch
from transformers import (AutoTokenizer, GemmaForCausalLM, LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM,
                          Qwen2ForCausalLM)


class LlavaLlamaForCausalLM(LlamaForCausalLM):
    def prepare_inputs_labels_for_multimodal(self, input_ids, position_ids, attention_mask, past_key_values, labels,
                                             images, modalities=("image",), image_sizes=None):
        if images is None:
            return input_ids, position_ids, attention_mask, past_key_values, None, labels  # clean: md_mm_passthrough
        raise NotImplementedError("image merging")

    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        position_ids=None,
        past_key_values=None,  # site: md_forward_keywords
        inputs_embeds=None,
        labels=None,
        use_cache=None,
        output_attentions=None,
        output_hidden_states=None,
        images=None,
        image_sizes=None,
        return_dict=None,
        modalities=("image",),
        dpo_forward=None,
        cache_position=None,
    ):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds,
             labels) = self.prepare_inputs_labels_for_multimodal(
                input_ids, position_ids, attention_mask, past_key_values, labels, images, modalities, image_sizes)
        return super().forward(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=past_key_values,  # clean: md_pass_cache
            inputs_embeds=inputs_embeds,
            labels=labels,
            use_cache=use_cache,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
            return_dict=return_dict,
        )

    @torch.no_grad()
    def generate(self, inputs=None, images=None, image_sizes=None, modalities=("image",), **kwargs):
        position_ids = kwargs.pop("position_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        if "inputs_embeds" in kwargs:
            raise NotImplementedError("`inputs_embeds` is not supported")
        if images is not None:
            raise NotImplementedError("image merging")
        inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds,  # observe: md_forward_keywords
                                vflag=None, tflag=None, **kwargs)

    def get_model(self):
        return self.model

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        vflag = kwargs.pop("vflag", None)
        tflag = kwargs.pop("tflag", None)
        inputs = super().prepare_inputs_for_generation(
            input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        if vflag is not None:
            inputs["vflag"] = vflag
        if tflag is not None:
            inputs["tflag"] = tflag
        return inputs


class LlavaMetaForCausalLM:
    def get_model(self):
        return self.model

    def prepare_inputs_labels_for_multimodal(self, input_ids, position_ids, attention_mask, past_key_values, labels,
                                             images, modalities=("image",), image_sizes=None):
        if images is None:
            return input_ids, position_ids, attention_mask, past_key_values, None, labels
        raise NotImplementedError("image merging")


class LlavaQwenForCausalLM(Qwen2ForCausalLM, LlavaMetaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None, inputs_embeds=None,  # site: md_qwen_forward
                labels=None, use_cache=None, output_attentions=None, output_hidden_states=None, images=None,
                image_sizes=None, return_dict=None, modalities=("image",), dpo_forward=False, cache_position=None):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds,
             labels) = self.prepare_inputs_labels_for_multimodal(
                input_ids, position_ids, attention_mask, past_key_values, labels, images, modalities, image_sizes)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, output_attentions=output_attentions,
                               output_hidden_states=output_hidden_states, return_dict=return_dict)

    @torch.no_grad()
    def generate(self, inputs=None, images=None, image_sizes=None, modalities=("image",), **kwargs):
        position_ids = kwargs.pop("position_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)  # observe: md_qwen_forward

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        inputs = super().prepare_inputs_for_generation(
            input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        return inputs


class LlavaGemmaForCausalLM(GemmaForCausalLM, LlavaMetaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None, inputs_embeds=None,  # site: md_gemma_forward
                labels=None, use_cache=None, output_attentions=None, output_hidden_states=None, images=None,
                image_sizes=None, return_dict=None, cache_position=None):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds,
             labels) = self.prepare_inputs_labels_for_multimodal(
                input_ids, position_ids, attention_mask, past_key_values, labels, images, image_sizes)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, output_attentions=output_attentions,
                               output_hidden_states=output_hidden_states, return_dict=return_dict,
                               cache_position=cache_position)  # clean: md_gemma_cache_position

    @torch.no_grad()
    def generate(self, inputs=None, images=None, image_sizes=None, **kwargs):
        position_ids = kwargs.pop("position_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)  # observe: md_gemma_forward

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        inputs = super().prepare_inputs_for_generation(
            input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        return inputs


class LlavaMistralForCausalLM(MistralForCausalLM, LlavaMetaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None, inputs_embeds=None,  # site: md_mistral_forward
                labels=None, use_cache=None, output_attentions=None, output_hidden_states=None, images=None,
                image_sizes=None, return_dict=None, cache_position=None):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds,
             labels) = self.prepare_inputs_labels_for_multimodal(
                input_ids, position_ids, attention_mask, past_key_values, labels, images, image_sizes)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, output_attentions=output_attentions,
                               output_hidden_states=output_hidden_states, return_dict=return_dict)

    @torch.no_grad()
    def generate(self, inputs=None, images=None, image_sizes=None, **kwargs):
        position_ids = kwargs.pop("position_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)  # observe: md_mistral_forward

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        inputs = super().prepare_inputs_for_generation(
            input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        return inputs


class LlavaMixtralForCausalLM(MixtralForCausalLM, LlavaMetaForCausalLM):
    def forward(self, input_ids=None, attention_mask=None, position_ids=None, past_key_values=None, inputs_embeds=None,  # site: md_mixtral_forward
                labels=None, use_cache=None, output_attentions=None, output_hidden_states=None, images=None,
                image_sizes=None, return_dict=None, modalities=("image",),
                dpo_forward=None, cache_position=None):
        if inputs_embeds is None:
            (input_ids, position_ids, attention_mask, past_key_values, inputs_embeds,
             labels) = self.prepare_inputs_labels_for_multimodal(
                input_ids, position_ids, attention_mask, past_key_values, labels, images, modalities, image_sizes)
        return super().forward(input_ids=input_ids, attention_mask=attention_mask, position_ids=position_ids,
                               past_key_values=past_key_values, inputs_embeds=inputs_embeds, labels=labels,
                               use_cache=use_cache, output_attentions=output_attentions,
                               output_hidden_states=output_hidden_states, return_dict=return_dict)

    @torch.no_grad()
    def generate(self, inputs=None, images=None, image_sizes=None, **kwargs):
        position_ids = kwargs.pop("position_ids", None)
        attention_mask = kwargs.pop("attention_mask", None)
        inputs_embeds = self.get_model().embed_tokens(inputs)
        return super().generate(position_ids=position_ids, attention_mask=attention_mask, inputs_embeds=inputs_embeds, **kwargs)  # observe: md_mixtral_forward

    def prepare_inputs_for_generation(self, input_ids, past_key_values=None, inputs_embeds=None, **kwargs):
        images = kwargs.pop("images", None)
        image_sizes = kwargs.pop("image_sizes", None)
        inputs = super().prepare_inputs_for_generation(
            input_ids, past_key_values=past_key_values, inputs_embeds=inputs_embeds, **kwargs)
        if images is not None:
            inputs["images"] = images
        if image_sizes is not None:
            inputs["image_sizes"] = image_sizes
        return inputs


qwen = LlavaQwenForCausalLM.from_pretrained("lmms-lab/llava-onevision-qwen2-7b-ov", torch_dtype=torch.float32).eval()
gemma = LlavaGemmaForCausalLM.from_pretrained("Intel/llava-gemma-2b", torch_dtype=torch.float32).eval()
mistral = LlavaMistralForCausalLM.from_pretrained("liuhaotian/llava-v1.6-mistral-7b", torch_dtype=torch.float32).eval()
mixtral = LlavaMixtralForCausalLM.from_pretrained("lmms-lab/llava-mixtral-8x7b", torch_dtype=torch.float32).eval()
model = LlavaLlamaForCausalLM.from_pretrained("KwaiVGI/MODA-8B", torch_dtype=torch.float32).eval()
tokenizer = AutoTokenizer.from_pretrained("KwaiVGI/MODA-8B")


@torch.no_grad()
def probe_chat():
    inputs = tokenizer("w8 w16 w24 w32 w40", return_tensors="pt")
    out = model.generate(inputs["input_ids"], images=None, attention_mask=inputs["attention_mask"],  # observe: md_forward_keywords
                         max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[1] == 3


def probe_train_forward():
    ids = tokenizer("w8 w16 w24 w32 w40", return_tensors="pt").input_ids
    out = model(input_ids=ids, labels=ids, images=None)
    assert out.loss is not None and out.logits.shape[1] == ids.shape[1]


@torch.no_grad()
def probe_qwen_chat():
    inputs = tokenizer("w8 w16 w24 w32 w40", return_tensors="pt")
    out = qwen.generate(inputs["input_ids"], images=None, attention_mask=inputs["attention_mask"],
                        max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[1] == 3


@torch.no_grad()
def probe_gemma_chat():
    inputs = tokenizer("w8 w16 w24 w32 w40", return_tensors="pt")
    out = gemma.generate(inputs["input_ids"], images=None, attention_mask=inputs["attention_mask"],
                         max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[1] == 3


def probe_gemma_train_forward():
    ids = tokenizer("w8 w16 w24 w32 w40", return_tensors="pt").input_ids
    out = gemma(input_ids=ids, labels=ids, images=None)
    assert out.loss is not None and out.logits.shape[1] == ids.shape[1]


@torch.no_grad()
def probe_mistral_chat():
    inputs = tokenizer("w8 w16 w24 w32 w40", return_tensors="pt")
    out = mistral.generate(inputs["input_ids"], images=None, attention_mask=inputs["attention_mask"],
                       max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[1] == 3


@torch.no_grad()
def probe_mixtral_chat():
    inputs = tokenizer("w8 w16 w24 w32 w40", return_tensors="pt")
    out = mixtral.generate(inputs["input_ids"], images=None, attention_mask=inputs["attention_mask"],
                       max_new_tokens=3, min_new_tokens=3, do_sample=False)
    assert out.shape[1] == 3
