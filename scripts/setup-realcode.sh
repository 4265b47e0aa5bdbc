#!/usr/bin/env bash
# Fetch the released sources that tests/realcode checks (the real-code silence test): the wheels pinned in
# tests/realcode/packages.tsv, by name, version and sha256, from the package index.
#
# Layout under .cache/realcode/ (gitignored):
#   wheels/                the downloaded wheels (pip checks each one's sha256: --require-hashes)
#   src/<name>-<version>/  each wheel's .py and .ipynb files, unpacked as plain files
#   stamp                  the sha256 of packages.tsv that src/ was unpacked from (makes re-runs no-ops)
#
# Wheels, not sdists: a wheel is a zip of the package's own files, so nothing of theirs runs here (an
# sdist would run its build backend to get metadata). Nothing is installed or imported; the tests only
# read the files. Offline apart from the package index; the tests themselves never use the network.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LIST="$ROOT/tests/realcode/packages.tsv"
DIR="${REALCODE_DIR:-$ROOT/.cache/realcode}"  # REALCODE_DIR: fetch elsewhere (e.g. to time a fresh run)
export PIP_DISABLE_PIP_VERSION_CHECK=1

# This machine's pip config lists index folders that may not exist; pip warns once per package. Hide
# only those lines (real errors still show).
exec 2> >(grep -v "^WARNING: Location 'file://.*' is ignored" >&2)

start=$(date +%s)
log() { printf '[setup-realcode %3ss] %s\n' "$(( $(date +%s) - start ))" "$*"; }

want="$(sha256sum "$LIST" | cut -d' ' -f1)"
if [[ -d "$DIR/src" && "$(cat "$DIR/stamp" 2>/dev/null)" == "$want" ]]; then
  log "up to date ($DIR/src)"
  exit 0
fi

mkdir -p "$DIR/wheels"
reqs="$DIR/requirements.txt"
grep -v '^#' "$LIST" | awk -F'\t' 'NF >= 3 { printf "%s==%s --hash=sha256:%s\n", $1, $2, $3 }' > "$reqs"
log "downloading $(wc -l < "$reqs") wheels (no dependencies, no build)"
python3 -m pip download -q --no-deps --only-binary :all: --require-hashes -r "$reqs" -d "$DIR/wheels"

log "unpacking into $DIR/src"
rm -rf "$DIR/src" "$DIR/src.tmp"
python3 - "$LIST" "$DIR/wheels" "$DIR/src.tmp" <<'EOF'
"""Unpack each pinned wheel's .py/.ipynb members (never anything outside its own folder)."""
import hashlib
import re
import sys
import zipfile
from pathlib import Path, PurePosixPath

listing, wheels, dest = (Path(a) for a in sys.argv[1:4])
for line in listing.read_text().splitlines():
    if not line.strip() or line.startswith("#"):
        continue
    name, version, sha = line.split("\t")[:3]
    # A wheel's file name spells the project name with runs of -_. as "_" (PEP 427 / PEP 491).
    stem = re.sub(r"[-_.]+", "_", name)
    found = [w for w in wheels.glob("*.whl") if w.name.lower().startswith(f"{stem}-{version}-".lower())]
    matching = [w for w in found if hashlib.sha256(w.read_bytes()).hexdigest() == sha]
    if not matching:
        sys.exit(f"setup-realcode: no wheel of {name}=={version} with sha256 {sha} in {wheels}")
    out = dest / f"{name}-{version}"
    with zipfile.ZipFile(matching[0]) as zf:
        for member in zf.namelist():
            rel = PurePosixPath(member)
            if rel.is_absolute() or ".." in rel.parts or rel.suffix not in (".py", ".ipynb"):
                continue
            target = out.joinpath(*rel.parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(member))
EOF
mv "$DIR/src.tmp" "$DIR/src"
echo "$want" > "$DIR/stamp"
log "done: $(find "$DIR/src" -name '*.py' | wc -l) .py files in $(ls "$DIR/src" | wc -l) packages"
