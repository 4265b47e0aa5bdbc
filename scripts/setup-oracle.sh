#!/usr/bin/env bash
# Build the oracle environments (tests/oracle): real transformers on CPU torch. 4.57.6, 5.23.0 and 5.24.0 run every
# oracle snippet; the others are the release table's (tests/oracle/test_releases.py): each hand-written behaviour's
# first release and the release before it (4.52.4/4.53.0, 5.0.0, 5.3.0/5.4.0, 5.13.1/5.14.0,
# 5.14.1/5.15.0, 5.19.0/5.20.0), about a minute each.
#
# Layout under .cache/oracle/ (gitignored):
#   venv/          one venv: torch==2.13.0 (the CPU wheel on this machine's disk) + numpy/jinja2, and
#                  optimum-quanto (for cache_implementation="quantized"; the worker swaps its C++ kernel,
#                  which would JIT-compile for 1-2 min, for quanto's own pure-torch one).
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
VERSIONS=(${ORACLE_VERSIONS:-4.52.4 4.53.0 4.57.6 5.0.0 5.3.0 5.4.0 5.13.1 5.14.0 5.14.1 5.15.0 5.19.0 5.20.0 5.23.0 5.24.0 5.25.0})
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

# Prove a version works: import it from its target and run a tiny generate. Its stderr (warnings, and the
# traceback of a failure) goes to a log that is shown only when the check fails twice: a first failure on a
# loaded machine (three versions importing torch side by side) is retried once rather than failing the run.
check_version() {
  local v="$1" T="$2"
  ORACLE_TF_DIR="$T" "$VENV/bin/python" - "$v" 2>"$DIR/check-$v.log" <<'EOF'
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
}

# 2. One --target folder per transformers version, holding only what the venv lacks. The versions are
#    independent, so they install side by side (pip mostly waits on I/O and unpacking).
install_version() {
  local v="$1" T="$DIR/tf-$1" report="$DIR/report-$1.json"
  log "installing transformers $v into $T"
  rm -rf "$T"
  # Resolve the full dependency set as if nothing were installed (pins torch so it can never be chosen).
  "$VENV/bin/pip" install --quiet --dry-run --ignore-installed --report "$report" \
    "transformers==$v" "$TORCH"
  local reqs
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
  log "  $v into target: ${reqs[*]}"
  "$VENV/bin/pip" install --quiet --no-deps --target "$T" "${reqs[@]}"
  rm -f "$report"
  if ! check_version "$v" "$T"; then
    log "  $v: the tiny generate failed; checking once more"
    if ! check_version "$v" "$T"; then
      log "  $v: the tiny generate failed again:"
      tail -n 30 "$DIR/check-$v.log" >&2
      return 1
    fi
  fi
  rm -f "$DIR/check-$v.log"
  touch "$T/.ok"
}

pids=()
for v in "${VERSIONS[@]}"; do
  if [[ -f "$DIR/tf-$v/.ok" ]]; then
    log "transformers $v ok"
  else
    install_version "$v" &
    pids+=("$!")
  fi
done
failed=0
for pid in "${pids[@]}"; do
  wait "$pid" || failed=1
done
if (( failed )); then
  log "FAILED: a transformers version did not install or did not run (see above)"
  exit 1
fi

log "done in $(( $(date +%s) - start ))s; sizes: $(cd "$DIR" && du -sh venv tf-* | awk '{printf "%s=%s ", $2, $1}')"
