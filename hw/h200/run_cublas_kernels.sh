#!/bin/bash
# run_cublas_kernels.sh: which kernel cuBLAS runs on each shape, under Nsight
# Compute: its name (nvjet_sm90_tst_<tile>_<BK>x<stages>_<cluster>_..., the
# tile, stage count and cluster shape cuBLAS chose), grid, block, registers,
# dynamic shared memory, launch cluster dimensions and its time under ncu's
# replay (caches flushed, clocks left alone), beside ours. For each shape
# gemm_bench runs one configuration of ours (--tile-n 128 --stages 4 --runs 1:
# the checked launch, warm-ups and one timed launch, cuBLAS's likewise).
#   SHAPES="M N K;..."  the shapes (default: the shapes under 0.95x cuBLAS of
#                       docs/hardware.md "What cuBLAS runs", and 3072³, 4096³,
#                       8192³)
#   GEMM_BENCH=...      a gemm_bench already built (else one is built here)
# Output: $OUT/cublas_kernels.csv (or /tmp), one row per shape and kernel that
# is neither ours nor the benchmark's own (fill_random, clock_probe): shape,
# kernel, grid, block, regs, smem, cluster_x, cluster_y (the launch's cluster
# dimensions; the name carries its orientation), us_median (of its launches),
# launches; the board on the first line as a comment. The raw ncu output per
# shape stays in $OUT/ncu_kernels/.
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
. hw/h200/ncu_bin.sh
. hw/h200/gemm_bench_bin.sh
raw="$out/ncu_kernels"
mkdir -p "$raw"
metrics=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread
metrics+=,launch__shared_mem_per_block_dynamic,launch__cluster_dim_x,launch__cluster_dim_y
IFS=';' read -r -a shapes <<<"${SHAPES:-15872 640 3328;7360 576 3584;6912 1088 3136;12544 768 768;7168 8128 320;1856 320 4160;896 14656 2624;8960 7296 960;9984 9600 512;10240 2496 1472;320 5376 3776;3072 3072 3072;4096 4096 4096;8192 8192 8192}"
rc=0
for shape in "${shapes[@]}"; do
  set -- $shape
  timeout 120 "$NCU" --clock-control none --metrics "$metrics" --csv --page raw \
    "$bin" --m "$1" --n "$2" --k "$3" --tile-n 128 --stages 4 --runs 1 > "$raw/${1}x${2}x${3}.txt" 2>&1 || rc=1
done
{
  echo "# $board; ncu --clock-control none, gemm_bench --tile-n 128 --stages 4 --runs 1"
  python3 - "$raw"/*x*x*.txt <<'PY'
import collections, csv, re, sys
print('shape,kernel,grid,block,regs,smem,cluster_x,cluster_y,us_median,launches')
for path in sys.argv[1:]:
    shape = re.search(r'(\d+x\d+x\d+)\.txt$', path)[1]
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    if len(rows) < 3:
        continue
    col = {c: i for i, c in enumerate(rows[0])}
    unit = rows[1][col['gpu__time_duration.sum']]
    scale = {'ns': 1e-3, 'nsecond': 1e-3, 'us': 1.0, 'usecond': 1.0, 'ms': 1e3, 'msecond': 1e3}[unit]
    num = lambda r, c: r[col[c]].replace(',', '') if c in col else ''
    launches = collections.defaultdict(list)
    for r in rows[2:]:
        name = r[col['Kernel Name']]
        if any(s in name for s in ('sm90_matmul', 'fill_random', 'clock_probe')):
            continue
        key = (name.replace(',', ';'),) + tuple(num(r, c) for c in (
            'launch__grid_size', 'launch__block_size', 'launch__registers_per_thread',
            'launch__shared_mem_per_block_dynamic', 'launch__cluster_dim_x', 'launch__cluster_dim_y'))
        launches[key].append(float(num(r, 'gpu__time_duration.sum')) * scale)
    for key, t in launches.items():
        t.sort()
        print(','.join((shape,) + key + (f'{t[len(t) // 2]:.2f}', str(len(t)))))
PY
} > "$out/cublas_kernels.csv" || rc=1
cat "$out/cublas_kernels.csv"
exit $rc
