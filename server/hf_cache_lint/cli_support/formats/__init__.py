"""Output formats of `check`: each turns a Report into the text printed on stdout."""

from __future__ import annotations

from collections.abc import Callable

from hf_cache_lint.cli_support.formats import github, json_format, sarif, text
from hf_cache_lint.cli_support.report import Report

FORMATS: dict[str, Callable[[Report], str]] = {
    "text": text.render,
    "json": json_format.render,
    "sarif": sarif.render,
    "github": github.render,
}
