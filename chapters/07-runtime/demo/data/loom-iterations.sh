#!/usr/bin/env bash
# How many interleavings does loom explore for each of rt's models, as the
# preemption bound grows? Runs every `loom_*` test of `rt --lib` alone, once
# per bound, with LOOM_LOG=info so loom prints "Completed in N iterations",
# and writes one CSV row per model and bound:
#
#   model,preemptions,iterations,seconds,status
#
# status is `ok`, `failed` (the model failed: a real finding), or
# `timeout` (it did not finish within CAP seconds; iterations is then empty).
# `chapter-07 loom-space --data FILE --plot DIR` draws the CSV.
#
# Usage (from the repository root; takes minutes):
#   chapters/07-runtime/demo/data/loom-iterations.sh > chapters/07-runtime/demo/data/loom-iterations.csv
# Environment: BOUNDS (default "1 2 3"), CAP (seconds per run, default 300),
# CARGO_TARGET_DIR (default target/loom, as CI uses, so nothing else rebuilds).
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
bounds=${BOUNDS:-1 2 3}
cap=${CAP:-300}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-target/loom}
# The same build as CI's loom step.
export CARGO_PROFILE_RELEASE_DEBUG_ASSERTIONS=true RUSTFLAGS="--cfg loom"
bin=$(cargo test --locked -p rt --release --lib --no-run --message-format=json 2>/dev/null |
    jq -r 'select(.executable != null and (.target.kind | index("lib"))) | .executable')
if [[ -z $bin || ! -x $bin ]]; then
    echo "error: cannot find rt's --cfg loom test binary" >&2
    exit 1
fi
models=$("$bin" --list loom_ 2>/dev/null | sed -n 's/: test$//p' | sort)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
echo "# machine: ${cpu:-unknown CPU}, $(nproc) CPUs, Linux $(uname -r | cut -d. -f1-2)"
echo "# measured: $(date -u '+%Y-%m-%d %H:%M') UTC, CAP=${cap}s, by chapters/07-runtime/demo/data/loom-iterations.sh"
echo "model,preemptions,iterations,seconds,status"
for bound in $bounds; do
    for model in $models; do
        start=$(date +%s.%N)
        status=ok
        out=$(LOOM_LOG=info LOOM_MAX_PREEMPTIONS=$bound timeout "$cap" \
            "$bin" --exact "$model" --nocapture --test-threads=1 2>&1) || status=$?
        end=$(date +%s.%N)
        case $status in
            ok) ;;
            124) status=timeout ;;
            *) status=failed ;;
        esac
        # A test may check more than one model: sum them.
        iterations=$(grep -o 'Completed in [0-9]* iterations' <<<"$out" |
            awk '{ n += $3 } END { if (NR) print n }')
        [[ $status == timeout ]] && iterations=
        seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
        echo "${model##*::},$bound,$iterations,$seconds,$status"
        echo "${model##*::} at $bound: ${iterations:-?} iterations, ${seconds} s, $status" >&2
    done
done
