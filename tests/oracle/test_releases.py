"""The shipped release table (data/releases.json) against real transformers, at every oracle release.

- Each hand-written behaviour runs (release_cases.py) at its first release and at the release before it: from
  `first` the case raises with the entry's `match` in the message; before, it runs clean (or raises
  `before_match`).
- At every release below, one probe snippet compares the table's facts for that release with the runtime:
  every tabled import path (top level, cache_utils, the model modules) imports exactly when the table says so;
  every tabled method's parameter names (cache classes, GenerationMixin, the hook classes' forwards) match
  `inspect.signature`; a member the table says a class lacks is missing; the `cache_implementation` values
  `GenerationConfig` accepts, and the choices its error prints; the GenerationConfig fields; the model-class
  attributes (present with that value, or absent); whether `PreTrainedModel` derives from `GenerationMixin`; the
  cache keywords `generate` hands a Llama subclass's forward (`generate_input:`); how many values a Llama decoder
  layer unpacks from its attention (`unpack:`: the tabled count runs, one more raises ValueError); the names an
  instance of Llama's attention and decoder layer has (`attr:`: each present exactly where tabled); what
  `_get_stopping_criteria` and `_update_model_kwargs_for_generation` read on every call (`reads:`: a config
  `_prepare_special_tokens` never saw raises AttributeError, a dict without `cache_position` KeyError, exactly where
  the table says the helper reads them); how generate, the decoding loop, Llama's model, layers and attention call
  the methods projects override (`call:`: a recording override or patch sees the tabled positional count, every
  tabled keyword, and a keyword passed only when given only when the generate call was given it).

The releases are the oracle's CHECKED_VERSIONS plus each behaviour's first release and the one before it
(`RELEASE_ORACLE_VERSIONS`; scripts/setup-oracle.sh builds them by default).
"""

from __future__ import annotations

import json
import os

import pytest

from hf_cache_lint.engine.environment import releases
from hf_cache_lint.engine.environment.release_version import Version

from .release_cases import CASES
from .runner import Outcome, Snippet, finish, missing, start
from .suites import VERSIONS

pytestmark = pytest.mark.oracle


def _before(first: Version) -> Version:
    known = releases.known_releases()
    return known[known.index(first) - 1]


def behaviour_releases() -> dict[str, tuple[str, str]]:
    """behaviour id -> (the release before its first, its first)."""
    return {b.id: (str(_before(b.first)), str(b.first)) for b in releases.table().behaviours.values()}


RELEASE_ORACLE_VERSIONS: tuple[str, ...] = tuple(sorted(
    {*VERSIONS, *(v for pair in behaviour_releases().values() for v in pair)}, key=Version.parse))


# ---- the probe: the table's facts at one release, compared inside the real release ------------------------------

