#!/usr/bin/env bash
# A second scripts/build-wasm.sh on an unchanged tree runs no wasm-opt and compiles nothing
# (what lets a restart of scripts/demo.sh serve within seconds): each module's optimised
# result comes back from target/wasm-opt/, byte for byte the one the first run kept. Checked with a wasm-opt that records every call and fails, so a run that needed it
# would fail or leave an unoptimised module. Run after scripts/build-wasm.sh (scripts/test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(pkg/privlift_bg.wasm pkg-open/privlift_open_bg.wasm pkg-continuous/privlift_continuous_bg.wasm pkg-design/privlift_design_bg.wasm)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The first run fills the cache (or reuses it: the tree may already be built).
bash scripts/build-wasm.sh >/dev/null 2>&1
for m in "${modules[@]}"; do sha256sum "$m"; done >"$tmp/first"

cat >"$tmp/wasm-opt" <<SH
#!/bin/sh
echo "wasm-opt \$*" >>"$tmp/calls"
exit 1
SH
chmod +x "$tmp/wasm-opt"
PRIVLIFT_WASM_OPT_BIN="$tmp/wasm-opt" bash scripts/build-wasm.sh >"$tmp/second.log" 2>&1 ||
  { cat "$tmp/second.log" >&2; echo "FAIL: the second build-wasm.sh failed" >&2; exit 1; }

fail=0
if [ -s "$tmp/calls" ]; then
  echo "FAIL: the second run called wasm-opt:" >&2
  cat "$tmp/calls" >&2
  fail=1
fi
if grep -q '^ *Compiling ' "$tmp/second.log"; then
  echo "FAIL: the second run compiled again:" >&2
  grep '^ *Compiling ' "$tmp/second.log" >&2
  fail=1
fi
for m in "${modules[@]}"; do sha256sum "$m"; done >"$tmp/second"
if ! cmp -s "$tmp/first" "$tmp/second"; then
  echo "FAIL: the second run changed the modules:" >&2
  diff "$tmp/first" "$tmp/second" >&2 || true
  fail=1
fi
reused=$(grep -c 'input unchanged, reused' "$tmp/second.log" || true)
if [ "$reused" -ne ${#modules[@]} ]; then
  echo "FAIL: $reused of ${#modules[@]} modules reused their optimised build" >&2
  fail=1
fi
[ "$fail" -eq 0 ] || exit 1
echo "build-wasm cache: a second run reused ${#modules[@]} optimised modules, ran no wasm-opt and compiled nothing"
