#!/usr/bin/env python3
"""shape_report.py: the SM90 model against a measurement of the shape set.

    python3 hw/h200/shape_report.py predict <sim> <measured.csv> <out.csv>
            [--params FILE] [--jobs N] [--date YYYY-MM-DD] [--unseen SOURCE]
    python3 hw/h200/shape_report.py summary <out.csv> [--shapes]

`predict` reads a run_shapes.sh CSV (a comment line naming the board, then
round,shape,tile_n,stages,ours_us,...), merges each configuration's rounds
into the median of its times and clocks (their spread, max/min - 1, is kept),
runs `sim run --kernel matmul --arch sm90` in timing mode for it (with
--params FILE for another board's parameter file; rows that gemm_bench names
with an "_et" suffix (the TMA-store epilogue: run_shapes.sh with EPILOGUE=tma)
are simulated with --epilogue tma and written without the suffix; each
prediction is kept in
out.csv.pred as it comes, so an interrupted run resumes) and writes out.csv:

    shape,variant,source,split,tile_n,stages,rounds,measured_us,spread_pct,
    sm_mhz,cublas_us,predicted_us,date

where variant is what follows the shape in gemm_bench's name (_gG the tile
group, _pp the ping-pong schedule, _kS the K split; "" for none; CSVs from
before 2026-12-06 have no such column), which the prediction runs with and
which the picks choose among, and where source and split come from hw/h200/shape_set.py (the split was drawn
before any fitting); with --unseen SOURCE, shapes outside the set (measured
after the fits, e.g. hw/h200/run_l2_walk.sh's) are held out under that
source, which summary reports on a line of its own. `summary` needs only
out.csv (no simulator): for each split, the MAPE and the worst error over its
rows and, per shape, the model's pick (its fastest configuration; ties within
0.5 % go to more stages, as in sweep_report.py) against the measured best, for
the random and LLM parts,
the calibration and held-out splits and all shapes; with rows of both SM90
schedules (variants with and without _pp), a line for each schedule's rows
alone. docs/hardware.md quotes
these lines; tests/hw:shape_report_test re-derives them from the committed
CSVs (and the split from shape_set.py) so that the docs cannot drift from the
data.
"""
import concurrent.futures
import csv
import os
import statistics
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import shape_set  # noqa: E402
from sweep_report import predict, without_epilogue  # noqa: E402
import script_main  # noqa: E402

COLUMNS = ['shape', 'variant', 'source', 'split', 'tile_n', 'stages', 'rounds', 'measured_us',
           'spread_pct', 'sm_mhz', 'cublas_us', 'predicted_us', 'date']


def merged(path):
    """One row per configuration of a run_shapes.sh CSV, rounds merged into
    medians, in first-seen order."""
    groups = {}
    with open(path) as f:
        for r in csv.DictReader(line for line in f if not line.startswith('#')):
            if r['status'] == 'ok':
                name, tma = without_epilogue(r['shape'])
                shape, _, variant = name.partition('_')
                groups.setdefault((shape, variant, r['tile_n'], r['stages'], tma), []).append(r)
    rows = []
    for (shape, variant, tile_n, stages, tma), g in groups.items():
        t = [float(r['ours_us']) for r in g]
        rows.append({'shape': shape, 'variant': variant, 'tile_n': tile_n, 'stages': stages,
                     'epilogue': 'tma' if tma else 'regs',
                     'rounds': len(g),
                     'measured_us': statistics.median(t),
                     'spread_pct': 100 * (max(t) / min(t) - 1),
                     'sm_mhz': statistics.median(float(r['sm_mhz']) for r in g),
                     'cublas_us': statistics.median(float(r['cublas_us']) for r in g)})
    return rows


def named(r):
    """A merged row's shape with its variant, as gemm_bench names it without
    _et ('4096x4096x4096_g4_pp')."""
    return r['shape'] + ('_' + r['variant'] if r['variant'] else '')


class PredictionCache:
    """Predictions kept in a file as they come (a run of the whole set takes
    hours on two cores), so that an interrupted run resumes: one CSV line
    key,value a prediction. Safe to use from several threads."""

    def __init__(self, path):
        self.path, self.values, self.lock = path, {}, threading.Lock()
        if os.path.exists(path):
            with open(path) as f:
                for key, value in csv.reader(f):
                    self.values[key] = float(value)

    def get(self, key, compute):
        """The value kept for key, or compute()'s, kept."""
        if key not in self.values:
            value = compute()
            with self.lock, open(self.path, 'a', newline='') as f:
                csv.writer(f).writerow([key, value])
                self.values[key] = value
        return self.values[key]

    def __getitem__(self, key):
        return self.values[key]


