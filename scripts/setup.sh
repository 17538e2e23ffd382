#!/usr/bin/env bash
# Installs what a fresh machine lacks to build, test and serve privlift.
# Idempotent: every step skips itself when its tool is already present.
# Sources: Debian packages (apt), crates.io (cargo install), the npm registry (npm ci).
#   bash scripts/setup.sh [apt|tools]   only the Debian packages, or only the rest (default: both);
#   scripts/test.sh runs the two parts side by side (apt waits on the network and dpkg, not the CPU).
set -euo pipefail
part=${1:-all}
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }

WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen pinned in Cargo.toml / Cargo.lock
WASM_PACK_VERSION=0.15.1
GECKODRIVER_VERSION=0.37.1

export PATH="$HOME/.cargo/bin:$PATH"

# --- Debian packages: browsers and their drivers (browser tests, the e2e demo test), PostgreSQL ---
need_apt=()
if [ "$part" != tools ]; then
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v chromedriver >/dev/null 2>&1 || need_apt+=(chromium-driver)
# PostgreSQL: the collector's tests run on it beside SQLite (scripts/postgres.sh).
if [ "${PRIVLIFT_NO_POSTGRES:-0}" != 1 ] && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  need_apt+=(postgresql)
fi
if [ "${PRIVLIFT_NO_FIREFOX:-0}" != 1 ]; then
  command -v firefox-esr >/dev/null 2>&1 || need_apt+=(firefox-esr)
fi
# WebKitGTK: Debian's WebKitWebDriver drives MiniBrowser (shipped by libwebkit2gtk-4.1-0, a
# dependency), which has no headless mode: it draws on a virtual X display (Xvfb; xvfb-run
# needs xauth).
if [ "${PRIVLIFT_NO_WEBKIT:-0}" != 1 ]; then
  command -v WebKitWebDriver >/dev/null 2>&1 || need_apt+=(webkit2gtk-driver)
  command -v xvfb-run >/dev/null 2>&1 || need_apt+=(xvfb)
  command -v xauth >/dev/null 2>&1 || need_apt+=(xauth)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
fi
[ "$part" != apt ] || { log "ready (Debian packages)"; exit 0; }

# --- Rust target for the browser build ---
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

# --- wasm tools from crates.io ---
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  log "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2.5 min)"
  # No --locked: its shipped lockfile names a crate version the registry does not serve.
  cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi
if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$WASM_PACK_VERSION" ]; then
  log "cargo install wasm-pack $WASM_PACK_VERSION (about 2 min)"
  cargo install -q wasm-pack --version "$WASM_PACK_VERSION" --locked --force
fi
if [ "${PRIVLIFT_NO_FIREFOX:-0}" != 1 ] && \
   [ "$(geckodriver --version 2>/dev/null | head -1 | awk '{print $2}')" != "$GECKODRIVER_VERSION" ]; then
  log "cargo install geckodriver $GECKODRIVER_VERSION (about 2 min)"
  cargo install -q geckodriver --version "$GECKODRIVER_VERSION" --locked --force
fi

# --- npm dev dependencies (playwright-core drives /usr/bin/chromium; no browser download) ---
if [ -f package-lock.json ]; then
  # playwright-core (browser tests), binaryen (wasm-opt in build-wasm.sh), typescript (type test).
  if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/binaryen ] || [ ! -d node_modules/typescript ] \
     || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
log "ready"
