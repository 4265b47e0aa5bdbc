"""HFC005 unused-generate-kwarg: a keyword `generate()` rejects as unused (a misspelled cache keyword, a
keyword the target version removed, `generate_kwargs=` on a text-generation pipeline), or rejects outright
(`dola_layers=`: DoLa moved to a Hub repository in 4.56)."""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from functools import cache, partial

from hf_cache_lint.engine.base.findings import Edit, Finding, Fix, Related, Severity
from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.api_changes import REMOVED_GENERATE_KEYWORDS
from hf_cache_lint.engine.environment.release_version import V, Version
from hf_cache_lint.engine.environment.target import Target, unused_kwargs_message
from hf_cache_lint.engine.facts.generate_call import KIND as GENERATE_CALL
from hf_cache_lint.engine.output.analysis import Analysis, ConfigKeyword, GenerateCall, Keyword, SpreadKeyword
from hf_cache_lint.engine.output.edits import remove_argument, rename_keyword
from hf_cache_lint.engine.output.keywords import CACHE_KEYWORDS, find_keyword
from hf_cache_lint.rules.base import Rule
from hf_cache_lint.rules.hfc005_unused_generate_kwarg.examples import INVALID
from hf_cache_lint.rules.hfc005_unused_generate_kwarg.valid import VALID
from hf_cache_lint.rules.order import (
    ci_rejected,
    intended,
    keyword_rejected,
    misspelled,
    rejected_generate_kwargs,
    removed_keywords,
    spread_misspelled,
    spread_removed,
)

# The last release checked before generate's cache keywords became `cache=` (5.24.0).
LAST_BEFORE_CACHE = "5.23.0"
# DoLa decoding moved to a Hub `custom_generate` repository in 4.56.0 (the wheels: 4.55.4 runs `_dola_decoding`,
# 4.56.0 raises unless `trust_remote_code=True`; its message reads "DoLa generation" on 4.56.x and, from 4.57, the
# mode's name: "Dola Generation").
DOLA_MOVED = V("4.56.0")
_DOLA_TITLED = V("4.57.0")
_DOLA = "dola_layers"
# Keywords that take generate off greedy or sample decoding (beams, assisted, constrained, contrastive) or choose its
# decoding loop (`custom_generate`, a passed `generation_config`): DoLa is then not what runs (a warning, or the
# other mode's own rules), so no claim.
_NOT_DOLA = frozenset({"custom_generate", "generation_config", "assistant_model", "prompt_lookup_num_tokens",
                       "assistant_early_exit", "use_mtp", "constraints", "force_words_ids", "penalty_alpha",
                       "num_beam_groups"})


