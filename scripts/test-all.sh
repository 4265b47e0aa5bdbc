#!/usr/bin/env bash
# Install everything (pip, apt, npm, the oracle's transformers environments, the real-code wheels, real
# editors) and run ALL the tests: lint, types, rule examples, engine, CLI, language server, a fresh plain
# install (wheel, README command, serve, .vsix server, pre-commit hook), oracle (real transformers), real
# code (pinned packages that call generate) and real editors (code-server, Neovim, Emacs, Vim).
# Idempotent; what is installed already is kept.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

step() { printf '\n==> %s (%s)\n' "$1" "$(date +%T)"; }

step "Python package and test dependencies"
python3 -m pip install -q -e ".[test]"
step "Offline wheelhouse for the fresh-install and pre-commit tests"
bash scripts/fetch-wheelhouse.sh
step "The OASIS SARIF 2.1.0 schema the SARIF output is validated against (npm registry)"
bash scripts/fetch-sarif-schema.sh
step "Oracle environments: transformers 4.57.6, 5.23.0, 5.24.0 on CPU torch 2.13.0"
bash scripts/setup-oracle.sh
step "Real code: pinned wheels of packages that call generate (tests/realcode)"
bash scripts/setup-realcode.sh
step "Editors: Neovim, Emacs + eglot, Vim + ALE, code-server, chromium, node 24"
bash scripts/setup-editors.sh
step "VS Code extension (.vsix)"
bash scripts/build-vsix.sh
step "ruff and mypy"
python3 -m ruff check server tests bench scripts
python3 -m mypy
step "pytest: every test"
python3 -m pytest -p no:cacheprovider -q "$@"
