#!/usr/bin/env bash
# run_fuzzer.sh HARNESS SEEDS WORK SECONDS [libFuzzer option...]: fuzzes a fresh copy of the
# seed corpus (WORK/corpus; the seeds in the tree are never written) for SECONDS, with its
# dictionary where it has one; a crash input lands in WORK/ as crash-*, leak-*, timeout-* or
# oom-*, and fails the run.
set -euo pipefail
harness=$(realpath "$1") seeds=$(realpath "$2") work=$(realpath -m "$3") seconds=$4
shift 4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$work"
mkdir -p "$work/corpus"
cp "$seeds"/* "$work/corpus/"
cd "$work"
# A dictionary of the format's words where there is one (dict/<harness name less fuzz_>.dict).
dict=$here/dict/$(basename "$harness" | sed 's/^fuzz_//').dict
[[ -f $dict ]] && set -- -dict="$dict" "$@"
# Exit status 1 on any finding (libFuzzer's own 77 would read as "skipped" to a CTest test
# with SKIP_RETURN_CODE, as the GPU tests have).
# libcuda keeps what cuInit allocates for the life of the process (never freed by design).
LSAN_OPTIONS=suppressions="$here/lsan.supp" \
"$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  -error_exitcode=1 -timeout_exitcode=1 -artifact_prefix="$work/" "$@" "$work/corpus"
