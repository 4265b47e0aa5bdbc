"""The code action kinds the server registers at start-up (kept apart from lsp/actions.py, which loads only
at the first code action: its imports are not needed to answer `initialize` or to publish diagnostics)."""

from __future__ import annotations

from lsprotocol import types

# eglot 1.9 lists only actions whose kind is exactly `quickfix` (docs/editors.md): no sub-kinds.
QUICKFIX = types.CodeActionKind.QuickFix
FIX_ALL = "source.fixAll.hf-cache-lint"
NOTEBOOK_FIX_ALL = "notebook.source.fixAll.hf-cache-lint"
KINDS = [QUICKFIX, FIX_ALL, NOTEBOOK_FIX_ALL]
