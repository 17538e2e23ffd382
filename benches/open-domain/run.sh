#!/usr/bin/env bash
# The open-domain comparison with pure-LDP (issue 34's goals): sets up pure-LDP 1.2.0 in a
# virtual environment under target/ (once), then runs bench.py; its arguments are passed on
# (`--pure-only` for pure-LDP's side alone, `--n 100000 --eps 2` for a short run).
# Needs python3 (3.9–3.12) and, unless --pure-only, the `privlift` CLI at target/release/privlift
# or at $PRIVLIFT_CLI.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=target/open-domain/venv
req=benches/open-domain/requirements.txt
if ! cmp -s "$req" "$venv/requirements.txt" 2>/dev/null; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$req"
  cp "$req" "$venv/requirements.txt"
fi
lscpu | grep 'Model name' || true
exec "$venv/bin/python" benches/open-domain/bench.py "$@"
