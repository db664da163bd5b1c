#!/bin/bash
# run_l2_halves.sh: which SMs share a half of L2 (docs/hardware.md, "Two
# halves of L2"). Runs `l2_stream halves` once plainly (times) and once under
# Nsight Compute: for every SM s, SM 0 reads 4 MiB from HBM, then SM s reads
# it again (Nsight Compute leaves L2 alone between the kernels: --cache-control
# none); for each read, the L2 read sectors, their hits, the sectors that
# crossed between the two L2 partitions (ltcfabric) and the DRAM bytes.
# Output: $OUT/l2_halves.csv (or /tmp), one row per SM: sm, both reads' times
# and the counters of each. The times tell the halves (the second read is
# slower from the far one); Nsight Compute's replay refetched from DRAM between
# the kernels on an H200 even so, which leaves the first read's counters (the
# lines homed in the far half cross) as the ones to read.
# L2_STREAM=path runs an l2_stream already built instead of building one.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
. hw/h200/ncu_bin.sh
bin="${L2_STREAM:-}"
if [ -z "$bin" ]; then
  bin=/tmp/l2_stream
  nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/l2_stream.cu -lcuda -o "$bin" || exit 2
fi
"$bin" halves > "$out/l2_halves_times.txt" || exit 2
metrics=gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum
metrics+=,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum
"$NCU" --clock-control none --cache-control none --metrics "$metrics" -k regex:halves_read --csv --page raw \
  "$bin" halves > "$out/ncu_halves.txt" 2>&1 || exit 2
python3 - "$out/l2_halves_times.txt" "$out/ncu_halves.txt" > "$out/l2_halves.csv" <<'PY' || exit 2
import csv, sys
times = [l.strip().split(',') for l in open(sys.argv[1]) if l[:1].isdigit()]
rows = list(csv.reader(l for l in open(sys.argv[2]) if l.startswith('"')))
head = rows[0]
cols = ['lts__t_sectors_op_read.sum', 'lts__t_sectors_op_read_lookup_hit.sum',
        'lts__t_sectors_srcunit_ltcfabric.sum', 'dram__bytes_read.sum']
k = [[float(dict(zip(head, r))[c].replace(',', '')) for c in cols] for r in rows[2:]]
if len(k) != 2 * len(times):
    sys.exit(f'run_l2_halves: {len(k)} kernels profiled for {len(times)} SMs')
print('sm,first_us,second_us,first_read_sectors,first_hit_sectors,first_fabric_sectors,first_dram_bytes,'
      'second_read_sectors,second_hit_sectors,second_fabric_sectors,second_dram_bytes')
for i, t in enumerate(times):
    print(','.join(t) + ',' + ','.join(f'{x:.0f}' for x in k[2 * i] + k[2 * i + 1]))
PY
head -5 "$out/l2_halves.csv"
