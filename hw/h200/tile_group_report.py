#!/usr/bin/env python3
"""tile_group_report.py: the SM90 model against a measurement of the tile order.

    python3 hw/h200/tile_group_report.py predict <sim> <measured.csv> <out.csv> [--jobs N]
            [--params FILE]
    python3 hw/h200/tile_group_report.py summary <out.csv> [--shapes]
    python3 hw/h200/tile_group_report.py auto <measured.csv> [--shapes]

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

`auto` reads a run_tile_group.sh CSV itself (groups 1 and 4 at least) and
judges the kernel's --tile-group auto (auto_group, the kernel's rule): per
shape the best configuration under the rule's group against the best under
group 1, the best of every group measured and cuBLAS in the same runs; its
line is quoted in docs/hardware.md as well.
"""
import concurrent.futures
import csv
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from shape_report import PredictionCache, merged, named  # noqa: E402
from sweep_report import predict  # noqa: E402
import script_main  # noqa: E402

COLUMNS = ['shape', 'tile_group', 'tile_n', 'stages', 'rounds', 'measured_us', 'spread_pct',
           'sm_mhz', 'predicted_us']


def split_group(name):
    """'4096x4096x4096_g8' -> ('4096x4096x4096', 8)."""
    base, _, g = name.partition('_g')
    return base, int(g) if g else 1


def merged_named(path):
    """shape_report.merged's rows, each shape named with its variant as
    gemm_bench names it ('..._g4'), which split_group reads."""
    return [dict(r, shape=named(r)) for r in merged(path)]


def cmd_predict(args):
    sim, measured, out = args[:3]
    jobs = int(args[args.index('--jobs') + 1]) if '--jobs' in args else 2
    params = args[args.index('--params') + 1] if '--params' in args else None
    rows = merged_named(measured)
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


def auto_group(m, k, sms=132):
    """The kernel's --tile-group auto (sm90_auto_tile_group in
    kernels/matmul/sm90_matmul.h, mirrored here): 4 where one wave of `sms`
    tiles walked along M spans under three tile columns and K >= 768."""
    return 4 if 3 * -(-m // 128) >= sms and k >= 768 else 1


def auto_lines(path, per_shape=False):
    """The automatic tile order on a run_tile_group.sh CSV measured with
    groups 1 and 4 (and others): per shape, the best configuration (tile,
    stages) under the rule's group against the best under group 1 and the
    best of every group measured, and against cuBLAS in the same runs."""
    rows = merged_named(path)
    name = os.path.basename(path).rsplit('.', 1)[0]
    best, cublas = {}, {}
    for r in rows:
        base, g = split_group(r['shape'])
        key = (base, g)
        best[key] = min(best.get(key, float('inf')), r['measured_us'])
        cublas.setdefault(base, []).append(r['cublas_us'])
    shapes = sorted({b for b, _ in best}, key=lambda s: [int(x) for x in s.split('x')])
    over_one, over_best, detail = [], [], []
    at = {'1': [0, 0], 'auto': [0, 0]}
    grouped = 0
    for s in shapes:
        m, _, k = (int(x) for x in s.split('x'))
        g = auto_group(m, k)
        grouped += g != 1
        mine, one = best[(s, g)], best[(s, 1)]
        top = min(v for (b, _), v in best.items() if b == s)
        c = statistics.median(cublas[s])
        over_one.append(100 * (mine / one - 1))
        over_best.append(100 * (mine / top - 1))
        for label, t in (('1', one), ('auto', mine)):
            at[label][0] += c / t >= 0.95
            at[label][1] += c / t >= 1.0
        detail.append(f"  {s}: auto G{g} {mine:.1f} us, G1 {one:.1f}, best {top:.1f}; "
                      f"cuBLAS {c:.1f} ({c / one:.3f}x -> {c / mine:.3f}x)")
    faster = [v for v in over_one if v < -2]
    lines = [f"{name}: --tile-group auto on {len(shapes)} shapes (bands of 4 on {grouped}): against "
             f"G = 1 faster by more than 2 % on {len(faster)} (median {statistics.median(faster) if faster else 0:.1f} %, "
             f"best {min(over_one):.1f} %), slower by more than 2 % on "
             f"{sum(1 for v in over_one if v > 2)} (worst {max(over_one):+.1f} %); against the best "
             f"of every group measured median {statistics.median(over_best):+.1f} %, worst "
             f"{max(over_best):+.1f} %; at 0.95x cuBLAS or better {at['1'][0]} -> {at['auto'][0]}, "
             f"at 1.0x {at['1'][1]} -> {at['auto'][1]}"]
    return lines + (detail if per_shape else [])


def cmd_auto(args):
    for line in auto_lines(args[0], '--shapes' in args):
        print(line)


def main():
    commands = {'predict': cmd_predict, 'summary': cmd_summary, 'auto': cmd_auto}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        raise script_main.Usage(__doc__)
    commands[sys.argv[1]](sys.argv[2:])


if __name__ == '__main__':
    script_main.run('tile_group_report.py', main)