PROBE = r'''
import importlib, inspect, json, ast
import transformers
from transformers import GenerationConfig
expect = json.loads(EXPECT)
wrong = []

def resolve(path):
    module, _, name = path.rpartition(".")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    except Exception as exc:  # an optional dependency missing on import: count as not importable
        return None

for path, want in expect["importable"].items():
    got = resolve(path) is not None
    if got != want:
        wrong.append(["importable", path, want, got])

def names(fn):
    params = inspect.signature(fn).parameters.values()
    return [p.name for p in params if p.name not in ("self", "cls")]

for key, (name, want) in expect["members"].items():
    path = key.split("#")[0]
    cls = resolve(path)
    if cls is None:
        wrong.append(["member-class", path, name, None])
        continue
    own = cls.__dict__.get(name)
    if want is None:
        if hasattr(cls, name):
            wrong.append(["member-absent", path, name, "present"])
        continue
    if own is None:
        got = getattr(cls, name, None)
        wrong.append(["member", path, name, want, "inherited" if got is not None else "absent"])
        continue
    if want == "property":
        if not isinstance(own, property):
            wrong.append(["member", path, name, want, type(own).__name__])
        continue
    fn = own.__func__ if isinstance(own, (classmethod, staticmethod)) else own
    got = names(fn)
    if got == ["args", "kwargs"] and want != got:
        continue  # a decorator that hides the signature (5.13-5.14 MambaMixer.forward): the source says, not this
    if got != want:
        wrong.append(["signature", path, name, want, got])

def accepted(value):
    try:
        GenerationConfig(cache_implementation=value)
        return True
    except ValueError:
        return False

for value, want in expect["cache_implementation"].items():
    if accepted(value) != want:
        wrong.append(["cache_implementation", value, want, not want])
if expect["choices"] is not None:
    try:
        GenerationConfig(cache_implementation="no-such-cache")
        wrong.append(["choices", "no error"])
    except ValueError as exc:
        if not str(exc).endswith("Choose one of: " + expect["choices"]):
            wrong.append(["choices", expect["choices"], str(exc)])

config = GenerationConfig()
for field in expect["genconfig"]:
    if not hasattr(config, field):
        wrong.append(["genconfig", field])
for name, want in expect["config_members"].items():
    if hasattr(config, name) != want:
        wrong.append(["config_member", name, want, not want])

from transformers import PreTrainedModel
from transformers.generation.utils import GenerationMixin
owners = {"PreTrainedModel": PreTrainedModel, "GenerationMixin": GenerationMixin}
for key, want in expect["model_attr"].items():
    owner, _, name = key.partition(".")
    if want is None:
        if name in vars(owners[owner]):
            wrong.append(["model_attr-absent", key])
        continue
    if name not in vars(owners[owner]):
        wrong.append(["model_attr", key, want, "absent"])
        continue
    try:
        literal = ast.literal_eval(want)
    except ValueError:
        continue
    if getattr(owners[owner], name) != literal:
        wrong.append(["model_attr", key, want, repr(getattr(owners[owner], name))])

# PreTrainedModel's bases: a class built on it has `generate` exactly where GenerationMixin is one of them.
if issubclass(PreTrainedModel, GenerationMixin) != expect["pretrained_generates"]:
    wrong.append(["PreTrainedModel bases", expect["pretrained_generates"]])

import torch
from transformers import LlamaConfig, LlamaForCausalLM, LlamaModel
tiny = dict(vocab_size=64, hidden_size=32, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
            num_key_value_heads=1, pad_token_id=0, eos_token_id=63)
torch.manual_seed(0)

# The keywords generate hands the forward: every "always" key arrives, no other tabled cache keyword does.
seen = set()
class Recording(LlamaForCausalLM):
    def forward(self, **kwargs):
        seen.update(kwargs)
        return super().forward(**kwargs)
Recording(LlamaConfig(**tiny)).eval().generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, do_sample=False)
for key, how in expect["generate_input"].items():
    if (key in seen) != (how == "always"):
        wrong.append(["generate_input", key, how, sorted(seen)])

# A decoder layer unpacks exactly the tabled number of values from its attention: one more raises ValueError.
for family, (cls_name, count) in expect["unpack"].items():
    model = LlamaModel(LlamaConfig(**tiny)).eval()
    for layer in model.layers:
        original = layer.self_attn.forward
        def patched(*args, _original=original, _n=count, **kwargs):
            out = _original(*args, **kwargs)
            return (out[0],) + (None,) * (_n - 1)
        layer.self_attn.forward = patched
    model(input_ids=torch.tensor([[1, 2, 3]]))
    for layer in model.layers:
        original = layer.self_attn.forward
        layer.self_attn.forward = lambda *a, _o=original, **k: tuple(_o(*a, **k)) + (None,)
    try:
        model(input_ids=torch.tensor([[1, 2, 3]]))
        wrong.append(["unpack", family, count, "one more value ran"])
    except ValueError:
        pass

# What an instance of Llama's attention and decoder layer has (`attr:`): every name the table lists for the class
# at some release is there exactly where the table says this release has it (AttributeError elsewhere).
layer = LlamaModel(LlamaConfig(**tiny)).layers[0]
for cls_name, attrs in expect["layer_attrs"].items():
    instance = layer.self_attn if cls_name == "LlamaAttention" else layer
    if type(instance).__name__ != cls_name:
        wrong.append(["layer_attrs", cls_name, type(instance).__name__])
        continue
    for name, want in attrs.items():
        if hasattr(instance, name) != want:
            wrong.append(["layer_attrs", cls_name, name, want, not want])

# What generate's private helpers read on every call (`reads:`): a config `_prepare_special_tokens` never saw, a
# model_kwargs dict without positions, raise exactly where the table says the helper reads them.
from transformers import GenerationConfig as ProbeConfig, StoppingCriteriaList
helper_model = LlamaForCausalLM(LlamaConfig(**tiny)).eval()
for helper, fact in expect["helper_reads"].items():
    read = (fact or "").split(", ")
    if helper == "_get_stopping_criteria":
        want = "generation_config._eos_token_tensor" in read
        try:
            helper_model._get_stopping_criteria(generation_config=ProbeConfig(max_length=10, eos_token_id=63),
                                                stopping_criteria=StoppingCriteriaList())
            got = False
        except AttributeError as exc:
            got = "_eos_token_tensor" in str(exc)
    else:
        want = "model_kwargs['cache_position']" in read
        with torch.no_grad():
            step = helper_model(input_ids=torch.tensor([[1, 2, 3]]), use_cache=True)
        try:
            helper_model._update_model_kwargs_for_generation(step, {"attention_mask": torch.ones(1, 3, dtype=torch.long)})
            got = False
        except KeyError as exc:
            got = "cache_position" in str(exc)
    if got != want:
        wrong.append(["reads", helper, fact, got])

# How transformers calls the methods projects override (`call:`): each recorded call passes the tabled number of
# positional arguments, every `kw` keyword, no `opt` one unless the generate call was given it (a streamer here).
def shape_of(value):
    parts = dict(p.split("=", 1) if "=" in p else (p, "") for p in value.split())
    return int(parts["args"].rstrip("+")), [k for k in parts.get("kw", "").split(",") if k], \
        [k for k in parts.get("opt", "").split(",") if k]

def check_call(what, value, calls, given=()):
    if value is None:
        return
    args, kw, opt = shape_of(value)
    if not calls:
        wrong.append(["call", what, value, "never called"])
    for n, keys in calls:
        if n != args or not set(kw) <= keys or any(k in keys for k in opt if k not in given):
            wrong.append(["call", what, value, n, sorted(keys)])

class Stop(Exception):
    pass

sample_calls, prepare_calls, layer_calls, attn_calls, update_calls = [], [], [], [], []
class CallRecording(LlamaForCausalLM):
    def _sample(self, *args, **kwargs):
        sample_calls.append((len(args), set(kwargs)))
        return GenerationMixin._sample(self, *args, **kwargs)
    def prepare_inputs_for_generation(self, *args, **kwargs):
        prepare_calls.append((len(args), set(kwargs)))
        return super().prepare_inputs_for_generation(*args, **kwargs)
recorder = CallRecording(LlamaConfig(**tiny)).eval()
for layer in recorder.model.layers:
    def layer_call(*a, _o=layer.forward, **k):
        layer_calls.append((len(a), set(k)))
        return _o(*a, **k)
    def attn_call(*a, _o=layer.self_attn.forward, **k):
        attn_calls.append((len(a), set(k)))
        return _o(*a, **k)
    layer.forward = layer_call
    layer.self_attn.forward = attn_call
recorder.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, do_sample=False)
calls = expect["calls"]
check_call("_sample", calls.get("generate->_sample"), sample_calls)
check_call("prepare_inputs_for_generation", calls.get("_sample->prepare_inputs_for_generation"), prepare_calls)
check_call("decoder_layer", calls.get("LlamaModel->decoder_layer"), layer_calls)
check_call("self_attn", calls.get("LlamaDecoderLayer->self_attn"), attn_calls)
from transformers.generation.streamers import BaseStreamer
class NullStreamer(BaseStreamer):
    def put(self, value):
        pass
    def end(self):
        pass
sample_calls.clear()
recorder.generate(torch.tensor([[1, 2, 3]]), max_new_tokens=2, do_sample=False, streamer=NullStreamer())
check_call("_sample with a streamer", calls.get("generate->_sample"), sample_calls, given=("streamer",))
from transformers import DynamicCache
class UpdateRecording(DynamicCache):
    def update(self, *args, **kwargs):
        update_calls.append((len(args), set(kwargs)))
        return super().update(*args, **kwargs)
try:
    recorder(input_ids=torch.tensor([[1, 2, 3]]), past_key_values=UpdateRecording(), use_cache=True)
except Exception as exc:  # a release whose DynamicCache needs arguments: no update call recorded
    wrong.append(["call", "update", repr(exc)[:200]])
check_call("update", calls.get("LlamaAttention->update"), update_calls)

# What a model's forward does with a legacy tuple as its cache (`tuple_forward:`, 4.x): a tiny model of each probed
# class builds its cache once, then gets that cache as legacy tuples; "raises" must fail on the tuple's missing
# cache method, "rejects" on the forward's own ValueError, "converts" must run.
TINY_TUPLE_MODELS = {
    "LlamaForCausalLM": ("LlamaConfig", dict(tiny)),
    "MistralForCausalLM": ("MistralConfig", dict(tiny)),
    "Qwen2ForCausalLM": ("Qwen2Config", dict(tiny)),
    "PhiForCausalLM": ("PhiConfig", dict(tiny)),
    "GPTNeoXForCausalLM": ("GPTNeoXConfig", dict(tiny)),
    "OPTForCausalLM": ("OPTConfig", dict(vocab_size=64, hidden_size=32, ffn_dim=64, num_hidden_layers=2,
                                         num_attention_heads=4, word_embed_proj_dim=32)),
    "GPT2LMHeadModel": ("GPT2Config", dict(vocab_size=64, n_embd=32, n_layer=2, n_head=4)),
    "T5ForConditionalGeneration": ("T5Config", dict(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2,
                                                    num_heads=4, decoder_start_token_id=0)),
    "BartForConditionalGeneration": ("BartConfig", dict(vocab_size=64, d_model=32, encoder_layers=2, decoder_layers=2,
                                                        encoder_attention_heads=4, decoder_attention_heads=4,
                                                        encoder_ffn_dim=64, decoder_ffn_dim=64)),
    "WhisperForConditionalGeneration": ("WhisperConfig", dict(vocab_size=64, num_mel_bins=8, encoder_layers=2,
                                                              decoder_layers=2, d_model=32, encoder_attention_heads=4,
                                                              decoder_attention_heads=4, encoder_ffn_dim=64,
                                                              decoder_ffn_dim=64, max_source_positions=16,
                                                              max_target_positions=32, decoder_start_token_id=1,
                                                              pad_token_id=0, bos_token_id=1, eos_token_id=2)),
}
for cls_name, want in expect["tuple_forward"].items():
    config_name, kwargs = TINY_TUPLE_MODELS[cls_name]
    model_cls, config_cls = getattr(transformers, cls_name), getattr(transformers, config_name)
    tuple_model = model_cls(config_cls(**kwargs)).eval()
    if cls_name.startswith("Whisper"):
        inputs = {"input_features": torch.randn(1, 8, 32), "decoder_input_ids": torch.tensor([[1, 5]])}
        step = {"input_features": inputs["input_features"], "decoder_input_ids": torch.tensor([[7]])}
    elif tuple_model.config.is_encoder_decoder:
        inputs = {"input_ids": torch.tensor([[5, 6, 7, 2]]), "decoder_input_ids": torch.tensor([[0, 5]])}
        step = {"input_ids": inputs["input_ids"], "decoder_input_ids": torch.tensor([[7]])}
    else:
        inputs, step = {"input_ids": torch.tensor([[1, 2, 3]])}, {"input_ids": torch.tensor([[4]])}
    with torch.no_grad():
        past = tuple_model(**inputs, use_cache=True).past_key_values
        legacy = past.to_legacy_cache() if hasattr(past, "to_legacy_cache") else past
        assert isinstance(legacy, tuple), (cls_name, type(legacy))
        try:
            tuple_model(**step, past_key_values=legacy, use_cache=True)
            got = "converts"
        except AttributeError as exc:
            got = "raises" if "'tuple' object has no attribute" in str(exc) else repr(exc)[:200]
        except ValueError as exc:
            got = "rejects" if "should be either a `Cache` object or `None`" in str(exc) else repr(exc)[:200]
    if got != want:
        wrong.append(["tuple_forward", cls_name, want, got])

print(len(expect["importable"]), "paths,", len(expect["members"]), "members checked")
assert not wrong, json.dumps(wrong[:40])
'''

