"""Read an .ipynb document and write it back with only code cell sources changed."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hf_cache_lint.engine.notebook import NotebookError


@dataclass(frozen=True)
class Notebook:
    """The parsed document and how it was laid out (so an unchanged part is written back the same)."""

    doc: dict[str, Any]
    indent: int | None
    ensure_ascii: bool
    trailing_newline: bool

    @staticmethod
    def parse(text: str) -> Notebook:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise NotebookError(f"invalid notebook JSON: {exc.msg}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("cells"), list):
            raise NotebookError("invalid notebook: no 'cells' list")
        m = re.match(r"\{\r?\n( +)\S", text)
        # nbformat writes indent=1 and raw non-ASCII; keep whatever this file used.
        return Notebook(doc, len(m.group(1)) if m else None,
                        text.isascii() and "\\u" in text, text.endswith("\n"))

    def _code_cells(self) -> Iterator[dict[str, Any]]:
        for cell in self.doc["cells"]:
            if isinstance(cell, dict) and cell.get("cell_type") == "code":
                yield cell

    def code_sources(self) -> Iterator[str]:
        for cell in self._code_cells():
            src = cell.get("source", "")
            yield "".join(src) if isinstance(src, list) else str(src)

    def with_code_sources(self, sources: Sequence[str]) -> str:
        """The document text with the code cells' sources replaced (lists stay lists of lines)."""
        for cell, new in zip(self._code_cells(), sources, strict=False):
            old = cell.get("source", "")
            old_text = "".join(old) if isinstance(old, list) else str(old)
            if new != old_text:
                cell["source"] = new.splitlines(keepends=True) if isinstance(old, list) else new
        text = json.dumps(self.doc, indent=self.indent, ensure_ascii=self.ensure_ascii)
        return text + "\n" if self.trailing_newline else text
