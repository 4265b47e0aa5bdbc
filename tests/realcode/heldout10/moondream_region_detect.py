"""moondream2's object detection (vikhyat/moondream, the Hugging Face remote-code model): `detect` embeds the image
and the "Detect: <query>" prompt, then, for each object, asks the Phi text model for one token at a time with
`generate(inputs_embeds=..., past_key_values=past_key_values, attention_mask=..., return_dict_in_generate=True,
output_hidden_states=True, max_new_tokens=1)`: the last hidden state of that step is decoded by the region model into
an x coordinate, then a y coordinate, then a size; each decoded value is encoded back into an embedding appended to
`inputs_embeds`, and the generate output's cache (`output["past_key_values"]`) is carried into the next call, so
every call only has to run the new embedding. `answer_question` is a plain `generate(inputs_embeds=...,
attention_mask=...)`.

Provenance (mechanisms read; this code is written here, not copied):
- vikhyat/moondream @cd29cd24ae471de41411d209f46cdfed5a236431
  moondream/hf/moondream.py (Moondream.detect: `past_key_values = None`, the loop `output =
  self.text_model.generate(inputs_embeds=inputs_embeds, past_key_values=past_key_values,
  attention_mask=attention_mask, return_dict_in_generate=True, output_hidden_states=True, **generate_config)` with
  `"max_new_tokens": 1`, `x_coord_hidden = output["hidden_states"][0][-1][:, -1, :]`, `inputs_embeds =
  torch.cat([inputs_embeds, x_coord_encoded.unsqueeze(0)], dim=1)`, `past_key_values = output["past_key_values"]`;
  Moondream.generate / answer_question: `self.text_model.generate(inputs_embeds=inputs_embeds,
  attention_mask=attention_mask, **generate_config)`).
Reduced: the vision encoder is a linear layer over random patches; the region model is two linear decoders and
encoders; one coordinate and the size per object (x, then size), two objects, no end-of-sequence check; the
generate config also fixes `min_new_tokens` (the oracle's model is random); the text model is transformers' Phi.
"""

import torch
from transformers import PhiForCausalLM


class RegionModel(torch.nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.coordinate_decoder = torch.nn.Linear(hidden, 1024)
        self.coordinate_encoder = torch.nn.Linear(1, hidden)
        self.size_decoder = torch.nn.Linear(hidden, 2 * 1024)
        self.size_encoder = torch.nn.Linear(2, hidden)

    def decode_coordinate(self, hidden):
        return self.coordinate_decoder(hidden)

    def encode_coordinate(self, coord):
        return self.coordinate_encoder(coord.view(-1, 1))

    def decode_size(self, hidden):
        return self.size_decoder(hidden).view(-1, 2, 1024)

    def encode_size(self, size):
        return self.size_encoder(size.view(-1, 2))


class Moondream(torch.nn.Module):
    def __init__(self, text_model):
        super().__init__()
        self.text_model = text_model
        hidden = text_model.config.hidden_size
        self.vision_encoder = torch.nn.Linear(24, hidden)
        self.region_model = RegionModel(hidden)

    def input_embeds(self, prompt_ids, image_embeds):
        text_emb = self.text_model.get_input_embeddings()
        return torch.cat([text_emb(prompt_ids[:, :1]), image_embeds, text_emb(prompt_ids[:, 1:])], dim=1)

    def answer_question(self, image, question_ids, max_new_tokens=4):
        inputs_embeds = self.input_embeds(question_ids, self.vision_encoder(image))
        attention_mask = torch.ones(inputs_embeds.shape[:2])
        with torch.no_grad():
            return self.text_model.generate(inputs_embeds=inputs_embeds, attention_mask=attention_mask,  # clean: md_answer
                                            max_new_tokens=max_new_tokens, min_new_tokens=max_new_tokens,
                                            pad_token_id=0)

    def detect(self, image, query_ids, max_objects=2):
        inputs_embeds = self.input_embeds(query_ids, self.vision_encoder(image))
        generate_config = {"eos_token_id": 2, "bos_token_id": 1, "pad_token_id": 1, "max_new_tokens": 1,
                           "min_new_tokens": 1}
        past_key_values = None
        generated_boxes = []
        with torch.no_grad():
            while len(generated_boxes) < max_objects:
                attention_mask = torch.ones(inputs_embeds.shape[:2])
                output = self.text_model.generate(inputs_embeds=inputs_embeds, past_key_values=past_key_values,  # clean: md_coordinate_step
                                                  attention_mask=attention_mask, return_dict_in_generate=True,
                                                  output_hidden_states=True, **generate_config)
                x_hidden = output["hidden_states"][0][-1][:, -1, :]
                x_decoded = torch.argmax(self.region_model.decode_coordinate(x_hidden), dim=-1).float() / 1024
                inputs_embeds = torch.cat([inputs_embeds, self.region_model.encode_coordinate(x_decoded).unsqueeze(0)],
                                          dim=1)
                past_key_values = output["past_key_values"]  # clean: md_carry_cache

                attention_mask = torch.ones(inputs_embeds.shape[:2])
                output = self.text_model.generate(inputs_embeds=inputs_embeds, past_key_values=past_key_values,  # clean: md_size_step
                                                  attention_mask=attention_mask, return_dict_in_generate=True,
                                                  output_hidden_states=True, **generate_config)
                size_hidden = output["hidden_states"][0][-1][:, -1, :]
                size_decoded = torch.argmax(self.region_model.decode_size(size_hidden), dim=-1).float() / 1024
                inputs_embeds = torch.cat([inputs_embeds, self.region_model.encode_size(size_decoded).unsqueeze(0)],
                                          dim=1)
                past_key_values = output["past_key_values"]  # clean: md_carry_size
                generated_boxes.append({"x": x_decoded[0].item(), "w": size_decoded[0][0].item()})
        return generated_boxes, past_key_values


model = Moondream(PhiForCausalLM.from_pretrained("vikhyatk/moondream2")).eval()
image = torch.randn(1, 3, 24)


def probe_answer():
    out = model.answer_question(image, torch.tensor([[1, 40, 41, 42]]))
    assert out.shape == (1, 4)


def probe_detect():
    boxes, past = model.detect(image, torch.tensor([[1, 50, 51]]))
    assert len(boxes) == 2 and past.get_seq_length() == 9