# The `call:` facts the probe checks, by a short name the probe reads.
_CALLS = {
    "generate->_sample": "generation.utils.GenerationMixin.generate->_sample",
    "_sample->prepare_inputs_for_generation": "generation.utils.GenerationMixin._sample->prepare_inputs_for_generation",
    "LlamaModel->decoder_layer": "models.llama.modeling_llama.LlamaModel.forward->decoder_layer",
    "LlamaDecoderLayer->self_attn": "models.llama.modeling_llama.LlamaDecoderLayer.forward->self_attn",
    "LlamaAttention->update": "models.llama.modeling_llama.LlamaAttention.forward->update",
}
# The model classes whose `tuple_forward:` verdict the probe runs (a tiny model of each; the probe's TINY_TUPLE_MODELS).
_TUPLE_FORWARD_PROBED = ("LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM", "PhiForCausalLM",
                         "GPTNeoXForCausalLM", "OPTForCausalLM", "GPT2LMHeadModel", "T5ForConditionalGeneration",
                         "BartForConditionalGeneration", "WhisperForConditionalGeneration")
_PROBED_MODULES = ("transformers.cache_utils", "transformers.generation.utils", "transformers.models.")
_CONFIG_CLASS = "transformers.generation.configuration_utils.GenerationConfig."


