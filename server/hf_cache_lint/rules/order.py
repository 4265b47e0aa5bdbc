"""Which of generate's own checks fails first, so one call gets the one finding its real run raises.

`generate()` validates in a fixed order (transformers/generation/utils.py `generate`): the generation
config (invalid `cache_implementation`, HFC004), then the model kwargs (a wrong or misspelled keyword,
HFC003/HFC005), then the generation mode (assisted generation on a stateful model), then the cache
(the conflict HFC001, a tuple HFC002, `"quantized"` on an encoder-decoder HFC004).
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache

from hf_cache_lint.engine.base import process_state
from hf_cache_lint.engine.environment.api_changes import REMOVED_GENERATE_KEYWORDS
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.output.analysis import GenerateCall, Keyword, ModelInfo, SpreadKeyword
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS
from hf_cache_lint.rules.common import accepts

# Keywords generate consumes itself, GenerationConfig fields, and inputs every model's forward takes:
# never typos, however close they are to a cache keyword (`use_cache` is close to `cache`).
KNOWN_KEYWORDS = frozenset({
    "inputs", "input_ids", "attention_mask", "position_ids", "inputs_embeds", "token_type_ids", "cache_position",
    "generation_config", "logits_processor", "stopping_criteria", "prefix_allowed_tokens_fn", "synced_gpus",
    "assistant_model", "streamer", "negative_prompt_ids", "negative_prompt_attention_mask", "use_model_defaults",
    "custom_generate", "tokenizer", "assistant_tokenizer", "use_cache", "cache_implementation", "cache_config",
    "return_legacy_cache", "max_cache_len", "prefill_chunk_size", "max_new_tokens", "max_length", "min_length",
    "min_new_tokens", "do_sample", "num_beams", "temperature", "top_k", "top_p", "return_dict_in_generate",
    "output_scores", "output_logits", "output_attentions", "output_hidden_states", "pad_token_id", "eos_token_id",
    "bos_token_id", "logits_to_keep", "num_return_sequences", "repetition_penalty", "compile_config",
    "disable_compile", "decoder_input_ids", "encoder_outputs", "labels", "pixel_values", "image_sizes",
    "past_key_values", "cache_params", "cache", "generate_kwargs", "return_full_text", "return_tensors",
    "return_text", "clean_up_tokenization_spaces", "prefix", "handle_long_generation", "continue_final_message",
    "stop_strings", "prompt_lookup_num_tokens", "assistant_early_exit", "num_assistant_tokens",
    # the time-series models' input (TimeSeriesTransformer, Informer, Autoformer, PatchTST, PatchTSMixer, ...:
    # their forward and their own generate take it), 0.85 close to `past_key_values`
    "past_values",
})
# What a misspelling most likely meant (difflib cutoff: `past_key_valyes`, `cache_implmentation`, `cache_param`
# and `past_key_value` match; `use_cache` vs `cache` (0.71) does not).
TYPO_TARGETS = ("past_key_values", "cache_params", "cache", "cache_implementation", "cache_config", "use_cache")
TYPO_CUTOFF = 0.8


@lru_cache(maxsize=4096)  # a function of the name alone, asked for every keyword of every call at each keystroke
def intended(name: str) -> str | None:
    """The cache-related keyword `name` is a misspelling of, or None."""
    if name in KNOWN_KEYWORDS:
        return None
    got = difflib.get_close_matches(name, TYPO_TARGETS, n=1, cutoff=TYPO_CUTOFF)
    return got[0] if got else None


def misspelled(call: GenerateCall) -> list[tuple[Keyword, str]]:
    """Written keywords that generate will reject as unused, each with what it meant (None values pass)."""
    return [(kw, meant) for kw in call.keywords
            if kw.value_text != "None" and (meant := intended(kw.name)) is not None]


def removed_keywords(target: Target, call: GenerateCall) -> list[tuple[Keyword, str]]:
    """Written keywords the target version removed from generate, each with the release that removed it
    (a None value passes `_validate_model_kwargs`)."""
    # The table's membership first (a dict lookup): the method call is asked only of the few names it holds.
    return [(kw, removed) for kw in call.keywords if kw.name in REMOVED_GENERATE_KEYWORDS
            and kw.value_text != "None" and (removed := target.removed_keyword(kw.name)) is not None]


def spread_misspelled(call: GenerateCall) -> list[tuple[SpreadKeyword, str]]:
    """Keywords a dict carries into the call that generate will reject as unused, each with what it meant."""
    return [(sk, meant) for sk in call.spread_keywords if not sk.none and (meant := intended(sk.name)) is not None]


def spread_removed(target: Target, call: GenerateCall) -> list[tuple[SpreadKeyword, str]]:
    """Keywords a dict carries into the call that the target version removed, each with the release."""
    return [(sk, removed) for sk in call.spread_keywords if sk.name in REMOVED_GENERATE_KEYWORDS
            and not sk.none and (removed := target.removed_keyword(sk.name)) is not None]


def rejected_generate_kwargs(call: GenerateCall) -> Keyword | None:
    """`generate_kwargs=` on a text-generation pipeline call: that pipeline hands it to generate as is."""
    if call.kind != "pipeline" or call.task != "text-generation":
        return None
    return next((kw for kw in call.keywords if kw.name == "generate_kwargs" and kw.value_text != "None"), None)


def ci_rejected(target: Target, call: GenerateCall) -> bool:
    """The effective `cache_implementation` fails validation, before any other check (HFC004)."""
    ci = call.cache_implementation
    return ci is not None and ci.value != "" and target.rejects_cache_implementation(ci.value)


# kwargs_rejected's answers, by the call's identity (call, target, answer): most rules ask it of every call of a
# check. A GenerateCall is frozen, so the answer for one object and target never changes; the entry holds the call,
# so its id is not reused while the entry stands. After each check (`forget`: checking/source.py) they become the
# last check's, asked next of the calls the next check gives again (a keystroke's replayed functions record the
# same GenerateCall objects: engine/interpreter/replay.py), and are dropped after that; so only the calls of the
# last check outlive it here (plain data, no tree), and none once full.
_REJECTED: dict[int, tuple[GenerateCall, Target, bool]] = {}
_LAST_REJECTED: dict[int, tuple[GenerateCall, Target, bool]] = {}
_REJECTED_MAX = 1024


def forget() -> None:
    """The check that asked is over: its answers are kept for the next check only (older ones go)."""
    global _REJECTED, _LAST_REJECTED
    _LAST_REJECTED, _REJECTED = _REJECTED, {}


def _forget_all() -> None:
    global _REJECTED, _LAST_REJECTED
    _LAST_REJECTED, _REJECTED = {}, {}


def kwargs_rejected(target: Target, call: GenerateCall) -> bool:
    """Some keyword fails `_validate_model_kwargs` (HFC003's wrong cache keyword, HFC005's typos)."""
    key = id(call)
    got = _REJECTED.get(key)
    if got is not None and got[0] is call and got[1] == target:
        return got[2]
    got = _LAST_REJECTED.get(key)
    if got is not None and got[0] is call and got[1] == target:
        _REJECTED[key] = got
        return got[2]
    answer = _kwargs_rejected(target, call)
    if len(_REJECTED) >= _REJECTED_MAX:
        _REJECTED.clear()
    _REJECTED[id(call)] = (call, target, answer)
    return answer


def _kwargs_rejected(target: Target, call: GenerateCall) -> bool:
    wrong = any(arg.kind != "none" and keyword_rejected(target, call, arg.keyword) for arg in call.cache_args)
    return wrong or bool(misspelled(call)) or bool(removed_keywords(target, call)) \
        or rejected_generate_kwargs(call) is not None or bool(spread_misspelled(call)) \
        or bool(spread_removed(target, call))


def keyword_rejected(target: Target, call: GenerateCall, keyword: str) -> bool:
    """Before 5.24 generate takes the cache under one name per model class; the others are unused kwargs."""
    if keyword not in CACHE_KEYWORDS or target.unified_cache_keyword:
        return False
    if keyword == "cache_params" and call.model.class_name is None and call.model.checkpoint is None:
        return False  # a model the linter cannot see may well be a Mamba
    return not accepts(target, call, keyword)


def quote_like(literal: str, value: str) -> str:
    """`value` as a string literal with the prefix and quotes of `literal` ('x' -> 'value')."""
    i = 0
    while i < len(literal) and literal[i] not in "'\"":
        i += 1
    prefix = literal[:i].replace("f", "").replace("F", "")
    quote = literal[i:i + 3] if literal[i:i + 3] in ('"""', "'''") else literal[i:i + 1] or '"'
    return f"{prefix}{quote}{value}{quote}"


