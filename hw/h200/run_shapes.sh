#!/bin/bash
# run_shapes.sh: the broad shape set of hw/h200/shape_set.py (random shapes
# and LLM projections) on a Hopper GPU, every tile/stage configuration of the
# SM90 matmul against cuBLAS, in rounds (each round every shape in turn, so a
# configuration's rounds are minutes apart and hw/h200/sweep_report.py-style
# medians smooth the board's drift).
#   ROUNDS=3        rounds to run (default 3)
#   DEADLINE_S=420  start no round after this many seconds (the device's
#                   10-minute limit per command); what ran is kept
#   RUNS=20         timed launches per configuration (the median is reported)
#   GEMM_BENCH=...  a gemm_bench already built (else one is built here)
#   EPILOGUE=tma    the TMA-store epilogue (gemm_bench --tma-epilogue; default:
#                   the register epilogue)
#   PINGPONG=1      the ping-pong schedule (gemm_bench --pingpong: tile N 128,
#                   stages 2-6; no K split, SPLITS is ignored); shapes named _pp
#   TILE_GROUP=G    the tile order (gemm_bench --tile-group G, a number or auto:
#                   the kernel's own; default 1, along M); a shape run with a
#                   group other than 1 has _gG in its name
#   SPLITS=1,2,3,4  also the K split over a cluster (gemm_bench --split-k: the
#                   128-column tile and, with S = 2, the 192-column one), each shape with
#                   the splits its k-blocks allow (S <= K / 64), on the
#                   shapes of fewer 128x128 tiles than SPLIT_TILES (default
#                   132, one per SM: a launch of more tiles fills every SM
#                   without a split, so its split rows only cost device time)
#   SPLIT_TAIL=1    the splits of SPLITS on the last wave's tiles only
#                   (gemm_bench --split-tail; shapes named _kSt), on shapes of
#                   SPLIT_TILES or more 128x128 tiles (SPLIT_TILES then the
#                   least, default 133: a launch of more tiles than SMs)
#   SHAPES="M N K;..." only these shapes of the set (default: every one)
# Output: shapes.csv in $OUT (or /tmp): gemm_bench's columns, one row per
# configuration and round, with the board's name and UUID on the first line
# as a comment.
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
. hw/h200/gemm_bench_bin.sh
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
epi=()
case "${EPILOGUE:-regs}" in
  regs) ;;
  tma) epi=(--tma-epilogue) ;;
  *) echo "run_shapes.sh: EPILOGUE must be regs or tma" >&2; exit 2 ;;
esac
[ -n "${TILE_GROUP:-}" ] && epi+=(--tile-group "$TILE_GROUP")
if [ -n "${PINGPONG:-}" ]; then
  epi+=(--pingpong)
  SPLITS=
fi
{ echo "# $board; epilogue ${EPILOGUE:-regs}; tile group ${TILE_GROUP:-1}; schedule $([ -n "${PINGPONG:-}" ] && echo pingpong || echo cooperative); splits ${SPLITS:-1} $([ -n "${SPLIT_TAIL:-}" ] && echo "of the last wave on shapes of at least ${SPLIT_TILES:-133}" || echo "on shapes under ${SPLIT_TILES:-132}") tiles"; echo "round,$header"; } > "$out/shapes.csv"
mapfile -t shapes < <(python3 hw/h200/shape_set.py args)
if [ -n "${SHAPES:-}" ]; then
  IFS=';' read -r -a wanted <<<"$SHAPES"
  for w in "${wanted[@]}"; do
    printf '%s\n' "${shapes[@]}" | grep -qx "$w" || { echo "run_shapes.sh: '$w' is not a shape of hw/h200/shape_set.py" >&2; exit 2; }
  done
  shapes=("${wanted[@]}")
fi
rc=0
for round in $(seq "${ROUNDS:-3}"); do
  if [ $(( $(date +%s) - start )) -gt "${DEADLINE_S:-420}" ]; then
    echo "round $round not started: past DEADLINE_S"
    break
  fi
  for shape in "${shapes[@]}"; do
    set -- $shape
    split=()
    tiles=$(( ($1 + 127) / 128 * (($2 + 127) / 128) ))
    if [ -n "${SPLIT_TAIL:-}" ]; then
      few=$([ "$tiles" -ge "${SPLIT_TILES:-133}" ] && echo 1)
    else
      few=$([ "$tiles" -lt "${SPLIT_TILES:-132}" ] && echo 1)
    fi
    if [ -n "${SPLITS:-}" ] && [ -n "$few" ]; then
      allowed=$(tr , '\n' <<<"$SPLITS" | awk -v kb=$(( ($3 + 63) / 64 )) '$1 <= kb' | paste -sd,)
      split=(--split-k "$allowed")
      [ -n "${SPLIT_TAIL:-}" ] && split+=(--split-tail)
    fi
    "$bin" --m "$1" --n "$2" --k "$3" --all --runs "${RUNS:-20}" "${epi[@]}" "${split[@]}" | sed "s/^/$round,/" >> "$out/shapes.csv" || rc=1
  done
  echo "round $round done at $(( $(date +%s) - start )) s: $(grep -c ",ok," "$out/shapes.csv") rows ok"
done
grep -v "^#\|,ok," "$out/shapes.csv" | grep -v "^round," | head -5
exit $rc