def expectations(version: str) -> dict[str, object]:
    """What the table says about `version`, for every fact the probe can check at run time."""
    t = releases.table()
    importable: dict[str, bool] = {}
    members: dict[str, tuple[str, list[str] | str | None]] = {}
    values: dict[str, bool] = {}
    genconfig: list[str] = []
    model_attr: dict[str, str | None] = {}
    # `GenerationConfig`'s members (methods, properties, what its methods set on `self`): on a fresh instance, present
    # exactly where the table has them, for every name some release had (HFC007 reads them off a config the code holds).
    config_members: dict[str, bool] = {}
    for key in t.facts:
        kind, _, path = key.partition(":")
        here = releases.value(key, version)
        if kind in ("export", "name"):
            if (here or "").startswith("optional:"):
                continue  # bound only where an optional library is (flash-attn): present, not claimed importable
            importable[path] = here is not None
        elif kind in ("member", "init") and path.startswith(_PROBED_MODULES):
            module_cls, name = (path, "__init__") if kind == "init" else path.rsplit(".", 1)
            module, _, cls = module_cls.rpartition(".")
            if releases.value(f"name:{module_cls}", version) is None:
                continue  # the class itself is absent: the importable check covers it
            own = here
            if own is None:
                # Absent as an own member: checked for a public name no base has either, where every base is in
                # the table (a model class's GenerationMixin base, from another module, is not resolved).
                if (name.startswith("_") or not _closed(module, cls, version)
                        or releases.member(module, cls, name, version) is not None):
                    continue
                members[f"{module_cls}#{name}"] = (name, None)
            elif own == "property":
                members[f"{module_cls}#{name}"] = (name, "property")
            elif own.startswith(("def", "classmethod", "staticmethod", "(")):
                members[f"{module_cls}#{name}"] = (name, list(releases.parameters(own)))
        elif kind == "cache_implementation" and not path.startswith(("*", "(")):
            values[path] = here in ("valid", "deprecated") or (here == "unchecked")
        elif kind == "genconfig" and here is not None and not path.startswith("_"):  # `_commit_hash`: popped only
            genconfig.append(path)
        elif kind == "model_attr":
            model_attr[path] = here
        if kind == "member" and path.startswith(_CONFIG_CLASS) and not path[len(_CONFIG_CLASS):].startswith("_"):
            config_members[path[len(_CONFIG_CLASS):]] = here is not None
    checked = releases.value("cache_implementation:*", version) == "checked"
    if checked:
        values["no-such-cache"] = False
    else:
        values = {}  # nothing is validated: every string is accepted
        values["no-such-cache"] = True
    ptm = releases.value("name:transformers.modeling_utils.PreTrainedModel", version) or ""
    count = releases.value("unpack:transformers.models.llama.modeling_llama.LlamaDecoderLayer.self_attn", version)
    unpack = {"llama": ("LlamaDecoderLayer", int(count))} if count else {}
    return {"importable": importable, "members": members,
            "pretrained_generates": "GenerationMixin" in ptm,
            "generate_input": {k: releases.value(f"generate_input:{k}", version)
                               for k in ("past_key_values", "cache", "cache_position")},
            "unpack": unpack,
            "layer_attrs": {cls: _layer_attrs(cls, version) for cls in ("LlamaAttention", "LlamaDecoderLayer")},
            "tuple_forward": {c: v for c in _TUPLE_FORWARD_PROBED
                              if (v := releases.value(f"tuple_forward:{c}", version)) in ("raises", "rejects", "converts")},
            "calls": {short: releases.value(f"call:transformers.{path}", version) for short, path in _CALLS.items()},
            "helper_reads": {h: releases.value(f"reads:transformers.generation.utils.GenerationMixin.{h}", version)
                             for h in ("_get_stopping_criteria", "_update_model_kwargs_for_generation")},
            "cache_implementation": values, "choices": releases.value("cache_implementation:(choices)", version),
            "genconfig": genconfig, "model_attr": model_attr, "config_members": config_members}


