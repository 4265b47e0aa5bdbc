"""The fact kind `backbone_generate`: `generate` (or another `GenerationMixin` method: `_get_logits_processor`,
`_get_stopping_criteria`, ..., which remote code's own `stream_generate` calls) called on a model class of the module
built on a transformers backbone (`class GPT2InferenceModel(GPT2PreTrainedModel)`, `LlamaModel`, `PreTrainedModel`)
that neither lists `GenerationMixin` nor defines the method itself: up to 4.51.3 `PreTrainedModel` derives from
`GenerationMixin`, from 4.52.1 it does not (the release table's `name:transformers.modeling_utils.PreTrainedModel`),
so there the call raises AttributeError. Found by engine/interpreter/backbone_generate.py."""

from __future__ import annotations

from dataclasses import dataclass

from hf_cache_lint.engine.base.findings import Span
from hf_cache_lint.engine.facts import FactKind
from hf_cache_lint.engine.text.text import contains

# Every `GenerationMixin` member some release of the table has (tests/engine/test_backbone_members.py derives it from
# the release table): the calls on a backbone-only class the interpreter records; the rule asks the table whether
# the target's `GenerationMixin` has the one called (a member gone from it is the removed-helper finding's).
MIXIN_MEMBERS = frozenset({
    "_assisted_decoding", "_beam_sample", "_beam_search", "_beam_search_has_unfinished_sequences",
    "_cache_dependant_input_preparation", "_cache_dependant_input_preparation_exporting",
    "_check_early_stop_heuristic", "_constrained_beam_search", "_contrastive_search", "_dola_decoding",
    "_expand_inputs_for_generation", "_expand_multimodal_outputs", "_extract_generation_mode_kwargs",
    "_extract_past_from_model_output", "_flatten_beam_dim", "_gather_beams", "_get_cache", "_get_candidate_generator",
    "_get_decoder_start_token_id", "_get_deprecated_gen_repo", "_get_initial_cache_position",
    "_get_layer_device_map_for_cache_init", "_get_logits_processor", "_get_logits_warper",
    "_get_running_beams_for_next_iteration", "_get_static_cache", "_get_static_cache_init_shape",
    "_get_stopping_criteria", "_get_top_k_continuations", "_greedy_search", "_group_beam_search",
    "_has_unfinished_sequences", "_maybe_initialize_input_ids_for_generation",
    "_maybe_prepare_encoder_kwargs_for_generation", "_merge_criteria_processor_list", "_optimize_model_for_decode",
    "_prefill", "_prefill_chunking", "_prepare_attention_mask_for_generation", "_prepare_cache_for_generation",
    "_prepare_decoder_input_ids_for_generation", "_prepare_encoder_decoder_kwargs_for_generation",
    "_prepare_generated_length", "_prepare_generation_config", "_prepare_model_inputs",
    "_prepare_multimodal_encoder_kwargs_for_generation", "_prepare_position_ids_for_generation",
    "_prepare_special_tokens", "_prepare_static_cache", "_prepare_text_encoder_decoder_kwargs_for_generation",
    "_reorder_cache", "_sample", "_supports_default_dynamic_cache", "_supports_logits_to_keep",
    "_supports_mm_encoder_outputs", "_supports_num_logits_to_keep", "_temporary_reorder_cache", "_unflatten_beam_dim",
    "_update_finished_beams", "_update_model_kwargs_for_generation", "_valid_auto_compile_criteria",
    "_validate_assistant", "_validate_generated_length", "_validate_generation_mode", "_validate_model_class",
    "_validate_model_kwargs", "adjust_generation_fn", "compute_transition_scores", "contrastive_search", "generate",
    "generation_config", "heal_tokens", "load_custom_generate", "output_modalities", "prepare_inputs_for_generation",
})


@dataclass(frozen=True)
class BackboneGenerate:
    """`span`: the `receiver.<member>` of the call; `cls` the module's class, `base` the transformers backbone it
    is built on as written; `class_span` the class's name in its `class` statement; `member` the `GenerationMixin`
    method called."""

    span: Span
    receiver: str
    cls: str
    base: str
    class_span: Span
    member: str = "generate"


def _might_occur(text: str) -> bool:
    # Every member's name holds `generat` or a `_` after the receiver's dot, but four public ones.
    return contains(text, "transformers") and contains(text, "class") and (
        contains(text, "generat") or contains(text, "._") or any(contains(text, w) for w in _PUBLIC_OTHERS))


_PUBLIC_OTHERS = ("compute_transition_scores", "contrastive_search", "heal_tokens", "output_modalities")


KIND: FactKind[BackboneGenerate] = FactKind(
    "backbone_generate", BackboneGenerate, triggers=("generat", "._", *_PUBLIC_OTHERS),
    parse_names=MIXIN_MEMBERS, source="import", might_occur=_might_occur)
