#!/usr/bin/env python3
"""fit_power.py: fit the SM90 model's tensor-phase clock cap and energies
(models/sm100/power.h) to the main-loop clocks a board measured.

    python3 hw/h200/fit_power.py <sim binary> <measured> [--params FILE] [--out ACTIVITY.csv]
    python3 hw/h200/fit_power.py check <ACTIVITY.csv> [--params FILE]

<measured> is either a per-CTA timeline summary of one board,
PATH@BOARD (docs/results/h200_cta_timeline_summary_*.csv: per configuration
the event time, the main loop's clock f_mainloop_ghz, clock64 over
globaltimer from CTA entry to the end of the first tile's main loop, and the
clock after it, f_rest_ghz), or what hw/h200/run_phase_stamps.sh wrote
(gemm_bench --all --stamp-tiles: each configuration's line and its "clock"
row, the median over every tile of the main loop's clock and of the rest's).
Its calibration rows (sweep_report.is_calibration for a summary; the
calibration split of hw/h200/shape_set.py for stamps, the held-out shapes
being reported, never fitted) are simulated at those two clocks
(`sim run --sm-clock T,R`, as sweep_report.sim_command runs a measured row)
for their cycles, tensor-phase cycles, HBM bytes and CTAs. The model's
tensor-phase clock for that activity is then fitted to the measured main-loop
clock (to the clock of the timed runs, sm_mhz, for launches over 1 ms: the
stamped launches ran after them on a hotter board) by Nelder-Mead on the mean
absolute percentage error, over tensor_phase_clock_ghz and the energies per
FLOP, per TMA byte and per SM cycle (the limit, static power, exponent and
HBM energy come from the file). Prints the values and each row's measured and
modelled clock. --out writes each row's activity, measured clock and split;
`check` reads such a file and prints the clock error of a parameter file's
values on it without a simulator (tests/hw:fit_power_test re-derives the
figures docs/hardware.md quotes).
"""
import concurrent.futures
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phase_report  # noqa: E402
import shape_set  # noqa: E402
import sweep_report  # noqa: E402
import script_main  # noqa: E402

PARAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'models', 'sm90',
                      'params.json')
FREE = ['tensor_phase_clock_ghz', 'energy_pj_per_flop', 'energy_pj_per_tma_byte',
        'energy_pj_per_sm_cycle']


ACTIVITY = ['shape', 'epilogue', 'tile_n', 'stages', 'split', 'ours_us', 'target_ghz', 'flops',
            'tma', 'hbm', 'cycles', 'tensor', 'sms']