def _layer_attrs(cls: str, version: str) -> dict[str, bool]:
    """Every name the table's `attr:` facts give Llama's `cls` at some release -> whether it has it at `version`."""
    stem = f"attr:transformers.models.llama.modeling_llama.{cls}."
    return {key[len(stem):]: releases.value(key, version) is not None
            for key in releases.table().facts if key.startswith(stem)}


_PLAIN_BASES = frozenset({"", "ABC", "object"})


def _closed(module: str, cls: str, version: str) -> bool:
    """Every base of `cls` (transitively) is a class the table has in the same module, or a plain `ABC`/`object`."""
    described = releases.value(f"name:{module}.{cls}", version) or ""
    if not described.startswith(("class(", "alias(")):
        return False
    bases = [b.strip() for b in described[described.find("(") + 1:-1].split(",")]
    return all(b in _PLAIN_BASES or (b != cls and _closed(module, b, version)) for b in bases)


def probe_snippet(version: str) -> Snippet:
    # Member keys are "module.Class#name" (unique per class and member); the probe resolves the part before "#".
    source = f"EXPECT = {json.dumps(json.dumps(expectations(version)))}\n" + PROBE
    return Snippet(f"releases:probe:{version}", source)


def behaviour_snippets(version: str) -> list[Snippet]:
    return [Snippet(f"releases:{bid}:{version}", CASES[releases.behaviour(bid).oracle])
            for bid, pair in behaviour_releases().items() if version in pair]


