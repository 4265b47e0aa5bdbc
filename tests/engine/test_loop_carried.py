"""Values the interpreter carries where code keeps a cache between steps (tuples29d, issue 29): a name bound under
a test of a loop variable at one iteration (`if step == 0: past = ...`) reaching the next one's `else:`
(control_flow.py `_forget_tests_of`); `out.past_key_values` of a prefill's or a decode step's forward
(expressions.py); a cache parked on the model between calls (statements.py); the decoder inside a ForCausalLM
(`lm.model(...)`); `isinstance(x, tuple)` on None or a cache (narrowing.py `cache_is_builtin`)."""

from __future__ import annotations

from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target

HEAD = ("import torch\nfrom transformers import AutoModelForCausalLM\n\n"
        'lm = AutoModelForCausalLM.from_pretrained("meta-llama/Llama-3.2-1B")\n')
PAIRS = ("\n\ndef pairs(out):\n    got = []\n    for layer in out.past_key_values:\n"
         "        got.append((layer[0][:, :, :2, :], layer[1][:, :, :2, :]))\n    return tuple(got)\n\n\n")


def lines(text: str, code: str, version: str = "5.24.0") -> list[int]:
    result = check_source(HEAD + text, "t.py", context=Context(target=Target.of(version)))
    return sorted(f.span.start.line - HEAD.count("\n") for f in result.findings if f.code == code)


def test_a_name_bound_at_step_zero_reaches_the_next_steps_else() -> None:
    loop = ("past = None\nfor step in range(3):\n    if step == 0:\n        past = pairs(lm(torch.ones(1, 4, dtype=torch.long)))\n"
            "    else:\n        lm(torch.ones(1, 1, dtype=torch.long), past_key_values=past, use_cache=True)\n")
    assert lines(PAIRS + loop, "HFC002") == [PAIRS.count("\n") + 6]


def test_outside_a_loop_the_same_tests_still_exclude_each_other() -> None:
    text = ("past = None\nok = len(__name__) > 3\nif ok:\n    past = pairs(lm(torch.ones(1, 4, dtype=torch.long)))\n"
            "if not ok:\n    lm(torch.ones(1, 1, dtype=torch.long), past_key_values=past, use_cache=True)\n")
    assert lines(PAIRS + text, "HFC002") == []


def test_the_decoder_inside_a_causal_lm_is_a_forward() -> None:
    text = "out = lm(torch.ones(1, 4, dtype=torch.long))\nlm.model(torch.ones(1, 1, dtype=torch.long), past_key_values=pairs(out))\n"
    assert lines(PAIRS + text, "HFC002") == [PAIRS.count("\n") + 2]


def test_a_cache_parked_on_the_model_by_either_forward_is_read_back() -> None:
    text = ("\n\ndef turn(ids):\n    past = lm._parked if hasattr(lm, '_parked') else None\n"
            "    n = 0 if past is None else past[0][0].shape[-2]\n"
            "    for i in range(2):\n        if i == 0:\n            out = lm(ids[:, n:], past_key_values=past, use_cache=True)\n"
            "        else:\n            out = lm(ids[:, -1:], past_key_values=past, use_cache=True)\n"
            "        past = out.past_key_values\n    lm._parked = past\n\n\n"
            "turn(torch.ones(1, 4, dtype=torch.long))\nturn(torch.ones(1, 6, dtype=torch.long))\n")
    assert lines(text, "HFC009") == [5]
    assert lines(text, "HFC009", "4.57.6") == []


def test_isinstance_tuple_of_none_or_a_cache_is_false() -> None:
    text = ("\n\nclass Engine:\n    def __init__(self):\n        self.past = None\n\n"
            "    def step(self, ids):\n        past = self.past\n        if isinstance(past, tuple):\n"
            "            self.past = tuple(tuple(t[..., :-1, :] for t in layer) for layer in past)\n"
            "        out = lm(input_ids=ids, past_key_values=self.past, use_cache=True)\n"
            "        self.past = out.past_key_values\n")
    assert lines(text, "HFC002") == []
    assert lines(text, "HFC002", "4.57.6") == []
