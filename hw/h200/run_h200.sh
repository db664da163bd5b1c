#!/bin/bash
# run_h200.sh: builds the SM90 benchmark on the GPU machine and runs the
# correctness checks (odd shapes, every configuration), the speed comparison
# with cuBLAS at 4096^3 and 8192^3, and compute-sanitizer on a small shape.
# Output: CSV lines (see gemm_bench.cu) and the sanitizer summaries; with $OUT
# set, the full log goes to $OUT/h200_run.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
log="${OUT:-/tmp}/h200_run.log"
exec > >(tee "$log") 2>&1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem --format=csv,noheader
nvcc --version | tail -1
bin=/tmp/gemm_bench
nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. -Xptxas -v hw/h200/gemm_bench.cu \
  -lcublas -lcuda -o "$bin" 2>&1 | grep -E "error|registers|spill|C7508" | sort | uniq -c
echo "shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
rc=0
for shape in "257 199 72" "129 1000 520" "1000 129 64"; do
  set -- $shape
  "$bin" --m "$1" --n "$2" --k "$3" --all --runs 3 || rc=1
done
"$bin" --m 4096 --n 4096 --k 4096 --all --runs 20 || rc=1
"$bin" --m 8192 --n 8192 --k 8192 --tile-n 256 --stages 4 --runs 20 || rc=1
"$bin" --m 8192 --n 8192 --k 8192 --tile-n 128 --stages 6 --runs 20 || rc=1
for tool in memcheck racecheck synccheck; do
  echo "== compute-sanitizer --tool $tool"
  compute-sanitizer --tool "$tool" "$bin" --m 300 --n 260 --k 192 --stages 3 --tile-n 128 --runs 1 2>&1 | tail -4
done
exit $rc
