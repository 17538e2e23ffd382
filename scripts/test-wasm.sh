#!/usr/bin/env bash
# The wasm test suite, in every JS runtime the package supports:
#   1. wasm/tests/{web,vectors,simd}.rs in Node
#   2. wasm/tests/{web,vectors,simd}.rs in headless Chrome (chromium + Debian's chromedriver)
#   3. wasm/tests/{web,vectors,simd}.rs in headless Firefox (firefox-esr + geckodriver from crates.io)
#      (vectors.rs: the golden vectors of tests/vectors/, which tests/vectors.rs replays natively)
#   4. wasm/tests/{web,vectors,simd}.rs in WebKitGTK (Debian's WebKitWebDriver and MiniBrowser, on
#      Xvfb through xvfb-run: MiniBrowser has no headless mode)
#   5. the npm package (js/): scripts/build-wasm.sh, the TypeScript type tests (with the JS
#      README's examples) and arethetypeswrong on the packed tarball, then
#      node --test tests/js/ (Node, and headless Chromium through playwright-core)
# Runs 1–4 are `cargo test --target wasm32-unknown-unknown` with wasm-bindgen's test runner
# (wasm-bindgen-cli) as cargo's runner: one test build shared by the four runs, the runtime
# chosen by environment variables.
# Fails if a run fails OR one of its test files ran no test: without
# WASM_BINDGEN_USE_BROWSER=1 a browser run prints "only configured to run in node.js …
# skipping" and exits 0.
#
# Env: PRIVLIFT_NO_FIREFOX=1 skips step 3 (e.g. where firefox-esr is not installed);
# PRIVLIFT_NO_WEBKIT=1 skips step 4 (where webkit2gtk-driver is not installed).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[test-wasm] %s\n' "$*" >&2; }
out_dir=$(mktemp -d)
trap 'rm -rf "$out_dir"' EXIT

# The bindings crate's test files, with the continuous and open-domain bindings (features
# `continuous`, `open`) that vectors.rs replays those vectors through.
TEST_FILES=(web vectors simd)
CARGO_ARGS=()
for t in "${TEST_FILES[@]}"; do CARGO_ARGS+=(--test "$t"); done
CARGO_ARGS+=(--features continuous,open)

# run NAME EXPECT_BANNER CMD...: runs CMD, echoes its output, checks that every file of
# TEST_FILES ran > 0 tests (one "test result: ok. N passed" line per file).
run() {
  local name=$1 banner=$2
  shift 2
  log "$name: $*"
  local rc=0
  "$@" >"$out_dir/$name.log" 2>&1 || rc=$?
  cat "$out_dir/$name.log"
  if [ $rc -ne 0 ]; then
    log "$name: FAILED (exit $rc)"
    exit $rc
  fi
  if [ -n "$banner" ] && ! grep -q "$banner" "$out_dir/$name.log"; then
    log "$name: FAILED: no \"$banner\" line; the tests were skipped"
    exit 1
  fi
  local n files
  n=$(grep -oE 'test result: ok\. [0-9]+ passed' "$out_dir/$name.log" | awk '{s += $4} END {print s + 0}')
  files=$(grep -oE 'test result: ok\. [0-9]+ passed' "$out_dir/$name.log" | awk '$4 > 0 {c++} END {print c + 0}')
  if [ "$n" -eq 0 ]; then
    log "$name: FAILED: ran no test"
    exit 1
  fi
  if [ "$files" -lt "${#TEST_FILES[@]}" ]; then
    log "$name: FAILED: only $files of the ${#TEST_FILES[@]} test files (${TEST_FILES[*]}) ran tests"
    exit 1
  fi
  log "$name: $n passed"
  printf '%s %s\n' "$name" "$n" >>"$out_dir/summary"
}

# wasm_test VAR=VALUE... [WRAPPER...]: the bindings' test files under wasm-bindgen's test
# runner, with the runtime the variables choose (WASM_BINDGEN_TEST_ONLY_NODE / _ONLY_WEB and a
# driver: CHROMEDRIVER, GECKODRIVER or SAFARIDRIVER), inside WRAPPER (xvfb-run) if given.
wasm_test() {
  # With wasm SIMD, as the client module is built (scripts/build-wasm.sh; tests/simd.rs).
  env CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER="$(command -v wasm-bindgen-test-runner)" \
    RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }-C target-feature=+simd128" "$@" \
    cargo test -p privlift-wasm --target wasm32-unknown-unknown "${CARGO_ARGS[@]}"
}