_ENC_DEC_CLASS = re.compile(
    r"^(T5|MT5|UMT5|LongT5|Bart|MBart|PLBart|Pegasus|PegasusX|BigBirdPegasus|Marian|M2M100|NllbMoe|Blenderbot"
    r"|BlenderbotSmall|Whisper|ProphetNet|XLMProphetNet|LED|FSMT|SwitchTransformers|Mvp|Speech2Text|SeamlessM4T\w*"
    r"|EncoderDecoder|SpeechEncoderDecoder|VisionEncoderDecoder)(Model|For\w+)$")
_ENC_DEC_ID = re.compile(r"(^|/)(flan-)?(t5|mt5|umt5|long-?t5|bart|mbart|pegasus|opus-mt|m2m100|nllb|blenderbot"
                         r"|whisper)([-_.]|$)", re.IGNORECASE)


def is_encoder_decoder(model: ModelInfo) -> bool:
    """Loaded through AutoModelForSeq2SeqLM, an encoder-decoder class, or a well-known seq2seq checkpoint."""
    if model.encoder_decoder or (model.class_name and _ENC_DEC_CLASS.match(model.class_name)):
        return True
    return model.class_name is None and bool(model.checkpoint and _ENC_DEC_ID.search(model.checkpoint))


process_state.resettable("rules/order.py", "_REJECTED", _forget_all)
process_state.resettable("rules/order.py", "_LAST_REJECTED", _forget_all)
