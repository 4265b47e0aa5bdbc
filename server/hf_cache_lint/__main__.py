"""`python -m hf_cache_lint` runs the CLI."""

from hf_cache_lint.cli import main

raise SystemExit(main())
