#!/usr/bin/env python3
"""fit_sm90.py: choose SM90 model parameters on the calibration rows of the H200 sweep.

    python3 hw/h200/fit_sm90.py <sim binary> <measured.csv[,more.csv]> NAME=V1,V2,... [NAME=...]
        [--rounds R] [--shapes S1,S2,...] [--pin-clock]

Starts from models/sm90/params.json and, for each named parameter in turn
(coordinate descent, R rounds), runs `sim run --arch sm90 --params FILE` on
the calibration rows only (sweep_report.is_calibration: the calibration rows of
the sweep, and rows of shapes outside the sweep) for every candidate value
and keeps the value with the lowest mean absolute percentage error on them.
The held-out rows are never run here, so the fit cannot see them; judge the
result with sweep_report.py. --shapes fits on the calibration rows of those
shapes only (the 8192^3 row takes a minute a run; fit the bandwidth on it
alone). --pin-clock runs each row at the SM clocks measured with it (sim
--sm-clock: a timeline summary's main-loop and rest clocks, given as
SUMMARY.csv@BOARD, or gemm_bench's NVML clock sm_mhz for both phases), so that
the cycle model is fitted apart from the power-limited clocks. Prints each trial and, last, the chosen values.
"""
import concurrent.futures
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep_report  # noqa: E402
import script_main  # noqa: E402

PARAMS = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'models', 'sm90',
                      'params.json')


def calibration_error(sim, rows, values, base, pin=False):
    doc = json.loads(json.dumps(base))
    for k, v in values.items():
        doc['params'][k]['value'] = v
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        json.dump(doc, f)
        path = f.name
    try:
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            preds = list(pool.map(
                lambda r: sweep_report.predict(sim, r['shape'], r['tile_n'], r['stages'], path,
                                               sweep_report.pinned_clock(r) if pin else None),
                rows))
    finally:
        os.unlink(path)
    errs = [abs(p - float(r['ours_us'])) / float(r['ours_us']) for r, p in zip(rows, preds)]
    return 100 * sum(errs) / len(errs)


def main():
    args = list(sys.argv[1:])
    rounds = 1
    if '--rounds' in args:
        i = args.index('--rounds')
        rounds = int(args[i + 1])
        del args[i:i + 2]
    pin = '--pin-clock' in args
    if pin:
        args.remove('--pin-clock')
    shapes = None
    if '--shapes' in args:
        i = args.index('--shapes')
        shapes = args[i + 1].split(',')
        del args[i:i + 2]
    if len(args) < 3:
        raise script_main.Usage(__doc__)
    sim, measured = args[0], args[1]
    grid = {}
    for spec in args[2:]:
        name, vals = spec.split('=', 1)
        grid[name] = [float(v) for v in vals.split(',')]
    base = json.load(open(PARAMS))
    for name in grid:
        if name not in base['params']:
            raise script_main.BadInput(f'no parameter {name} in {PARAMS}')
    rows = sweep_report.calibration_rows(measured, shapes)
    chosen = {k: base['params'][k]['value'] for k in grid}
    best = calibration_error(sim, rows, chosen, base, pin)
    print(f'start {chosen}: calibration MAPE {best:.2f}% on {len(rows)} rows', flush=True)
    for _ in range(rounds):
        for name, cands in grid.items():
            for v in cands:
                trial = dict(chosen, **{name: v})
                e = calibration_error(sim, rows, trial, base, pin)
                print(f'  {name}={v:g}: {e:.2f}%', flush=True)
                if e < best - 1e-9:
                    best, chosen = e, trial
    print(f'chosen {chosen}: calibration MAPE {best:.2f}%')


if __name__ == '__main__':
    script_main.run('fit_sm90.py', main)
