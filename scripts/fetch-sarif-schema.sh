#!/usr/bin/env bash
# Set-up for tests/cli/test_output.py: the OASIS SARIF 2.1.0 JSON Schema (2.1.0-rtm.5, the schema SchemaStore
# serves), taken once from the npm registry, where @microsoft/jest-sarif (MIT) ships it; no PyPI package does
# (see tests/data/sarif/README.md). The file's sha256 is pinned: a different schema fails here, not in a test.
#
#   scripts/fetch-sarif-schema.sh        into .cache/sarif/sarif-2.1.0-rtm.5.json
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$ROOT/.cache/sarif"
schema="$out/sarif-2.1.0-rtm.5.json"
sha="2d99159ae54a3eea97f81781cff48780548657c35949f4b7f25e99a2ba4de4f8"

if [[ -f "$schema" ]] && echo "$sha  $schema" | sha256sum --check --status; then
  echo "SARIF schema: $schema (kept)"
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@microsoft/jest-sarif@1.0.0-beta.0" >/dev/null)
tar -xzf "$work"/microsoft-jest-sarif-1.0.0-beta.0.tgz -C "$work" package/lib/schemas/sarif-2.1.0-rtm.5.json
echo "$sha  $work/package/lib/schemas/sarif-2.1.0-rtm.5.json" | sha256sum --check --status \
  || { echo "SARIF schema: the npm package's schema is not the pinned one" >&2; exit 1; }
mkdir -p "$out"
cp "$work/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$schema"
echo "SARIF schema: $schema"
