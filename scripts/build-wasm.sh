#!/usr/bin/env bash
# Builds the browser/Node package's wasm half into pkg/ (idempotent).
#
# Each module is `cargo build` of the bindings crate wasm/ (privlift-wasm) for
# wasm32-unknown-unknown, then the wasm-bindgen CLI (the version Cargo.lock pins):
#
#   pkg/privlift.js          wasm-bindgen glue (--target web: an ES module, no bundler needed)
#   pkg/privlift_bg.wasm     the module
#   pkg/privlift.d.ts        generated types of the raw bindings (js/privlift.d.ts is the public one)
#
# Then, when npm binaryen is installed (devDependency: `npm ci`), runs ITS wasm-opt -Oz and
# keeps the result only if it is smaller and still instantiates. Never /usr/bin/wasm-opt:
# Debian's binaryen 108 produces modules that fail at instantiation.
#
# wasm-opt is the slow part (tens of seconds per module): its result is kept in
# target/wasm-opt/, named by a hash of everything it depends on (the module wasm-bindgen
# wrote, the flags, the wasm-opt build, the smoke test and the wrapper it runs), so a run on
# an unchanged tree copies it back and runs no wasm-opt (scripts/test-build-wasm-cache.sh).
#
# Env: PRIVLIFT_WASM_OPT=0 skips wasm-opt; PRIVLIFT_WASM_OPT_BIN replaces npm's wasm-opt.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf '[build-wasm] %s\n' "$*" >&2; }
size_of() { wc -c <"$1" | tr -d ' '; }
gz_size_of() { gzip -9 -n -c <"$1" | wc -c | tr -d ' '; }

cargo_target=${CARGO_TARGET_DIR:-target}
# bindgen OUT_DIR OUT_NAME PROFILE TARGET_DIR [CARGO_ARGS...]: builds the bindings crate with
# PROFILE into TARGET_DIR and writes wasm-bindgen's ES module glue, its types and the module
# into OUT_DIR (emptied first, so no file of an earlier build survives).
bindgen() {
  local out=$1 name=$2 profile=$3 target_dir=$4
  shift 4
  cargo build -p privlift-wasm --lib --target wasm32-unknown-unknown --profile "$profile" \
    --target-dir "$target_dir" "$@"
  rm -rf "$out"
  wasm-bindgen "$target_dir/wasm32-unknown-unknown/$profile/privlift_wasm.wasm" \
    --out-dir "$out" --out-name "$name" --target web --typescript
}

# The two client modules use the `wasm` profile (Cargo.toml): opt-level "s" except the random
# generator: a tenth smaller than opt-level 3, for a few per cent of `perturbIndices`.
# The discrete client has wasm SIMD (simd128: Chromium, Firefox, WebKit ≥ 16.4, Node, Deno
# and workerd all run it): the 32-bit keep-or-uniform draw takes four inputs an instruction.
# (scripts/test-wasm.sh builds the wasm tests with it too; the no_std core build has none.)
SIMD_RUSTFLAGS="-C target-feature=+simd128"
RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$SIMD_RUSTFLAGS" bindgen pkg privlift wasm "$cargo_target"

