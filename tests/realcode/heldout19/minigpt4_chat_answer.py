"""MiniGPT-4's chat: the language model is a `LlamaForCausalLM` subclass whose `forward` is rewritten with an explicit
4.3x parameter list (input ids, mask, positions, `past_key_values`, embeddings, labels, `use_cache`, output flags,
`return_dict`, plus a loss `reduction`) that it forwards to `self.model`; an answer is generated from the
conversation's context embeddings (`inputs_embeds`, the image features spliced in) with the generate keywords
gathered by `answer_prepare`, either directly or in a thread feeding a text streamer.

Provenance (mechanisms read; this code is written here, not copied):
- Vision-CAIR/MiniGPT-4 @d94738a7626ec43eba6c2cddf3cd2043f1a9689a
  minigpt4/models/modeling_llama.py (`class LlamaForCausalLM(LlamaForCausalLMOrig)`: `def forward(self, input_ids=
  None, attention_mask=None, position_ids=None, past_key_values=None, inputs_embeds=None, labels=None, use_cache=None,
  output_attentions=None, output_hidden_states=None, return_dict=None, reduction="mean")`, `outputs = self.model(
  input_ids=..., attention_mask=..., position_ids=..., past_key_values=past_key_values, inputs_embeds=...,
  use_cache=use_cache, ...)`, `logits = self.lm_head(hidden_states).float()`, the loss with `reduction`,
  `CausalLMOutputWithPast(..., past_key_values=outputs.past_key_values, ...)`) and minigpt4/conversation/
  conversation.py (`Chat.answer_prepare`: `generation_kwargs = dict(inputs_embeds=embs, max_new_tokens=...,
  stopping_criteria=self.stopping_criteria, num_beams=..., do_sample=True, min_length=..., top_p=...,
  repetition_penalty=..., length_penalty=..., temperature=...)`; `answer`: `self.model_generate(**generation_dict)
  [0]`; `stream_answer`: `TextIteratorStreamer(...)`, `Thread(target=self.model_generate, kwargs=generation_kwargs)`;
  `model_generate`: `self.model.llama_model.generate(*args, **kwargs)`).
Reduced: the docstring decorators and their imports (`LLAMA_INPUTS_DOCSTRING`, `_CONFIG_FOR_DOC`) dropped, no vision
encoder or Q-Former (the context embeddings are the embedded prompt ids), no `pretraining_tp` split, greedy
decoding with `min_new_tokens` added (the oracle's random models), a stop-word criterion on one id.
"""

from threading import Thread

import torch
from torch.nn import CrossEntropyLoss
from transformers import AutoTokenizer, StoppingCriteria, StoppingCriteriaList, TextIteratorStreamer
from transformers.modeling_outputs import CausalLMOutputWithPast
from transformers.models.llama.modeling_llama import LlamaForCausalLM as LlamaForCausalLMOrig


class LlamaForCausalLM(LlamaForCausalLMOrig):
    def forward(
        self,
        input_ids=None,
        attention_mask=None,
        position_ids=None,
        past_key_values=None,  # site: mg_forward_params
        inputs_embeds=None,
        labels=None,
        use_cache=None,
        output_attentions=None,
        output_hidden_states=None,
        return_dict=None,
        reduction="mean",
    ):
        outputs = self.model(
            input_ids=input_ids,
            attention_mask=attention_mask,
            position_ids=position_ids,
            past_key_values=past_key_values,
            inputs_embeds=inputs_embeds,
            use_cache=use_cache,
            output_attentions=output_attentions,
            output_hidden_states=output_hidden_states,
        )
        logits = self.lm_head(outputs[0]).float()
        loss = None
        if labels is not None:
            shift_logits = logits[..., :-1, :].contiguous().view(-1, self.config.vocab_size)
            shift_labels = labels[..., 1:].contiguous().view(-1)
            loss = CrossEntropyLoss(reduction=reduction)(shift_logits, shift_labels)
            if reduction == "none":
                loss = loss.view(logits.size(0), -1).mean(1)
        return CausalLMOutputWithPast(loss=loss, logits=logits, past_key_values=outputs.past_key_values)


class StoppingCriteriaSub(StoppingCriteria):
    def __init__(self, stops=()):
        super().__init__()
        self.stops = stops

    def __call__(self, input_ids, scores, **kwargs):
        for stop in self.stops:
            if torch.all(input_ids[:, -len(stop):] == stop).item():
                return True
        return False


llama_model = LlamaForCausalLM.from_pretrained("Vision-CAIR/vicuna-7b").eval()
llama_tokenizer = AutoTokenizer.from_pretrained("Vision-CAIR/vicuna-7b")


class Chat:
    def __init__(self):
        self.stopping_criteria = StoppingCriteriaList([StoppingCriteriaSub(stops=[torch.tensor([99999])])])

    def answer_prepare(self, embs, max_new_tokens=4, num_beams=1, min_length=1, top_p=0.9,
                       repetition_penalty=1.05, length_penalty=1, temperature=1.0):
        return dict(
            inputs_embeds=embs,
            max_new_tokens=max_new_tokens,
            min_new_tokens=max_new_tokens,
            stopping_criteria=self.stopping_criteria,
            num_beams=num_beams,
            do_sample=False,
            min_length=min_length,
            top_p=top_p,
            repetition_penalty=repetition_penalty,
            length_penalty=length_penalty,
            temperature=float(temperature),
        )

    def model_generate(self, *args, **kwargs):
        return llama_model.generate(*args, **kwargs)  # observe: mg_forward_params

    def answer(self, embs, **kargs):
        generation_dict = self.answer_prepare(embs, **kargs)
        return self.model_generate(**generation_dict)[0]


chat = Chat()
context = llama_model.get_input_embeddings()(torch.tensor([[1, 40, 41, 42, 43]]))


def probe_loss():
    ids = torch.tensor([[1, 40, 41, 42, 43]])
    out = llama_model(input_ids=ids, labels=ids, reduction="none")  # clean: mg_loss_forward
    assert out.loss.shape == (1,)


def probe_answer():
    llama_model.generation_config.min_new_tokens = 4
    tokens = chat.answer(context.detach())
    assert tokens.shape[0] == 4