run node "" wasm_test WASM_BINDGEN_TEST_ONLY_NODE=1

run chrome "Running headless tests in Chrome" \
  wasm_test WASM_BINDGEN_USE_BROWSER=1 WASM_BINDGEN_TEST_ONLY_WEB=1 CHROMEDRIVER=/usr/bin/chromedriver

if [ "${PRIVLIFT_NO_FIREFOX:-0}" = 1 ]; then
  log "firefox: skipped (PRIVLIFT_NO_FIREFOX=1)"
else
  run firefox "Running headless tests in Firefox" \
    wasm_test WASM_BINDGEN_USE_BROWSER=1 WASM_BINDGEN_TEST_ONLY_WEB=1 GECKODRIVER="$(command -v geckodriver)"
fi

# wasm-bindgen-test-runner knows no WebKitGTK driver, but WebKitWebDriver speaks the W3C
# protocol the runner's safaridriver client sends (an empty new-session request, so the
# driver's default browser: Debian's MiniBrowser with --automation); the runner names the
# driver it found, hence the "Safari" banner.
if [ "${PRIVLIFT_NO_WEBKIT:-0}" = 1 ]; then
  log "webkit: skipped (PRIVLIFT_NO_WEBKIT=1)"
else
  run webkit "Running headless tests in Safari" \
    wasm_test WASM_BINDGEN_USE_BROWSER=1 WASM_BINDGEN_TEST_ONLY_WEB=1 SAFARIDRIVER=/usr/bin/WebKitWebDriver \
    xvfb-run -a
fi

bash scripts/build-wasm.sh

if [ -x node_modules/.bin/tsc ]; then
  log "types: tsc -p tests/js/tsconfig.json (js/privlift.d.ts)"
  node_modules/.bin/tsc -p tests/js/tsconfig.json
  # No `dom` lib: es2022 + @types/node (a Node project); and `using` (lib esnext.disposable).
  log "types: tsc with lib es2022 + @types/node, and with using declarations"
  node_modules/.bin/tsc -p tests/js/tsconfig.nodelib.json
  node_modules/.bin/tsc -p tests/js/tsconfig.using.json
  # No lib but es2022: the types name no DOM or Node type (RequestInit, AbortSignal, URL, Blob).
  log "types: tsc with lib es2022 alone"
  node_modules/.bin/tsc -p tests/js/tsconfig.nodom.json
  # What Vite and webpack projects use: `moduleResolution: bundler`.
  log "types: tsc with moduleResolution bundler"
  node_modules/.bin/tsc -p tests/js/tsconfig.bundler.json
  # The older `moduleResolution: node` ignores "exports": the package, installed under
  # node_modules (a symlink), must resolve its subpaths through "typesVersions".
  d=target/types-node10
  rm -rf "$d" && mkdir -p "$d/node_modules" && ln -s "$PWD" "$d/node_modules/privlift"
  cp tests/js/types-node10.test-d.ts tests/js/tsconfig.node10.json "$d/"
  log "types: tsc with moduleResolution node (typesVersions)"
  node_modules/.bin/tsc -p "$d/tsconfig.node10.json"
  # The JS guide's examples as a user's strictest project compiles them (noUncheckedIndexedAccess).
  log "types: js/README.md's examples with noUncheckedIndexedAccess"
  node tests/js/readme-blocks.mjs target/readme-types
  node_modules/.bin/tsc -p tests/js/tsconfig.readme.json
  # The tarball as published, as arethetypeswrong reads it (.attw.json: an ESM-only package;
  # the .wasm exports are assets, which no `import` resolves to types).
  log "types: attw on the packed tarball"
  node_modules/.bin/attw "$(node scripts/pack.mjs --out "$out_dir/npm")"
else
  log "types: skipped (typescript not installed; run npm ci)"
fi

log "npm package: node --test tests/js/"
rc=0
node --test tests/js/ >"$out_dir/js.log" 2>&1 || rc=$?
cat "$out_dir/js.log"
pass=$(awk '/^# pass /{print $3}' "$out_dir/js.log")
if [ $rc -ne 0 ] || [ "${pass:-0}" -eq 0 ]; then
  log "node --test: FAILED (exit $rc, ${pass:-0} passed)"
  exit 1
fi
printf 'node:test %s\n' "$pass" >>"$out_dir/summary"

log "summary (tests passed per runtime):"
sed 's/^/[test-wasm]   /' "$out_dir/summary" >&2
