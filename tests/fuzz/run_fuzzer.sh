#!/usr/bin/env bash
# run_fuzzer.sh HARNESS SEEDS WORK SECONDS [libFuzzer option...]: fuzzes a fresh copy of the
# seed corpus (WORK/corpus; the seeds in the tree are never written) for SECONDS; a crash
# input lands in WORK/ as crash-*, leak-*, timeout-* or oom-*, and fails the run.
set -euo pipefail
harness=$1 seeds=$2 work=$3 seconds=$4
shift 4
rm -rf "$work"
mkdir -p "$work/corpus"
cp "$seeds"/* "$work/corpus/"
cd "$work"
"$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -artifact_prefix="$work/" "$@" "$work/corpus"
