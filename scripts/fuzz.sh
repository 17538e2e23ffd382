#!/usr/bin/env bash
# Runs privlift's libFuzzer targets (cargo-fuzz, nightly toolchain).
#
#   scripts/fuzz.sh [SECONDS]     each target runs SECONDS (default 60)
#
# Targets (fuzz/fuzz_targets/):
#   document           raw bytes -> Document::from_json -> audit/check/verify -> perturb/receipt
#   policy_and_claims  structured generator (arbitrary f64s incl. NaN/inf/negatives/subnormals)
#                      -> DocumentJson -> Document::from_wire -> same properties + random Policy
# Seeds: fuzz/seeds/ (committed). Working corpora: fuzz/corpus/<target>/ (gitignored).
# Crashes are written to fuzz/artifacts/<target>/ (gitignored); copy a reproducer you want
# to keep to fuzz/regressions/ and replay it with `cargo +nightly fuzz run <target> FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

secs="${1:-60}"
log() { printf '[fuzz] %s\n' "$*" >&2; }

# Idempotent install step (cargo-fuzz is a cargo subcommand from crates.io).
if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz (cargo install cargo-fuzz --locked)"
  cargo install cargo-fuzz --locked
fi
if ! rustup toolchain list | grep -q '^nightly'; then
  log "cargo fuzz needs a nightly toolchain: rustup toolchain install nightly"
  exit 1
fi

status=0
for t in document policy_and_claims; do
  mkdir -p "fuzz/corpus/$t" "fuzz/artifacts/$t"
  log "target $t: ${secs}s"
  # Seeds are read-only inputs; new corpus entries go to fuzz/corpus/<target>.
  if ! cargo +nightly fuzz run "$t" "fuzz/corpus/$t" fuzz/seeds -- \
        -max_total_time="$secs" -print_final_stats=1 2>&1 | tee "fuzz/artifacts/$t/last-run.txt" |
        grep -E '^(#[0-9]+[[:space:]]+(DONE|INITED)|Done [0-9]+ runs|stat::number_of_executed_units|==[0-9]+==|thread .* panicked|SUMMARY|Test unit written)'; then
    :
  fi
  if [ "${PIPESTATUS[0]}" -ne 0 ]; then
    log "target $t: FAILED (see fuzz/artifacts/$t/)"
    status=1
  fi
done
exit $status
