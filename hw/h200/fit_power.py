#!/usr/bin/env python3
"""fit_power.py: fit the SM90 model's energies (models/sm90/power.h) on the
calibration rows of the H200 sweep.

    python3 hw/h200/fit_power.py <sim binary> <measured.csv[,more.csv]> [--params FILE]

For every calibration row (sweep_report.is_calibration) whose measured SM clock
(the sm_mhz column) is more than 3 % below the maximum (the 512^3 rows, a few
microseconds each between idle gaps, read 1928-1980 MHz), the board was at
its power limit,
so the kernel's dynamic energy at that clock equals (limit - static) x its run
time. The row is simulated at its measured clock (`sim run --sm-clock`) for
its cycles, HBM bytes and CTAs; scaled to the maximum clock by
(f_max / f)^energy_clock_exponent this gives one linear equation in the
energies per FLOP, per byte TMA brings into shared memory and per SM cycle
(the energy per HBM byte is taken from the parameter file: the calibration
rows move too little HBM data to fit it).
Weighted least squares (relative error per row) over those equations; prints
the two energies in pJ and each row's clock as the fitted model predicts it
from the simulated cycles.
Rows at the maximum clock are only checked (the model must keep them there).
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


def simulate(sim, r, params):
    m, n, k = r['shape'].split('x')
    cmd = [sim, 'run', '--kernel', 'matmul', '--arch', 'sm90', '--m', m, '--n', n, '--k', k,
           '--tile-n', r['tile_n'], '--stages', r['stages'], '--json', '-',
           '--sm-clock', f"{float(r['sm_mhz']) / 1000:.4f}", '--params', params]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f'fit_power: sim failed: {out.stderr.strip()}')
    j = json.loads(out.stdout)
    return j['cycles'], j['utilization']['hbm_bytes'], j['config']['ctas']


def solve(a, b):
    """Gaussian elimination with partial pivoting for a small dense system."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda i: abs(m[i][c]))
        m[c], m[p] = m[p], m[c]
        for i in range(n):
            if i != c:
                t = m[i][c] / m[c][c]
                m[i] = [x - t * y for x, y in zip(m[i], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def clock(e, feats, cycles, p, f_max):
    """The model's power-limited clock (GHz) for a launch of these features."""
    def draw(f):
        joules = sum(x * y for x, y in zip(e, feats)) * 1e-12 * (f / f_max) ** p['exp']
        return p['static'] + joules / (cycles / (f * 1e9) + p['gap'] * 1e-6)
    if draw(f_max) <= p['limit']:
        return f_max
    lo, hi = 0.0, f_max
    for _ in range(60):
        mid = (lo + hi) / 2
        if draw(mid) > p['limit']:
            hi = mid
        else:
            lo = mid
    return lo


def fit(rows, sims, p, f_max, e_hbm):
    """Least squares for the energies per FLOP, TMA byte and SM cycle, with
    p['gap'] idle microseconds between launches in the power average."""
    eqs = []
    for r, (cycles, hbm, ctas) in zip(rows, sims):
        m, n, k = map(int, r['shape'].split('x'))
        bn = int(r['tile_n'])
        tma = -(-m // 128) * -(-n // bn) * -(-k // 64) * (128 + bn) * 64 * 2
        feats = [2.0 * m * n * k, float(tma), float(cycles) * ctas, float(hbm)]
        f = float(r['sm_mhz']) / 1000
        capped = f < 0.97 * f_max
        # Dynamic energy at the maximum clock, in pJ, less the HBM share.
        y = ((p['limit'] - p['static']) * (cycles / (f * 1e9) + p['gap'] * 1e-6)
             * (f_max / f) ** p['exp'] * 1e12 - e_hbm * hbm)
        eqs.append((r, feats, y, cycles, f, capped))
    a = [[0.0] * 3 for _ in range(3)]
    b = [0.0] * 3
    for _, x, y, _, _, capped in eqs:
        if not capped:
            continue
        w = 1 / y ** 2
        for i in range(3):
            b[i] += w * x[i] * y
            for j in range(3):
                a[i][j] += w * x[i] * x[j]
    return solve(a, b) + [e_hbm], eqs


def main():
    args = sys.argv[1:]
    params = PARAMS
    if '--params' in args:
        i = args.index('--params')
        params = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        raise SystemExit(__doc__)
    sim, measured = args
    doc = json.load(open(params))['params']
    f_max = doc['clock_ghz']['value']
    p = {'limit': doc['power_limit_w']['value'], 'static': doc['power_static_w']['value'],
         'exp': doc['energy_clock_exponent']['value']}
    e_hbm = doc['energy_pj_per_hbm_byte']['value']
    rows = sweep_report.calibration_rows(measured)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        sims = list(pool.map(lambda r: simulate(sim, r, params), rows))
    best = None
    for gap in [g / 2 for g in range(0, 41)]:  # idle microseconds between launches
        p['gap'] = gap
        e, eqs = fit(rows, sims, p, f_max, e_hbm)
        errs = [abs(clock(e, x, c, p, f_max) - f) / f for _, x, _, c, f, capped in eqs if capped]
        mape = 100 * sum(errs) / len(errs)
        if best is None or mape < best[0]:
            best = (mape, gap, e, eqs)
    mape, p['gap'], e, eqs = best
    print(f'power_launch_gap_us {p["gap"]:g}  energy_pj_per_flop {e[0]:.4f}  energy_pj_per_tma_byte '
          f'{e[1]:.2f}  energy_pj_per_sm_cycle {e[2]:.0f}  (energy_pj_per_hbm_byte {e_hbm:g} from '
          f'the file; {sum(c[5] for c in eqs)} rows at the limit, clock MAPE {mape:.2f}%)')
    for r, x, _, cycles, f, capped in eqs:
        g = clock(e, x, cycles, p, f_max)
        print(f"  {r['shape']:16} 128x{r['tile_n']}x64 s{r['stages']}  measured {f * 1000:5.0f} MHz"
              f"  model {g * 1000:5.0f} MHz{'' if capped else '  (at the maximum clock)'}")

if __name__ == '__main__':
    main()