def simulate(sim, r, params):
    """The activity of a measured row at its measured clocks."""
    name = r['shape']
    cmd = sweep_report.sim_command(
        sim, name, r['tile_n'], r['stages'], params=params, epilogue=r.get('epilogue') or None,
        sm_clock=f"{float(r['f_mainloop_ghz']):.4f},{float(r['f_rest_ghz']):.4f}")
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f'fit_power: sim failed: {out.stderr.strip()}')
    j = json.loads(out.stdout)
    bn = int(r['tile_n'])
    mm, nn, kk, batch = sweep_report.dims(name)
    return {'flops': 2.0 * mm * nn * kk * batch,
            'tma': float(-(-mm // 128) * -(-nn // bn) * -(-kk // 64) * (128 + bn) * 64 * 2 * batch),
            'hbm': float(j['utilization']['hbm_bytes']), 'cycles': j['cycles'],
            'tensor': j['sm_clocks']['tensor_phase_cycles'], 'sms': j['config']['ctas']}


def stamp_rows(path):
    """The stamped configurations of a run_phase_stamps.sh CSV (phase_report.parse):
    shape (gemm_bench's name less _et), epilogue, tile_n, stages, ours_us and
    sm_mhz (the timed launches), f_mainloop_ghz and f_rest_ghz (the stamped
    launch's clock row), split (shape_set.py's)."""
    split = shape_set.splits()
    rows = []
    for (label, tile_n, stages), c in phase_report.parse(path).items():
        _, main, rest = c['clock'][:3]  # tiles, main GHz, rest GHz (matmul_stamps.cuh)
        if float(main) <= 0:
            continue
        shape, tma = sweep_report.without_epilogue(label)
        rows.append({'shape': shape, 'epilogue': 'tma' if tma else 'regs', 'tile_n': tile_n,
                     'stages': stages, 'ours_us': c['event_us'], 'sm_mhz': c['sm_mhz'],
                     'f_mainloop_ghz': main, 'f_rest_ghz': rest,
                     'split': split.get(shape.split('_')[0], 'unknown')})
    return rows


def tensor_clock(v, fixed, a, f_max):
    """models/sm100/power.cc power_limited_clocks, the tensor phase."""
    t = min(a['tensor'], a['cycles'])
    pj = (v['energy_pj_per_flop'] * a['flops'] + v['energy_pj_per_tma_byte'] * a['tma'] +
          fixed['energy_pj_per_hbm_byte'] * a['hbm'] + v['energy_pj_per_sm_cycle'] * t * a['sms'])
    cap = min(v['tensor_phase_clock_ghz'], f_max)

    def draw(f):
        if t == 0:
            return fixed['power_static_w']
        return (fixed['power_static_w'] +
                1e-12 * pj * (f / f_max) ** fixed['energy_clock_exponent'] / (t / (f * 1e9)))
    if draw(cap) <= fixed['power_limit_w']:
        return cap
    lo, hi = 0.0, cap
    for _ in range(50):
        mid = (lo + hi) / 2
        if draw(mid) > fixed['power_limit_w']:
            hi = mid
        else:
            lo = mid
    return lo


def target(r):
    """The clock the tensor phase is fitted to (GHz)."""
    if 'target_ghz' in r:
        return float(r['target_ghz'])
    if float(r['ours_us']) > 1000:
        return float(r['sm_mhz']) / 1000
    return float(r['f_mainloop_ghz'])


def nelder_mead(f, x0, iters=800):
    n = len(x0)
    pts = [list(x0)] + [[x0[j] * (1.1 if j == i else 1) + (1e-3 if j == i else 0)
                         for j in range(n)] for i in range(n)]
    vals = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: vals[i])
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        xr = [2 * c[j] - pts[-1][j] for j in range(n)]
        fr = f(xr)
        if fr < vals[0]:
            xe = [3 * c[j] - 2 * pts[-1][j] for j in range(n)]
            fe = f(xe)
            pts[-1], vals[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = xr, fr
        else:
            xc = [(c[j] + pts[-1][j]) / 2 for j in range(n)]
            fc = f(xc)
            if fc < vals[-1]:
                pts[-1], vals[-1] = xc, fc
            else:
                pts = [pts[0]] + [[(pts[0][j] + p[j]) / 2 for j in range(n)] for p in pts[1:]]
                vals = [vals[0]] + [f(p) for p in pts[1:]]
    best = min(range(n + 1), key=lambda i: vals[i])
    return pts[best], vals[best]


def read_params(path):
    doc = json.load(open(path))['params']
    fixed = {k: doc[k]['value'] for k in ('power_limit_w', 'power_static_w', 'energy_clock_exponent',
                                          'energy_pj_per_hbm_byte')}
    return doc, doc['clock_ghz']['value'], fixed


def mape(v, fixed, f_max, pairs):
    return 100 * sum(abs(tensor_clock(v, fixed, a, f_max) - target(r)) / target(r)
                     for r, a in pairs) / len(pairs)


def report(v, fixed, f_max, cal, held):
    return (f'main-loop clock MAPE {mape(v, fixed, f_max, cal):.2f}% on {len(cal)} calibration rows'
            + (f', {mape(v, fixed, f_max, held):.2f}% on {len(held)} held-out rows' if held else ''))


def check(args, params):
    """The clock error of a parameter file's values on a committed activity
    CSV: one line over its calibration rows (and held-out ones, if any), then
    one for launches of fewer than 64 CTAs and one for more, with the median
    error (docs/hardware.md quotes them)."""
    doc, f_max, fixed = read_params(params)
    v = {k: doc[k]['value'] for k in FREE}
    with open(args[0]) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith('#')))
    pairs = [(r, {k: float(r[k]) for k in ('flops', 'tma', 'hbm', 'cycles', 'tensor', 'sms')})
             for r in rows]
    cal = [p for p in pairs if p[0]['split'] == 'calibration']
    held = [p for p in pairs if p[0]['split'] != 'calibration']
    name = f'{os.path.basename(args[0])} with {os.path.basename(params)}'
    print(f'{name}: {report(v, fixed, f_max, cal, held)}')
    for label, part in (('under 64 CTAs', [p for p in pairs if p[1]['sms'] < 64]),
                        ('64 CTAs or more', [p for p in pairs if p[1]['sms'] >= 64])):
        if not part:
            continue
        err = sorted(tensor_clock(v, fixed, a, f_max) / target(r) - 1 for r, a in part)
        print(f'{name}, {label}: {len(part)} rows, measured median '
              f'{sorted(target(r) for r, _ in part)[len(part) // 2] * 1000:.0f} MHz, model clock '
              f'MAPE {mape(v, fixed, f_max, part):.2f}%, median error '
              f'{100 * err[len(err) // 2]:+.1f}%')


