#!/usr/bin/env bash
# Runs every libFuzzer target for SECONDS each. Seeds are read where they live (tests/bad_inputs, examples,
# the shared benchmark graphs) plus a few made here from the built CLI; the growing corpus and any
# crash-* files stay in BUILD/fuzz/. CLI is a normal build's hiremate (it makes the seeds).
# Usage: fuzz/run.sh BUILD SECONDS CLI [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
build=$1 seconds=$2 cli=$3
shift 3
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_own_json fuzz_node_link fuzz_premat2 fuzz_schedule)
work=$build/fuzz
shared=${HIREMATE_SHARED_DIR:-/work/shared}/benchmarks/graphs
mkdir -p "$work/seeds/own" "$work/seeds/premat2" "$work/seeds/schedule"

# Seeds made at run time: generated graphs in hiremate JSON, schedules for the two fixed graphs.
for kind in chain unet transformer random; do
  "$cli" generate $kind -n 6 -o "$work/seeds/own/$kind.json" 2>/dev/null
done
"$cli" generate chain -n 5 --dag -o "$work/seeds/own/chain-dag.json" 2>/dev/null
"$cli" solve examples/mlp4-train.json --budget 1.0 --schedule-out "$work/seeds/schedule/mlp4.json" >/dev/null
"$cli" solve examples/unet-dag.json --budget 1.0 --schedule-out "$work/seeds/schedule/unet.json" >/dev/null
"$cli" solve examples/mlp4-train.json --solver recompute_all --budget 1GiB \
  --schedule-out "$work/seeds/schedule/mlp4-recompute.json" >/dev/null
printf 'p remat2\nmemlimit 64\nnode 0 cpu 1 mem 8\nnode 1 deps 0 cpu 2 mem 8\nnode 2 deps 0 1 cpu 3 mem 16 target\n' \
  >"$work/seeds/premat2/small.txt"

status=0
for t in "${targets[@]}"; do
  case $t in
    fuzz_own_json) seeds=(examples tests/bad_inputs "$work/seeds/own") ;;
    fuzz_node_link) seeds=(tests/bad_inputs "$shared") ;;
    fuzz_premat2) seeds=(tests/bad_inputs "$work/seeds/premat2") ;;
    fuzz_schedule) seeds=("$work/seeds/schedule") ;;
    *) echo "unknown target $t" >&2; exit 2 ;;
  esac
  existing=()
  for s in "${seeds[@]}"; do [ -d "$s" ] && existing+=("$s"); done
  mkdir -p "$work/corpus/$t" "$work/crashes/$t"
  echo "== $t: ${seconds}s"
  if ! "$build/$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=16384 \
      -print_final_stats=1 -artifact_prefix="$work/crashes/$t/" "$work/corpus/$t" "${existing[@]}" \
      >"$work/$t.log" 2>&1; then
    echo "$t FAILED: see $work/$t.log and $work/crashes/$t/" >&2
    status=1
  fi
  grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$work/$t.log" | tail -2 || true
done
exit $status
