#!/usr/bin/env bash
# Installs what a fresh machine lacks to build, test and serve privlift.
# Idempotent: every step skips itself when its tool is already present.
# Sources: Debian packages (apt), crates.io (cargo install), the npm registry (npm ci).
#   bash scripts/setup.sh [PART]   PART: apt (Debian's packages), rust (the wasm32 target),
#                                  tools (the crates.io tools and npm's packages), or all (default)
# The parts wait on different things: apt on the network and dpkg, the crates.io tools on the
# CPU (minutes of compiling), npm on the network (about 160 MB). `all` runs apt and tools
# side by side, and tools runs its cargo installs beside npm ci; scripts/test.sh starts apt
# and tools in the background and waits for each only before the step that needs it.
set -euo pipefail
part=${1:-all}
cd "$(dirname "$0")/.."

log() { printf '[setup] %s\n' "$*" >&2; }
# timed WHAT [VAR=VALUE...] CMD...: runs CMD, logs how long it took (wall, and the CPU time of
# CMD and its children: on a loaded machine the wall time says little), returns its status.
cpu_tenths() { # PID: CPU time of the waited-for children of the shell PID, in 0.1 s
  local f
  read -r -a f <"/proc/$1/stat"
  echo $(((f[15] + f[16]) * 10 / $(getconf CLK_TCK)))
}
timed() {
  local what=$1 start=$SECONDS rc=0 me=$BASHPID cpu
  shift
  cpu=$(cpu_tenths "$me")
  env "$@" || rc=$?
  cpu=$(($(cpu_tenths "$me") - cpu))
  log "$what: $((SECONDS - start)) s (CPU $((cpu / 10)) s)$([ "$rc" -eq 0 ] || echo ", FAILED (exit $rc)")"
  return "$rc"
}

WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen pinned in Cargo.toml / Cargo.lock
GECKODRIVER_VERSION=0.37.1

export PATH="$HOME/.cargo/bin:$PATH"

# --- Debian packages: browsers and their drivers (browser tests, the e2e demo test), PostgreSQL ---
apt_packages() {
local need_apt=()
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
  timed "apt-get update" $SUDO apt-get update -qq
  timed "apt-get install (${#need_apt[@]} packages and their dependencies)" DEBIAN_FRONTEND=noninteractive \
    $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
}

# --- Rust target for the browser build ---
rust_target() {
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "rustup target add wasm32-unknown-unknown"
  timed "rustup target add wasm32-unknown-unknown" rustup target add wasm32-unknown-unknown
fi
}

# --- tools from crates.io: wasm-bindgen-cli (wasm-bindgen, and wasm-bindgen-test-runner for
# the wasm tests) and geckodriver (Firefox). One target directory for both, so a dependency
# they share in the same version and features compiles once; removed afterwards. (Each
# install exits on failure itself: a caller's `||` turns off set -e in here.)
crates() (
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
    # No --locked: its shipped lockfile names a crate version the registry does not serve.
    timed "cargo install wasm-bindgen-cli $WASM_BINDGEN_VERSION" CARGO_TARGET_DIR="$dir" \
      cargo install -q wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force || exit
  fi
  if [ "${PRIVLIFT_NO_FIREFOX:-0}" != 1 ] && \
     [ "$(geckodriver --version 2>/dev/null | head -1 | awk '{print $2}')" != "$GECKODRIVER_VERSION" ]; then
    timed "cargo install geckodriver $GECKODRIVER_VERSION" CARGO_TARGET_DIR="$dir" \
      cargo install -q geckodriver --version "$GECKODRIVER_VERSION" --locked --force || exit
  fi
)

# --- npm dev dependencies (playwright-core drives /usr/bin/chromium; no browser download) ---
npm_packages() {
if [ -f package-lock.json ]; then
  # playwright-core (browser tests), binaryen (wasm-opt in build-wasm.sh), typescript (type test).
  if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/binaryen ] || [ ! -d node_modules/typescript ] \
     || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    timed "npm ci" npm ci --no-audit --no-fund --loglevel=error
  fi
fi
}

# tools: the crates.io tools in the background beside npm ci; fails if either fails (with
# the cargo log).
tools() {
  local log_file rc=0 crates_pid
  log_file=$(mktemp)
  crates >"$log_file" 2>&1 &
  crates_pid=$!
  npm_packages || rc=$?
  wait "$crates_pid" || rc=$?
  cat "$log_file" >&2
  rm -f "$log_file"
  return "$rc"
}

case "$part" in
  apt) apt_packages ;;
  rust) rust_target ;;
  tools) tools ;;
  all)
    rust_target
    apt_log=$(mktemp)
    apt_packages >"$apt_log" 2>&1 &
    apt_pid=$!
    rc=0
    tools || rc=$?
    wait "$apt_pid" || rc=$?
    cat "$apt_log" >&2
    rm -f "$apt_log"
    [ "$rc" -eq 0 ] || exit "$rc"
    ;;
  *) log "unknown part: $part (apt, rust, tools or all)"; exit 2 ;;
esac
log "ready ($part)"
