#!/bin/bash
# run_decode_ab.sh: two gemm_bench builds side by side on the shapes whose A
# is shorter than one tile (the shape set's decode projections, M = 1, and
# 1x8192x8192 again at M = 16, 64 and 100), every configuration and, on shapes
# of fewer 128x128 tiles than SMs, the K split (1, 2, 4, 8), the two builds
# alternating within each round so that both see the board's same drift.
#   GEMM_BENCH=...     the build under test (else one is built here)
#   GEMM_BENCH_OLD=... the build to compare with (required: e.g. nvcc of
#                      hw/h200/gemm_bench.cu in `git archive <commit>`'s tree)
#   ROUNDS=2 RUNS=10   rounds, and timed launches per configuration
# Output: decode_ab.csv in $OUT (or /tmp): build (old/new), round, then
# gemm_bench's columns; the board on the first line as a comment. A build
# from before 2026-12-05's 128x192 in --all runs fewer configurations than
# one after it: compare the builds on the configurations both ran.
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
. hw/h200/gemm_bench_bin.sh
old_bin="${GEMM_BENCH_OLD:?GEMM_BENCH_OLD names the build to compare with}"
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
{ echo "# $board"; echo "build,round,$header"; } > "$out/decode_ab.csv"
mapfile -t shapes < <(python3 hw/h200/shape_set.py args | awk '$1 < 128'; printf '%s\n' "16 8192 8192" "64 8192 8192" "100 8192 8192")
rc=0
for round in $(seq "${ROUNDS:-2}"); do
  for shape in "${shapes[@]}"; do
    set -- $shape
    split=()
    [ $(( ($1 + 127) / 128 * (($2 + 127) / 128) )) -lt 132 ] && split=(--split-k 1,2,4,8)
    for build in old new; do
      b=$bin; [ $build = old ] && b=$old_bin
      "$b" --m "$1" --n "$2" --k "$3" --all --runs "${RUNS:-10}" "${split[@]}" |
        sed "s/^/$build,$round,/" >> "$out/decode_ab.csv" || rc=1
    done
  done
  echo "round $round done at $(( $(date +%s) - start )) s"
done
grep -v "^#\|,ok," "$out/decode_ab.csv" | grep -v "^build," | head -5
exit $rc
