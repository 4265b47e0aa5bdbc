"""The release table's facts as `Run`s (a value a fact holds over consecutive releases), made when a fact is first
looked up (`Facts`); releases.py loads the table and answers the queries."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TypeVar, overload

from hf_cache_lint.engine.environment.release_version import Version

T = TypeVar("T")


@dataclass(frozen=True)
class Run:
    """One value a fact holds over consecutive releases, `first` to `last` (inclusive)."""

    first: Version
    last: Version
    value: str


class Facts(Mapping[str, tuple[Run, ...]]):
    """The table's facts by key, each key's runs made into `Run`s when the key is first looked up.

    The table holds about 2,700 keys and 3,300 runs, over half of them the names of the tabled model modules; a check
    looks up a few dozen keys. Making every run at load took 2.8 of the table's 4.7 ms, paid by the language server's
    start-up and the CLI's first check (a worker's, in a pool). Iterating the keys makes nothing."""

    def __init__(self, raw: dict[str, list[list[str]]], versions: dict[str, Version]) -> None:
        self._raw = raw
        self._versions = versions  # the table's releases by their text (every run starts and ends at one)
        self._made: dict[str, tuple[Run, ...]] = {}

    def __getitem__(self, key: str) -> tuple[Run, ...]:
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = tuple(Run(self._version(a), self._version(b), v) for a, b, v in self._raw[key])
        return made

    @overload
    def get(self, key: str, /) -> tuple[Run, ...] | None: ...

    @overload
    def get(self, key: str, /, default: tuple[Run, ...] | T) -> tuple[Run, ...] | T: ...

    def get(self, key: str, /, default: object = None) -> object:
        # Written out (Mapping.get goes through __getitem__ and a KeyError): `value` asks it for every fact it reads.
        made = self._made.get(key)
        if made is not None:
            return made
        return self[key] if key in self._raw else default

    def __contains__(self, key: object) -> bool:
        return key in self._raw

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def last_releases(self, keys: Iterable[str]) -> Iterator[str]:
        """The last release (as the table writes it) of every run of `keys`, without making their runs (a scan of
        all the model modules' names at the first check wants only these)."""
        for key in keys:
            for run in self._raw.get(key, ()):
                yield run[1]

    def _version(self, text: str) -> Version:
        got = self._versions.get(text)
        return got if got is not None else Version.parse(text)
