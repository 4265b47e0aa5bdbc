"""`Version`: a transformers release number, parsed and compared by its release numbers; NEWEST, the newest the
release table knows."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache, total_ordering

from packaging.version import InvalidVersion
from packaging.version import Version as PackagingVersion

NEWEST = "5.25.0"


@total_ordering
@dataclass(frozen=True)
class Version:
    """A transformers release, as `packaging` reads it, compared by its release numbers.

    A pre-release, dev or local version (`5.0.0rc1`, `4.58.0.dev0` from a source checkout, `5.24.0+cpu`) keeps its
    tag for display (`str`), but compares and hashes as its final release: transformers' release candidates and
    dev builds already carry the behaviour changes of the release they lead to (5.0.0rc0 has the 5.0 cache API), so
    checking them as the release before (what PEP 440 ordering would do) would check the wrong API.
    """

    major: int
    minor: int
    patch: int = 0
    tag: str = field(default="", compare=False)  # "rc1", ".dev0", "+cpu": what follows the release numbers

    @staticmethod
    @lru_cache(maxsize=256)  # the rules compare against the same few literals on every call of every check
    def parse(text: str) -> Version:
        try:
            v = PackagingVersion(text.strip())
        except InvalidVersion:
            raise ValueError(f"not a transformers version: {text!r}") from None
        if v.epoch or len(v.release) > 3:
            raise ValueError(f"not a transformers version: {text!r}")
        major, minor, patch = (*v.release, 0, 0)[:3]
        release = ".".join(map(str, v.release))
        return Version(major, minor, patch, str(v)[len(release):] if str(v).startswith(release) else "")

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) < (other.major, other.minor, other.patch)

    # Written out, not derived by total_ordering (which calls __lt__ through another frame): the rules ask
    # `version >= V(...)` dozens of times a check.
    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) >= (other.major, other.minor, other.patch)

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) > (other.major, other.minor, other.patch)

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return (self.major, self.minor, self.patch) <= (other.major, other.minor, other.patch)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}{self.tag}"


V = Version.parse
