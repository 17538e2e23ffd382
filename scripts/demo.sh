#!/usr/bin/env bash
# The main job: install what is missing, build the wasm package and the curator CLI,
# and serve the demo page on loopback, with the curator's collector beside it on an
# embedded SQLite database (target/demo/reports.db) seeded with a synthetic population
# of 20,000 users per mechanism. Prints the URL. Ctrl-C stops both.
#   PORT=8080 (default) — port to serve the page on; the collector takes PORT + 1
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# phase WHAT CMD...: says what it builds, runs it, and says how long it took. The first start
# builds everything (minutes); a restart of an unchanged tree reuses cargo's outputs and
# build-wasm.sh's optimised modules (target/wasm-opt/), and serves within seconds.
phase() {
  local what=$1 start=$SECONDS
  shift
  echo "demo: $what …" >&2
  "$@"
  echo "demo: $what: $((SECONDS - start)) s" >&2
}
# The demo needs no Firefox, WebKitGTK or PostgreSQL (those are for the test matrix).
phase "set-up (tools that are missing)" env PRIVLIFT_NO_FIREFOX=1 PRIVLIFT_NO_WEBKIT=1 PRIVLIFT_NO_POSTGRES=1 \
  bash scripts/setup.sh
phase "wasm modules (scripts/build-wasm.sh)" bash scripts/build-wasm.sh
phase "the curator CLI (cargo build --release)" cargo build --release -p privlift-cli
phase "the site and its documents (scripts/stage-site.sh)" bash scripts/stage-site.sh >/dev/null
port=${PORT:-8080}
cport=$((port + 1))
mkdir -p target/demo
db="sqlite:target/demo/reports.db"
# The synthetic population: seeded, so a restart stores nothing twice.
phase "the synthetic population (privlift simulate)" \
  target/release/privlift simulate --db "$db" --dir target/site/mechanisms --users 20000 --seed 1 \
  --population target/site/population.json --truth target/site/mechanisms/truth.json
target/release/privlift collect --db "$db" --dir target/site/mechanisms --port "$cport" >/dev/null &
collector=$!
trap 'kill "$collector" 2>/dev/null' EXIT INT TERM
printf '{"collector": "http://127.0.0.1:%s"}\n' "$cport" >target/site/collector.json
echo "privlift: the curator's collector is at http://127.0.0.1:$cport/ (reports in target/demo/reports.db)"
target/release/privlift serve --dir target/site --port "$port"
