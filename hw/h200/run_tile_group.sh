#!/bin/bash
# run_tile_group.sh: the SM90 matmul's tile order (--tile-group) on a Hopper
# GPU. Every configuration of a few large shapes with tile groups 1 (along M),
# 4, 8 and 16, three rounds in turn (tile_group.csv; the shape column ends in
# _gG for G > 1), then DRAM and L2 traffic under Nsight Compute for 8192^3
# with groups 1 and 8 (ncu_memory.csv, as run_ncu.sh: the shape column ends in
# _gG). Output in $OUT (or /tmp).
# SHAPES="M N K;M N K" measures those shapes instead of the four, TILE_GROUPS="1 8"
# those tile groups, ROUNDS=R that many rounds, BENCH_ARGS (e.g.
# --tma-epilogue) goes to every gemm_bench run; NO_NCU=1 skips Nsight Compute.
# GEMM_BENCH=path runs a gemm_bench already built (gemm_bench_bin.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
. hw/h200/gemm_bench_bin.sh
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
{ echo "# $board"; echo "round,$header"; } > "$out/tile_group.csv"
rc=0
IFS=';' read -r -a shapes <<<"${SHAPES:-8192 8192 8192;4096 4096 4096;4096 57344 8192;4096 12288 4096}"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for shape in "${shapes[@]}"; do
    for g in ${TILE_GROUPS:-1 4 8 16}; do
      set -- $shape
      "$bin" --m "$1" --n "$2" --k "$3" --tile-group "$g" --all --runs 10 ${BENCH_ARGS:-} | sed "s/^/$round,/" >> "$out/tile_group.csv" || rc=1
    done
  done
  echo "round $round: $(grep -c ",ok," "$out/tile_group.csv") rows ok"
done
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
if [ -n "$NCU" ] && [ -z "${NO_NCU:-}" ]; then
  metrics=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max
  metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum
  metrics+=,lts__t_sectors_op_read_lookup_hit.sum,lts__t_sectors_op_read_lookup_miss.sum
  metrics+=,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum
  for g in 1 8; do
    "$NCU" --clock-control none --metrics "$metrics" -k regex:sm90_matmul --csv --page raw \
      "$bin" --m 8192 --n 8192 --k 8192 --tile-group "$g" --all --runs 1 > "$out/ncu_8192x8192x8192_g$g.txt" 2>&1 || rc=1
  done
fi
grep -v "^#\|,ok,\|^round," "$out/tile_group.csv" | head -5
exit $rc
