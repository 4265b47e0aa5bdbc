"""ChatGLM3's chat demos (THUDM/ChatGLM3): the Streamlit demo keeps the conversation's `history` and
`past_key_values` in `st.session_state` across reruns (both None / [] at start, reset by the "clear history"
button), and every turn calls `model.stream_chat(tokenizer, prompt, history, past_key_values=past_key_values,
max_length=..., top_p=..., temperature=..., return_past_key_values=True)`, iterating `for response, history,
past_key_values in ...` and storing the last cache back into the session; the CLI demo does the same with locals.

Provenance (mechanisms read; this code is written here, not copied):
- THUDM/ChatGLM3 @732294f42e2625509000daa87a9c3748d0bbb957
  basic_demo/web_demo_streamlit.py (`if "past_key_values" not in st.session_state: st.session_state.past_key_values =
  None`, the clear button resetting history and cache, `past_key_values = st.session_state.past_key_values`, the
  `stream_chat(..., past_key_values=past_key_values, ..., return_past_key_values=True)` loop,
  `st.session_state.past_key_values = past_key_values`), basic_demo/cli_demo.py (`past_key_values, history = None,
  []`, reset on "clear", the same loop).
Reduced: `stream_chat` lives in the model's remote code (not in this repository); here it is a generator over
`generate` that feeds the whole conversation's ids with the kept cache and yields once per turn with the returned
cache; Streamlit's session state is a dict.
"""

import torch
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("THUDM/chatglm3-6b")
model.generation_config.min_new_tokens = 3
session_state = {}


def stream_chat(model, query_ids, history, past_key_values=None, max_new_tokens=3, return_past_key_values=True):
    conversation = torch.cat([history[-1], query_ids], dim=-1) if history else query_ids
    out = model.generate(conversation, past_key_values=past_key_values, max_new_tokens=max_new_tokens,  # clean: gl_generate
                         do_sample=False, return_dict_in_generate=True)
    history = history + [out.sequences]
    if return_past_key_values:
        yield out.sequences[:, conversation.shape[1]:], history, out.past_key_values  # clean: gl_return_cache
    else:
        yield out.sequences[:, conversation.shape[1]:], history


def init_session():
    if "past_key_values" not in session_state:
        session_state["past_key_values"] = None  # clean: gl_init_cache
        session_state["history"] = []


def clear_history():
    session_state["history"] = []
    session_state["past_key_values"] = None  # clean: gl_clear_cache


def turn(query_ids):
    init_session()
    past_key_values = session_state["past_key_values"]
    history = session_state["history"]
    chunks = stream_chat(model, query_ids, history, past_key_values=past_key_values, return_past_key_values=True)  # clean: gl_pass_cache
    for response, history, past_key_values in chunks:
        pass
    session_state["history"] = history
    session_state["past_key_values"] = past_key_values  # clean: gl_store_cache
    return response


def probe_two_turns():
    clear_history()
    turn(torch.tensor([[1, 7, 8, 9]]))
    first = session_state["past_key_values"].get_seq_length()
    turn(torch.tensor([[11, 12]]))
    assert session_state["past_key_values"].get_seq_length() == first + 1 + 2 + 2


def probe_clear():
    turn(torch.tensor([[1, 7, 8, 9]]))
    clear_history()
    turn(torch.tensor([[1, 5]]))
    assert session_state["past_key_values"].get_seq_length() == 2 + 2
