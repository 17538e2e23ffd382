#!/usr/bin/env bash
# Compares the benchmarks of two commits on this machine, in one run, as ratios.
#
#   benches/compare.sh BEFORE AFTER [SUITE…]   (commits or refs; a Markdown table on stdout)
#
# Suites (default: all): the criterion benches `perturb` (crate privlift), `mle`,
# `optimal`, `design`, `continuous`, `open` (privlift-design); `ingest` (privlift-cli, the
# release collector); `wasm/continuous`, `wasm/design`, `wasm/optimal`, `wasm/cold` (Node, each
# commit's own wasm packages); `browser/bench`, `browser/navigate` (headless Chromium).
#
# Each commit is checked out as a detached worktree under $COMPARE_DIR, with its own target/
# (a copy of $SEED_TARGET, so that the registry crates are not rebuilt) and its own
# criterion directory, so that saved baselines never mix; each runs its own bench sources
# (a suite missing at one commit gives "new" or "gone" rows). The suites then run in
# $ROUNDS alternated rounds, ABBA (before, after; after, before; …) so that a slow spell of
# a shared machine falls on both. Per id: criterion's median of a run, the best of the rounds
# (least time, or highest rate for the Node and browser rates), and after/before as a
# ratio of times (> 1: after is slower). The load average is logged before every run and
# its range printed under the table. Not run by CI: it takes tens of minutes.
#
# Env: ROUNDS (3); CRITERION_ARGS ("--warm-up-time 1 --measurement-time 3 --noplot");
# COMPARE_DIR (default a new temp dir, kept: worktrees, raw results results/*.json, logs; a
# tree already at $COMPARE_DIR/before or /after, e.g. a link to a worktree, is used as is);
# SEED_TARGET (default this checkout's target/, about 7 GB a copy; "none": no copy); PRIVLIFT_BENCH_BATCHES for
# ingest (300 here); NAVIGATE_ARGS (navigate.mjs's flags, e.g. "--runs 3"); SKIP_BUILD=1
# reuses a COMPARE_DIR's builds; ONLY (an extended regex): the criterion ids to run, e.g. to
# measure again with more rounds the ids a first run showed slower.
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,27p' "$0"; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
before=$(git -C "$repo" rev-parse --short "$1^{commit}")
after=$(git -C "$repo" rev-parse --short "$2^{commit}")
shift 2
suites=("$@")
[ ${#suites[@]} -gt 0 ] || suites=(perturb mle optimal design continuous open ingest
  wasm/continuous wasm/design wasm/optimal wasm/cold browser/bench browser/navigate)
ROUNDS=${ROUNDS:-3}
CRITERION_ARGS=${CRITERION_ARGS:---warm-up-time 1 --measurement-time 3 --noplot}
NAVIGATE_ARGS=${NAVIGATE_ARGS:-}
export PRIVLIFT_BENCH_BATCHES=${PRIVLIFT_BENCH_BATCHES:-300} CARGO_INCREMENTAL=0
dir=${COMPARE_DIR:-$(mktemp -d /tmp/privlift-compare.XXXXXX)}
seed=${SEED_TARGET:-$repo/target}
mkdir -p "$dir/results"
log() { printf '[compare] %s\n' "$*" >&2; }
log "before $before, after $after; suites ${suites[*]}; $ROUNDS rounds; in $dir"

crate_of() { # the package and folder of a criterion suite
  case $1 in
    perturb) echo "privlift ." ;;
    ingest) echo "privlift-cli cli" ;;
    *) echo "privlift-design design" ;;
  esac
}
source_of() { # the source of SUITE, relative to a tree
  case $1 in
    wasm/* | browser/*) echo "benches/$1.mjs" ;;
    *) read -r _ d < <(crate_of "$1"); [ "$d" = . ] && echo "benches/$1.rs" || echo "$d/benches/$1.rs" ;;
  esac
}
present() { [ -e "$dir/$2/$(source_of "$1")" ]; } # present SUITE TREE

# 1. Worktrees and builds.
for t in before after; do
  rev=$([ $t = before ] && echo "$before" || echo "$after")
  w=$dir/$t
  if [ -e "$w" ]; then
    log "$t: using the tree at $w ($(git -C "$w" rev-parse --short HEAD))"
  else
    git -C "$repo" worktree add --detach "$w" "$rev" >&2
    [ "$seed" != none ] && [ -d "$seed" ] && [ ! -e "$w/target" ] && { log "$t: copying $seed"; cp -a "$seed" "$w/target"; }
    [ -d "$repo/node_modules" ] && ln -s "$repo/node_modules" "$w/node_modules"
  fi
  [ "${SKIP_BUILD:-0}" = 1 ] && continue
  args=()
  for s in "${suites[@]}"; do
    case $s in
      wasm/* | browser/*) continue ;;
    esac
    present "$s" $t || { log "$t: no suite $s"; continue; }
    read -r pkg _ < <(crate_of "$s")
    args+=(-p "$pkg" --bench "$s")
  done
  # browser/navigate serves with the release CLI, which the ingest bench builds, in the same
  # cargo call (a separate `cargo build` would unify other features and build it all again).
  if printf '%s\n' "${suites[@]}" | grep -q '^browser/navigate$' && [[ " ${args[*]} " != *" ingest "* ]]; then
    args+=(-p privlift-cli --bench ingest)
  fi
  if [ ${#args[@]} -gt 0 ]; then # one cargo call: the features unified as in a workspace build
    log "$t: cargo bench --no-run ${args[*]}"
    (cd "$w" && cargo bench --no-run "${args[@]}" --message-format=json 2>>"$dir/build.log") |
      jq -r 'select(.reason == "compiler-artifact" and .executable != null and .target.kind == ["bench"])
             | "\(.target.name) \(.executable)"' >"$dir/$t.exes"
  fi
  if printf '%s\n' "${suites[@]}" | grep -q '^wasm/\|^browser/'; then
    log "$t: building the wasm packages"
    (cd "$w" && bash scripts/build-wasm.sh >>"$dir/build.log" 2>&1)
  fi
done

# 2. Runs. A criterion suite runs id by id, each id of both commits in turn (a whole suite
# of one commit then the other spans minutes, over which a shared machine's load changes);
# CRITERION_HOME is one per commit, round and suite, so its ids gather there.
criterion_ids() { # criterion_ids SUITE TREE: the ids of SUITE at TREE
  local exe d
  exe=$(awk -v s="$1" '$1 == s { print $2 }' "$dir/$2.exes")
  read -r _ d < <(crate_of "$1")
  (cd "$dir/$2/$d" && "$exe" --bench --list 2>/dev/null) | sed -n 's/: benchmark$//p'
}
run_id() { # run_id SUITE TREE OUT ID
  local s=$1 t=$2 out=$3 exe d
  exe=$(awk -v s="$s" '$1 == s { print $2 }' "$dir/$t.exes")
  read -r _ d < <(crate_of "$s")
  # shellcheck disable=SC2086  # CRITERION_ARGS is a list of flags
  (cd "$dir/$t/$d" && CRITERION_HOME="$out.criterion" "$exe" --bench $CRITERION_ARGS --exact "$4") >>"$out.raw" 2>&1
}
run() { # run SUITE TREE OUT: one run of a suite that is not criterion's
  local s=$1 t=$2 out=$3 w=$dir/$2 raw=$3.raw exe
  exe=$(awk -v s="$s" '$1 == s { print $2 }' "$dir/$t.exes")
  case $s in
    ingest) (cd "$w/cli" && PRIVLIFT_BIN="$w/target/release/privlift" "$exe" --bench) >"$raw" ;;
    # --no-liftoff: optimised wasm from the first call, as benches/wasm/inputs.mjs explains.
    wasm/*) (cd "$w" && node --no-liftoff "benches/$s.mjs") >"$raw" ;;
    browser/bench) (cd "$w" && node benches/browser/bench.mjs --out "$raw.json") >"$raw" ;;
    # shellcheck disable=SC2086  # NAVIGATE_ARGS is a list of flags
    browser/navigate) (cd "$w" && node benches/browser/navigate.mjs $NAVIGATE_ARGS --out "$raw.json") >"$raw" 2>"$raw.log" ;;
  esac
}

for r in $(seq 1 "$ROUNDS"); do
  order=(before after)
  [ $((r % 2)) = 0 ] && order=(after before)
  for s in "${suites[@]}"; do
    # A suite of one commit only (its rows say "new" or "gone") runs in the first round only.
    if ! { present "$s" before && present "$s" after; }; then
      [ "$r" = 1 ] || continue
    fi
    for t in "${order[@]}"; do
      present "$s" $t || continue
      cut -d' ' -f1 /proc/loadavg >"$dir/results/$t.r$r.$(echo "$s" | tr / _).load"
    done
    log "round $r/$ROUNDS $s (load $(cut -d' ' -f1 /proc/loadavg))"
    case $s in
      wasm/* | browser/* | ingest)
        for t in "${order[@]}"; do
          present "$s" $t || continue
          out=$dir/results/$t.r$r.$(echo "$s" | tr / _).json
          run "$s" $t "$out" || log "round $r $s $t FAILED (see $out.raw)"
        done ;;
      *)
        declare -A ids=()
        for t in "${order[@]}"; do
          present "$s" $t || continue
          while read -r id; do ids[$id]=1; done < <(criterion_ids "$s" $t | grep -E -- "${ONLY:-.}")
        done
        for id in "${!ids[@]}"; do
          for t in "${order[@]}"; do
            present "$s" $t || continue
            run_id "$s" $t "$dir/results/$t.r$r.$s.json" "$id" || log "round $r $s $t $id FAILED"
          done
        done
        unset ids ;;
    esac
    for t in "${order[@]}"; do
      out=$dir/results/$t.r$r.$(echo "$s" | tr / _).json
      [ -e "$out.raw" ] && { node "$repo/benches/compare-read.mjs" "$s" "$out.raw" "$out" || log "no figures in $out.raw"; }
    done
  done
done

# 3. The table.
node "$repo/benches/compare-read.mjs" --table "$dir/results" "$before" "$after"