class UnusedGenerateKwarg(Rule):
    code = "HFC005"
    name = "unused-generate-kwarg"
    summary = "A keyword `generate()` rejects as unused: a misspelled cache keyword, a keyword the version " \
              "removed (`use_model_defaults`, `return_legacy_cache` in 5.x), `generate_kwargs=` on a " \
              "text-generation pipeline, or `dola_layers=` (DoLa moved to the Hub in 4.56)."
    default_severity = Severity.ERROR
    reads = frozenset({GENERATE_CALL})
    valid = VALID
    invalid = INVALID

    def reads_keyword(self, name: str) -> bool:
        """A misspelled keyword, one a version removed, `generate_kwargs=` (on a pipeline): see `check`."""
        return name in ("generate_kwargs", _POSITIONS, _DOLA) or name in REMOVED_GENERATE_KEYWORDS or \
            intended(name) is not None

    def check(self, analysis: Analysis) -> Iterable[Finding]:
        target = analysis.context.target
        reported: set[tuple[object, str]] = set()  # a config's key, once: at the first call that reads it
        for call in analysis.calls:
            if ci_rejected(target, call):
                continue  # the invalid `cache_implementation` is raised first (HFC004)
            typos, removed_ones, gk = misspelled(call), removed_keywords(target, call), rejected_generate_kwargs(call)
            far_typos, far_removed = spread_misspelled(call), spread_removed(target, call)
            positions = _forward_lacks_positions(target, call)
            sent = [kw for kw in call.keywords if kw.name == _POSITIONS and kw.value_text.strip() != "None"] \
                if positions and call.kind == "generate" and call.keywords_reach else []
            far_sent = [sk for sk in call.spread_keywords if sk.name == _POSITIONS and not sk.none] \
                if positions and call.kind == "generate" else []
            yield from self.config_findings(analysis, call, reported)
            if (dola := _dola_moved(target, call)) is not None:
                yield self.dola_finding(analysis, call, dola)
            if not typos and not removed_ones and gk is None and not far_typos and not far_removed and not sent \
                    and not far_sent:
                continue  # nothing to report on this call: its error message is never read
            error = unused_kwargs_message(self.unused_names(analysis, call, typos, removed_ones, gk, sent)
                                          + [sk.name for sk in (*(sk for sk, _ in (*far_typos, *far_removed)),
                                                                *far_sent)])
            for kw in sent:
                yield self.positions_finding(analysis, call, kw, positions or "", error)
            for sk in far_sent:
                yield self.spread_finding(analysis, call, sk, f"is taken by no model's forward from transformers "
                                          f"{positions} (generate counts the positions from the cache itself)",
                                          error)
            for kw, meant in typos:
                right = target.cache_keyword(call.model.class_name) if meant in CACHE_KEYWORDS else meant
                message = (f"`{kw.name}=` is not an argument of generate (a typo of `{right}`?); transformers "
                           f"{target} raises {error}")
                yield self.finding(analysis, call, kw, message, error,
                                   tuple(self.rename(analysis, call, kw, right, self.portable(target, call, meant))))
            for kw, removed in removed_ones:
                message = (f"`{kw.name}=` was removed from generate in transformers {removed}; transformers "
                           f"{target} raises {error}")
                yield self.finding(analysis, call, kw, message, error, tuple(self.remove(analysis, call, kw)))
            for sk, meant in far_typos:
                right = target.cache_keyword(call.model.class_name) if meant in CACHE_KEYWORDS else meant
                yield self.spread_finding(analysis, call, sk, f"is not an argument of generate (a typo of `{right}`?)",
                                          error)
            for sk, removed in far_removed:
                yield self.spread_finding(analysis, call, sk, f"was removed from generate in transformers {removed}",
                                          error)
            if gk is not None:
                message = ("the text-generation pipeline passes unknown keywords to generate as they are, so "
                           f"`generate_kwargs=` reaches generate itself; transformers {target} raises {error}")
                yield self.finding(analysis, call, gk, message, error, tuple(self.unpack(analysis, call, gk)))

    def config_findings(self, analysis: Analysis, call: GenerateCall,
                        reported: set[tuple[object, str]]) -> Iterator[Finding]:
        """Keys of the passed `GenerationConfig` a release refuses or ignores: a generate-only keyword the
        config's validation refuses (4.x `use_model_defaults`: the constructor raises), a keyword generate no
        longer reads (`return_legacy_cache` from 5.0: a Cache comes back, not tuples), a misspelled cache key
        (kept as a plain attribute nothing reads). Checked on the oracle (tests/realcode/cases/config_from_settings.py,
        generate_kwargs_init.py)."""
        target = analysis.context.target
        for ck in call.config_keywords:
            key = ((ck.site.path, ck.site.span), ck.name)
            if key in reported:
                continue  # the same key of the same config, read by another call: reported once
            reported.add(key)
            if ck.name in REMOVED_GENERATE_KEYWORDS and target.generate_takes(ck.name) and ck.how == "built":
                what = (f"is a `generate()` argument, not a GenerationConfig field, on transformers {target}; "
                        "building the config raises ValueError: Argument "
                        f"`{ck.name}` is not a valid argument of `GenerationConfig`. It should be passed to "
                        "`generate()` (or a pipeline) directly.")
                yield self.config_finding(analysis, call, ck, what, Severity.ERROR)
            elif ck.name == "return_legacy_cache" and not ck.falsy and \
                    (removed := target.removed_keyword(ck.name)) is not None:
                what = (f"is ignored by generate since transformers {removed}: on transformers {target} no error, "
                        "but a Cache object comes back as `past_key_values`, not legacy tuples")
                yield self.config_finding(analysis, call, ck, what, Severity.WARNING)
            elif not ck.falsy and (meant := intended(ck.name)) == "cache_implementation":
                kept = "`update()` sets only the config's fields, so it is not set as one" if ck.how == "update" \
                    else "the config keeps it as a plain attribute generate never reads"
                what = (f"is not a GenerationConfig field (a typo of `{meant}`?): {kept}, so on transformers "
                        f"{target} no error, but no `{meant}` is set on the config (generate builds the cache it "
                        "would without it)")
                yield self.config_finding(analysis, call, ck, what, Severity.WARNING)

    def config_finding(self, analysis: Analysis, call: GenerateCall, ck: ConfigKeyword, what: str,
                       severity: Severity) -> Finding:
        """Reported where the key is set when that is in this file (where the fix goes), else at the call's
        `generation_config=` argument with the key's place as the related location."""
        here = ck.site.path is None
        when = f" (when {ck.condition})" if ck.condition is not None else ""
        given = {"built": "is given to", "update": "is given to `update()` of", "attribute": "is set on"}[ck.how]
        config = "the model's generation_config, which generate reads" if ck.on_model else \
            "the GenerationConfig passed to generate"
        message = f"`{ck.name}` {given} {config} at line {call.span.start.line}{when} and {what}"
        if ck.condition is not None:
            severity = Severity.WARNING  # only on some paths
        if not call.model.receiver_known:
            severity = Severity.WARNING
            message += " (if the object whose `generate` this is is a transformers model)"
        related = () if here else (Related(ck.site.span, f"`{ck.name}` is set here", ck.site.path),)
        return self.report(ck.site.span if here else ck.holder, message, severity=severity, related=related,
                           story=partial(self.config_story, analysis, ck.name, what))

    def config_story(self, analysis: Analysis, name: str, what: str) -> str:
        return "\n".join([
            f"**{self.code} {self.name}**: `{name}` reaches generate inside a `GenerationConfig`.",
            "",
            "- **Why it matters**: GenerationConfig keeps a keyword it has no field for as a plain attribute, "
            "which generate never reads; and its validation refuses the keywords that belong to `generate()` "
            "itself.",
            "",
            f"On transformers {analysis.context.target}, `{name}` {what}.",
        ])

    def unused_names(self, analysis: Analysis, call: GenerateCall, typos: list[tuple[Keyword, str]],
                     removed: list[tuple[Keyword, str]], gk: Keyword | None,
                     sent: list[Keyword] | None = None) -> list[str]:
        """Every keyword of the call the real error lists, in call order (`typos`, `removed`, `gk`, `sent`: the
        call's misspelled and removed keywords, its pipeline's `generate_kwargs=` and the `cache_position=` no
        forward takes, as `check` found them)."""
        target = analysis.context.target
        names = {kw.name for kw, _ in typos} | {kw.name for kw, _ in removed} | {kw.name for kw in sent or ()}
        return [kw.name for kw in call.keywords
                if kw.name in names or (gk is not None and kw is gk)
                or (kw.value_text != "None" and keyword_rejected(target, call, kw.name))]

    def finding(self, analysis: Analysis, call: GenerateCall, kw: Keyword, message: str, error: str,
                fixes: tuple[Fix, ...]) -> Finding:
        severity = Severity.ERROR
        if not call.model.receiver_known:
            severity = Severity.WARNING
            message += " (if the object whose `generate` this is is a transformers model)"
        return self.report(kw.span, message, severity=severity, fixes=fixes, story=partial(self.story, analysis, call, kw.name, error))

    def positions_finding(self, analysis: Analysis, call: GenerateCall, kw: Keyword, first: str,
                          error: str) -> Finding:
        """`generate(..., cache_position=...)`: reported at the call, where generate raises for the model's sake
        (its forward no longer takes the keyword), the keyword as the related location. No automatic fix: without
        the positions, generate feeds the tokens of `input_ids` the cache lacks, so code that gives it only the new
        ids must give it the whole sequence instead (run on the oracle: new ids alone raise IndexError)."""
        target = analysis.context.target
        message = (f"`{kw.name}=` is given to generate, but from transformers {first} no model's forward takes "
                   "`cache_position`, so generate refuses it as unused; transformers "
                   f"{target} raises {error}. Without it, generate counts the positions from the cache: give it the "
                   "whole sequence (the cached tokens and the new ones) as `input_ids`")
        severity = Severity.ERROR
        if not call.model.receiver_known:
            severity = Severity.WARNING
            message += " (if the object whose `generate` this is is a transformers model)"
        # No fix, not even the ignore comment (a finding's first fix is its preferred one: tests/rules).
        return self.report(call.callee_span, message, severity=severity,
                           related=(Related(kw.span, f"`{kw.name}=` is passed here"),),
                           story=partial(self.story, analysis, call, kw.name, error))

    def dola_finding(self, analysis: Analysis, call: GenerateCall, kw: Keyword) -> Finding:
        """`generate(..., dola_layers=...)` on greedy or sample decoding from 4.56: generate raises before it decodes.
        No fix: the Hub's `custom_generate` repository needs `trust_remote_code=True` and a download (remote code
        run), and dropping the keyword changes what is decoded; the user chooses."""
        target = analysis.context.target
        mode = "DoLa generation" if target.version < _DOLA_TITLED else "Dola Generation"
        error = (f"ValueError: {mode} requires `trust_remote_code=True` in your `generate` call, since it loads "
                 "https://hf.co/transformers-community/dola.")
        message = (f"`{kw.name}=` asks generate for DoLa decoding, which transformers {DOLA_MOVED} moved to the Hub "
                   f"(`custom_generate=\"transformers-community/dola\"`); transformers {target} raises {error} "
                   "Run it from the Hub with `trust_remote_code=True` (it downloads and runs that repository's "
                   "code), or decode without `dola_layers`")
        severity = Severity.ERROR
        if not call.model.receiver_known:
            severity = Severity.WARNING
            message += " (if the object whose `generate` this is is a transformers model)"
        return self.report(kw.span, message, severity=severity, story=partial(self.dola_story, analysis, error))

    def dola_story(self, analysis: Analysis, error: str) -> str:
        return "\n".join([
            f"**{self.code} {self.name}**: `dola_layers=` asks `generate()` for DoLa decoding.",
            "",
            f"- **Why it fails**: from transformers {DOLA_MOVED} DoLa is no longer in the library but in the Hub "
            "repository `transformers-community/dola`; generate loads it only with `trust_remote_code=True` (a "
            "download, and that repository's code run) and raises otherwise, before anything is decoded.",
            "",
            f"`generate()` raises (transformers {analysis.context.target}):",
            "",
            f"```\n{error}\n```",
        ])

    def spread_finding(self, analysis: Analysis, call: GenerateCall, sk: SpreadKeyword, what: str,
                       error: str) -> Finding:
        """A keyword a dict carries in: reported at the `**dict` of the call (where generate raises), the place
        the dict got the key as the related location. No fix yet: the key may be set by a statement, a `dict()`
        keyword or a literal's entry, possibly in another function or module, for other calls too."""
        target = analysis.context.target
        elsewhere = sk.site.span != call.span  # not only "somewhere in this call's `**kwargs`"
        here = elsewhere and sk.site.path is None
        where = f" (set at line {sk.site.span.start.line})" if here else ""
        message = f"`{sk.name}`{where} reaches generate through this dict and {what}; transformers {target} " \
                  f"raises {error}"
        severity = Severity.ERROR
        if not call.model.receiver_known:
            severity = Severity.WARNING
            message += " (if the object whose `generate` this is is a transformers model)"
        related = (Related(sk.site.span, f"`{sk.name}` is set here", sk.site.path),) if elsewhere else ()
        return self.report(sk.holder, message, severity=severity, related=related,
                           story=partial(self.story, analysis, call, sk.name, error))

    @staticmethod
    def portable(target: Target, call: GenerateCall, meant: str) -> str | None:
        """On 5.24+, the pre-5.24 cache keyword, which still works there (deprecated): the rename that runs on
        releases before and after the `cache=` rename alike (issue 30 item 4; a range check prefers it)."""
        if meant not in CACHE_KEYWORDS or not target.unified_cache_keyword:
            return None
        return Target.of(LAST_BEFORE_CACHE).cache_keyword(call.model.class_name)

    def rename(self, analysis: Analysis, call: GenerateCall, kw: Keyword, right: str,
               also: str | None = None) -> Iterator[Fix]:
        if find_keyword(call.keywords, right) is not None:
            return  # renaming would repeat a keyword (a SyntaxError): the user must choose
        yield Fix(f"Rename to `{right}=`", (rename_keyword(kw, right),), preferred=True)
        if also is not None and also != right and find_keyword(call.keywords, also) is None:
            yield Fix(f"Rename to `{also}=` (also runs before 5.24)", (rename_keyword(kw, also),))
        yield self.ignore_fix(analysis, kw.span)

    def remove(self, analysis: Analysis, call: GenerateCall, kw: Keyword) -> Iterator[Fix]:
        edit = remove_argument(call, kw.span)
        if edit is not None:
            yield Fix(f"Remove `{kw.name}=`", (edit,), preferred=True)
        yield self.ignore_fix(analysis, kw.span)

    def unpack(self, analysis: Analysis, call: GenerateCall, kw: Keyword) -> Iterator[Fix]:
        """`generate_kwargs={"a": 1}` -> `a=1`; `generate_kwargs=d` -> `**d` (the pipeline forwards both)."""
        edit: Edit | None
        try:
            node = ast.parse(kw.value_text.strip(), mode="eval").body
        except SyntaxError:
            return
        if isinstance(node, ast.Dict):
            keys = [k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)]
            if len(keys) != len(node.keys) or not all(k.isidentifier() for k in keys):
                return
            taken = {k.name for k in call.keywords}
            if any(k in taken for k in keys):
                return
            source = kw.value_text.strip()
            parts = [f"{k}={ast.get_source_segment(source, v)}" for k, v in zip(keys, node.values, strict=True)]
            edit = Edit(kw.span, ", ".join(parts)) if parts else remove_argument(call, kw.span)
        else:
            edit = Edit(kw.span, f"**{kw.value_text.strip()}")
        if edit is None:
            return
        yield Fix("Unpack `generate_kwargs` into the call", (edit,), preferred=True)
        yield self.ignore_fix(analysis, kw.span)

    def story(self, analysis: Analysis, call: GenerateCall, name: str, error: str) -> str:
        target = analysis.context.target
        what = "a text-generation pipeline" if call.kind == "pipeline" else \
            (call.model.class_name or "a transformers model")
        return "\n".join([
            f"**{self.code} {self.name}**: `{name}=` is neither an argument of `generate()` nor of the "
            "model's forward.",
            "",
            f"- **The call**: {what}.",
            "- **Why it fails**: generate hands every keyword it does not know to the model, and "
            "`_validate_model_kwargs` refuses the ones the model does not take (a None value passes).",
            "",
            f"`generate()` raises before anything runs (transformers {target}):",
            "",
            f"```\n{error}\n```",
        ])