def main():
    args = sys.argv[1:]
    opt = {}
    for name in ('--params', '--out'):
        if name in args:
            i = args.index(name)
            opt[name] = args[i + 1]
            del args[i:i + 2]
    params = opt.get('--params', PARAMS)
    if len(args) == 2 and args[0] == 'check':
        return check(args[1:], params)
    if len(args) != 2:
        raise script_main.Usage(__doc__)
    sim, measured = args
    doc, f_max, fixed = read_params(params)
    if '@' in measured:
        rows = sweep_report.measured_rows(measured)
        for r in rows:
            r['split'] = 'calibration' if sweep_report.is_calibration(r) else 'held_out'
    else:
        rows = stamp_rows(measured)
    if not rows:
        raise script_main.BadInput(f'no measured rows in {measured}')
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        acts = list(pool.map(lambda r: simulate(sim, r, params), rows))
    cal = [(r, a) for r, a in zip(rows, acts) if r['split'] == 'calibration']
    held = [(r, a) for r, a in zip(rows, acts) if r['split'] != 'calibration']

    def cost(x):
        if min(x) < 0:
            return 1e9
        return mape(dict(zip(FREE, x)), fixed, f_max, cal)
    x, _ = nelder_mead(cost, [max(doc[k]['value'], 1e-3) for k in FREE])
    x, _ = nelder_mead(cost, x)
    v = dict(zip(FREE, x))
    print('  '.join(f'{k} {v[k]:.4g}' for k in FREE) + f'  ({report(v, fixed, f_max, cal, held)})')
    for r, a in zip(rows, acts):
        print(f"  {'cal ' if r['split'] == 'calibration' else 'held'} {r['shape']:16} "
              f"128x{r['tile_n']}x64 s{r['stages']}  {a['sms']:>3} CTAs  measured "
              f"{target(r) * 1000:5.0f} MHz  model {tensor_clock(v, fixed, a, f_max) * 1000:5.0f} MHz")
    if '--out' in opt:
        with open(opt['--out'], 'w', newline='') as f:
            w = csv.DictWriter(f, ACTIVITY)
            w.writeheader()
            for r, a in zip(rows, acts):
                w.writerow({'shape': r['shape'], 'epilogue': r.get('epilogue', ''),
                            'tile_n': r['tile_n'], 'stages': r['stages'], 'split': r['split'],
                            'ours_us': r['ours_us'], 'target_ghz': f'{target(r):.4f}', **a})


if __name__ == '__main__':
    script_main.run('fit_power.py', main)
