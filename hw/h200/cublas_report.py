#!/usr/bin/env python3
"""cublas_report.py: our SM90 matmul's best configuration per shape against
cuBLAS, from gemm_bench CSVs.

    python3 hw/h200/cublas_report.py RUN.csv [RUN.csv ...] [--no-split | --splits LIST] [--shapes]

Each RUN.csv is one device run of gemm_bench rows (hw/h200/run_shapes.sh's
shapes.csv, or any CSV whose header names the columns shape, ours_us,
cublas_us and status, after comment lines starting with #). A row's problem
shape is its shape column up to the first underscore (gemm_bench appends _et
for the TMA-store epilogue, _kS for the K split, _cMxN for a cluster).

Within one run, a shape's ratio is cuBLAS's median time over the run's rows of
that shape against our fastest row's time (so both sides saw the same board
and drift). Per run, one line:

    NAME: S shapes, median R.RRRx, at 0.95x or better N, at 1.0x or better N, worst R.RRRx (SHAPE)

and with two or more runs a last line for each shape's best run:

    best of K runs: S shapes, median ..., at 0.95x or better N, ...

--no-split leaves out the K split's rows (_kS); --splits 1,2,4 keeps the rows
of those splits only (1: no K split), e.g. to read a run without one split; --shapes also prints each shape's best ratio and configuration, lowest first.
docs/hardware.md quotes these lines; tests/hw:cublas_report_test re-derives
them from the committed CSVs.
"""
import argparse
import csv
import os
import statistics
import script_main


def split_of(shape):
    """The K split of a gemm_bench row's name (_kS, or _kSt for the last
    wave's tiles only; 1 when none)."""
    for part in shape.split('_')[1:]:
        if len(part) > 1 and part[0] == 'k' and part[1:].rstrip('t').isdigit():
            return int(part[1:].rstrip('t'))
    return 1


def read_rows(path, no_split, splits=None):
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith('#')))
    for need in ('shape', 'ours_us', 'cublas_us', 'status'):
        if rows and need not in rows[0]:
            raise script_main.BadInput(f'{path}: no column "{need}"')
    out = []
    for r in rows:
        if r['status'] != 'ok':
            continue
        if no_split and split_of(r['shape']) > 1:
            continue
        if splits is not None and split_of(r['shape']) not in splits:
            continue
        out.append(r)
    return out


def ratios(rows):
    """{shape: (ratio, config)} for one run."""
    cublas, best = {}, {}
    for r in rows:
        shape = r['shape'].split('_')[0]
        cublas.setdefault(shape, []).append(float(r['cublas_us']))
        t = float(r['ours_us'])
        if shape not in best or t < best[shape][0]:
            best[shape] = (t, f"{r['shape']} {r.get('tile_n', '')} s{r.get('stages', '')}".strip())
    return {s: (statistics.median(cublas[s]) / best[s][0], best[s][1]) for s in best}


def line(name, by_shape):
    v = sorted(by_shape.items(), key=lambda kv: kv[1][0])
    xs = [r for _, (r, _) in v]
    return (f'{name}: {len(xs)} shapes, median {statistics.median(xs):.3f}x, '
            f'at 0.95x or better {sum(x >= 0.95 for x in xs)}, at 1.0x or better {sum(x >= 1.0 for x in xs)}, '
            f'worst {xs[0]:.3f}x ({v[0][0]})')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('runs', nargs='+')
    ap.add_argument('--no-split', action='store_true')
    ap.add_argument('--splits')
    ap.add_argument('--shapes', action='store_true')
    a = ap.parse_args()
    splits = None
    if a.splits is not None:
        try:
            splits = {int(v) for v in a.splits.split(',')}
        except ValueError:
            raise script_main.BadInput(f'--splits takes numbers, comma-separated, got {a.splits!r}')
    per_run = []
    for path in a.runs:
        if not os.path.isfile(path):
            raise script_main.BadInput(f'no file {path}')
        rows = read_rows(path, a.no_split, splits)
        if not rows:
            raise script_main.BadInput(f'{path}: no rows')
        r = ratios(rows)
        per_run.append(r)
        print(line(os.path.basename(path), r))
    best = {}
    for r in per_run:
        for shape, v in r.items():
            if shape not in best or v[0] > best[shape][0]:
                best[shape] = v
    if len(per_run) > 1:
        print(line(f'best of {len(per_run)} runs', best))
    if a.shapes:
        for shape, (x, cfg) in sorted(best.items(), key=lambda kv: kv[1][0]):
            print(f'  {shape:20s} {x:.3f}x  {cfg}')


if __name__ == '__main__':
    script_main.run('cublas_report.py', main)