_POSITIONS = "cache_position"
# The model forwards the release table reads (one per family it holds), and generate's own hook: `_validate_model_kwargs`
# accepts a keyword either takes. All lost `cache_position` at 5.4.0 (so did every modeling file of that wheel: none
# has a `cache_position` parameter, checked on the oracle's 5.4.0 environment; docs/facts.md).
_FORWARDS = {
    "LlamaForCausalLM": "member:transformers.models.llama.modeling_llama.LlamaForCausalLM.forward",
    "T5ForConditionalGeneration": "member:transformers.models.t5.modeling_t5.T5ForConditionalGeneration.forward",
    "MambaForCausalLM": "member:transformers.models.mamba.modeling_mamba.MambaForCausalLM.forward",
}
_PREPARE = "member:transformers.generation.utils.GenerationMixin.prepare_inputs_for_generation"


def _forward_lacks_positions(target: Target, call: GenerateCall) -> str | None:
    """The release since which the call's model takes no `cache_position` (its forward nor generate's
    `prepare_inputs_for_generation`), when the target is at or past it: its own forward where the table holds its
    class, else every forward the table holds (transformers' models all lost it in the same release). None for a
    model with its own code (`trust_remote_code=`, not a transformers class), whose forward may take it."""
    model = call.model
    if model.remote_code or not model.is_transformers:
        return None
    return _positions_gone(target.version, _FORWARDS.get(model.class_name or ""))


