#!/bin/bash
# run_build_ab.sh: two gemm_bench builds side by side on a list of shapes,
# every configuration (--all) and, on shapes of fewer 128x128 tiles than
# SPLIT_TILES, the K split, the two builds alternating within each round so
# that both see the board's same drift. For a kernel change measured against
# the kernel before it.
#   GEMM_BENCH=...     the build under test (else one is built here)
#   GEMM_BENCH_OLD=... the build to compare with (required: e.g. nvcc of
#                      hw/h200/gemm_bench.cu in `git archive <commit>`'s tree)
#   SHAPES="M N K;..." the shapes (required; run_decode_ab.sh passes its own)
#   ARGS="..."         more gemm_bench options for both builds (e.g.
#                      --tma-epilogue --tile-group auto)
#   SPLITS=1,2,4,8     the K splits on shapes under SPLIT_TILES (default 132)
#                      128x128 tiles (empty: none)
#   MORE="name=path .." further builds, run after old and new in each shape's
#                      turn (e.g. the build before a fix beside the one a
#                      regression is sought in)
#   ROUNDS=2 RUNS=10   rounds, and timed launches per configuration
#   NAME=build_ab      the output's name
# Output: $NAME.csv in $OUT (or /tmp): build (old/new/MORE's names), round, then
# gemm_bench's columns; the board on the first line as a comment. Compare the
# builds on the configurations both ran.
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
. hw/h200/gemm_bench_bin.sh
old_bin="${GEMM_BENCH_OLD:?GEMM_BENCH_OLD names the build to compare with}"
IFS=';' read -r -a shapes <<<"${SHAPES:?SHAPES lists the shapes, \"M N K;M N K\"}"
read -r -a args <<<"${ARGS:-}"
declare -A path=([old]="$old_bin" [new]="$bin")
builds=(old new)
for b in ${MORE:-}; do
  name=${b%%=*}
  [[ "$b" == *=* && -n "$name" && -z "${path[$name]:-}" ]] || { echo "MORE: '$b' is not name=path with a new name" >&2; exit 2; }
  path[$name]=${b#*=}; builds+=("$name")
done
splits="${SPLITS-1,2,4,8}"  # unset: every split; empty: none
csv="$out/${NAME:-build_ab}.csv"
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
{ echo "# $board; options ${ARGS:-none}"; echo "build,round,$header"; } > "$csv"
rc=0
for round in $(seq "${ROUNDS:-2}"); do
  for shape in "${shapes[@]}"; do
    set -- $shape
    split=()
    [ -n "$splits" ] && [ $(( ($1 + 127) / 128 * (($2 + 127) / 128) )) -lt "${SPLIT_TILES:-132}" ] &&
      split=(--split-k "$splits")
    for build in "${builds[@]}"; do
      "${path[$build]}" --m "$1" --n "$2" --k "$3" --all --runs "${RUNS:-10}" "${args[@]}" "${split[@]}" |
        sed "s/^/$build,$round,/" >> "$csv" || rc=1
    done
  done
  echo "round $round done at $(( $(date +%s) - start )) s"
done
grep -v "^#\|,ok," "$csv" | grep -v "^build," | head -5
exit $rc
