#!/usr/bin/env python3
"""tile_group_report.py: the SM90 model against a measurement of the tile order.

    python3 hw/h200/tile_group_report.py predict <sim> <measured.csv> <out.csv> [--jobs N]
            [--params FILE]
    python3 hw/h200/tile_group_report.py summary <out.csv> [--shapes]

`predict` reads a run_tile_group.sh CSV (a comment line naming the board,
then round,shape,tile_n,stages,ours_us,...; the shape ends in _gG for tile
group G > 1), merges each configuration's rounds into medians
(shape_report.merged), runs `sim run --kernel matmul --arch sm90
--tile-group G` in timing mode for each at the model's own power-limited
clocks (nothing pinned, nothing fitted here; with --params FILE another
board's parameter file; rows of the TMA-store epilogue, whose shape
run_tile_group.sh names with an "_et" suffix when BENCH_ARGS has
--tma-epilogue, are simulated with --epilogue tma; predictions are kept in
out.csv.pred as they come, so an interrupted run resumes) and writes

    shape,tile_group,tile_n,stages,rounds,measured_us,spread_pct,sm_mhz,predicted_us

`summary` needs only out.csv. Its lines, which docs/hardware.md quotes
verbatim (tests/hw:tile_group_report_test re-derives them):
  - the MAPE over every row and per tile group;
  - the tile order's effect, per configuration (tile, stages) measured under
    both groups: the measured and predicted ratio (G over 1), how far apart
    they are (mean absolute difference in points), and on how many of the
    configurations whose measured ratio is outside +-2 % the model gives the
    same sign;
  - per shape, the model's pick over tile x stages x group against the
    measured best of all of them, and the same with the model choosing among
    tile group 1 only (what the order option buys when the model picks).
With --shapes, one line per shape as well.
"""
import concurrent.futures
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shape_report import PredictionCache, merged  # noqa: E402
from sweep_report import predict  # noqa: E402

COLUMNS = ['shape', 'tile_group', 'tile_n', 'stages', 'rounds', 'measured_us', 'spread_pct',
           'sm_mhz', 'predicted_us']


def split_group(name):
    """'4096x4096x4096_g8' -> ('4096x4096x4096', 8)."""
    base, _, g = name.partition('_g')
    return base, int(g) if g else 1


def cmd_predict(args):
    sim, measured, out = args[:3]
    jobs = int(args[args.index('--jobs') + 1]) if '--jobs' in args else 2
    params = args[args.index('--params') + 1] if '--params' in args else None
    rows = merged(measured)
    cache = PredictionCache(out + '.pred')

    def key_of(r):
        tma = '/tma' if r['epilogue'] == 'tma' else ''
        return f"{r['shape']}/{r['tile_n']}/{r['stages']}{tma}"

    def one(r):
        epilogue = 'tma' if r['epilogue'] == 'tma' else None
        cache.get(key_of(r), lambda: predict(sim, r['shape'], r['tile_n'], r['stages'], params=params,
                                             epilogue=epilogue))

    def volume(r):
        m, n, k = (int(x) for x in split_group(r['shape'])[0].split('x'))
        return m * n * k
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, sorted(rows, key=volume)))
    with open(out, 'w', newline='') as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        for r in rows:
            base, g = split_group(r['shape'])
            w.writerow({'shape': base, 'tile_group': g, 'tile_n': r['tile_n'], 'stages': r['stages'],
                        'rounds': r['rounds'], 'measured_us': f"{r['measured_us']:.2f}",
                        'spread_pct': f"{r['spread_pct']:.1f}", 'sm_mhz': f"{r['sm_mhz']:.0f}",
                        'predicted_us': f"{cache[key_of(r)]:.2f}"})
    cmd_summary([out])


def pick(cfgs):
    """The model's pick among {(tile_n, stages, group): (predicted, measured)}:
    its fastest; ties within 0.5 % go to more stages, then to group 1."""
    best = min(p for p, _ in cfgs.values())
    near = [k for k, (p, _) in cfgs.items() if p <= best * 1.005]
    return max(near, key=lambda k: (k[1], k[0], -k[2]))


