"""Med-ChatGLM (SCIR-HI/Med-ChatGLM): ChatGLM-6B fine-tuned on Chinese medical knowledge instructions. The repository
vendors the ChatGLM-6B modeling file and `infer.py` imports it directly (`from modeling_chatglm import
ChatGLMForConditionalGeneration`, `.from_pretrained("./model")`, no Auto class), then loops
`model.chat(tokenizer, "问题：" + q + "\n答案：", max_length=256, history=[])`. The vendored
`ChatGLMForConditionalGeneration(ChatGLMPreTrainedModel)` over `PreTrainedModel` keeps legacy tuple caches
(`past_key_values[0][0].shape[0]`, `layer_past` concatenation), overrides `prepare_inputs_for_generation(input_ids,
past=None, past_key_values=None, attention_mask=None, **kwargs)`, and brings its own decoding: `chat` builds the
`[Round i]` prompt and calls `self.generate(**input_ids, **gen_kwargs)` with an `InvalidScoreLogitsProcessor`;
`stream_generate` re-implements sampling from generate's private helpers (`self._get_logits_processor(...)`,
`self._get_stopping_criteria(...)`, `self._get_logits_warper(generation_config)`, then
`self.prepare_inputs_for_generation`, `self(**model_inputs)`, `self._update_model_kwargs_for_generation(...)`).

Provenance (mechanisms read; this code is written here, not copied):
- SCIR-HI/Med-ChatGLM @84269cfcf6a55516bdf2809aa97f0006abd9668a
  modeling_chatglm.py (imports from transformers.generation.utils, InvalidScoreLogitsProcessor,
  ChatGLMForConditionalGeneration.prepare_inputs_for_generation / chat / stream_generate); infer.py.
Reduced: the GLM blocks are one tuple-cache attention layer (no 2D positions, no [gMASK] bookkeeping), the tokenizer
is the oracle's word-level stand-in, the model is built from a config instead of `./model`.
"""

import copy

import torch
from torch import nn
from transformers import AutoTokenizer, LlamaConfig
from transformers.generation.logits_process import LogitsProcessor
from transformers.generation.utils import GenerationConfig, LogitsProcessorList, StoppingCriteriaList  # clean: mc_gen_imports
from transformers.modeling_outputs import CausalLMOutputWithPast
from transformers.modeling_utils import PreTrainedModel


class InvalidScoreLogitsProcessor(LogitsProcessor):
    def __call__(self, input_ids, scores):
        if torch.isnan(scores).any() or torch.isinf(scores).any():
            scores.zero_()
            scores[..., 5] = 5e4
        return scores


class ChatGLMPreTrainedModel(PreTrainedModel):
    config_class = LlamaConfig
    base_model_prefix = "transformer"


class ChatGLMForConditionalGeneration(ChatGLMPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.kv = nn.Linear(config.hidden_size, 2 * config.hidden_size)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    def forward(self, input_ids=None, position_ids=None, attention_mask=None, past_key_values=None, use_cache=None,
                return_dict=True, **kwargs):
        hidden = self.word_embeddings(input_ids)
        k, v = self.kv(hidden).chunk(2, dim=-1)
        if past_key_values is not None:
            k = torch.cat([past_key_values[0][0], k], dim=1)  # clean: mc_layer_past
            v = torch.cat([past_key_values[0][1], v], dim=1)
        attn = torch.softmax(hidden @ k.transpose(1, 2), dim=-1) @ v
        return CausalLMOutputWithPast(logits=self.lm_head(hidden + attn), past_key_values=((k, v),))

    def prepare_inputs_for_generation(self, input_ids, past=None, past_key_values=None, attention_mask=None,
                                      **kwargs):
        if past is not None or past_key_values is not None:
            if past is None:
                past = past_key_values
            return {"input_ids": input_ids[:, -1:], "past_key_values": past}
        return {"input_ids": input_ids, "attention_mask": attention_mask}

    def chat(self, tokenizer, query, history=None, max_length=32, num_beams=1, do_sample=False, top_p=0.7,
             temperature=0.95, logits_processor=None, **kwargs):
        if history is None:
            history = []
        if logits_processor is None:
            logits_processor = LogitsProcessorList()
        logits_processor.append(InvalidScoreLogitsProcessor())
        gen_kwargs = {"max_length": max_length, "num_beams": num_beams, "do_sample": do_sample, "top_p": top_p,
                      "temperature": temperature, "logits_processor": logits_processor, **kwargs}
        prompt = query
        for i, (old_query, response) in enumerate(history):
            prompt = f"[Round {i}] {old_query} {response} " + prompt
        input_ids = tokenizer([prompt], return_tensors="pt", padding=True)
        outputs = self.generate(**input_ids, **gen_kwargs)  # site: mc_chat_generate
        outputs = outputs.tolist()[0][len(input_ids["input_ids"][0]):]
        response = tokenizer.decode(outputs).strip()
        return response, history + [(query, response)]

    @torch.no_grad()
    def stream_generate(self, input_ids, generation_config=None, logits_processor=None, stopping_criteria=None,
                        **kwargs):
        if generation_config is None:
            generation_config = GenerationConfig(max_length=input_ids.shape[-1] + 4)
        generation_config = copy.deepcopy(generation_config)
        model_kwargs = generation_config.update(**kwargs)
        logits_processor = logits_processor if logits_processor is not None else LogitsProcessorList()
        stopping_criteria = stopping_criteria if stopping_criteria is not None else StoppingCriteriaList()
        logits_processor = self._get_logits_processor(  # site: mc_private_helpers
            generation_config=generation_config,
            input_ids_seq_length=input_ids.shape[-1],
            encoder_input_ids=input_ids,
            prefix_allowed_tokens_fn=None,
            logits_processor=logits_processor,
        )
        while input_ids.shape[-1] < generation_config.max_length:
            model_inputs = self.prepare_inputs_for_generation(input_ids, **model_kwargs)
            outputs = self(**model_inputs, return_dict=True)
            next_tokens = torch.argmax(logits_processor(input_ids, outputs.logits[:, -1, :]), dim=-1)
            input_ids = torch.cat([input_ids, next_tokens[:, None]], dim=-1)
            model_kwargs["past_key_values"] = outputs.past_key_values
            yield input_ids


tokenizer = AutoTokenizer.from_pretrained("./model", trust_remote_code=True)
config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                     num_attention_heads=4, pad_token_id=0)
torch.manual_seed(0)
model = ChatGLMForConditionalGeneration(config).eval()


def probe_forward():
    ids = tokenizer(["问题：发烧 答案："], return_tensors="pt").input_ids
    with torch.no_grad():
        first = model(ids[:, :-1], use_cache=True)
        out = model(ids[:, -1:], past_key_values=first.past_key_values, use_cache=True)
    assert out.past_key_values[0][0].shape[1] == ids.shape[1]


def probe_chat():
    response, history = model.chat(tokenizer, "问题：头痛怎么办 答案：", max_length=32, history=[])
    assert len(history) == 1


def probe_stream():
    ids = tokenizer(["问题：发烧 答案："], return_tensors="pt").input_ids
    outs = list(model.stream_generate(ids))
    assert outs[-1].shape[-1] == ids.shape[-1] + 4
