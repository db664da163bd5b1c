#!/bin/bash
# run_cta_scan.sh: the main loop's rate against the number of CTAs streaming at
# once. Times the 128x256 (4 stages) and 128x128 (5 stages) kernels on shapes
# that launch 32, 64 and 128 CTAs in one wave, at K = 2048, 4096 and 8192, in
# ROUNDS alternating rounds (default 3). A limit of each SM's own memory path
# shows at every CTA count; a limit shared by all SMs (the L2, the crossbar)
# only when many stream at once. Output: cta_scan.csv in $OUT (or /tmp).
# GEMM_BENCH=path runs a gemm_bench already built (bazel build //hw/h200:gemm_bench).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
rounds="${ROUNDS:-3}"
# Boards differ (docs/hardware.md): name the one measured.
nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader
. hw/h200/gemm_bench_bin.sh
echo "shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz" \
  > "$out/cta_scan.csv"
rc=0
for round in $(seq "$rounds"); do
  for k in 2048 4096 8192; do
    # m n tile_n stages: 32, 64 and 128 CTAs of 128x256; the same counts of
    # 128x128; then 128 CTAs of 128x256 with B shared by 32 CTAs and by 8.
    for cfg in "512 2048 256 4" "1024 2048 256 4" "2048 2048 256 4" \
               "512 1024 128 5" "1024 1024 128 5" "2048 1024 128 5" "2048 2048 128 5" \
               "4096 1024 256 4" "1024 4096 256 4"; do
      set -- $cfg
      "$bin" --m "$1" --n "$2" --k "$k" --tile-n "$3" --stages "$4" --runs 20 \
        >> "$out/cta_scan.csv" || rc=1
    done
  done
done
awk -F, '{printf "%-16s %6s %6s %9s %9s %6s %6s\n", $1, $2, $3, $4, $6, $9, $10}' "$out/cta_scan.csv"
exit $rc
