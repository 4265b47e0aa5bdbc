"""The compile gate in front of parso changes no finding: both paths over real and example code, on every
checked transformers version (what a rule reports depends on the version)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hf_cache_lint.checking.screening import keyword_matters
from hf_cache_lint.checking.source import check_source
from hf_cache_lint.engine.base.findings import CheckResult
from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.screen.gate import cannot_hold_finding
from hf_cache_lint.engine.text.prefilter import might_matter
from hf_cache_lint.engine.text.text import decode_source
from hf_cache_lint.rules import ALL_RULES
from hf_cache_lint.rules.base import CHECKED_VERSIONS
from hf_cache_lint.settings import Settings

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "data" / "corpus"
EXAMPLES_DIR = REPO / "examples"
REALCODE_CASES = REPO / "tests" / "realcode" / "cases"


def both(code: str, path: Path, ctx: Context) -> tuple[CheckResult, CheckResult]:
    return (check_source(code, str(path), context=ctx, use_gate=True),
            check_source(code, str(path), context=ctx, use_gate=False))


EXAMPLES = [
    pytest.param(ex, v, id=f"{rule.code}-{kind}{i}-{v}")
    for rule in ALL_RULES
    for kind, examples in (("invalid", rule.invalid), ("valid", rule.valid))
    for i, ex in enumerate(examples)
    for v in CHECKED_VERSIONS
]


@pytest.mark.parametrize(("ex", "version"), EXAMPLES)
def test_rule_examples_have_the_same_findings_on_both_paths(ex: object, version: str, tmp_path: Path) -> None:
    for rel, content in ex.files.items():  # type: ignore[attr-defined]
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / "example.py"
    path.write_text(ex.code)  # type: ignore[attr-defined]
    gated, parsed = both(ex.code, path, Context(target=Target.of(version), workspace=tmp_path))  # type: ignore[attr-defined]
    assert gated == parsed


def _real_files() -> list[Path]:
    return [p for d in (CORPUS, EXAMPLES_DIR, REALCODE_CASES) if d.is_dir() for p in sorted(d.rglob("*.py"))]


@pytest.mark.skipif(not CORPUS.is_dir(), reason="tests/data/corpus not in this checkout yet")
@pytest.mark.parametrize("path", _real_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_corpus_and_examples_have_the_same_findings_on_both_paths(path: Path) -> None:
    code = decode_source(path.read_bytes())
    for version in CHECKED_VERSIONS:
        gated, parsed = both(code, path, Context(target=Target.of(version), workspace=path.parent))
        assert gated == parsed, version


# Code the text prefilter passes (it says `.generate`, `pipeline(` or `cache_implementation` in code)
# but that names no trigger in code: the gate skips parso for it, and parso's path finds nothing either.
GATED_OUT = [
    "out = model.generate_text(prompt, past_key_values=cache)\n",
    "x = text_pipeline(prompt, past_key_values=cache)\n",
    "my_cache_implementation = 'statc'\nmodel.forward(past_key_values=())\n",
    "from .helpers import make_model\nout = model.generate_ids(past_key_values=())\n",
    # a call that reaches generate with neither a cache nor a keyword: nothing for a rule to report
    "out = model.generate(input_ids)\ntext = tok.decode(out[0])\n",
    # cache words as names only (a local `cache`, an attribute) in a module without generate
    "cache = {}\nx = model.forward(x, past_key_values=cache)\ny = pipe_line.past_key_values, 'a.generate'\n",
    # `from . import x` of a package this file's roots do not hold: the interpreter cannot import it either
    "from ... import helpers\nout = model.generate(input_ids)\n",
]

_PIPE_HELPERS = "from transformers import pipeline\npipe = pipeline('text-generation', model='gpt2', cache_implementation='static')\n"

# Code the gate must hand to parso, each leading to a finding.
PASSED = [
    ("out = model.generate(**inputs, past_key_values=(k, v))\n", {}),
    ("from transformers import pipeline as p\nx = p('text-generation', model='gpt2')\n"
     "y = x('hi', cache_implementation='statc')\n", {}),
    ('kw = {"cache_implementation": "statc"}\n', {}),
    # a pipeline built in a workspace module, called here: the value comes through the import
    ("from helpers import pipe\nout = pipe('hi', cache_implementation='statc', past_key_values=())\n",
     {"helpers.py": "from transformers import pipeline\npipe = pipeline('text-generation', model='gpt2')\n"}),
    # no trigger word in this file's code at all: only the imported pipeline leads to the finding (the
    # prefilter passes it for the `.generate` in the comment), imported after `;` or over a `\` line
    ("import os; from helpers import pipe\nfrom transformers import DynamicCache\n"
     "out = pipe('hi', past_key_values=DynamicCache())  # .generate\n", {"helpers.py": _PIPE_HELPERS}),
    ("from helpers import os, \\\n    pipe\nfrom transformers import DynamicCache\n"
     "out = pipe('hi', past_key_values=DynamicCache())  # .generate\n", {"helpers.py": _PIPE_HELPERS}),
    # a checkpoint folder whose generation_config.json holds an invalid value, loaded here
    ("from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_pretrained('./ckpt')\n"
     "# model.generate later\nx = 1; model.forward_pipeline(x)\n",
     {"ckpt/generation_config.json": '{"cache_implementation": "statc"}\n'}),
    # the cache keyword only as a dict key, the call through getattr's string
    ("from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_config(c)\n"
     "kw = {'past_key_values': ((k, v),)}\nout = model.generate(x, **kw)\n", {}),
    # a pipeline built from its class, called with a legacy cache: no `pipeline` or `generate` name in the code
    ("from transformers import TextGenerationPipeline\np = TextGenerationPipeline(model=m, tokenizer=t)\n"
     "out = p('hi', past_key_values=((k, v),))\ny = my_pipeline(1)\n", {}),
    # a misspelled keyword (HFC005) on a call without any cache: the default says every keyword matters
    ("out = model.generate(input_ids, past_key_valus=cache)\n", {}),
    ("out = model.generate(input_ids, use_model_defaults=True)\n", {}),
]


@pytest.mark.parametrize("code", GATED_OUT)
def test_gated_out_code_has_no_finding_on_parsos_path(code: str, tmp_path: Path) -> None:
    (tmp_path / "helpers.py").write_text("def make_model():\n    return None\n")
    path = tmp_path / "main.py"
    ctx = Context(workspace=tmp_path)
    assert might_matter(code)
    assert cannot_hold_finding(code, str(path), ctx, lambda name: False)  # no keyword a rule reads
    gated, parsed = both(code, path, ctx)
    assert gated == parsed == CheckResult(str(path))


@pytest.mark.parametrize(("code", "files"), PASSED)
def test_code_that_may_hold_a_finding_goes_to_parso(code: str, files: dict[str, str], tmp_path: Path) -> None:
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / "main.py"
    path.write_text(code)
    ctx = Context(workspace=tmp_path)
    assert not cannot_hold_finding(code, str(path), ctx)
    gated, parsed = both(code, path, ctx)
    assert parsed.findings
    assert gated == parsed


# What an imported value must be to matter (engine/screen/gate.py `_lends`): in a module whose code says no `generate`
# (`my_pipeline(` passes the text prefilter, no more), only one that reaches generate when called here: a pipeline,
# a partial of generate, a bound generate, also inside a container or filled in later; with `generate` in the
# code, also a kwargs dict, a config or a model. Each must still reach parso, and find what parso's path finds.
_TUPLE_CACHE = "past_key_values=((k, v),)"
_PIPE = "from transformers import pipeline\n"
IMPORTED_VALUES_THAT_MATTER = {
    "a pipeline in a dict": (
        f"from helpers import PIPES\nout = PIPES['gen']('hi', {_TUPLE_CACHE})\ny = my_pipeline(1)\n",
        {"helpers.py": _PIPE + "PIPES = {'gen': pipeline('text-generation', model='gpt2')}\n"}),
    "a pipeline put in a dict by a function run at the top level, made by another function": (
        f"from helpers import REG\nout = REG['p']('hi', {_TUPLE_CACHE})\ny = my_pipeline(1)\n",
        {"helpers.py": _PIPE + "REG = {}\ndef setup():\n    REG['p'] = make()\n"
                       "def make():\n    return pipeline('text-generation', model='gpt2')\nsetup()\n"}),
    "a partial of generate": (
        f"from helpers import gen\nout = gen(ids, {_TUPLE_CACHE})\ny = my_pipeline(1)\n",
        {"helpers.py": "import functools\nfrom transformers import AutoModelForCausalLM\n"
                       "model = AutoModelForCausalLM.from_pretrained('gpt2')\n"
                       "gen = functools.partial(model.generate, max_new_tokens=5)\n"}),
    "a pipeline imported from a third module into a tuple": (
        f"from helpers import RUNNERS\nout = RUNNERS[0]('hi', {_TUPLE_CACHE})\ny = my_pipeline(1)\n",
        {"helpers.py": "from base import pipe\nfrom transformers import GenerationConfig\nRUNNERS = (pipe,)\n",
         "base.py": _PIPE + "pipe = pipeline('text-generation', model='gpt2')\n"}),
    "a kwargs dict spread into generate": (
        "from helpers import GEN_KW\nout = model.generate(ids, **GEN_KW)\n",
        {"helpers.py": "GEN_KW = dict(cache_implementation='statc')\n"}),
    "a kwargs dict with a cache and a cache_implementation": (
        "from helpers import GEN_KW\nout = model.generate(ids, **GEN_KW)\n",
        {"helpers.py": "from transformers import DynamicCache\n"
                       "GEN_KW = {'cache_implementation': 'static'}\nGEN_KW.update(past_key_values=DynamicCache())\n"}),
}


@pytest.mark.parametrize(("code", "files"), IMPORTED_VALUES_THAT_MATTER.values(),
                         ids=IMPORTED_VALUES_THAT_MATTER.keys())
def test_an_imported_value_that_may_reach_generate_goes_to_parso(code: str, files: dict[str, str],
                                                                 tmp_path: Path) -> None:
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / "main.py"
    path.write_text(code)
    ctx = Context(workspace=tmp_path)
    assert not cannot_hold_finding(code, str(path), ctx, lambda name: False)
    gated, parsed = both(code, path, ctx)
    assert parsed.findings
    assert gated == parsed


# Imported values that cannot matter, from modules that make a pipeline or load a model elsewhere.
_ELSEWHERE = _PIPE + "def run(x):\n    return pipeline('text-generation')(x)\n"
IMPORTED_VALUES_THAT_DO_NOT_MATTER = {
    "a logger": (
        f"from helpers import logger\nout = my_pipeline(x, {_TUPLE_CACHE})\nlogger.info('x')\n",
        {"helpers.py": "import logging\n" + _ELSEWHERE + "logger = logging.getLogger(__name__)\n"}),
    "a constant into a generate call": (
        "from helpers import MAX_LEN\nout = model.generate(ids, max_length=MAX_LEN)\n",
        {"helpers.py": _ELSEWHERE + "MAX_LEN = 512\ndef f():\n    return MAX_LEN + 1\n"}),
    "a table of strings, read by a function that makes a pipeline": (
        f"from helpers import TASKS\nout = my_pipeline(TASKS, {_TUPLE_CACHE})\n",
        {"helpers.py": _PIPE + "TASKS = ('text-generation', 'summarization')\n"
                       "def run(x):\n    return pipeline(TASKS[0])(x)\n"}),
}


@pytest.mark.parametrize(("code", "files"), IMPORTED_VALUES_THAT_DO_NOT_MATTER.values(),
                         ids=IMPORTED_VALUES_THAT_DO_NOT_MATTER.keys())
def test_an_imported_value_that_cannot_matter_is_gated_out(code: str, files: dict[str, str],
                                                           tmp_path: Path) -> None:
    for rel, content in files.items():
        (tmp_path / rel).write_text(content)
    path = tmp_path / "main.py"
    ctx = Context(workspace=tmp_path)
    assert might_matter(code)
    assert cannot_hold_finding(code, str(path), ctx, lambda name: False)
    gated, parsed = both(code, path, ctx)
    assert gated == parsed == CheckResult(str(path))


@pytest.mark.parametrize("code", ["x = (\nmodel.generate(past_key_values=())\n",
                                  "if not __debug__:\n    model.generate(past_key_values=())\n",
                                  "return 1\nmodel.generate(past_key_values=())\n",
                                  "return 1\nx = 'gen' 'erate'\nf(past_key_values=())\n",
                                  "x = 'open\nmodel.generate(past_key_values=())\n"])
def test_code_that_does_not_compile_goes_to_parso_where_its_words_may_hold_a_finding(code: str) -> None:
    assert not cannot_hold_finding(code, "main.py", Context())


@pytest.mark.parametrize("code", ["x = (\n", "return 1\nmodel.generate_x(past_key_values=())\n",
                                  "return 1\n# model.generate(past_key_values=())\nx = 'model.generate(x)'\n"])
def test_code_that_does_not_compile_and_says_none_of_the_words_is_screened_out_without_a_compile(
        code: str, tmp_path: Path) -> None:
    # The text's words decide before any compile (engine/screen/gate.py `_text_words`): the words parso's tokens
    # hold in the same places, so parso's path finds nothing either.
    assert cannot_hold_finding(code, "main.py", Context())
    gated, parsed = both(code, tmp_path / "main.py", Context(workspace=tmp_path))
    assert gated == parsed


def test_the_rules_keywords_are_the_misspelled_the_removed_and_generate_kwargs() -> None:
    assert keyword_matters("past_key_valus") and keyword_matters("cache_implmentation")
    assert keyword_matters("use_model_defaults") and keyword_matters("generate_kwargs")
    assert not keyword_matters("max_new_tokens") and not keyword_matters("use_cache")


def test_keyword_matters_decides_a_call_without_cache_or_cache_implementation() -> None:
    code = "out = model.generate(input_ids, max_new_tokens=5)\n"
    assert not cannot_hold_finding(code, "main.py", Context())  # by default every keyword may matter
    assert cannot_hold_finding(code, "main.py", Context(), lambda name: name == "past_key_valus")
    assert not cannot_hold_finding(code, "main.py", Context(), lambda name: name == "max_new_tokens")


# Code the compiler can tell never runs, where it drops the constants written there (which ones depends on the
# Python version); the interpreter reads some of it (after `while True:` without a break, after
# `assert False`). Either way both paths must agree, here on a legacy tuple cache (HFC002 on 5.x).
_G = "model.generate(x, past_key_values=((k, v),))"
UNREACHABLE = {
    "after return": f"def f():\n    return 1\n    {_G}\n",
    "after raise": f"def f():\n    raise E\n    {_G}\n",
    "after break": f"for i in r:\n    break\n    {_G}\n",
    "if False": f"if False:\n    {_G}\n",
    "if None": f"if None:\n    {_G}\n",
    "if x and False": f"if x and False:\n    {_G}\n",
    "else of if True": f"if True:\n    pass\nelse:\n    {_G}\n",
    "ternary": f"y = {_G} if x and 0 else 0\n",
    "while True": f"while True:\n    serve()\n{_G}\n",
    "while 1, a def after": f"while 1:\n    serve()\ndef f():\n    {_G}\n",
    "while not False": f"while not False:\n    serve()\n{_G}\n",
    "while a string": f"while 'a':\n    serve()\n{_G}\n",
    "assert False": f"def f():\n    assert False\n    {_G}\n",
    "assert None": f"def f():\n    assert (None)\n    {_G}\n",
    "comprehension": f"y = [{_G} for i in r if False]\n",
}
_MODEL = "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_config(c)\n"


@pytest.mark.parametrize("code", UNREACHABLE.values(), ids=UNREACHABLE.keys())
@pytest.mark.parametrize("complete", [True, False], ids=["3.10-3.11", "3.12+"])
def test_unreachable_code_has_the_same_findings_on_both_paths(code: str, complete: bool,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from hf_cache_lint.engine.screen import gate

    if complete and sys.version_info >= (3, 12):
        pytest.skip("this Python drops more unreachable code (the 3.12+ row covers it)")
    monkeypatch.setattr(gate, "_CONSTANTS_COMPLETE", complete)
    # only the keyword's presence is in question: no other keyword may open the gate
    gated = check_source(_MODEL + code, "main.py", use_gate=True)
    assert gated == check_source(_MODEL + code, "main.py", use_gate=False)
    if gated.findings:
        assert not cannot_hold_finding(_MODEL + code, "main.py", Context(), lambda name: False)


def _oracle_tree() -> Path | None:
    root = Path(os.environ.get("ORACLE_DIR", REPO / ".cache" / "oracle")) / "tf-5.24.0" / "transformers"
    return root if root.is_dir() else None


@pytest.mark.skipif(_oracle_tree() is None, reason="no transformers tree under ORACLE_DIR")
def test_transformers_files_the_gate_skips_have_no_finding_on_parsos_path() -> None:
    """Real code the gate skips (the smallest such files of transformers itself, to keep this quick)."""
    tree = _oracle_tree()
    assert tree is not None
    skipped: list[tuple[int, Path, str]] = []
    for p in sorted(tree.rglob("*.py")):
        text = decode_source(p.read_bytes())
        if might_matter(text) and cannot_hold_finding(text, str(p), Context(workspace=tree), keyword_matters):
            skipped.append((len(text), p, text))
    assert skipped, "the gate skips none of transformers' files: the test no longer tests anything"
    for _, p, text in sorted(skipped)[:6]:
        result = check_source(text, str(p), context=Context(workspace=tree), use_gate=False)
        assert result.findings == (), p


def test_code_hits_counts_words_in_code_up_to_the_limit() -> None:
    from hf_cache_lint.engine.text.prefilter import code_hits

    text = '"""model.generate(x)"""\n# model.generate()\n' + "out = model.generate(x)\n" * 5
    assert code_hits(text, 10) == 5  # the docstring and the comment do not count
    assert code_hits(text, 2) == 2
    assert code_hits("x = 1\n", 4) == 0


# -- the ast stage (engine/screen/reaching.py): where the words stand --------------------------------------------
_HFC006 = Settings(extend_select=("HFC006",))
_LOADED = "from transformers import AutoModelForCausalLM\nmodel = AutoModelForCausalLM.from_config(c)\n"
_LEGACY = "((k, v),)"


def _on_every_version(code: str, files: dict[str, str], tmp_path: Path) -> list[CheckResult]:
    """The findings of parso's path on every checked version, HFC006 on (also off), each the gate's as well."""
    for rel, content in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(content)
    path = tmp_path / "main.py"
    path.write_text(code)
    out = []
    for version in CHECKED_VERSIONS:
        ctx = Context(target=Target.of(version), workspace=tmp_path)
        for settings in (_HFC006, Settings()):
            gated = check_source(code, str(path), settings, ctx, use_gate=True)
            parsed = check_source(code, str(path), settings, ctx, use_gate=False)
            assert gated == parsed, (version, settings)
            out.append(parsed)
    return out


# Modules that say `generate` and a cache keyword, or `cache_implementation`, or words of a removed cache API,
# where none of them can make a fact: the gate now decides them without parso (with the rules' own keywords).
AST_GATED_OUT = {
    "modeling code: a cache parameter passed on, generate forwarding its **kwargs": (
        "from transformers import GenerationMixin\nclass M(GenerationMixin):\n"
        "    def forward(self, input_ids, past_key_values=None, cache_params=None, **kwargs):\n"
        "        return self.model(input_ids, past_key_values=past_key_values, cache=cache_params, **kwargs)\n"
        "    def generate(self, input_ids, **kwargs):\n"
        "        kwargs.pop('foo', None)\n        if 'bar' in kwargs and kwargs['bar']:\n            pass\n"
        "        return super().generate(input_ids, max_new_tokens=kwargs.get('n'), **kwargs)\n"),
    "a helper forwarding its **kwargs, called with keywords no rule reads": (
        "class W:\n    def run(self, **kw):\n        return self.lm.generate(**kw)\n"
        "    def step(self, x, past_key_values):\n        self.run(max_new_tokens=5)\n"
        "        return self.layer(x, past_key_values=past_key_values)\n"),
    "cache_implementation only read": (
        "def prep(generation_config, model):\n    ci = generation_config.cache_implementation\n"
        "    if ci == 'statc' or 'offloaded' in generation_config.cache_implementation:\n"
        "        return model.generate(x)\n"),
    "cache_implementation= to the module's own function, which only reads it": (
        "class M:\n    def _cache(self, cache_implementation, n):\n        return 'offloaded' in cache_implementation\n"
        "    def run(self, generation_config):\n"
        "        return self._cache(cache_implementation=generation_config.cache_implementation or 'statc', n=1)\n"),
    "dicts spread into generate whose keys this reads: a display, keys set by a variable, popped": (
        "class M:\n    def generate(self, input_ids, **kwargs):\n"
        "        sem = {'attention_mask': kwargs.pop('attention_mask', None)}\n        fine = {}\n"
        "        for key, value in kwargs.items():\n            fine[key] = value\n"
        "        if 'generation_config' in sem:\n            sem.pop('generation_config')\n"
        "        kwargs['max_new_tokens'] = 5\n        kwargs.update(min_length=1)\n"
        "        out = self.semantic.generate(input_ids, **sem, **{k: v for k, v in fine.items()})\n"
        "        return super().generate(out, **kwargs, **{'output_scores': True})\n"
        "    def forward(self, x, past_key_values=None):\n        return self.m(x, past_key_values=past_key_values)\n"),
    "from_pretrained only as super().from_pretrained, in a method of that name": (
        "class M:\n    @classmethod\n    def from_pretrained(cls, *args, **kwargs):\n"
        "        model = super().from_pretrained(*args, **kwargs)\n        return model\n"
        "    def generate(self, x, **kw):\n        return super().generate(x, **kw)\n"
        "    def forward(self, x, cache=None):\n        return self.m(x, cache=cache)\n"),
    "generate's output with its cache never read": (
        "def run(model, x):\n    outputs = model.generate(x, return_dict_in_generate=True)\n"
        "    return outputs.sequences, dict(**outputs)\n"
        "def forward(past_key_values):\n    return past_key_values[0]\n"),
    # (A parameter bound to a new `DynamicCache()` on one path is a cache the code says it has there since the
    # cache_use facts: the screen lets that text through, as it must.)
    "removed-API words, no cache the code says it has: a parameter indexed, a config flag": (
        "from transformers import DynamicCache\n"
        "def forward(x, past_key_values=None):\n    return past_key_values[0], x.past_key_values\n"
        "config.return_dict_in_generate = True\nout = model.generate(x)\n"),
}


@pytest.mark.parametrize("code", AST_GATED_OUT.values(), ids=AST_GATED_OUT.keys())
def test_the_ast_stage_gates_out_code_where_no_word_can_make_a_fact(code: str, tmp_path: Path) -> None:
    from hf_cache_lint.engine.text.prefilter import might_use_removed_api

    assert cannot_hold_finding(code, str(tmp_path / "main.py"), Context(workspace=tmp_path), keyword_matters,
                               might_use_removed_api(code))
    assert all(r == CheckResult(str(tmp_path / "main.py")) for r in _on_every_version(code, {}, tmp_path))


# Right at the edge of each exclusion: the gate must pass these, and parso's path finds something on some
# checked version.
AST_PASSED = {
    "a **kwargs given a cache before it is spread": (
        _LOADED + f"def run(**kw):\n    kw['past_key_values'] = {_LEGACY}\n    return model.generate(x, **kw)\nrun()\n"),
    "a **kwargs bound again": (
        _LOADED + f"def run(**kw):\n    kw = dict(past_key_values={_LEGACY})\n    return model.generate(x, **kw)\nrun()\n"),
    "a **kwargs filled by a nested function": (
        _LOADED + "def run(**kw):\n    def fill():\n        kw.update(past_key_values=" + _LEGACY + ")\n"
        "    fill()\n    return model.generate(x, **kw)\nrun()\n"),
    "a helper forwarding its **kwargs, called with a cache": (
        _LOADED + f"def run(**kw):\n    return model.generate(x, **kw)\nrun(past_key_values={_LEGACY})\n"),
    "a helper of a helper": (
        _LOADED + "def inner(**kw):\n    return model.generate(x, **kw)\n"
        f"def outer(**kw):\n    return inner(**kw)\nouter(past_key_values={_LEGACY})\n"),
    "a local dict spread into generate": (
        _LOADED + "def run():\n    d = {'max_new_tokens': 5}\n    d['past_key_values'] = " + _LEGACY + "\n"
        "    return model.generate(x, **d)\nrun()\n"),
    "a partial of generate": (
        _LOADED + f"import functools\ng = functools.partial(model.generate)\ng(x, past_key_values={_LEGACY})\n"),
    "a forwarding helper run by a Thread": (
        _LOADED + "from threading import Thread\ndef run(**kw):\n    return model.generate(x, **kw)\n"
        f"Thread(target=run, kwargs=dict(past_key_values={_LEGACY})).start()\n"),
    "a forwarding helper passed as a callback": (
        _LOADED + f"def run(**kw):\n    return model.generate(x, **kw)\ndef call(f):\n    return f(past_key_values={_LEGACY})\n"
        "call(run)\n"),
    "a **kwargs given a cache by update": (
        _LOADED + f"def run(**kw):\n    kw.update(past_key_values={_LEGACY})\n    return model.generate(x, **kw)\nrun()\n"),
    "a **kwargs given a cache by setdefault": (
        _LOADED + f"def run(**kw):\n    kw.setdefault('past_key_values', {_LEGACY})\n    return model.generate(x, **kw)\n"
        "run()\n"),
    "a local dict with a cache in a display spread into it": (
        _LOADED + f"def run():\n    base = {{'past_key_values': {_LEGACY}}}\n    d = {{**base}}\n"
        "    return model.generate(x, **d)\nrun()\n"),
    "a dict bound in a nested function, spread from the module's": (
        _LOADED + f"KW = {{'past_key_values': {_LEGACY}}}\ndef run():\n    def g():\n        KW = {{}}\n"
        "        return KW\n    return model.generate(x, **KW)\nrun()\n"),
    "a dict passed to a helper that fills it": (
        _LOADED + f"def fill(d):\n    d['past_key_values'] = {_LEGACY}\ndef run():\n    d = {{}}\n    fill(d)\n"
        "    return model.generate(x, **d)\nrun()\n"),
    "from_pretrained of a checkpoint folder whose generation_config.json is invalid": (
        "from transformers import AutoModelForCausalLM\nclass M:\n    def load(self):\n"
        "        return super().from_pretrained('x')\nmodel = AutoModelForCausalLM.from_pretrained('./ckpt')\n"
        "out = model.generate(x)\n"),
    "generate's output cache read by attribute": (
        _LOADED + "def run():\n    outputs = model.generate(x, return_dict_in_generate=True)\n"
        "    cache = outputs.past_key_values\n    return cache[0]\nrun()\n"),
    "cache_implementation assigned to a config": (
        _LOADED + "model.generation_config.cache_implementation = 'statc'\nmodel.generate(x)\n"),
    "cache_implementation= to GenerationConfig under another name": (
        "from transformers import GenerationConfig as GC\ncfg = GC(cache_implementation='statc')\n"),
    "cache_implementation= to the module's own function, which hands it to GenerationConfig": (
        "from transformers import GenerationConfig\ndef mk(cache_implementation):\n"
        "    return GenerationConfig(cache_implementation=cache_implementation)\nmk(cache_implementation='statc')\n"),
    "a cache built here and indexed": (
        "from transformers import DynamicCache\ncache = DynamicCache()\nk = cache[0]\n"),
    "generate's output cache, indexed": (
        _LOADED + "out = model.generate(x, return_dict_in_generate=True)\nk = out.past_key_values[0]\n"),
    # a cache the code builds (on a receiver it does not know, nothing is reported: tests/engine/test_cache_use.py)
    "a removed method": ("from transformers import DynamicCache\ncache = DynamicCache()\nlegacy = cache.to_legacy_cache()\n"),
    # any name of a generation module may be one the target lost (the release table: Target.removed_generation_name)
    "a generation module's private helper": (
        "def helper():\n    from transformers.generation.candidate_generator import _crop_past_key_values\n"
        "    return _crop_past_key_values\n"),
    "a generation package's output type": ("from transformers.generation import GreedySearchDecoderOnlyOutput\n"),
}


@pytest.mark.parametrize("code", AST_PASSED.values(), ids=AST_PASSED.keys())
def test_the_ast_stage_passes_code_at_the_edge_of_each_exclusion(code: str, tmp_path: Path) -> None:
    from hf_cache_lint.engine.facts.removed_api_use import KIND as REMOVED_API_USE

    (tmp_path / "ckpt").mkdir()
    (tmp_path / "ckpt" / "generation_config.json").write_text('{"cache_implementation": "statc"}\n')
    assert not cannot_hold_finding(code, str(tmp_path / "main.py"), Context(workspace=tmp_path), keyword_matters,
                                   REMOVED_API_USE.said(code))
    assert any(r.findings for r in _on_every_version(code, {}, tmp_path))


def test_the_ast_stage_walks_every_line_where_the_text_may_not_say_the_names() -> None:
    import ast

    from hf_cache_lint.engine.screen.reaching import Source, reaching_keywords

    call = "model.generate(x, past_key_values=c)\n"
    assert reaching_keywords(Source(call, ast.parse(call))) == {"past_key_values"}
    # A lone CR ends a line for Python's tokenizer; an identifier is NFKC-normalised (fullwidth letters).
    for text in ("y = 1\r" + call, "y = 1\n" + call.replace("generate", "\uff47enerate")):
        src = Source(text, ast.parse(text))
        assert src.lines(["generate"]) is None
        assert reaching_keywords(src) == {"past_key_values"}


def test_the_ast_stage_sees_strings_and_aliases_the_text_does_not_spell() -> None:
    import ast

    from hf_cache_lint.engine.screen.value_sources import may_set_cache_implementation

    for text in ("kw = {'cache_' 'implementation': 'statc'}\n", "kw = {'cache\\x5fimplementation': 'statc'}\n"):
        assert may_set_cache_implementation(ast.parse(text), frozenset())
    assert not may_set_cache_implementation(ast.parse("x = c.cache_implementation\n"), frozenset())


def _tokenizer_decode(data: bytes) -> str:
    """engine/text/text.py decode_source before its UTF-8 fast path: the tokenizer's detect_encoding for every file."""
    import io
    import tokenize

    from hf_cache_lint.engine.text.text import UndecodableError

    if b"\x00" in data[:8192]:
        raise UndecodableError("binary file (contains NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding).removeprefix("\ufeff")
    except (SyntaxError, LookupError, UnicodeDecodeError) as exc:
        raise UndecodableError(f"not valid UTF-8 or declared encoding: {exc}") from None


_ENCODED = [b"", b"x = 1\n", b"x = 'caf\xc3\xa9'\n", b"\xef\xbb\xbfx = 1\n", b"\xef\xbb\xbf# coding: utf-8\nx = 1\n",
            b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", b"#!/usr/bin/env python\n# coding=latin-1\nx = '\xe9'\n",
            b"\n# vim: set fileencoding=cp1252 :\nx = '\x80'\n", b"x = 1\n# coding: latin-1\ny = '\xe9'\n",
            b"x = '\xe9'\n", b"x = 1\ny = '\xff'\n", b"# coding: nosuchcodec\n", b"\xef\xbb\xbf# coding: latin-1\n",
            b"x = 1\r# coding: latin-1\ry = '\xe9'\r", b"x = 1\x00\n", b"# decoding the bytes\nx = 'caf\xc3\xa9'\n",
            b"x = '\xc3'\n", "x = '\ufeff'\n".encode()]


@pytest.mark.parametrize("data", _ENCODED)
def test_decode_source_decodes_as_the_tokenizer_does(data: bytes) -> None:
    from hf_cache_lint.engine.text.text import UndecodableError

    try:
        expected: str | tuple[str, str] = _tokenizer_decode(data)
    except UndecodableError as exc:
        expected = ("error", str(exc))
    try:
        got: str | tuple[str, str] = decode_source(data)
    except UndecodableError as exc:
        got = ("error", str(exc))
    assert got == expected


def test_decode_source_decodes_the_corpus_and_transformers_as_the_tokenizer_does() -> None:
    tree = _oracle_tree()
    paths = _real_files() + (sorted(tree.rglob("*.py")) if tree is not None else [])
    for p in paths:
        data = p.read_bytes()
        assert decode_source(data) == _tokenizer_decode(data), p
