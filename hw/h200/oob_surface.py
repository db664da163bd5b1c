#!/usr/bin/env python3
"""oob_surface.py: the zero-fill path's rate surface from the oob_depth CSV.

The SM90 model reads the rate at which rows of TMA boxes outside their tensor
pass the GPU's zero-fill path from a measured surface (models/sm100/oob_path.h):
rows per SM cycle by rows outside x SMs loading x boxes in flight per SM. This
script derives that surface from hw/h200/l2_stream.cu's section oob_depth, so
that the parameter file's numbers come from committed data:

  oob_surface.py json CSV     the four parameter values (JSON lines to paste)
  oob_surface.py check CSV PARAMS
                              exit 1 unless PARAMS holds exactly that surface

A cell is the mean over the CSV's rounds of boxes per cycle of all SMs times
the rows outside, in tenths of a row; 0 where the boxes streamed within 5 % of
boxes with no row outside at the same SMs and depth (the SMs' ports, not the
path, were the limit there). One box in flight per SM is left out: that ring
is bound by each box's latency (about 570 cycles with no row outside against
390 with two in flight), so its rate says nothing of the path's.
"""
import csv
import json
import statistics
import sys
import script_main


def surface(path):
    cells = {}
    with open(path) as f:
        for r in csv.DictReader(x for x in f if not x.startswith('#')):
            key = (int(r['rows']), int(r['ctas']), int(r['inflight']))
            cells.setdefault(key, []).append((float(r['box_cycles_per_sm']), float(r['boxes_per_cycle_all'])))
    mean = {k: (statistics.mean(c for c, _ in v), statistics.mean(b for _, b in v)) for k, v in cells.items()}
    rows = sorted({k[0] for k in mean if k[0] < 128}, reverse=True)
    sms = sorted({k[1] for k in mean})
    depths = sorted({k[2] for k in mean if k[2] >= 2})
    tenths = []
    for rw in rows:
        for s in sms:
            for d in depths:
                cycles, boxes = mean[(rw, s, d)]
                free = mean[(128, s, d)][0]
                tenths.append(0 if cycles <= 1.05 * free else round(boxes * (128 - rw) * 10))
    return {'tma_oob_surface_outside': [128 - rw for rw in rows], 'tma_oob_surface_sms': sms,
            'tma_oob_surface_depths': depths, 'tma_oob_surface_rows_tenths': tenths}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == 'json':
        for k, v in surface(sys.argv[2]).items():
            print(f'"{k}": {json.dumps(v)}')
        return
    if len(sys.argv) == 4 and sys.argv[1] == 'check':
        want = surface(sys.argv[2])
        with open(sys.argv[3]) as f:
            params = json.load(f)['params']
        bad = [k for k, v in want.items() if k not in params or params[k]['value'] != v]
        if bad:
            print(f'oob_surface: {sys.argv[3]} differs from {sys.argv[2]} in {", ".join(bad)}')
            sys.exit(1)
        print(f'oob_surface: {sys.argv[3]} holds the surface of {sys.argv[2]}')
        return
    print(__doc__.strip().splitlines()[0], file=sys.stderr)
    print('usage: oob_surface.py json CSV | check CSV PARAMS', file=sys.stderr)
    sys.exit(2)


if __name__ == '__main__':
    script_main.run('oob_surface.py', main)
