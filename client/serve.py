"""Starts the hf-cache-lint language server for the VS Code extension without importing from the workspace.

The extension runs `<python> -I -X utf8 -u serve.py serve` (client/launch.json). `-I` (isolated mode) keeps
the working directory, this script's folder, PYTHONPATH and the user site-packages off `sys.path`, so a
workspace file named like a module the server imports (`json.py`, `uuid.py`, `parso.py`, ...) is never run:
`python -m` would put the working directory first on `sys.path`. `-I` exists on every Python the server
supports; `-P` needs 3.11 and the interpreter may be 3.10. Isolated mode also ignores PYTHONUTF8 and
PYTHONUNBUFFERED, hence `-X utf8 -u`.

`-S` skips the `site` module at start: the runner may be a workspace virtual environment's python (the analysed
interpreter), and its `.pth` files and `sitecustomize` must never run (issue 33); the .vsix carries every library
the server needs, so the bundled server needs no site-packages.

This script puts the server and its libraries first on `sys.path` itself: `tool/` and `libs/` next to it
in the .vsix (bundled/serve.py), or the checkout's `server/` folder (client/serve.py, running from source).
Only `os` and `sys`, loaded while the interpreter starts, run before that.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_BUNDLED = [os.path.join(_HERE, "tool"), os.path.join(_HERE, "libs")]
if all(os.path.isdir(p) for p in _BUNDLED):
    sys.path[0:0] = _BUNDLED  # everything the server imports is here or in the standard library
else:
    # From the checkout (development): its dependencies are installed in the interpreter's site-packages, which
    # `-S` left out; add them now (the developer's own environment, not a workspace's).
    import site

    site.main()
    sys.path.insert(0, os.path.join(os.path.dirname(_HERE), "server"))

from hf_cache_lint.cli import main  # noqa: E402

sys.exit(main(sys.argv[1:]))
