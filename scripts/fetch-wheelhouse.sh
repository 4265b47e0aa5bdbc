#!/usr/bin/env bash
# Set-up for tests/install: downloads, once, every wheel a fresh `pip install .` of this repository needs (the
# runtime dependencies of pyproject.toml and the build backend), into .cache/wheelhouse. The tests then install
# offline (`--no-index --find-links .cache/wheelhouse`), as a new user would but without the network; the
# pre-commit hook test points pre-commit's pip at the same folder (PIP_NO_INDEX, PIP_FIND_LINKS).
#
#   scripts/fetch-wheelhouse.sh            into .cache/wheelhouse (or $HFC_WHEELHOUSE)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
out="${HFC_WHEELHOUSE:-$ROOT/.cache/wheelhouse}"
cd "$ROOT"

# [project].dependencies (markers evaluated for the Python the tests run) and [build-system].requires.
mapfile -t requirements < <("$PYTHON" - <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    doc = tomllib.load(f)
for req in doc["project"]["dependencies"] + doc["build-system"]["requires"]:
    print(req)
PY
)
mkdir -p "$out"
"$PYTHON" -m pip download --quiet --disable-pip-version-check --only-binary=:all: --dest "$out" "${requirements[@]}"
echo "wheelhouse $out: $(ls "$out" | wc -l) wheels ($(du -sh "$out" | cut -f1))"
