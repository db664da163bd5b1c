#!/bin/bash
# run_split_k_apart.sh: what the model of the K split over a cluster needs
# measured apart from the GEMM rows of run_split_k.sh, on a Hopper GPU, in one
# device call (about 2 minutes after the builds). Output in $OUT (or /tmp):
#   cluster_calibration.csv  cluster_calibrate (section e: the DSMEM store
#                  rate to one SM, from one SM and in the K split's
#                  reduce-scatter, clusters of 2, 4 and 8; the cluster rows of
#                  sections a-d before it); hw/h200/dsmem_rate.py report prints
#                  the rates and dsmem_store_bytes_per_cycle at the end
#   calibration.csv  calibrate (section launch_overhead: this board's launch
#                  path, which differs by about 2 us from board to board)
#   split_k_scan.csv gemm_bench, tile 128x128, 4 stages, splits 1, 2, 4, 8,
#                  on 384x384 and 1024x1024 with K = 512 to 16384, ROUNDS
#                  rounds (default 2): a CTA's time as a line in its
#                  k-blocks, the launch's fixed cost apart from the waves
# GEMM_BENCH, CLUSTER_CALIBRATE and CALIBRATE name binaries already built
# (else they are built here with nvcc).
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
nv() { nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. "$1" -lcuda -o "$2"; }
cal="${CLUSTER_CALIBRATE:-}"
if [ -z "$cal" ]; then cal=/tmp/cluster_calibrate; nv hw/h200/cluster_calibrate.cu "$cal" || exit 2; fi
calib="${CALIBRATE:-}"
if [ -z "$calib" ]; then calib=/tmp/calibrate; nv hw/h200/calibrate.cu "$calib" || exit 2; fi
. hw/h200/gemm_bench_bin.sh
rc=0
{ echo "# $board"; timeout 120 "$cal"; echo "# cluster_calibrate exit status $?"; } \
  > "$out/cluster_calibration.csv"
grep -q "^# cluster_calibrate exit status 0$" "$out/cluster_calibration.csv" || rc=1
{ echo "# $board"; timeout 120 "$calib"; echo "# calibrate exit status $?"; } > "$out/calibration.csv"
grep -q "^# calibrate exit status 0$" "$out/calibration.csv" || rc=1
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
{ echo "# $board"; echo "round,$header"; } > "$out/split_k_scan.csv"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for mn in "384 384" "1024 1024"; do
    for k in 512 1024 2048 4096 8192 16384; do
      set -- $mn
      "$bin" --m "$1" --n "$2" --k "$k" --tile-n 128 --stages 4 --split-k 1,2,4,8 --runs 20 |
        sed "s/^/$round,/" >> "$out/split_k_scan.csv" || rc=1
    done
  done
  echo "round $round: $(grep -c ",ok," "$out/split_k_scan.csv") rows ok, $(($(date +%s) - start)) s"
done
# Section e's rates and the parameter value they give (hw/h200/dsmem_rate.py).
python3 hw/h200/dsmem_rate.py report "$out/cluster_calibration.csv" || rc=1
exit $rc
