#!/usr/bin/env python3
"""build_ab_report.py: two gemm_bench builds side by side, from the CSVs of
hw/h200/run_build_ab.sh (or run_decode_ab.sh).

    python3 hw/h200/build_ab_report.py RUN.csv [RUN.csv ...] [--shapes] [--pair OLD,NEW] [--best]

Each RUN.csv holds rows of two or more builds (column build: old, new and
the names run_build_ab.sh's MORE gave) over rounds, after comment lines
starting with #. --pair names the two builds to compare (default old,new);
in the line below "old" is the first and "new" the second, and a pair other
than the default is named after NAME as [OLD -> NEW]. A configuration's time
is its median over the rounds; only configurations both builds ran (status
ok) are compared. Per run, one line:

    NAME: S shapes, C configurations; new/old median R (min R, max R); best per shape new/old median R (min R, max R); at 0.95x cuBLAS or better old N, new N

where a shape's best is its fastest configuration in each build and the
cuBLAS ratio is cuBLAS's median over both builds' rows of the shape against
that best. A shape is the shape column up to its first underscore; what
follows (gemm_bench's _et, _gG, _pp, _kS) is part of the configuration.
--shapes also prints, per shape, both bests and each
configuration's new/old ratio. --best compares builds that run different
configurations (the same binary with another tile shape: gemm_bench
--tile-m's _mM rows against the kernel's own tiles): only each shape's best,
over every configuration each build ran, on a line of its own:

    NAME [best only]: S shapes; best per shape new/old median R (min R, max R); at 0.95x cuBLAS or better old N, new N

docs/hardware.md quotes these lines; tests/hw:build_ab_report_test
re-derives them from the committed CSVs.
"""
import argparse
import collections
import csv
import os
import statistics
import script_main


def read(path, pair):
    with open(path) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith('#')))
    for need in ('build', 'shape', 'tile_n', 'stages', 'ours_us', 'cublas_us', 'status'):
        if not rows or need not in rows[0]:
            raise script_main.BadInput(f'{path}: no column "{need}"')
    times, cublas = collections.defaultdict(list), collections.defaultdict(list)
    for r in rows:
        if r['status'] != 'ok':
            continue
        if r['build'] not in pair:
            continue
        shape, _, variant = r['shape'].partition('_')
        side = 'old' if r['build'] == pair[0] else 'new'
        times[(side, shape, variant, int(r['tile_n']), int(r['stages']))].append(float(r['ours_us']))
        cublas[shape].append(float(r['cublas_us']))
    return times, cublas


def config(c):
    variant, tile_n, stages = c
    return f'{variant + " " if variant else ""}{tile_n} s{stages}'


def spread(xs):
    return f'median {statistics.median(xs):.3f} (min {min(xs):.3f}, max {max(xs):.3f})'


def shape_best(s, best, cub, at):
    """Counts each side's best at 0.95x cuBLAS or better into `at`; the shape's
    line of --shapes (both bests and their cuBLAS ratios)."""
    for b in best:
        at[b] += cub / best[b][0] >= 0.95
    return (f'  {s}: old {best["old"][0]:.1f} us ({config(best["old"][1])}, '
            f'{cub / best["old"][0]:.3f}x cuBLAS), new {best["new"][0]:.1f} us '
            f'({config(best["new"][1])}, {cub / best["new"][0]:.3f}x)')


def report_best(path, shapes_too, pair):
    times, cublas = read(path, pair)
    med = {k: statistics.median(v) for k, v in times.items()}
    best_ratios, at, lines = [], {'old': 0, 'new': 0}, []
    for s in sorted({k[1] for k in med}):
        best = {}
        for b in ('old', 'new'):
            own = [(t, k[2:]) for k, t in med.items() if k[0] == b and k[1] == s]
            if own:
                best[b] = min(own)
        if len(best) < 2:
            continue
        best_ratios.append(best['new'][0] / best['old'][0])
        lines.append(shape_best(s, best, statistics.median(cublas[s]), at))
    if not best_ratios:
        raise script_main.BadInput(f'{path}: no shape that both builds ran')
    name = os.path.splitext(os.path.basename(path))[0]
    name += f' [{pair[0]} -> {pair[1]}, best only]' if pair != ('old', 'new') else ' [best only]'
    print(f'{name}: {len(best_ratios)} shapes; best per shape new/old {spread(best_ratios)}; '
          f'at 0.95x cuBLAS or better old {at["old"]}, new {at["new"]}')
    if shapes_too:
        print('\n'.join(lines))


def report(path, shapes_too, pair):
    times, cublas = read(path, pair)
    med = {k: statistics.median(v) for k, v in times.items()}
    shapes = sorted({k[1] for k in med})
    ratios, best_ratios, at = [], [], {'old': 0, 'new': 0}
    lines = []
    for s in shapes:
        both = sorted(k[2:] for k in med if k[0] == 'old' and k[1] == s and ('new', s) + k[2:] in med)
        if not both:
            continue
        per = [(c, med[('new', s) + c] / med[('old', s) + c]) for c in both]
        ratios += [r for _, r in per]
        best = {b: min((med[(b, s) + c], c) for c in both) for b in ('old', 'new')}
        best_ratios.append(best['new'][0] / best['old'][0])
        lines.append(shape_best(s, best, statistics.median(cublas[s]), at) + '; '
                     + ', '.join(f'{config(c)} {r:.3f}' for c, r in per))
    if not ratios:
        raise script_main.BadInput(f'{path}: no configuration that both builds ran')
    name = os.path.splitext(os.path.basename(path))[0]
    if pair != ('old', 'new'):
        name += f' [{pair[0]} -> {pair[1]}]'
    print(f'{name}: {len(best_ratios)} shapes, {len(ratios)} configurations; new/old {spread(ratios)}; '
          f'best per shape new/old {spread(best_ratios)}; at 0.95x cuBLAS or better old {at["old"]}, new {at["new"]}')
    if shapes_too:
        print('\n'.join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('runs', nargs='+')
    ap.add_argument('--shapes', action='store_true')
    ap.add_argument('--pair', default='old,new')
    ap.add_argument('--best', action='store_true')
    a = ap.parse_args()
    pair = tuple(a.pair.split(','))
    if len(pair) != 2 or pair[0] == pair[1] or not all(pair):
        raise script_main.BadInput(f'--pair "{a.pair}": two different build names, OLD,NEW')
    for path in a.runs:
        (report_best if a.best else report)(path, a.shapes, pair)


if __name__ == '__main__':
    script_main.run('build_ab_report.py', main)
