"""`python -m hf_cache_lint.lsp [--tcp --host H --port P]`: the server without the CLI."""

from __future__ import annotations

import argparse

from hf_cache_lint.lsp.server import start


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m hf_cache_lint.lsp")
    parser.add_argument("--tcp", action="store_true")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2087)
    args = parser.parse_args()
    start(tcp=args.tcp, host=args.host, port=args.port)


main()
