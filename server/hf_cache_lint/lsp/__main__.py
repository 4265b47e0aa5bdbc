"""`python -m hf_cache_lint.lsp [--tcp --host H --port P]`: the server without the CLI."""

from __future__ import annotations

import sys

from hf_cache_lint.lsp.startup import deferred_old_collections


def main() -> None:
    with deferred_old_collections():  # from before lsprotocol's import (lsp/startup.py)
        from hf_cache_lint.lsp.server import start

        if len(sys.argv) == 1:  # how editors and the bench start it: no argparse to import
            start()
            return
        import argparse

        parser = argparse.ArgumentParser(prog="python -m hf_cache_lint.lsp")
        parser.add_argument("--tcp", action="store_true")
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=2087)
        args = parser.parse_args()
        start(tcp=args.tcp, host=args.host, port=args.port)


main()
