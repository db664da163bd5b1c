#!/bin/bash
# run_phase_stamps.sh: a tile's phases on a Hopper GPU, for the calibration
# shapes of hw/h200/shape_set.py (the held-out ones are never stamped, so
# that nothing read off the stamps is fitted to them): gemm_bench --all
# --stamp-tiles on each shape of at most MAX_FLOP (default 1e12, so the set
# runs in a few minutes), every configuration timed against cuBLAS and then
# launched once more with the clock probe (hw/h200/matmul_stamps.cuh: the
# phases in SM cycles, the clock each phase ran at, the launch's span).
#   GEMM_BENCH=...  a gemm_bench already built (else one is built here)
#   MAX_FLOP=1e12   the largest 2MNK stamped
#   DEADLINE_S=420  start no shape after this many seconds
#   BENCH_ARGS=...  more gemm_bench options for every shape (e.g. --tma-epilogue)
# Output: phase_stamps.csv in $OUT (or /tmp): the configurations' lines and
# their matmul_tile_stamps sections as gemm_bench prints them, the board's
# name and UUID on the first line as a comment.
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
. hw/h200/gemm_bench_bin.sh
echo "# $board" > "$out/phase_stamps.csv"
mapfile -t shapes < <(python3 hw/h200/shape_set.py list | awk -F, -v max="${MAX_FLOP:-1e12}" '
  $3 == "calibration" { split($1, d, "x"); if (2 * d[1] * d[2] * d[3] <= max + 0) print d[1], d[2], d[3] }')
rc=0
for shape in "${shapes[@]}"; do
  if [ $(( $(date +%s) - start )) -gt "${DEADLINE_S:-420}" ]; then
    echo "stopped before $shape: past DEADLINE_S"
    break
  fi
  set -- $shape
  "$bin" --m "$1" --n "$2" --k "$3" --all --runs 20 --stamp-tiles ${BENCH_ARGS:-} >> "$out/phase_stamps.csv" || rc=1
done
echo "$(grep -c ",ok," "$out/phase_stamps.csv") configurations ok in $(( $(date +%s) - start )) s"
exit $rc
