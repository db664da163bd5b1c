#!/usr/bin/env python3
"""sweep_report.py: measured H200 sweep against the SM90 model's predictions.

    python3 hw/h200/sweep_report.py <sim binary> <measured.csv> <out.csv> [--date YYYY-MM-DD]

measured.csv is gemm_bench's CSV (shape,tile_n,stages,ours_us,...); a
configuration measured more than once (run_sweep.sh runs the sweep in rounds)
counts with the median of its times and of its clocks. For every
configuration the model is run in timing mode (`sim run --kernel matmul --arch sm90 ...
--input-sets S --json -`, two at a time; S is the number of input sets gemm_bench
rotates over for that shape, so the launch finds in L2 what the bench's finds). Writes out.csv with columns
config,split,measured_us,predicted_us,date, where split is "calibration" for
the rows models/sm90/params.json was calibrated on and "held_out" for the rest,
then prints the MAPE of the held-out rows and, per shape, the predicted-best
configuration against the measured best (ties in prediction, within 0.5%, go
to the configuration with more stages).
"""
import concurrent.futures
import csv
import json
import math
import statistics
import subprocess
import sys
import script_main

# Rows used to calibrate models/sm90/params.json (see its sources): the small
# shapes, and one deep-pipeline row of each tile on 8192^3 (the power-limited
# end of the range).
CALIBRATION = {('512x512x512', t, s) for t in ('128', '256') for s in ('2', '3', '4', '5', '6')}
CALIBRATION |= {('2048x2048x2048', t, s) for t in ('128', '256') for s in ('2', '3', '4', '5', '6')}
CALIBRATION |= {('8192x8192x8192', '128', '4'), ('8192x8192x8192', '256', '3')}
# The sweep's shapes. Measurements of other shapes (the K scan,
# docs/results/h200_kscan_2026-11-21.csv) are calibration data too; no
# held-out row's shape is among them.
SWEEP_SHAPES = {'512x512x512', '2048x2048x2048', '8192x8192x8192', '4096x1024x8192',
                '1024x8192x2048'}


def is_calibration(row):
    """Whether a measured row may be used to fit the model."""
    return ((row['shape'], row['tile_n'], row['stages']) in CALIBRATION
            or row['shape'] not in SWEEP_SHAPES)


def measured_rows(path):
    """The ok rows of a gemm_bench CSV, one per configuration, in first-seen
    order: repeated measurements of a configuration (rounds) are merged into
    their median time (ours_us) and median clock (sm_mhz). PATH@BOARD reads a
    per-CTA timeline summary (docs/results/h200_cta_timeline_summary_*.csv:
    a comment line, then one row per board and configuration) and keeps that
    board's rows."""
    board = None
    if '@' in path:
        path, board = path.rsplit('@', 1)
    lines = [line for line in open(path) if not line.startswith('#')]
    groups = {}
    for r in csv.DictReader(lines):
        # A summary row has no status: it was reduced from ok launches only.
        ok = r.get('board') == board if board is not None else r.get('status') == 'ok'
        if ok:
            groups.setdefault((r['shape'], r['tile_n'], r['stages']), []).append(r)
    rows = []
    for group in groups.values():
        row = dict(group[0])
        for col in ('ours_us', 'sm_mhz'):
            if all(g.get(col) for g in group):
                row[col] = str(statistics.median(float(g[col]) for g in group))
        row['runs'] = len(group)
        rows.append(row)
    return rows


def calibration_rows(paths, shapes=None):
    """The calibration rows of gemm_bench CSV files (comma-separated paths)."""
    rows = []
    for path in paths.split(','):
        rows += [r for r in measured_rows(path)
                 if is_calibration(r) and (shapes is None or r['shape'] in shapes)]
    return rows


def pinned_clock(row):
    """The --sm-clock argument that runs a measured row at its measured clocks:
    the main loop's and the rest's of a timeline summary row, else the NVML
    clock of the timed runs for both phases."""
    if row.get('f_mainloop_ghz'):
        return f"{float(row['f_mainloop_ghz']):.4f},{float(row['f_rest_ghz']):.4f}"
    return f"{float(row['sm_mhz']) / 1000:.4f}"


def bench_input_sets(m, n, k, batch=1, a_col=False, b_row=False):
    """The input sets gemm_bench rotates over for this problem (hw/h200/gemm_bench.cu:
    min(8, ceil(192 MB / the set's bytes)), rows padded to 8 elements)."""
    a_rows, a_len = (k, m) if a_col else (m, k)
    b_rows, b_len = (k, n) if b_row else (n, k)
    pad = lambda x: (x + 7) // 8 * 8
    set_bytes = 2.0 * (a_rows * pad(a_len) + b_rows * pad(b_len)) * batch
    return max(1, min(8, math.ceil(3 * 64e6 / set_bytes)))


def without_epilogue(label):
    """gemm_bench's label less its _et token (the TMA-store epilogue, anywhere
    after MxNxK), and whether it had one: ('4096x4096x4096_g4', True) for
    '4096x4096x4096_g4_et'."""
    dims, *tokens = label.split('_')
    return '_'.join([dims] + [t for t in tokens if t != 'et']), 'et' in tokens