# optimise WASM SMOKE: runs npm binaryen's wasm-opt -Oz on WASM and keeps the result only if
# it is smaller and SMOKE (a node script through the public wrapper) still passes.
optimise() {
  local wasm=$1 smoke=$2 extra=${3:-} raw gz opt tmp oraw ogz
  raw=$(size_of "$wasm")
  gz=$(gz_size_of "$wasm")
  log "wasm-bindgen output: $wasm raw $raw B, gzip -9 $gz B"

  opt=${PRIVLIFT_WASM_OPT_BIN:-node_modules/.bin/wasm-opt}
  if [ "${PRIVLIFT_WASM_OPT:-1}" = 0 ]; then
    log "wasm-opt: skipped (PRIVLIFT_WASM_OPT=0)"
  elif [ ! -x "$opt" ]; then
    log "wasm-opt: skipped ($opt not installed; run npm ci)"
  else
    # The features rustc 1.95 enables by default on wasm32-unknown-unknown (LLVM's generic CPU):
    # wasm-opt must accept them or it refuses the module / lowers nothing it should.
    feats=(--enable-bulk-memory --enable-bulk-memory-opt --enable-nontrapping-float-to-int
           --enable-sign-ext --enable-mutable-globals --enable-reference-types --enable-multivalue)
    # shellcheck disable=SC2206  # $extra is a list of flags (the module's own features)
    feats+=($extra)
    local key cached
    key=$(cat "$wasm" "$smoke" js/*.js node_modules/binaryen/package.json scripts/build-wasm.sh | sha256sum | cut -c1-32)
    cached=target/wasm-opt/$(basename "$wasm" .wasm).$key.wasm
    if [ -f "$cached" ]; then
      cp "$cached" "$wasm"
      log "wasm-opt: input unchanged, reused $cached"
      return
    fi
    local start=$SECONDS
    tmp=$(mktemp -d)
    # -ocimfs 30: a function with one caller is inlined into it only when it is tiny (the
    # default inlines every one). Hot per-row kernels (leakage::lift) stay functions, so V8
    # optimises them during a page's first verify (it cannot replace a running baseline
    # frame): that halved the first verify of a dense 1024² document, and the gzip is smaller.
    "$opt" -Oz -ocimfs 30 --converge "${feats[@]}" "$wasm" -o "$tmp/opt.wasm"
    oraw=$(size_of "$tmp/opt.wasm")
    ogz=$(gz_size_of "$tmp/opt.wasm")
    log "wasm-opt -Oz ($("$opt" --version)): raw $oraw B, gzip -9 $ogz B"
    if [ "$oraw" -lt "$raw" ]; then
      cp "$wasm" "$tmp/orig.wasm"
      cp "$tmp/opt.wasm" "$wasm"
      # Instantiate the optimised module through the glue and run one full verify→perturb→receipt.
      if node "$smoke" >"$tmp/smoke.log" 2>&1; then
        log "wasm-opt: kept the optimised module (smoke test passed; $((SECONDS - start)) s)"
        mkdir -p target/wasm-opt
        rm -f target/wasm-opt/"$(basename "$wasm" .wasm)".*.wasm
        cp "$wasm" "$cached"
      else
        cat "$tmp/smoke.log" >&2
        cp "$tmp/orig.wasm" "$wasm"
        log "wasm-opt: optimised module FAILED the smoke test; kept the unoptimised one"
      fi
    else
      log "wasm-opt: no gain; kept the unoptimised module"
    fi
    rm -rf "$tmp"
  fi
}

optimise pkg/privlift_bg.wasm scripts/smoke-wasm.mjs --enable-simd
printf 'pkg/privlift_bg.wasm: %s bytes raw, %s bytes gzip -9\n' "$(size_of pkg/privlift_bg.wasm)" "$(gz_size_of pkg/privlift_bg.wasm)"

# privlift/inline (js/inline.js): the same optimised modules as base64 in ES modules.
# inline WASM JS: writes the module WASM as base64 into the ES module JS.
inline() {
  node -e '
const fs = require("fs");
const [wasm, js] = process.argv.slice(1);
const b64 = fs.readFileSync(wasm).toString("base64");
fs.writeFileSync(js, "// Generated by scripts/build-wasm.sh from " + wasm + "; do not edit.\n"
  + "export const WASM_BASE64 = \"" + b64 + "\";\n");
' "$1" "$2"
  printf '%s: %s bytes raw, %s bytes gzip -9\n' "$2" "$(size_of "$2")" "$(gz_size_of "$2")"
}
inline pkg/privlift_bg.wasm pkg/privlift_inline.js

# The continuous-documents client module for `privlift/continuous` (feature `continuous`
# without the default `client`: continuous bindings only, so neither client carries the
# other's code).
# Its own target directory: the crate's module file has one name whatever its features, so
# in target/ this build and pkg/'s would each make the other's stale, and every run would
# link both again (LTO: tens of seconds each).
bindgen pkg-continuous privlift_continuous wasm "$cargo_target/wasm-continuous" --no-default-features --features continuous
optimise pkg-continuous/privlift_continuous_bg.wasm scripts/smoke-continuous.mjs
printf 'pkg-continuous/privlift_continuous_bg.wasm: %s bytes raw, %s bytes gzip -9\n' \
  "$(size_of pkg-continuous/privlift_continuous_bg.wasm)" "$(gz_size_of pkg-continuous/privlift_continuous_bg.wasm)"

# The open-domain client module (feature `open` alone): 'privlift' loads it only when it
# parses an open-domain document, so that a page of discrete documents neither downloads
# nor compiles the open kinds. With SIMD, as the discrete client.
RUSTFLAGS="${RUSTFLAGS:+$RUSTFLAGS }$SIMD_RUSTFLAGS" bindgen pkg-open privlift_open wasm "$cargo_target/wasm-open" --no-default-features --features open
optimise pkg-open/privlift_open_bg.wasm scripts/smoke-open.mjs --enable-simd
printf 'pkg-open/privlift_open_bg.wasm: %s bytes raw, %s bytes gzip -9\n' \
  "$(size_of pkg-open/privlift_open_bg.wasm)" "$(gz_size_of pkg-open/privlift_open_bg.wasm)"
inline pkg-open/privlift_open_bg.wasm pkg-open/privlift_open_inline.js

# The curator-side module (designers, LP solver, estimation) for `privlift/design`. Kept
# out of the client module so a page that only verifies and perturbs never loads it; built
# with the release profile (opt-level 3: the designers' LPs and vertex searches are hot).
bindgen pkg-design privlift_design release "$cargo_target" --features design
optimise pkg-design/privlift_design_bg.wasm scripts/smoke-design.mjs
printf 'pkg-design/privlift_design_bg.wasm: %s bytes raw, %s bytes gzip -9\n' \
  "$(size_of pkg-design/privlift_design_bg.wasm)" "$(gz_size_of pkg-design/privlift_design_bg.wasm)"
