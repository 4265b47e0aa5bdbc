#!/usr/bin/env bash
# Build the oracle environments (tests/oracle): real transformers 4.57.6, 5.23.0 and 5.24.0 on CPU torch.
#
# Layout under .cache/oracle/ (gitignored):
#   venv/          one venv: torch==2.13.0 (the CPU wheel on this machine's disk) + numpy/jinja2, and
#                  optimum-quanto (for cache_implementation="quantized"; its CPU extension is compiled here
#                  once, ~50 s, instead of inside a timed snippet).
#   tf-X.Y.Z/      `pip install --target` of transformers==X.Y.Z and those of its dependencies that the
#                  venv does not already hold at the resolved version (never torch); the oracle worker
#                  puts it first on sys.path. One torch install instead of three keeps this fast and small.
#   tf-X.Y.Z/.ok   stamp written after a tiny generate ran with that version (makes re-runs no-ops).
#
# Idempotent: re-running only redoes what is missing or broken. Offline apart from the package index.
# Never ask pip for torch other than ==2.13.0: anything else pulls a multi-GB CUDA build.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${ORACLE_DIR:-$ROOT/.cache/oracle}"  # ORACLE_DIR: build elsewhere (e.g. to time a fresh run)
VENV="$DIR/venv"
VERSIONS=(${ORACLE_VERSIONS:-4.57.6 5.23.0 5.24.0})
TORCH="torch==2.13.0"
BASE_PY="${ORACLE_BASE_PYTHON:-$(command -v python3.11 || command -v python3)}"
export PIP_DISABLE_PIP_VERSION_CHECK=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

# This machine's pip config lists index folders that may not exist; pip warns once per package. Hide
# only those lines (real errors still show).
exec 2> >(grep -v "^WARNING: Location 'file://.*' is ignored" >&2)

start=$(date +%s)
mkdir -p "$DIR"

log() { printf '[setup-oracle %3ss] %s\n' "$(( $(date +%s) - start ))" "$*"; }

# 1. The shared venv with torch. The stamp records what was asked, so a changed pin rebuilds it.
VENV_SPEC="$TORCH numpy jinja2 | optimum-quanto==0.2.7 ninja"
if [[ ! -x "$VENV/bin/python" || "$(cat "$VENV/.ok" 2>/dev/null)" != "$VENV_SPEC" ]]; then
  log "creating $VENV with $VENV_SPEC (python: $BASE_PY)"
  rm -rf "$VENV"
  "$BASE_PY" -m venv "$VENV"
  # torch first and alone, so nothing later can ask the resolver for another torch.
  "$VENV/bin/pip" install --quiet "$TORCH"
  "$VENV/bin/pip" install --quiet "$TORCH" numpy jinja2
  # --no-deps: quanto's own deps (huggingface_hub, safetensors) come from each transformers target.
  "$VENV/bin/pip" install --quiet --no-deps optimum-quanto==0.2.7 ninja
  "$VENV/bin/python" - <<'EOF'
import torch
assert torch.__version__.startswith("2.13.0"), torch.__version__
assert torch.version.cuda is None, "a CUDA build of torch was installed; the oracle needs the CPU wheel"
EOF
  echo "$VENV_SPEC" > "$VENV/.ok"
else
  log "venv ok"
fi

# 2. One --target folder per transformers version, holding only what the venv lacks.
for v in "${VERSIONS[@]}"; do
  T="$DIR/tf-$v"
  if [[ -f "$T/.ok" ]]; then
    log "transformers $v ok"
    continue
  fi
  log "installing transformers $v into $T"
  rm -rf "$T"
  report="$DIR/report-$v.json"
  # Resolve the full dependency set as if nothing were installed (pins torch so it can never be chosen).
  "$VENV/bin/pip" install --quiet --dry-run --ignore-installed --report "$report" \
    "transformers==$v" "$TORCH"
  mapfile -t reqs < <("$VENV/bin/python" - "$report" <<'EOF'
import json, sys
from importlib import metadata
have = {d.metadata["Name"].lower().replace("_", "-"): d.version for d in metadata.distributions()}
for item in json.load(open(sys.argv[1]))["install"]:
    name = item["metadata"]["name"].lower().replace("_", "-")
    ver = item["metadata"]["version"]
    if name == "torch" or have.get(name) == ver:
        continue  # already in the venv at exactly this version: share it
    print(f"{name}=={ver}")
EOF
)
  log "  into target: ${reqs[*]}"
  "$VENV/bin/pip" install --quiet --no-deps --target "$T" "${reqs[@]}"
  rm -f "$report"
  # Prove it: import this version from the target and run a tiny generate.
  ORACLE_TF_DIR="$T" "$VENV/bin/python" - "$v" <<'EOF'
import os, sys
sys.path.insert(0, os.environ["ORACLE_TF_DIR"])
import torch, transformers
assert transformers.__version__ == sys.argv[1], (transformers.__version__, sys.argv[1])
assert os.path.realpath(transformers.__file__).startswith(os.path.realpath(os.environ["ORACLE_TF_DIR"]))
from transformers import LlamaConfig, LlamaForCausalLM
cfg = LlamaConfig(vocab_size=320, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2)
out = LlamaForCausalLM(cfg).generate(torch.tensor([[1, 2, 3]]), max_new_tokens=3, do_sample=False)
assert out.shape == (1, 6), out.shape
print(f"transformers {transformers.__version__} on torch {torch.__version__}: tiny generate ok")
EOF
  touch "$T/.ok"
done

# 3. Build quanto's CPU extension now: it JIT-compiles on first use (~50 s, into its own package folder),
#    which must not happen inside a timed snippet. Its imports (packaging, safetensors) come from a target.
if ! compgen -G "$VENV/lib/python3*/site-packages/optimum/quanto/library/extensions/cpp/build/quanto_cpp*.so" >/dev/null; then
  log "compiling optimum-quanto's CPU extension"
  ORACLE_TF_DIR="$DIR/tf-${VERSIONS[0]}" "$VENV/bin/python" -c '
import os, sys
sys.path.insert(0, os.environ["ORACLE_TF_DIR"])
import optimum.quanto.library.extensions.cpp as cpp
cpp.ext.lib'
fi

log "done in $(( $(date +%s) - start ))s; sizes: $(cd "$DIR" && du -sh venv tf-* | awk '{printf "%s=%s ", $2, $1}')"
