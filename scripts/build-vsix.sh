#!/usr/bin/env bash
# Builds the VS Code extension: bundled/ (server package + its Python dependencies), the esbuild client bundle,
# then the .vsix with vsce (offline). Prints the .vsix path and size.
#
#   scripts/build-vsix.sh                 everything; the .vsix lands in the repo root (or $HFC_VSIX_OUT)
#   scripts/build-vsix.sh --server-only   only bundled/ (to run the extension from a checkout)
#
# The dependencies are pure-Python wheels resolved for the server's floor (Python 3.10), so one .vsix serves
# every Python >= 3.10 on every platform.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
cd "$ROOT"
start=$SECONDS

# The server's runtime requirements: [project].dependencies of pyproject.toml (pygls and lsprotocol are required
# there; the `lsp` extra is an empty alias kept for old commands, read too in case it names something again).
# Markers are dropped: pip evaluates them for the running Python, not --python-version, and the bundle must
# serve Python 3.10 (tomli; cattrs needs exceptiongroup below 3.11), so those are bundled unconditionally.
mapfile -t requirements < <("$PYTHON" - <<'PY'
import tomllib
with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
for req in project["dependencies"] + project.get("optional-dependencies", {}).get("lsp", []):
    print(req.split(";")[0].strip())
print("exceptiongroup>=1.1.1")
PY
)

rm -rf bundled
mkdir -p bundled/libs bundled/tool
echo "== bundling ${requirements[*]}"
"$PYTHON" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-compile --target bundled/libs \
  --python-version 3.10 --implementation py --only-binary=:all: "${requirements[@]}"
rm -rf bundled/libs/bin
# jedi vendors ~4,800 third-party stub files (typeshed/stubs, django-stubs) that a transformers linter never
# reads; they make up most of the .vsix and make vsce's per-file secret scan take minutes. jedi treats a missing
# or empty stubs folder as "no third-party stubs" (jedi/inference/gradual/typeshed.py, _create_stub_map).
rm -rf bundled/libs/jedi/third_party/typeshed/stubs bundled/libs/jedi/third_party/django-stubs
mkdir -p bundled/libs/jedi/third_party/typeshed/stubs
cp -r server/hf_cache_lint bundled/tool/
# The bootstrap the extension runs with `python -I` (client/launch.json): it puts tool/ and libs/ on sys.path.
cp client/serve.py bundled/serve.py
# Prove the bundle imports on its own (no site-packages, no user site), and that the bootstrap starts it in
# isolated mode as the extension does; then drop the bytecode those runs wrote.
PYTHONPATH="bundled/tool:bundled/libs" "$PYTHON" -S -s -c "import pygls, lsprotocol, jedi, parso, pathspec, hf_cache_lint"
"$PYTHON" -I bundled/serve.py --version
find bundled -name __pycache__ -type d -prune -exec rm -rf {} +
echo "bundled/ ready ($(du -sh bundled | cut -f1))"

if [[ "${1:-}" == "--server-only" ]]; then
  exit 0
fi

echo "== client"
[[ -d node_modules ]] || npm ci --no-audit --no-fund
npx tsc -p client --noEmit
node client/esbuild.mjs --production

echo "== vsix"
version="$(node -p "require('./package.json').version")"
out="${HFC_VSIX_OUT:-$ROOT}/hf-cache-lint-$version.vsix"
npx vsce package --no-dependencies --out "$out"
size=$(stat -c %s "$out")
echo "built $out ($((size / 1024)) KiB) in $((SECONDS - start))s"
