"""The `hf-cache-lint.upgradeCheck` command: what an open document would break on a newer transformers.

Arguments: the document's uri and the version to upgrade to. The answer lists the findings that are new
at that version (rows and columns 1-based, columns in characters, as in the CLI's JSON), each with the
release that brings it; the editor shows them (VS Code: *hf-cache-lint: What breaks if I upgrade*).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from functools import cache
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams

from hf_cache_lint.engine.base.findings import Finding
from hf_cache_lint.engine.environment.release_steps import releases_between
from hf_cache_lint.engine.environment.target import Target
from hf_cache_lint.lsp.documents import Results, Unit, analyse_unit
from hf_cache_lint.lsp.progress import WorkDone
from hf_cache_lint.lsp.server import HfCacheLintServer
from hf_cache_lint.lsp.settings import FolderConfig
from hf_cache_lint.upgrade_diff import first_release, new_since, note

COMMAND = "hf-cache-lint.upgradeCheck"


async def upgrade_check(ls: HfCacheLintServer, uri: str, version: str) -> list[dict[str, Any]]:
    try:
        upgrade = Target.of(version)
    except ValueError as exc:
        raise JsonRpcInvalidParams(str(exc)) from exc
    unit = ls.unit_for(uri)
    if unit is None:
        raise JsonRpcInvalidParams(f"not an open document: {uri}")
    config = ls.config_for(uri)
    current = config.context.target
    if upgrade.version <= current.version:
        raise JsonRpcInvalidParams(f"{upgrade} is not newer than the current target {current}")
    await ls.settings_ready.wait()
    # Up to one analysis per behaviour change between the two versions (to name the release that brings each
    # finding): on a big document that takes seconds, so the client shows progress ($/progress).
    async with WorkDone(ls, f"hf-cache-lint: what breaks on transformers {upgrade}") as progress:
        return await asyncio.get_running_loop().run_in_executor(
            ls.engine, _report, ls, unit, config, upgrade, progress)


def _report(ls: HfCacheLintServer, unit: Unit, config: FolderConfig, upgrade: Target,
            progress: WorkDone | None = None) -> list[dict[str, Any]]:
    current = config.context.target
    steps = 1 + len(releases_between(current, upgrade))  # at most: the current target and each release after it
    done: list[Target] = []

    @cache
    def at(target: Target) -> Results:
        if progress is not None:
            progress.report(f"analysing for transformers {target}", 100 * len(done) // steps)
        with ls.unit_lock(unit.uri):  # parso's incremental tree of this path serves one run at a time
            results = analyse_unit(unit, config.settings, replace(config.context, target=target))
        done.append(target)
        return results

    out: list[dict[str, Any]] = []
    for part in unit.parts:

        def in_part(target: Target, uri: str = part.uri) -> tuple[Finding, ...]:
            return at(target).get(uri, ())

        for f in new_since(in_part(current), in_part(upgrade)):
            out.append(_entry(part.uri, f, first_release(f, current, upgrade, in_part), current))
    return out


def _entry(uri: str, f: Finding, release: Target, current: Target) -> dict[str, Any]:
    return {"uri": uri, "code": f.code, "severity": f.severity.value, "release": str(release),
            "row": f.span.start.line, "column": f.span.start.column + 1,
            "message": f.message + note(release, current)}
