#!/bin/bash
# run_multicast.sh: multicast's share of the L2 (docs/hardware.md,
# "Multicast's share of the L2"). Builds hw/h200/multicast_stream.cu with
# nvcc (or runs MULTICAST_STREAM=path), runs it once and prints, for every
# shape, tile, stage count and compute time, each multicast row against the
# same cluster shape's own-load row: the fill rates (bytes landing in shared
# memory per ns) and the share of the L2's rate that each multicast copy
# takes if the own-load row is held by that rate,
#   share = (own_fill / multicast_fill - q) / (1 - q),
# q = the multicast row's requested bytes over its fill (what a read-once
# multicast asks of L2). The model's tma_multicast_l2_share (models/sm90/
# params.json) is that share where the loads alone (compute 0) are L2-bound.
# Output: $OUT/multicast_stream.csv (or /tmp), its first line the board
# (name, UUID, driver, power limit), and $OUT/multicast_stamps.csv (the
# stamped k-blocks, printed); the share per multicast row and every mode's
# cycles per k-block side by side on stdout.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
bin="${MULTICAST_STREAM:-}"
if [ -z "$bin" ]; then
  bin=/tmp/multicast_stream
  nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/multicast_stream.cu -lcuda -o "$bin" || exit 2
fi
board=$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit --format=csv,noheader) || exit 2
{ echo "# $(date -u +%F), hw/h200/run_multicast.sh: $board"; "$bin"; } > "$out/multicast_stream.csv" || exit 2
{ echo "# $(date -u +%F), hw/h200/run_multicast.sh: $board"; "$bin" stamps; } > "$out/multicast_stamps.csv" || exit 2
cat "$out/multicast_stamps.csv"
python3 - "$out/multicast_stream.csv" <<'PY' || exit 2
import csv, sys
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith('#')))
key = lambda r: (r['shape'], r['tile_n'], r['stages'], r['compute'], r['jitter'], r['hold'], r['cluster'])
own = {key(r): r for r in rows if r['mode'] == 'own'}
base = {key(r)[:6]: r for r in rows if r['cluster'] == '1x1' and r['mode'] == 'own'}
print('shape,tile_n,stages,compute,jitter,hold,cluster,fill_1x1,fill_own,fill_multicast,multicast_over_own,share')
for r in rows:
    if r['mode'] != 'multicast':
        continue
    o, b = own.get(key(r)), base.get(key(r)[:6])
    fill, req = float(r['fill_bytes_per_ns']), float(r['requested_bytes_per_ns'])
    if o is None or fill <= 0:
        continue
    q, f_own = req / fill, float(o['fill_bytes_per_ns'])
    share = (f_own / fill - q) / (1 - q) if q < 1 else float('nan')
    print(f"{r['shape']},{r['tile_n']},{r['stages']},{r['compute']},{r['jitter']},{r['hold']},{r['cluster']},"
          f"{b['fill_bytes_per_ns'] if b else ''},{f_own:.1f},{fill:.1f},{fill / f_own:.3f},{share:.2f}")
# Every mode side by side: SM cycles per k-block, per configuration and
# cluster shape (docs/hardware.md, "What a cluster costs the load path").
modes = ['own', 'own_remote', 'own_smid', 'own_smid_far', 'own_order1x1', 'own_local', 'multicast']
cycles = {(key(r), r['mode']): r['kblock_cycles'] for r in rows}
print('\nshape,tile_n,stages,compute,jitter,hold,cluster,' + ','.join(modes) + '  (SM cycles per k-block)')
for k in sorted({key(r) for r in rows}):
    print(','.join(k) + ',' + ','.join(cycles.get((k, m), '-') for m in modes))
PY
