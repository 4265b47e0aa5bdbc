"""The rule registry: every rule package, in code order, found by listing this package.

Each subpackage (`hfc001_cache_conflict/`, ...) is one rule: its `__init__.py` defines exactly one `Rule`
subclass. A new rule is registered by creating its package; nothing here lists the rules
(CONTRIBUTING.md "Adding a rule"; tests/rules/test_registry.py checks the names and everything a rule
must come with). The plain modules beside the packages (base, common, order, ...) are shared helpers.
"""

from __future__ import annotations

import importlib
import pkgutil

from hf_cache_lint.rules.base import Rule


class RegistryError(RuntimeError):
    """A rule package that does not define exactly one rule."""


def discover(package: str, path: list[str]) -> tuple[Rule, ...]:
    """One instance of the rule each subpackage of `package` (on `path`) defines, in package-name order
    (`hfc001_...` first: code order when names follow the `hfc00N_<name>` convention)."""
    rules = []
    for info in sorted(pkgutil.iter_modules(path), key=lambda m: m.name):
        if not info.ispkg:
            continue
        module = importlib.import_module(f"{package}.{info.name}")
        # Only classes defined in the package itself: HFC002 imports from HFC001, which is not its rule.
        own = [obj for obj in vars(module).values()
               if isinstance(obj, type) and issubclass(obj, Rule) and obj.__module__ == module.__name__]
        if len(own) != 1:
            raise RegistryError(f"rule package {module.__name__} must define exactly one Rule subclass in its "
                                f"__init__.py, found {[c.__name__ for c in own] or 'none'}")
        rules.append(own[0]())
    return tuple(rules)


ALL_RULES: tuple[Rule, ...] = discover(__name__, __path__)

BY_CODE: dict[str, Rule] = {r.code: r for r in ALL_RULES}
