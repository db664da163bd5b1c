#!/bin/bash
# run_sweep.sh: the validation sweep of docs/hardware.md on a Hopper GPU. Builds
# gemm_bench, times every tile/stage configuration of the five sweep shapes
# (the measured half of docs/results/h200_sweep.csv), then the single-CTA stage
# sweep (one 128x128 tile, long K: the pipeline's stage round trip, compare
# research/perf.md section 3.1). Every row carries the mean SM clock of its
# timed launches (sm_mhz).
# The sweep runs ROUNDS times (default 3), the shapes in turn within each
# round, so every configuration appears ROUNDS times in sweep.csv;
# sweep_report.py takes the median. One round's spread between runs of the
# same configuration is a few percent (docs/hardware.md), as large as the
# model's error targets.
# Output: sweep.csv and single_cta.csv in $OUT (or /tmp), then a short table.
# GEMM_BENCH=path runs a gemm_bench already built (bazel build
# //hw/h200:gemm_bench) instead of building one here.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
rounds="${ROUNDS:-3}"
nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.max.sm --format=csv,noheader
. hw/h200/gemm_bench_bin.sh
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
rc=0
echo "$header" > "$out/sweep.csv"
for round in $(seq "$rounds"); do
  for shape in "512 512 512" "2048 2048 2048" "8192 8192 8192" "4096 1024 8192" "1024 8192 2048"; do
    set -- $shape
    "$bin" --m "$1" --n "$2" --k "$3" --all --runs 20 >> "$out/sweep.csv" || rc=1
  done
done
echo "$header" > "$out/single_cta.csv"
for k in 131072 16384; do
  "$bin" --m 128 --n 128 --k "$k" --all --runs 5 >> "$out/single_cta.csv" || rc=1
done
for f in sweep single_cta; do
  echo "== $f"
  # shape, tile_n, stages, ours_us, cublas_us, rel_err, status, sm_mhz ('column' is
  # not on every GPU image).
  awk -F, '{printf "%-16s %6s %6s %9s %9s %9s %6s %6s\n", $1, $2, $3, $4, $6, $8, $9, $10}' "$out/$f.csv"
done
exit $rc
