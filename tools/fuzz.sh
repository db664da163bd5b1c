#!/usr/bin/env bash
# fuzz.sh: runs the libFuzzer targets of //fuzz, each for a fixed time.
#
#   tools/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, all targets)
#
# Builds with --config=fuzz (clang-19, ASan, UBSan, -fsanitize=fuzzer) in an
# output base of its own, so the main build is untouched. Each target reads
# its seed corpus fuzz/corpus/<target>/ (never written) and keeps what it
# finds in $SK_FUZZ_DIR/<target>/ (default /tmp/sk-fuzz). A crash, hang
# (-timeout), excess memory or broken contract stops that target with a
# reproducer in $SK_FUZZ_DIR/<target>/ and this script exits 1; replay it with
#   bazel run //fuzz:<target> -- <reproducer>
# New inputs worth keeping are added to fuzz/corpus/<target>/ by hand (they
# then replay in `bazel test //fuzz:all`). docs/reliability.md has the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(cli_args_fuzz perfetto_fuzz model_ops_fuzz)
work="${SK_FUZZ_DIR:-/tmp/sk-fuzz}"
base="${SK_FUZZ_OUTPUT_BASE:-${HOME:-/tmp}/.cache/sk-fuzz-bazel}"
bazel_fuzz() { bazel --output_base="$base" "$@"; }

labels=()
for t in "${targets[@]}"; do labels+=("//fuzz:$t"); done
bazel_fuzz build --config=fuzz --symlink_prefix=/ "${labels[@]}"
bin="$(bazel_fuzz info --config=fuzz --symlink_prefix=/ bazel-bin 2>/dev/null)/fuzz"

# SystemC switches warp stacks by hand, which ASan's fake stacks do not follow.
export ASAN_OPTIONS="detect_stack_use_after_return=0:detect_leaks=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:${UBSAN_OPTIONS:-}"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

status=0
summary=()
for t in "${targets[@]}"; do
  mkdir -p "$work/$t"
  extra=()
  [ -f "fuzz/${t%_fuzz}.dict" ] && extra+=("-dict=fuzz/${t%_fuzz}.dict")
  log="$work/$t.log"
  echo "fuzz: $t for ${secs} s (log $log)"
  if "$bin/$t" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 -print_final_stats=1 \
      -artifact_prefix="$work/$t/" "${extra[@]}" "$work/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    result=ok
  else
    result="FAILED (reproducer in $work/$t/, see $log)"
    status=1
    tail -n 30 "$log"
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  summary+=("$(printf '%-16s %8s runs in %4s s, corpus %s files: %s' "$t" "${execs:-?}" "$secs" \
    "$(find "$work/$t" -maxdepth 1 -type f ! -name 'crash-*' ! -name 'timeout-*' ! -name 'oom-*' | wc -l)" "$result")")
done
printf '%s\n' "${summary[@]}"
exit $status
