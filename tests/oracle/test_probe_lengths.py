"""Every oracle snippet that generates with `max_new_tokens` fixes its length with `min_new_tokens`.

The oracle's tiny models are random per environment: without `min_new_tokens`, the end-of-sequence token can end
generation early in one environment and not in another, and a label flips (a recall-set probe did so in CI,
tests/realcode/cases/hook_prepare_inputs.py). Pure: reads the snippets' text, runs nothing.

- A call with a `max_new_tokens=` keyword, or a dict literal with a "max_new_tokens" key (generate, a
  GenerationConfig, a kwargs dict, a pipeline call), also carries `min_new_tokens`.
- Not a call of a function the snippet defines itself (its own decode loop: `generate_stream(..., max_new_tokens=4)`);
  that function's body is read like the rest.
- A real-code case's labelled statement (`# site:` / `# clean:`) is the project's code and stays as written: its
  probe fixes the length instead (`model.generation_config.min_new_tokens = n`, or the keyword on the probe's own
  call). MARKED lists those, with how; tests/oracle/test_recall_set.py proves their labels on real transformers.

The rule examples are not held to it: they are the rules' user-facing docs (docs/rules/), and no outcome a test
checks depends on the length. With a worker that pushed every generate to end at its first token (tidy31's report,
2026-12-06), the 533 example and fix runs at 5.24.0 gave the same outcomes, and at 4.57.6 all but one of 603 (with
the own cases): HFC010 valid 8 raises its note's AttributeError (`seen_tokens`) there only when its override sees
a second step; 4.57.6 is outside its `versions` (5.24.0, 5.25.0), the only releases test_rule_examples checks it on.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from .release_cases import CASES as RELEASE_CASES
from .runner import Snippet
from .suites import own_snippets, recall_set

MARK = re.compile(r"#\s*(site|clean):\s*(\w+)\s*$")
BY_PROBE = "the probe sets model.generation_config.min_new_tokens before the call"
MARKED: dict[str, str] = {
    **{f"recall:eval_harness_kwargs.py:{m}": BY_PROBE for m in (
        "eval_use_model_defaults", "eval_return_legacy_cache", "eval_misspelled_cache_kw", "eval_plain")},
    "recall:generate_kwargs_init.py:harness_return_legacy_cache": BY_PROBE,
    "recall:generate_kwargs_init.py:harness_clean_kwargs": BY_PROBE,
    "recall:generate_kwargs_init.py:harness_config_legacy": "the generate call after it passes min_new_tokens",
    **{f"recall:rl_rollout.py:{m}": BY_PROBE + " (3, then 2 for the continuation)" for m in (
        "rl_generate", "rl_continue", "rl_tuple_generate", "rl_rebuilt_generate")},
    "recall:config_from_settings.py:config_settings": "the probe's generate call passes min_new_tokens",
    "recall:manual_decode_loop.py:loop_reference": BY_PROBE,
    "recall:model_generation_config.py:model_config_update_legacy": "the probe's generate call passes min_new_tokens",
    "recall:model_generation_config.py:model_config_update": BY_PROBE + ", after configure_static",
    "heldout:cache_registry.py:reg_generate": BY_PROBE,
    "heldout:kv_quant_runner.py:kq_cache_config": BY_PROBE,
    "heldout:prompt_prefix_reuse.py:pp_generate_copy": BY_PROBE,
    "heldout:prompt_prefix_reuse.py:pp_prompt_lookup": BY_PROBE,
    "heldout:rl_rollout_reuse.py:rl_extend": "the probe sets policy.generation_config.min_new_tokens",
    "heldout2:prepare_inputs_wrap.py:pw_user_cache": BY_PROBE,
    "heldout2:rollout_prefix_share.py:ro_config": "the probe sets the Roller's config.min_new_tokens",
    "heldout9:swift_layer_skip_kv.py:sw_baseline_generate": BY_PROBE,
    "heldout9:longlora_stream_infer.py:ll_stream_generate": BY_PROBE,
    "heldout10:serverless_live_migration.py:sv_return_legacy": "the probe sets the destination model's "
    "generation_config.min_new_tokens (1, as its max_new_tokens)",
    "heldout11:turborag_chunk_cache.py:tr_tuple_generate": BY_PROBE,
    "heldout11:chatglm3_session_chat.py:gl_generate": "the case's set-up sets model.generation_config.min_new_tokens",
    "heldout12:videollama2_qwen2_infer.py:vl_mm_infer": "the case's set-up sets model.generation_config.min_new_tokens "
    "(5, as its probes' max_new_tokens)",
    "heldout12:longbench_pred_patch.py:lb_generate_samsum": "load_model_and_tokenizer sets "
    "model.generation_config.min_new_tokens (4, as the probes' max_gen)",
    "heldout13:glm4voice_token_stream.py:gv_thread_generate": BY_PROBE,
    "heldout14:lmql_transformers_backend.py:lq_generate_args": BY_PROBE,
    "heldout16:lckv_layer_cache.py:lk_chat_generate": BY_PROBE + " (2, as its turns' length)",
    "heldout16:yarn_scaled_llama.py:yr_pipeline_generate": "the probe sets the loaded model's "
    "generation_config.min_new_tokens (3, as the pipeline call's max_new_tokens)",
    "heldout19:alpaca_farm_ppo_models.py:af_respond": "the probe sets base.generation_config.min_new_tokens (3, as "
    "the policy's response_len)",
    "heldout20:pyramidkv_monkeypatch.py:pk_generate": BY_PROBE + " (3, as its output_max_len)",
    "heldout21:aqlm_cuda_graph_decode.py:aq_warmup_generate": BY_PROBE + " (4, as its max_new_tokens)",
    "heldout23:decore_contrastive_heads.py:dc_dola_layers": "the probe sets expert.generation_config.min_new_tokens "
    "(3, as the DoLa baseline's max_new_tokens)",
    "heldout24:baichuan_audio_interleave.py:ba_text_continue": BY_PROBE + " (4, as its max_new_tokens)",
    "heldout24:llama_omni2_speech_units.py:o2_units_generate": "the probe sets unit_lm.generation_config."
    "min_new_tokens (3, as the unit generator's M)",
    "heldout25:generator_dna_tasks.py:gn_recover_generate": BY_PROBE + " (3, as its gen_len)",
    "heldout26:outlines_sequence_generator.py:ol_generation_config": "the probe sets hf_model.generation_config."
    "min_new_tokens (3, as its GenerationParameters' max_tokens; the passed config inherits it)",
    "heldout26:verl_hf_rollout.py:vr_rollout_generate": "the probe sets module.generation_config.min_new_tokens "
    "(4, as its response_length)",
    "heldout27:caa_block_wrapper.py:ca_wrapped_generate": "the probe sets model.generation_config.min_new_tokens "
    "(3, as its max_new_tokens)",
    "heldout27:steering_vector_hooks.py:sv_steered_generate": BY_PROBE + " (3, as its max_new_tokens)",
    "heldout27:steering_vector_hooks.py:sv_prefix_generate": BY_PROBE + " (3, as its max_new_tokens)",
    "heldout27:dola_layer_contrast.py:dl_hidden_generate": BY_PROBE + " (3, as its max_new_tokens)",
    "heldout27:icd_contrastive_loop.py:icd_guidance_generate": "the probe sets expert.generation_config."
    "min_new_tokens (3, as its max_new_tokens)",
    "heldout28:open_asr_whisper_eval.py:oa_gen_kwargs": "the generate call it feeds passes min_new_tokens (the "
    "probe's, as its max_new_tokens)",
    "heldout28:llm_foundry_mpt_chat.py:mf_generate_kwargs": "the probe sets llama.generation_config.min_new_tokens "
    "(3, as its max_new_tokens)",
}
# Labelled calls whose length cannot be fixed, each with why; their probes assert a range of lengths instead.
UNFIXABLE: dict[str, str] = {
    "heldout4:hf_learn_cache_strategies.py:hl_early_exit": "assisted generation (assistant_early_exit) refuses a "
    "min-length processor at 4.57.6 (ValueError: Passing `MinLengthLogitsProcessor` when using assisted_generation "
    "is disabled, seen on the oracle); the probe asserts 6 <= length <= 9",
}


@dataclass(frozen=True)
class Unbounded:
    line: int
    text: str
    marked: tuple[str, ...]  # the site/clean ids of the labelled statement it is in (real-code cases only)


def _bounded(keys: set[str | None]) -> bool:
    return "max_new_tokens" not in keys or "min_new_tokens" in keys


def unbounded(source: str) -> list[Unbounded]:
    """The calls and dict literals of `source` that set `max_new_tokens` without `min_new_tokens`."""
    tree = ast.parse(source)
    lines = source.splitlines()
    own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))} - {"generate"}
    simple = [s for s in ast.walk(tree) if isinstance(s, ast.stmt) and not hasattr(s, "body")]
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            callee = ast.unparse(node.func).rsplit(".", 1)[-1]
            if callee in own or _bounded({k.arg for k in node.keywords}):
                continue
        elif isinstance(node, ast.Dict):
            if _bounded({k.value if isinstance(k, ast.Constant) and isinstance(k.value, str) else None
                         for k in node.keys}):
                continue
        else:
            continue
        stmt = next((s for s in simple if s.lineno <= node.lineno <= (s.end_lineno or s.lineno)), None)
        span = range(stmt.lineno, (stmt.end_lineno or stmt.lineno) + 1) if stmt else range(node.lineno, node.lineno + 1)
        marked = tuple(m[2] for i in span if (m := MARK.search(lines[i - 1])))
        out.append(Unbounded(node.lineno, lines[node.lineno - 1].strip(), marked))
    return out


def _realcode_files() -> list[tuple[str, Path]]:
    rs = recall_set()
    return [(name, path) for name, folder in rs.SETS.items() for path in sorted(folder.glob("*.py"))]


def test_the_detector_sees_what_it_should() -> None:
    found = unbounded(
        "model.generate(ids, max_new_tokens=3)\n"
        "model.generate(ids, max_new_tokens=3, min_new_tokens=3)\n"
        "kw = {'max_new_tokens': 3, 'do_sample': False}\n"
        "cfg = GenerationConfig(\n    max_new_tokens=3)  # site: x\n"
        "def loop(model, max_new_tokens):\n    return model(max_new_tokens)\n"
        "loop(model, max_new_tokens=4)\n"
        "model.generate(ids, max_length=9)\n")
    assert [(u.line, u.marked) for u in found] == [(1, ()), (3, ()), (4, ("x",))]


def test_every_real_code_probe_fixes_its_length() -> None:
    loose, marked = [], set()
    for name, path in _realcode_files():
        for u in unbounded(path.read_text()):
            if u.marked:
                marked |= {f"{name}:{path.name}:{m}" for m in u.marked}
            else:
                loose.append(f"{name}:{path.name}:{u.line}: {u.text}")
    assert loose == [], "generation without min_new_tokens (add min_new_tokens=<the same n>):\n" + "\n".join(loose)
    assert marked - set(MARKED) - set(UNFIXABLE) == set(), "a labelled line generates without min_new_tokens: fix " \
        "the length in its probe (model.generation_config.min_new_tokens), never on the labelled line, and list it in MARKED"
    assert (set(MARKED) | set(UNFIXABLE)) - marked == set(), "MARKED names a labelled line that no longer needs it"


def _loose(named: dict[str, str]) -> list[str]:
    return [f"{name}:{u.line}: {u.text}" for name, text in named.items() for u in unbounded(text)]


def _texts(snippets: list[Snippet]) -> dict[str, str]:
    return {f"{s.id}{'' if k is None else '/' + k}": text for s in snippets
            for k, text in ((None, s.source), *((k, v) for k, v in s.files.items() if k.endswith(".py")))}


def test_every_own_case_and_release_case_fixes_its_length() -> None:
    loose = _loose(_texts(own_snippets())) + _loose({f"release:{k}": v for k, v in RELEASE_CASES.items()})
    assert loose == [], "generation without min_new_tokens (add min_new_tokens=<the same n>):\n" + "\n".join(loose)

