#!/bin/bash
# run_batched.sh: the batched SM90 matmul on a Hopper GPU.
#   1. correctness: odd shapes with batches of 2-5, every configuration,
#      against cublasGemmStridedBatchedEx (batched_check.csv);
#   2. rank-2 against rank-3 tensor maps: with OLD=DIR (a tree whose kernel
#      loads through .2d maps, e.g. `git archive <commit> kernels hw | tar -x
#      -C DIR`), that tree's gemm_bench and this one time the same single
#      GEMMs in alternating rounds (rank_ab.csv: a column `maps` says 2d/3d);
#   3. batched timing: shapes whose single matrix leaves SMs idle or fills
#      them, two configurations each, three rounds (batched.csv; the shape
#      column reads MxNxKxL), for hw/h200/sweep_report.py.
# Output in $OUT (or /tmp).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.max.sm --format=csv,noheader
. hw/h200/gemm_bench_bin.sh
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
rc=0
echo "$header" > "$out/batched_check.csv"
for shape in "257 199 72 3" "129 1000 520 5" "1000 129 64 2" "300 260 192 4"; do
  set -- $shape
  "$bin" --m "$1" --n "$2" --k "$3" --batch "$4" --all --runs 3 >> "$out/batched_check.csv" || rc=1
done
if [ -n "$old" ]; then
  echo "maps,$header" > "$out/rank_ab.csv"
  for round in 1 2 3; do
    for shape in "2048 2048 2048" "4096 4096 4096" "1024 8192 2048"; do
      set -- $shape
      for cfg in "256 4" "128 5"; do
        set -- $shape $cfg
        "$old" --m "$1" --n "$2" --k "$3" --tile-n "$4" --stages "$5" --runs 20 | sed 's/^/2d,/' >> "$out/rank_ab.csv" || rc=1
        "$bin" --m "$1" --n "$2" --k "$3" --tile-n "$4" --stages "$5" --runs 20 | sed 's/^/3d,/' >> "$out/rank_ab.csv" || rc=1
      done
    done
  done
fi
echo "$header" > "$out/batched.csv"
for round in 1 2 3; do
  for shape in "1024 1024 1024 16" "512 512 4096 8" "2048 2048 512 8" "256 4096 1024 12" "4096 4096 2048 2"; do
    set -- $shape
    for cfg in "256 4" "128 5"; do
      set -- $shape $cfg
      "$bin" --m "$1" --n "$2" --k "$3" --batch "$4" --tile-n "$5" --stages "$6" --runs 20 >> "$out/batched.csv" || rc=1
    done
  done
done
for f in batched_check rank_ab batched; do
  [ -f "$out/$f.csv" ] || continue
  echo "== $f"
  cat "$out/$f.csv"
done
exit $rc
