"""YuE's lyrics-to-song inference: stage 1 (a Llama-architecture LM over text and XCodec tokens) generates each
song section with `model.generate` sampling under classifier-free guidance (`guidance_scale`), a repetition penalty
and `LogitsProcessorList` of `BlockTokenRangeProcessor`s that forbid the text vocabulary, the previous sections'
output concatenated in front of each new prompt; stage 2 refines the codec codebooks with a teacher-forcing loop that
appends one stage-1 frame to the prompt and generates exactly 7 tokens each time.

Provenance (mechanisms read; this code is written here, not copied):
- multimodal-art-projection/YuE @9f1394bae1d8d218fea750c1413c2d9d731c7310
  inference/infer.py (`BlockTokenRangeProcessor`: the scores of a range of token ids set to minus infinity;
  stage 1: `model.generate(input_ids=input_ids, max_new_tokens=max_new_tokens, min_new_tokens=100, do_sample=True,
  top_p=top_p, temperature=temperature, repetition_penalty=repetition_penalty, eos_token_id=mmtokenizer.eoa,
  pad_token_id=mmtokenizer.eoa, logits_processor=LogitsProcessorList([...]), guidance_scale=guidance_scale)`,
  `raw_output = torch.cat([raw_output, prompt_ids, output_seq[:, input_ids.shape[-1]:]], dim=1)`; `stage2_generate`:
  `model.generate(input_ids=input_ids, min_new_tokens=7, max_new_tokens=7, eos_token_id=..., pad_token_id=...,
  logits_processor=block_list)` per frame, `prompt_ids = stage2_output`).
Reduced: token ids instead of the multimodal tokenizer and codec; small token ranges and lengths; two sections; two
stage-2 frames; one model for both stages.
"""

import torch
from transformers import AutoModelForCausalLM, LogitsProcessor, LogitsProcessorList

model = AutoModelForCausalLM.from_pretrained("m-a-p/YuE-s1-7B-anneal-en-cot")
model.eval()
EOA = 2


class BlockTokenRangeProcessor(LogitsProcessor):
    def __init__(self, start_id, end_id):
        self.start_id, self.end_id = start_id, end_id

    def __call__(self, input_ids, scores):
        return scores.index_fill(1, torch.arange(self.start_id, self.end_id), float("-inf"))


def stage1(sections, max_new_tokens=4, guidance_scale=1.5):
    raw_output = None
    for i, prompt_ids in enumerate(sections):
        input_ids = torch.cat([raw_output, prompt_ids], dim=1) if i > 0 else prompt_ids
        with torch.no_grad():
            output_seq = model.generate(  # clean: yu_stage1_generate
                input_ids=input_ids,
                max_new_tokens=max_new_tokens,
                min_new_tokens=max_new_tokens,
                do_sample=True,
                top_p=0.93,
                temperature=1.0,
                repetition_penalty=1.1,
                eos_token_id=EOA,
                pad_token_id=EOA,
                logits_processor=LogitsProcessorList([BlockTokenRangeProcessor(0, 100)]),
                guidance_scale=guidance_scale,
            )
        if i > 0:
            raw_output = torch.cat([raw_output, prompt_ids, output_seq[:, input_ids.shape[-1]:]], dim=1)
        else:
            raw_output = output_seq
    return raw_output


def stage2(codec_ids, prompt_ids):
    block_list = LogitsProcessorList([BlockTokenRangeProcessor(0, 100), BlockTokenRangeProcessor(300, 320)])
    for frames_idx in range(codec_ids.shape[1]):
        cb0 = codec_ids[:, frames_idx:frames_idx + 1]
        prompt_ids = torch.cat([prompt_ids, cb0], dim=1)
        input_ids = prompt_ids
        with torch.no_grad():
            stage2_output = model.generate(input_ids=input_ids, min_new_tokens=7, max_new_tokens=7,  # clean: yu_stage2_generate
                                           eos_token_id=EOA, pad_token_id=EOA, logits_processor=block_list)
        assert stage2_output.shape[1] - prompt_ids.shape[1] == 7
        prompt_ids = stage2_output
    return prompt_ids


def probe_stage1():
    torch.manual_seed(0)
    out = stage1([torch.tensor([[1, 150, 151, 152]]), torch.tensor([[153, 154]])])
    assert out.shape[1] == 4 + 4 + 2 + 4


def probe_stage2():
    out = stage2(torch.tensor([[210, 211]]), torch.tensor([[1, 120, 121]]))
    assert out.shape[1] == 3 + 2 * 8
