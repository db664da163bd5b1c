#!/usr/bin/env python3
"""fit_power.py: fit the SM90 model's tensor-phase clock cap and energies
(models/sm100/power.h) to the main-loop clocks of per-CTA timelines.

    python3 hw/h200/fit_power.py <sim binary> <timeline summary.csv>@<board> [--params FILE]

The summary (docs/results/h200_cta_timeline_summary_*.csv) gives, per
configuration, the event time, the main loop's clock (f_mainloop_ghz: clock64
over globaltimer from CTA entry to the end of the first tile's main loop) and
the clock after it (f_rest_ghz). Its calibration rows of the named board
(sweep_report.is_calibration) are simulated at those two clocks
(`sim run --sm-clock T,R`) for their cycles, tensor-phase cycles, HBM bytes and
CTAs. The model's tensor-phase clock for that activity is then fitted to the
measured main-loop clock (to the NVML clock of the timed runs, sm_mhz, for
launches over 1 ms: the stamped launches ran after them on a hotter board) by
Nelder-Mead on the mean absolute percentage error, over
tensor_phase_clock_ghz and the energies per FLOP, per TMA byte and per SM
cycle (the limit, static power, exponent and HBM energy come from the file).
Prints the values and each row's measured and modelled clock, held-out rows
of the board included as a check (they are never fitted on).
"""
import concurrent.futures
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep_report  # noqa: E402

PARAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'models', 'sm90',
                      'params.json')
FREE = ['tensor_phase_clock_ghz', 'energy_pj_per_flop', 'energy_pj_per_tma_byte',
        'energy_pj_per_sm_cycle']


def simulate(sim, r, params):
    m, n, k = r['shape'].split('x')
    cmd = [sim, 'run', '--kernel', 'matmul', '--arch', 'sm90', '--m', m, '--n', n, '--k', k,
           '--tile-n', r['tile_n'], '--stages', r['stages'], '--json', '-', '--params', params,
           '--sm-clock', f"{float(r['f_mainloop_ghz']):.4f},{float(r['f_rest_ghz']):.4f}"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f'fit_power: sim failed: {out.stderr.strip()}')
    j = json.loads(out.stdout)
    bn = int(r['tile_n'])
    mm, nn, kk = int(m), int(n), int(k)
    return {'flops': 2.0 * mm * nn * kk,
            'tma': float(-(-mm // 128) * -(-nn // bn) * -(-kk // 64) * (128 + bn) * 64 * 2),
            'hbm': float(j['utilization']['hbm_bytes']), 'cycles': j['cycles'],
            'tensor': j['sm_clocks']['tensor_phase_cycles'], 'sms': j['config']['ctas']}


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


def main():
    args = sys.argv[1:]
    params = PARAMS
    if '--params' in args:
        i = args.index('--params')
        params = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2 or '@' not in args[1]:
        raise SystemExit(__doc__)
    sim, measured = args
    doc = json.load(open(params))['params']
    f_max = doc['clock_ghz']['value']
    fixed = {k: doc[k]['value'] for k in ('power_limit_w', 'power_static_w', 'energy_clock_exponent',
                                          'energy_pj_per_hbm_byte')}
    rows = sweep_report.measured_rows(measured)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        acts = list(pool.map(lambda r: simulate(sim, r, params), rows))
    cal = [(r, a) for r, a in zip(rows, acts) if sweep_report.is_calibration(r)]

    def mape(v, pairs):
        return 100 * sum(abs(tensor_clock(v, fixed, a, f_max) - target(r)) / target(r)
                         for r, a in pairs) / len(pairs)

    def cost(x):
        if min(x) < 0:
            return 1e9
        return mape(dict(zip(FREE, x)), cal)
    x, _ = nelder_mead(cost, [max(doc[k]['value'], 1e-3) for k in FREE])
    x, _ = nelder_mead(cost, x)
    v = dict(zip(FREE, x))
    held = [(r, a) for r, a in zip(rows, acts) if not sweep_report.is_calibration(r)]
    print('  '.join(f'{k} {v[k]:.4g}' for k in FREE) +
          f'  (main-loop clock MAPE {mape(v, cal):.2f}% on {len(cal)} calibration rows'
          + (f', {mape(v, held):.2f}% on {len(held)} held-out rows' if held else '') + ')')
    for r, a in zip(rows, acts):
        print(f"  {'cal ' if sweep_report.is_calibration(r) else 'held'} {r['shape']:16} "
              f"128x{r['tile_n']}x64 s{r['stages']}  {r['ctas']:>3} CTAs  measured "
              f"{target(r) * 1000:5.0f} MHz  model {tensor_clock(v, fixed, a, f_max) * 1000:5.0f} MHz")


if __name__ == '__main__':
    main()
