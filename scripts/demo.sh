#!/usr/bin/env bash
# The main job: install what is missing, build the wasm package and the curator CLI,
# and serve the demo page on loopback. Prints the URL. Ctrl-C stops it.
#   PORT=8080 (default) — port to serve on
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"
# The demo needs no Firefox and no PostgreSQL (those are for the test matrix).
PRIVLIFT_NO_FIREFOX=1 PRIVLIFT_NO_POSTGRES=1 bash scripts/setup.sh
bash scripts/build-wasm.sh
cargo build --release -p privlift-cli
bash scripts/stage-site.sh >/dev/null
exec target/release/privlift serve --dir target/site --port "${PORT:-8080}"