class ReleaseOracle:
    """The probe and the behaviour cases, one worker per release, a few releases at a time (2 cores)."""

    def __init__(self) -> None:
        self._results: dict[str, Outcome] | None = None
        self._error: str | None = None

    def outcome(self, snippet_id: str) -> Outcome:
        if self._results is None and self._error is None:
            self._run()
        if self._error is not None:
            if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
                pytest.fail(f"oracle unavailable under CI: {self._error}", pytrace=False)
            pytest.skip(f"oracle unavailable: {self._error}")
        assert self._results is not None
        return self._results[snippet_id]

    def _run(self) -> None:
        reasons = [r for v in RELEASE_ORACLE_VERSIONS if (r := missing(v))]
        if reasons:
            self._error = reasons[0]
            return
        results: dict[str, Outcome] = {}
        versions = list(RELEASE_ORACLE_VERSIONS)
        try:
            for i in range(0, len(versions), 3):
                started = {v: start(v, [probe_snippet(v), *behaviour_snippets(v)]) for v in versions[i:i + 3]}
                for v, (proc, work) in started.items():
                    results.update(finish(v, proc, work))
        except RuntimeError as exc:
            self._error = str(exc)
            return
        self._results = results


_ORACLE = ReleaseOracle()


@pytest.mark.parametrize("version", RELEASE_ORACLE_VERSIONS)
def test_table_agrees_with_the_release(version: str) -> None:
    got = _ORACLE.outcome(f"releases:probe:{version}")
    assert got.kind == "OK", f"the table disagrees with transformers {version}: {got.message}\n{got.output}"


@pytest.mark.parametrize(("behaviour_id", "side"), [(b, s) for b in sorted(behaviour_releases())
                                                    for s in ("before", "first")])
def test_behaviour_starts_at_its_first_release(behaviour_id: str, side: str) -> None:
    b = releases.behaviour(behaviour_id)
    before, first = behaviour_releases()[behaviour_id]
    version = first if side == "first" else before
    entry = next(e for e in _raw_behaviours() if e["id"] == behaviour_id)
    got = _ORACLE.outcome(f"releases:{behaviour_id}:{version}")
    if side == "first":
        assert releases.holds(behaviour_id, version) and not releases.holds(behaviour_id, before)
        assert got.kind != "OK" and entry["match"] in got.message, (
            f"{b.what} on {version} (its first release): expected {entry['match']!r}, got {got.describe()}\n"
            f"{got.output}")
    elif "before_match" in entry:
        assert got.kind != "OK" and entry["before_match"] in got.message, got.describe()
    else:
        assert got.kind == "OK", f"{b.what} on {version} (before {first}): {got.describe()}\n{got.output}"


def _raw_behaviours() -> list[dict[str, str]]:
    from importlib import resources
    raw = json.loads(resources.files("hf_cache_lint").joinpath("data/releases.json").read_text(encoding="utf-8"))
    return list(raw["behaviours"])
