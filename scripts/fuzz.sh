#!/usr/bin/env bash
# Runs privlift's libFuzzer targets (cargo-fuzz, nightly toolchain).
#
#   scripts/fuzz.sh [SECONDS]     each target runs SECONDS (default 60), one after the other
#
# Targets (fuzz/fuzz_targets/):
#   document           raw bytes -> Document::from_json -> audit/check/verify -> perturb/receipt
#   policy_and_claims  structured generator (arbitrary f64s incl. NaN/inf/negatives/subnormals;
#                      matrix, per_secret, unary and the structured kinds; claims and policy limits placed
#                      around the audited leakage) -> DocumentJson -> Document::from_wire -> same
#   receipt_bounds     bytes -> a document (small alphabets, zeros, tiny entries, trivial secrets,
#                      claims and X/S limits around the audit) -> verify -> every receipt within its
#                      bounds, every X-limit on an independent X-audit (tests/common/receipt_props.rs;
#                      CI replays it on stable in tests/properties.rs)
#   decimal            bytes -> a JSON number text -> the reader's exact conversion against serde_json's
#                      (same kind, same bits, same refusal; tests/decimal.rs is the seeded version)
#   reader             bytes -> parse_any's peeked family against the rule on the whole JSON value;
#                      DocumentJson::read (flat mechanism numbers, arrays bounded by their alphabets)
#                      against serde's derive: equal when both read, stricter only where documented
#                      and Document::from_json_within (priced as it is read, at a budget from the
#                      first byte) against from_json and the whole document's cost
#   open               bytes DOC\0VALUE\0REPORT -> OpenDocument::from_json -> audit/check/verify under
#                      limits around the audit -> perturb(VALUE) -> the report read back from its
#                      parts, canonical text and JSON -> its receipt within [e^-eps_l, e^eps_u];
#                      REPORT validated as the collector validates an envelope's output
#                      (OpenReport::from_json) and a stored report (OpenReport::parse)
#                      (tests/common/open_props.rs; CI replays it on stable in tests/properties.rs)
# Properties: see fuzz/fuzz_targets/common.rs and the targets' headers.
#
# Env:
#   FUZZ_KEEP_GOING=1           libFuzzer -fork=1 -ignore_crashes=1: keep fuzzing after a crash
#                               (every crash is still written to fuzz/artifacts/<target>/)
#   PRIVLIFT_FUZZ_ALLOW_KNOWN=1 tolerate the receipt-bound violations already reported
#   PRIVLIFT_FUZZ_PRINT=1       print each input document (for replaying one artifact)
#
# Seeds: fuzz/seeds/<target>/ (committed: valid documents; the open kinds' documents, values
# and reports from tests/vectors/open-*.json). Working corpora: fuzz/corpus/
# (gitignored). Reproducers of reported crashes: fuzz/regressions/<target>/ (not fed to the
# runs: they crash until fixed); replay one with
#   cargo +nightly fuzz run <target> fuzz/regressions/<target>/FILE
# Exit status: 0 when no target crashed, 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

secs="${1:-60}"
log() { printf '[fuzz] %s\n' "$*" >&2; }

# Idempotent install step (cargo-fuzz is a cargo subcommand from crates.io).
if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz (cargo install cargo-fuzz --locked)"
  cargo install cargo-fuzz --locked || exit 1
fi
if ! rustup toolchain list | grep -q '^nightly'; then
  log "cargo fuzz needs a nightly toolchain (rustup toolchain install nightly)"
  exit 1
fi

cd fuzz
cargo +nightly fuzz build || exit 1

extra=()
if [ "${FUZZ_KEEP_GOING:-0}" = 1 ]; then
  extra=(-fork=1 -ignore_crashes=1)
fi

status=0
for t in document policy_and_claims receipt_bounds decimal reader open; do
  mkdir -p "corpus/$t" "artifacts/$t"
  dirs=("corpus/$t")
  [ -d "seeds/$t" ] && dirs+=("seeds/$t")
  logf="artifacts/$t/last-run.log"
  log "target $t: ${secs}s -> fuzz/$logf"
  marker=$(mktemp)
  cargo +nightly fuzz run "$t" "${dirs[@]}" -- -max_total_time="$secs" -print_final_stats=1 "${extra[@]}" \
    >"$logf" 2>&1
  rc=$?
  # Summary: libFuzzer's final stats (plain mode) or last status line (fork mode), panics.
  grep -E '^(#[0-9]+[[:space:]]+DONE|#[0-9]+: cov:|Done [0-9]+ runs|stat::number_of_executed_units|INFO: exiting|.*panicked at|SUMMARY:)' "$logf" |
    grep -vE '^#[0-9]+: cov:' ; grep -E '^#[0-9]+: cov:' "$logf" | tail -1
  crashes=$(find "artifacts/$t" -maxdepth 1 -name 'crash-*' -newer "$marker" | wc -l)
  rm -f "$marker"
  log "target $t: exit $rc, $crashes new crash file(s) in fuzz/artifacts/$t/"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    status=1
  fi
done
exit $status
