#!/usr/bin/env bash
# privlift benchmarks: native criterion benches, then the wasm package in headless Chromium.
#
#   scripts/bench.sh [--native-only | --browser-only | --navigate]
#
# Writes target/bench-results/ and prints a summary:
#   target/bench-results/native.txt      criterion output of `cargo bench --bench perturb`
#   target/bench-results/native.json     per-benchmark median throughput (from target/criterion)
#   target/bench-results/browser.json    results of benches/browser/bench.mjs
#   target/bench-results/wasm-size.txt   pkg/privlift_bg.wasm raw and gzip -9 bytes
#   target/bench-results/navigate.json   --navigate only: benches/browser/navigate.mjs (cold loads
#                                        to a verified mechanism, verify alone, memory, perturbMany)
# The browser part needs pkg/ (bash scripts/build-wasm.sh), node_modules/playwright-core
# (npm ci) and /usr/bin/chromium. It serves the repository root with `privlift serve`
# when target/*/privlift is built, else with `python3 -m http.server --bind 127.0.0.1`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
out=target/bench-results
mkdir -p "$out"
log() { printf '[bench] %s\n' "$*" >&2; }

native=1 browser=1 navigate=0
case "${1:-}" in
  --native-only) browser=0 ;;
  --browser-only) native=0 ;;
  --navigate) native=0 browser=0 navigate=1 ;;
  "") ;;
  *) echo "usage: $0 [--native-only | --browser-only | --navigate]" >&2; exit 2 ;;
esac

if [ "$native" = 1 ]; then
  log "native: cargo bench --bench perturb (criterion; ~4 min)"
  rm -rf target/criterion
  cargo bench --bench perturb 2>&1 | tee "$out/native.txt" >/dev/null
  python3 - "$out/native.json" <<'PY'
import json, os, sys
root = 'target/criterion'
rows = {}
for dirpath, dirs, files in os.walk(root):
    if os.path.basename(dirpath) == 'new' and 'estimates.json' in files and 'benchmark.json' in files:
        b = json.load(open(os.path.join(dirpath, 'benchmark.json')))
        e = json.load(open(os.path.join(dirpath, 'estimates.json')))
        ns = e['median']['point_estimate']
        lo, hi = e['median']['confidence_interval']['lower_bound'], e['median']['confidence_interval']['upper_bound']
        elems = (b.get('throughput') or {}).get('Elements', 1)
        rows[b['full_id']] = {'median_ns_per_iter': ns, 'elements': elems,
                              'per_s': elems / ns * 1e9, 'per_s_ci': [elems / hi * 1e9, elems / lo * 1e9]}
json.dump(rows, open(sys.argv[1], 'w'), indent=1, sort_keys=True)
groups = {}
for k, v in rows.items():
    g, f = k.rsplit('/', 1) if not k.startswith('verify') else ('verify', k.split('/', 1)[1])
    groups.setdefault(g, {})[f] = v
print('\n== native (median per second; ratio = vs. the first privlift row of the group)')
for g in sorted(groups, key=lambda s: (s.split('/')[0], int(''.join(c for c in s.split('=')[-1] if c.isdigit()) or 0))):
    fs = groups[g]
    print(f'-- {g}')
    ref = next((fs[n]['per_s'] for n in ('perturb_seeded', 'perturb_many_seeded') if n in fs), None)
    for f, v in sorted(fs.items(), key=lambda kv: -kv[1]['per_s']):
        r = f'  x{v["per_s"] / ref:7.2f}' if ref else ''
        if g == 'verify':
            print(f'   {f:24s} {v["median_ns_per_iter"] / 1e6:10.2f} ms per verify ({v["per_s"]:.1f}/s)')
        else:
            print(f'   {f:24s} {v["per_s"] / 1e6:10.3f} M reports/s{r}')
PY
fi

wasm=pkg/privlift_bg.wasm
if [ "$browser" = 1 ] || [ "$navigate" = 1 ]; then
  [ -f "$wasm" ] || { log "no $wasm: run bash scripts/build-wasm.sh first"; exit 1; }
  [ -d node_modules/playwright-core ] || { log "no node_modules/playwright-core: run npm ci"; exit 1; }
  srv_log=$(mktemp)
  bin=""
  for b in target/release/privlift target/debug/privlift; do [ -x "$b" ] && { bin=$b; break; }; done
  if [ -n "$bin" ]; then
    "$bin" serve --dir . --port 0 >"$srv_log" 2>&1 &
  else
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    python3 -m http.server "$port" --bind 127.0.0.1 >"$srv_log" 2>&1 &
    echo "serving at http://127.0.0.1:$port/" >>"$srv_log"
  fi
  srv=$!
  trap 'kill $srv 2>/dev/null || true; rm -f "$srv_log"' EXIT
  base=""
  for _ in $(seq 50); do
    base=$(grep -oE 'http://127\.0\.0\.1:[0-9]+' "$srv_log" | head -1 || true)
    [ -n "$base" ] && curl -sf "$base/package.json" >/dev/null 2>&1 && break
    sleep 0.2
  done
  [ -n "$base" ] || { log "server did not start:"; cat "$srv_log" >&2; exit 1; }
  log "browser: headless Chromium, server $base ($([ -n "$bin" ] && echo "$bin serve" || echo python3 http.server))"
fi
if [ "$navigate" = 1 ]; then
  log "navigate: benches/browser/navigate.mjs (~1 min)"
  node benches/browser/navigate.mjs "$base" --out "$out/navigate.json"
fi
if [ "$browser" = 1 ]; then
  node benches/browser/bench.mjs "$base" --out "$out/browser.json" >/dev/null
  python3 - "$out/browser.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f'\n== browser ({r["userAgent"].split(") ")[-1]}, n = {r["n"]} per perturbMany call, median of {r["reps"]})')
g = r['getRandomValues']
print(f'   crypto.getRandomValues        {g["gb_per_s"]:.3f} GB/s  (= {g["gb_per_s"] * 1e9 / 8 / 1e6:.1f} M 64-bit words/s)')
for k, v in r['krr'].items():
    m = v['perturbMany']['median']
    print(f'-- k = {k}')
    for name in ('perturbMany', 'perturbManySeeded', 'naiveJsKrr', 'perturb', 'rawPerturb', 'rawPerturbJsChecks', 'emptyBatch_calls'):
        x = v[name]['median']
        print(f'   {name:22s} {x / 1e6:10.3f} M/s   x{x / m:6.2f} of perturbMany')
PY
fi

if [ -f "$wasm" ]; then
  raw=$(wc -c <"$wasm" | tr -d ' ')
  gz=$(gzip -9 -c "$wasm" | wc -c | tr -d ' ')
  printf '\n== %s: %s bytes raw, %s bytes gzip -9 (%.1f KB / %.1f KB)\n' "$wasm" "$raw" "$gz" \
    "$(echo "$raw / 1000" | bc -l)" "$(echo "$gz / 1000" | bc -l)" | tee "$out/wasm-size.txt"
fi
