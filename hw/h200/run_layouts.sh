#!/bin/bash
# run_layouts.sh: the SM90 matmul with MN-major operands on a Hopper GPU
# (--layout-a col: A M-contiguous; --layout-b row: B N-contiguous).
#   1. correctness: odd shapes, each layout pair, every configuration, single
#      and batched, against cuBLAS with the matching op flags
#      (layouts_check.csv);
#   2. timing: each layout pair on three shapes, two configurations, three
#      rounds in turn (layouts.csv; the shape column ends in _ca, _rb or
#      both), for hw/h200/sweep_report.py; with OLD=DIR (a tree to compare
#      with, as in run_batched.sh), that tree's gemm_bench times the default
#      layout in the same rounds, each run beside this tree's (rows marked
#      old/new in layouts_ab.csv).
# Output in $OUT (or /tmp).
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.max.sm --format=csv,noheader
. hw/h200/gemm_bench_bin.sh
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
rc=0
layouts=("--layout-a row --layout-b col" "--layout-a col --layout-b col"
         "--layout-a row --layout-b row" "--layout-a col --layout-b row")
echo "$header" > "$out/layouts_check.csv"
for l in "${layouts[@]}"; do
  for shape in "257 199 72 1" "129 1000 520 1" "300 260 192 3"; do
    set -- $shape
    "$bin" --m "$1" --n "$2" --k "$3" --batch "$4" $l --all --runs 3 >> "$out/layouts_check.csv" || rc=1
  done
done
[ -n "$old" ] && echo "tree,$header" > "$out/layouts_ab.csv"
echo "$header" > "$out/layouts.csv"
for round in 1 2 3; do
  for shape in "2048 2048 2048" "4096 4096 4096" "1024 8192 2048"; do
    for l in "${layouts[@]}"; do
      set -- $shape
      for cfg in "256 4" "128 5"; do
        set -- $shape $cfg
        "$bin" --m "$1" --n "$2" --k "$3" --tile-n "$4" --stages "$5" $l --runs 20 >> "$out/layouts.csv" || rc=1
      done
    done
    if [ -n "$old" ]; then
      for cfg in "256 4" "128 5"; do
        set -- $shape $cfg
        "$old" --m "$1" --n "$2" --k "$3" --tile-n "$4" --stages "$5" --runs 20 | sed 's/^/old,/' >> "$out/layouts_ab.csv" || rc=1
        "$bin" --m "$1" --n "$2" --k "$3" --tile-n "$4" --stages "$5" --runs 20 | sed 's/^/new,/' >> "$out/layouts_ab.csv" || rc=1
      done
    fi
  done
done
for f in layouts_check layouts layouts_ab; do
  [ -f "$out/$f.csv" ] || continue
  echo "== $f"
  grep -v ",ok," "$out/$f.csv" | head -5
  echo "$(grep -c ",ok," "$out/$f.csv") rows ok"
done
exit $rc
