#!/bin/bash
# run_ncu.sh: memory traffic of the sweep configurations under Nsight Compute,
# to check the model's L2 and HBM byte counts (docs/hardware.md, "Memory
# traffic"). For every tile and stage count of the five sweep shapes,
# gemm_bench runs once (--runs 1: the checked launch, three warm-ups, one
# timed launch) under ncu with the clocks left alone; the last launch of each
# configuration is kept: its time, SM clock and cycles, DRAM bytes read and
# written, L2 read sectors (all, hits, misses), L2 write sectors and the
# sectors that crossed between the two L2 partitions.
# Output: $OUT/ncu_memory.csv (or /tmp), one row per configuration.
# GEMM_BENCH=path runs a gemm_bench already built instead of building one;
# SHAPES="M N K;M N K" measures those shapes instead of the five.
# BENCH_ARGS (e.g. --tma-epilogue) goes to every gemm_bench run.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
. hw/h200/ncu_bin.sh
. hw/h200/gemm_bench_bin.sh
metrics=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,sm__cycles_elapsed.max
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum
metrics+=,lts__t_sectors_op_read_lookup_hit.sum,lts__t_sectors_op_read_lookup_miss.sum
metrics+=,lts__t_sectors_op_write.sum,lts__t_sectors_srcunit_ltcfabric.sum
rc=0
IFS=';' read -r -a shapes <<<"${SHAPES:-512 512 512;2048 2048 2048;8192 8192 8192;4096 1024 8192;1024 8192 2048}"
for shape in "${shapes[@]}"; do
  set -- $shape
  "$NCU" --clock-control none --metrics "$metrics" -k regex:sm90_matmul --csv --page raw \
    "$bin" --m "$1" --n "$2" --k "$3" --all --runs 1 ${BENCH_ARGS:-} > "$out/ncu_${1}x${2}x${3}.txt" 2>&1 || rc=1
done
python3 - "$out"/ncu_*x*x*.txt > "$out/ncu_memory.csv" <<'PY' || rc=1
import csv, re, sys
cols = ['gpu__time_duration.sum', 'sm__cycles_elapsed.avg.per_second', 'sm__cycles_elapsed.max',
        'dram__bytes_read.sum', 'dram__bytes_write.sum', 'lts__t_sectors_op_read.sum',
        'lts__t_sectors_op_read_lookup_hit.sum', 'lts__t_sectors_op_read_lookup_miss.sum',
        'lts__t_sectors_op_write.sum', 'lts__t_sectors_srcunit_ltcfabric.sum']
print('shape,tile_n,stages,kernel_us,sm_ghz,sm_cycles,dram_read_bytes,dram_write_bytes,'
      'l2_read_sectors,l2_read_hit_sectors,l2_read_miss_sectors,l2_write_sectors,l2_fabric_sectors')
for path in sys.argv[1:]:
    shape = re.search(r'ncu_(\d+x\d+x\d+)\.txt', path)[1]
    rows = list(csv.reader(l for l in open(path) if l.startswith('"')))
    if len(rows) < 3:
        continue
    head, last = rows[0], {}
    for row in rows[2:]:  # rows[1] holds the units
        d = dict(zip(head, row))
        cfg = re.search(r'Config<(\d+), (\d+)[,>]', d['Kernel Name'])
        last[(int(cfg[1]), int(cfg[2]))] = [float(d[c].replace(',', '')) for c in cols]
    for (bn, s), v in sorted(last.items()):
        us = v[0] / 1e3  # ns
        print(f'{shape},{bn},{s},{us:.2f},{v[1] / 1e9:.3f},' + ','.join(f'{x:.0f}' for x in v[2:]))
PY
column -t -s, "$out/ncu_memory.csv" 2>/dev/null || cat "$out/ncu_memory.csv"
exit $rc
