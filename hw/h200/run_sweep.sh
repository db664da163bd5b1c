#!/bin/bash
# run_sweep.sh: the validation sweep of docs/hardware.md on a Hopper GPU. Builds
# gemm_bench, times every tile/stage configuration of the five sweep shapes
# (the measured half of docs/results/h200_sweep.csv), then the single-CTA stage
# sweep (one 128x128 tile, long K: the pipeline's stage round trip, compare
# research/perf.md section 3.1). Every row carries the mean SM clock of its
# timed launches (sm_mhz).
# Output: sweep.csv and single_cta.csv in $OUT (or /tmp), then a short table.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader
bin=/tmp/gemm_bench
nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/gemm_bench.cu \
  -lcublas -lcuda -o "$bin" || exit 2
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
rc=0
echo "$header" > "$out/sweep.csv"
for shape in "512 512 512" "2048 2048 2048" "8192 8192 8192" "4096 1024 8192" "1024 8192 2048"; do
  set -- $shape
  "$bin" --m "$1" --n "$2" --k "$3" --all --runs 20 >> "$out/sweep.csv" || rc=1
done
echo "$header" > "$out/single_cta.csv"
for k in 131072 16384; do
  "$bin" --m 128 --n 128 --k "$k" --all --runs 5 >> "$out/single_cta.csv" || rc=1
done
for f in sweep single_cta; do
  echo "== $f"
  column -s, -t < "$out/$f.csv" | cut -c1-140
done
exit $rc