def summary_lines(path, per_shape=False):
    with open(path) as f:
        rows = list(csv.DictReader(f))
    name = os.path.basename(path).rsplit('.', 1)[0]
    err = lambda r: 100 * (float(r['predicted_us']) / float(r['measured_us']) - 1)
    mape = lambda rs: sum(abs(err(r)) for r in rs) / len(rs)
    groups = sorted({int(r['tile_group']) for r in rows})
    lines = [f"{name}: {len(rows)} rows, MAPE {mape(rows):.1f} %; " + ', '.join(
        f"G = {g}: {mape([r for r in rows if int(r['tile_group']) == g]):.1f} %" for g in groups)]
    cfg = {}
    for r in rows:
        cfg[(r['shape'], int(r['tile_n']), int(r['stages']), int(r['tile_group']))] = (
            float(r['predicted_us']), float(r['measured_us']))
    for g in groups[1:]:
        pairs = [(cfg[(s, t, st, g)], cfg[(s, t, st, 1)]) for (s, t, st, gg) in cfg
                 if gg == g and (s, t, st, 1) in cfg]
        meas = [a[1] / b[1] for a, b in pairs]
        pred = [a[0] / b[0] for a, b in pairs]
        gap = sum(abs(p - m) for p, m in zip(pred, meas)) / len(pairs) * 100
        moved = [(p, m) for p, m in zip(pred, meas) if abs(m - 1) > 0.02]
        same = sum(1 for p, m in moved if (p - 1) * (m - 1) > 0)
        lines.append(f"{name}: G = {g} over G = 1, {len(pairs)} configurations: measured median "
                     f"{statistics.median(meas):.3f} ({min(meas):.3f}-{max(meas):.3f}), predicted median "
                     f"{statistics.median(pred):.3f} ({min(pred):.3f}-{max(pred):.3f}), mean difference "
                     f"{gap:.1f} points; the sign right on {same} of the {len(moved)} that moved by more "
                     f"than 2 %")
    shapes = {}
    for (s, t, st, g), v in cfg.items():
        shapes.setdefault(s, {})[(t, st, g)] = v
    gaps_all, gaps_one, detail = [], [], []
    for s, c in shapes.items():
        best = min(m for _, m in c.values())
        k = pick(c)
        k1 = pick({kk: v for kk, v in c.items() if kk[2] == 1})
        gaps_all.append(100 * (c[k][1] / best - 1))
        gaps_one.append(100 * (c[k1][1] / best - 1))
        bk = min(c, key=lambda kk: c[kk][1])
        detail.append(f"  {s}: best {bk[0]} s{bk[1]} G{bk[2]} {best:.1f} us; pick {k[0]} s{k[1]} "
                      f"G{k[2]} +{gaps_all[-1]:.1f} %; among G = 1 {k1[0]} s{k1[1]} +{gaps_one[-1]:.1f} %")
    within = lambda gs, x: sum(1 for v in gs if v <= x)
    lines.append(f"{name}: picks over tile x stages x group, {len(shapes)} shapes: within 5 % of the "
                 f"best on {within(gaps_all, 5)}, within 3 % on {within(gaps_all, 3)}, worst "
                 f"{max(gaps_all):.1f} %, median {statistics.median(gaps_all):.1f} %; among G = 1 only: "
                 f"within 5 % on {within(gaps_one, 5)}, within 3 % on {within(gaps_one, 3)}, worst "
                 f"{max(gaps_one):.1f} %, median {statistics.median(gaps_one):.1f} %")
    return lines + (sorted(detail) if per_shape else [])


def cmd_summary(args):
    for line in summary_lines(args[0], '--shapes' in args):
        print(line)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ('predict', 'summary'):
        raise SystemExit(__doc__)
    (cmd_predict if sys.argv[1] == 'predict' else cmd_summary)(sys.argv[2:])


if __name__ == '__main__':
    main()