def cmd_predict(args):
    sim, measured, out = args[:3]
    opt = lambda name, default=None: args[args.index(name) + 1] if name in args else default
    params, jobs, date = opt('--params'), int(opt('--jobs', '2')), opt('--date', '')
    unseen = opt('--unseen')
    info = {s: (src, sp) for s, src, sp in shape_set.shape_set()}
    rows = merged(measured)
    unknown = sorted({r['shape'] for r in rows} - set(info))
    if unseen:  # shapes measured after the fits, outside the set: all held out
        info.update({s: (unseen, 'held_out') for s in unknown})
    elif unknown:
        raise script_main.BadInput(f'shapes not in shape_set.py: {", ".join(unknown)}')
    cache = PredictionCache(out + '.pred')

    def key_of(r):
        tma = '/tma' if r['epilogue'] == 'tma' else ''
        return f"{named(r)}/{r['tile_n']}/{r['stages']}/{params or ''}{tma}"

    def one(r):
        return cache.get(key_of(r), lambda: predict(
            sim, named(r), r['tile_n'], r['stages'], params=params,
            epilogue='tma' if r['epilogue'] == 'tma' else None))

    # Smallest problems first: an interrupted run has predicted every shape
    # below some size.
    def volume(r):
        m, n, k = (int(x) for x in r['shape'].split('x')[:3])
        return m * n * k
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, sorted(rows, key=volume)))
    preds = [cache[key_of(r)] for r in rows]
    with open(out, 'w', newline='') as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        for r, p in zip(rows, preds):
            src, sp = info[r['shape']]
            w.writerow({**{c: v for c, v in r.items() if c != 'epilogue'}, 'source': src, 'split': sp, 'measured_us': f"{r['measured_us']:.2f}",
                        'spread_pct': f"{r['spread_pct']:.1f}", 'sm_mhz': f"{r['sm_mhz']:.0f}",
                        'cublas_us': f"{r['cublas_us']:.2f}", 'predicted_us': f'{p:.2f}',
                        'date': date})
    cmd_summary([out])


def pick_of(cfgs):
    """The model's pick among [(predicted, measured, tile_n, stages, variant)]."""
    best_p = min(c[0] for c in cfgs)
    return max((c for c in cfgs if c[0] <= best_p * 1.005), key=lambda c: (c[3], c[2]))


def summarize(rows, split):
    """(rows, MAPE %, worst signed error %, shapes, worst pick gap %, picks within 5 %)."""
    sel = [r for r in rows if r['split'] == split]
    err = [100 * (float(r['predicted_us']) / float(r['measured_us']) - 1) for r in sel]
    by_shape = {}
    for r in sel:
        by_shape.setdefault(r['shape'], []).append(
            (float(r['predicted_us']), float(r['measured_us']), int(r['tile_n']), int(r['stages']),
             r.get('variant', '')))
    gaps = {}
    for shape, cfgs in by_shape.items():
        pick = pick_of(cfgs)
        gaps[shape] = (100 * (pick[1] / min(c[1] for c in cfgs) - 1), pick)
    worst = max(err, key=abs) if err else 0.0
    mape = sum(abs(e) for e in err) / len(err) if err else 0.0
    worst_gap = max(g for g, _ in gaps.values()) if gaps else 0.0
    within = sum(1 for g, _ in gaps.values() if g <= 5)
    return len(sel), mape, worst, len(gaps), worst_gap, within, gaps


def line(name, s):
    n, mape, worst, shapes, worst_gap, within, _ = s
    return (f'{name}: {n} rows, MAPE {mape:.1f} %, worst {worst:+.1f} %; '
            f'{shapes} shapes, pick within 5 % of the best on {within}, worst pick {worst_gap:.1f} %')


def cmd_summary(args):
    with open(args[0]) as f:
        rows = list(csv.DictReader(f))
    if '--shapes' in args:
        s = summarize(rows, 'held_out')
        print('held-out shape          pick           gap    MAPE of its rows')
        for shape, (gap, pick) in sorted(s[6].items(), key=lambda kv: -kv[1][0]):
            e = [abs(float(r['predicted_us']) / float(r['measured_us']) - 1) * 100
                 for r in rows if r['shape'] == shape]
            variant = f' {pick[4]}' if pick[4] else ''
            print(f'{shape:22} 128x{pick[2]} s{pick[3]}{variant}  {gap:5.1f} %  {sum(e) / len(e):5.1f} %')
    for source in ('random', 'llm'):
        sub = [r for r in rows if r['source'].startswith(source)]
        print(line(f'{source} held-out', summarize(sub, 'held_out')))
    for source in sorted({r['source'] for r in rows if not r['source'].startswith(('random', 'llm'))}):
        sub = [r for r in rows if r['source'] == source]
        print(line(f'{source} held-out', summarize(sub, 'held_out')))
    if any(r['split'] == 'calibration' for r in rows):
        print(line('calibration', summarize(rows, 'calibration')))
    both = [dict(r, split='all') for r in rows]
    print(line('all shapes', summarize(both, 'all')))
    print(line('held-out', summarize(rows, 'held_out')))
    # With both SM90 schedules (variants with and without "pp"): each alone
    # over all shapes, the picks above being among both.
    def schedule(r):
        return 'pingpong' if 'pp' in r.get('variant', '').split('_') else 'cooperative'
    schedules = {schedule(r) for r in rows}
    if len(schedules) > 1:
        for name in sorted(schedules):
            print(line(f'{name} rows, all shapes', summarize([r for r in both if schedule(r) == name], 'all')))


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ('predict', 'summary'):
        raise script_main.Usage(__doc__)
    if sys.argv[1] == 'predict':
        if len(sys.argv) < 5:
            raise script_main.Usage(__doc__)
        cmd_predict(sys.argv[2:])
    else:
        if len(sys.argv) < 3:
            raise script_main.Usage(__doc__)
        cmd_summary(sys.argv[2:])


if __name__ == '__main__':
    script_main.run('shape_report.py', main)
