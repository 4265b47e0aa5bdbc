"""The project's own subclasses of transformers cache classes (engine/interpreter/functions.py `cache_base`,
cache_uses.py `_subclass_subject`): a member the subclass does not define is transformers', so its use is checked like
any transformers cache's (on `self` in its methods, and on its instances); a member the project's classes define
is the project's and never reported; a class that subclasses no transformers cache (or a base the linter cannot
see) is never a cache."""

from __future__ import annotations

from pathlib import Path

from hf_cache_lint.engine.environment.context import Context
from hf_cache_lint.engine.environment.release_version import Version
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.engine.facts.cache_crop import KIND as CROP
from hf_cache_lint.engine.facts.cache_crop import CacheCrop
from hf_cache_lint.engine.facts.cache_use import KIND, CacheUse
from hf_cache_lint.engine.interpreter.interp import analyse

HEAD = (
    "import torch\n"
    "from transformers import AutoModelForCausalLM, DynamicCache\n"
    "from transformers.cache_utils import Cache\n\n"
)


def uses(text: str) -> list[CacheUse]:
    return list(analyse(text, "<test>", Context(target=Target(Version.parse("5.24.0")))).of(KIND))


def crops(text: str) -> list[CacheCrop]:
    return list(analyse(text, "<test>", Context(target=Target(Version.parse("5.24.0")))).of(CROP))


def named(text: str) -> set[tuple[str, str, str]]:
    return {(u.op, u.name, u.receiver) for u in uses(text)}


TREE = HEAD + (
    "class TreeCache(DynamicCache):\n"
    "    seen_tokens = 0\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.cache_length = 0\n"
    "        self.a, self.b = 1, 2\n"
    "    def set_length(self):\n"
    "        self.cache_length = self.get_seq_length()\n"
    "    def select(self):\n"
    "        for data in self.key_cache + self.value_cache:\n"
    "            data.zero_()\n"
    "        return self.get_usable_length(3), self.seen_tokens, self.a, self.b\n"
    "    def to_legacy_cache(self):\n"
    "        return self.cache_length\n\n"
)


def test_inherited_members_in_the_subclass_methods_are_transformers() -> None:
    got = named(TREE)
    assert ("read", "key_cache", "self") in got
    assert ("read", "value_cache", "self") in got
    assert ("call", "get_usable_length", "self") in got
    assert ("call", "get_seq_length", "self") in got  # recorded; the rules find nothing wrong with it
    use = next(u for u in uses(TREE) if u.name == "key_cache")
    assert (use.receiver_class, use.module, use.subclass) == ("DynamicCache", "transformers.cache_utils", "TreeCache")
    assert use.description == "`TreeCache` (a subclass of `DynamicCache`)"


def test_members_the_subclass_defines_are_its_own() -> None:
    got = {name for _, name, _ in named(TREE)}
    # a class-level name, `self.x = ...` (also unpacked), a method: none is transformers'
    assert not got & {"seen_tokens", "cache_length", "a", "b", "to_legacy_cache", "set_length", "select"}


def test_instances_of_the_subclass() -> None:
    text = TREE + "c = TreeCache()\nc.key_cache\nc.to_legacy_cache()\nc.seen_tokens\nc.crop(4)\n"
    got = named(text)
    assert ("read", "key_cache", "c") in got
    assert not {n for _, n, r in got if r == "c"} & {"to_legacy_cache", "seen_tokens"}
    crop = [c for c in crops(text) if c.receiver == "c"]
    assert [(c.value, c.cache) for c in crop] == [(4, "`TreeCache` (a subclass of `DynamicCache`)")]


def test_a_crop_in_the_subclass_and_an_own_crop() -> None:
    text = TREE + "class Own(DynamicCache):\n    def crop(self, n):\n        pass\n    def go(self):\n        self.crop(3)\n"
    got = crops(text)
    assert not got  # TreeCache never crops; Own's crop is its own
    got = crops(TREE.replace("        return self.cache_length\n", "        self.crop(self.cache_length)\n"))
    assert [(c.value, c.argument_text, c.receiver) for c in got] == [(None, "self.cache_length", "self")]


def test_through_a_project_base_and_the_abstract_cache() -> None:
    text = HEAD + (
        "class Base(Cache):\n"
        "    def __init__(self):\n        self.key_cache = []\n"
        "    def update(self, k, v, i, kw=None):\n        return k, v\n\n"
        "class Magic(Base):\n"
        "    def go(self):\n"
        "        self.update(1, 2, 0)\n"
        "        return self.key_cache, self.get_usable_length(2), len(self)\n"
    )
    got = named(text)
    assert ("call", "get_usable_length", "self") in got
    assert ("len", "", "self") in got  # neither class defines `__len__`: Cache's
    assert not {n for _, n, _ in got} & {"update", "key_cache"}
    assert next(u for u in uses(text) if u.name == "get_usable_length").receiver_class == "Cache"


def test_dunders_the_subclass_defines_answer_whole_uses() -> None:
    text = HEAD + (
        "class Pairs(DynamicCache):\n"
        "    def __iter__(self):\n        yield from ()\n"
        "    def go(self):\n"
        "        for k, v in self:\n            pass\n"
        "        return self[0], len(self)\n"
    )
    assert not [u for u in uses(text) if u.op in ("iterate", "subscript", "len")]


def test_no_transformers_base_or_an_unseen_base_is_no_cache() -> None:
    text = HEAD + (
        "from mystuff import Mixin\n\n"
        "class DynamicCacheLike:\n"
        "    def go(self):\n        return self.key_cache, self.get_usable_length(1)\n\n"
        "class Mixed(Mixin, DynamicCache):\n"
        "    def go(self):\n        return self.key_cache\n\n"
        "class Lazy(DynamicCache):\n"
        "    def __getattr__(self, name):\n        return None\n"
        "    def go(self):\n        return self.key_cache\n\n"
        "class Module(torch.nn.Module):\n"
        "    def go(self):\n        return self.key_cache\n"
        "d = DynamicCacheLike()\nd.key_cache\n"
    )
    assert not [u for u in uses(text) if u.name in ("key_cache", "get_usable_length")]


def test_a_subclass_imported_from_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "owncache.py").write_text(
        "from transformers.cache_utils import Cache\n\n\n"
        "class MagicCache(Cache):\n"
        "    def __init__(self):\n        self.key_cache = []\n        self.seen_tokens = 0\n\n"
        "    def to_legacy_cache(self):\n        return ()\n\n\n"
        "class Plain:\n    def to_legacy_cache(self):\n        return ()\n", encoding="utf-8")
    text = (
        "import transformers\nfrom owncache import MagicCache, Plain\n\n"
        "c = MagicCache()\nc.to_legacy_cache()\nn = c.seen_tokens + len(c.key_cache)\nm = c.get_usable_length(3)\n"
        "p = Plain()\np.to_legacy_cache()\np.key_cache\n"
    )
    main = tmp_path / "main.py"
    main.write_text(text, encoding="utf-8")
    context = Context(target=Target(Version.parse("5.24.0")), workspace=tmp_path)
    got = [(u.name, u.receiver, u.receiver_class, u.subclass) for u in analyse(text, str(main), context).of(KIND)]
    # its own members (a method, `self.x = ...` in `__init__`) stay the project's; `len` of it is Cache's `__len__`
    assert ("get_usable_length", "c", "Cache", "MagicCache") in got
    assert not [g for g in got if g[0] in ("to_legacy_cache", "seen_tokens", "key_cache") or g[1] == "p"]