def dims(shape):
    """M, N, K and the batch (1 where the name has none) of gemm_bench's name
    for a row (MxNxK or MxNxKxL, then its _-suffixes)."""
    m, n, k, *batch = (int(x) for x in shape.split('_')[0].split('x'))
    return m, n, k, (batch[0] if batch else 1)


def sim_command(sim, shape, tile_n, stages, params=None, sm_clock=None, epilogue=None,
                lone=False):
    """The `sim run ... --json -` command line that runs a measured row: shape is
    gemm_bench's name for it (below), sm_clock an --sm-clock argument (GHz, or
    T,R for the tensor phase and the rest; None: the power-limited clocks),
    epilogue 'regs' or 'tma' (None: the default). The launch is one of
    gemm_bench's rotation over its input sets (--input-sets,
    runner/kernels/input_sets.h), as every measured row is; lone=True runs a
    launch alone (an empty L2), as before 2026-12-04."""
    # MxNxK, MxNxKxL for a batch of L; _ca: A col-major, _rb: B row-major;
    # _gG: tile group G; _pp: the ping-pong schedule; _kS: the K split over S
    # CTAs, _kSt: of the last wave's tiles only; _mM: tile M (192, 256: the
    # consumers split along N).
    layouts = shape.split('_')[1:]
    m, n, k, batch = dims(shape)
    cmd = [sim, 'run', '--kernel', 'matmul', '--arch', 'sm90', '--m', str(m), '--n', str(n),
           '--k', str(k), '--tile-n', tile_n, '--stages', stages, '--json', '-']
    if not lone:
        sets = bench_input_sets(m, n, k, batch, 'ca' in layouts, 'rb' in layouts)
        cmd += ['--input-sets', str(sets)]
    if batch != 1:
        cmd += ['--batch', str(batch)]
    if 'ca' in layouts:
        cmd += ['--layout-a', 'col']
    if 'rb' in layouts:
        cmd += ['--layout-b', 'row']
    for g in (x for x in layouts if x.startswith('g')):
        cmd += ['--tile-group', g[1:]]
    if 'pp' in layouts:  # the ping-pong schedule (gemm_bench --pingpong)
        cmd += ["--pingpong"]
    for t in (x for x in layouts if x[:1] == 'm' and x[1:].isdigit()):  # gemm_bench --tile-m
        cmd += ['--tile-m', t[1:]]
    for s in (x for x in layouts if x[:1] == 'k' and x[1:].rstrip('t').isdigit()):  # _kS, _kSt
        cmd += ['--split-k', s[1:].rstrip('t')] + (['--split-tail'] if s.endswith('t') else [])
    if params:
        cmd += ['--params', params]
    if sm_clock:
        cmd += ['--sm-clock', sm_clock]
    if epilogue:
        cmd += ['--epilogue', epilogue]
    return cmd


def predict(sim, shape, tile_n, stages, params=None, sm_clock=None, epilogue=None, lone=False):
    """The model's time in us for a measured row (sim_command)."""
    cmd = sim_command(sim, shape, tile_n, stages, params, sm_clock, epilogue, lone)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if out.returncode != 0:
        raise SystemExit(f'sweep_report: sim failed for {shape} {tile_n} {stages}: {out.stderr.strip()}')
    return json.loads(out.stdout)['predicted_time_us']


def main():
    if len(sys.argv) < 4:
        raise script_main.Usage(__doc__)
    sim, measured, out = sys.argv[1:4]
    date = sys.argv[sys.argv.index('--date') + 1] if '--date' in sys.argv else ''
    rows = measured_rows(measured)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        preds = list(pool.map(lambda r: predict(sim, r['shape'], r['tile_n'], r['stages']), rows))
    held = []
    by_shape = {}
    with open(out, 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['config', 'split', 'measured_us', 'predicted_us', 'date'])
        for r, p in zip(rows, preds):
            key = (r['shape'], r['tile_n'], r['stages'])
            split = 'calibration' if key in CALIBRATION else 'held_out'
            meas = float(r['ours_us'])
            w.writerow([f"{r['shape']}_128x{r['tile_n']}x64_s{r['stages']}", split, f'{meas:.2f}',
                        f'{p:.2f}', date])
            if split == 'held_out':
                held.append(abs(p - meas) / meas)
            by_shape.setdefault(r['shape'], []).append((p, int(r['stages']), r['tile_n'], meas))
    print(f'held-out rows: {len(held)}, MAPE {100 * sum(held) / len(held):.1f}%')
    print('shape            predicted best        its measured   measured best   gap')
    for shape, cfgs in by_shape.items():
        best_p = min(c[0] for c in cfgs)
        pick = max((c for c in cfgs if c[0] <= best_p * 1.005), key=lambda c: (c[1], c[2]))
        best_m = min(c[3] for c in cfgs)
        print(f'{shape:16} 128x{pick[2]}x64 s{pick[1]:<6} {pick[3]:10.2f} {best_m:14.2f} '
              f'{100 * (pick[3] - best_m) / best_m:6.1f}%')


if __name__ == '__main__':
    script_main.run('sweep_report.py', main)