@cache  # asked of every generate call at every keystroke: the table's answer for a release and a tabled forward
def _positions_gone(version: Version, own: str | None) -> str | None:
    """`_forward_lacks_positions` for a transformers model whose class's forward is `own` in the table (None: a
    class the table does not hold)."""
    keys = (own,) if own is not None else tuple(_FORWARDS.values())
    gone = [releases.parameter_gone_since(k, _POSITIONS, version) for k in (*keys, _PREPARE)]
    if any(g is None for g in gone):
        return None
    return str(max(g for g in gone if g is not None))


def _dola_moved(target: Target, call: GenerateCall) -> Keyword | None:
    """The `dola_layers=` keyword of a transformers `generate` call that decodes greedily or by sampling (no
    keyword choosing another mode or loop, no `trust_remote_code` but False, at most one beam), on a release where
    DoLa is on the Hub: generate raises ValueError (4.56+). A dict spread into the call that may hold keys the linter
    cannot see, or one that carries a mode's keyword, a second positional argument (a `generation_config`) or a config
    given `num_beams` may say otherwise: not claimed. A function's own `**kwargs` analysed at a call site that passes
    none (DoLa's `dola_generate(..., **kwargs)`) carries nothing: claimed."""
    if target.version < DOLA_MOVED or call.kind != "generate" or not call.keywords_reach or call.open_spread \
            or call.model.remote_code or len(call.arguments) - len(call.keywords) - call.has_star_kwargs > 1 \
            or any(sk.name in _NOT_DOLA or sk.name in ("trust_remote_code", "num_beams", _DOLA)
                   for sk in call.spread_keywords):
        return None
    written = {kw.name: kw.value_text.strip() for kw in call.keywords}
    dola = find_keyword(call.keywords, _DOLA)
    if dola is None or written[_DOLA] == "None" or _NOT_DOLA & written.keys() \
            or written.get("trust_remote_code", "False") != "False" or written.get("num_beams", "1") not in ("1", "None") \
            or any(ck.name in ("num_beams", "constraints", "force_words_ids", "penalty_alpha", "num_beam_groups")
                   for ck in call.config_keywords):
        return None
    return dola
