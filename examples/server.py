"""Serving: the static cache is configured at import time, the prefix cache is passed per request."""
import copy

import torch
from fastapi import FastAPI, Request
from transformers import AutoModelForCausalLM, AutoTokenizer, DynamicCache

MODEL_ID = "meta-llama/Llama-3.2-1B-Instruct"
tokenizer = AutoTokenizer.from_pretrained(MODEL_ID)
model = AutoModelForCausalLM.from_pretrained(MODEL_ID, device_map="auto", torch_dtype="auto")
model.generation_config.cache_implementation = "static"

SYSTEM = "Answer briefly. "
prefix = DynamicCache()
with torch.no_grad():
    prefix = model(**tokenizer(SYSTEM, return_tensors="pt").to(model.device), past_key_values=prefix).past_key_values

app = FastAPI()


@app.post("/generate")
async def generate(request: Request):
    data = await request.json()
    inputs = tokenizer(SYSTEM + data["text"], return_tensors="pt").to(model.device)
    out = model.generate(**inputs, past_key_values=copy.deepcopy(prefix), max_new_tokens=64)
    return {"text": tokenizer.decode(out[0], skip_special_tokens=True)}
