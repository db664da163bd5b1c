#!/usr/bin/env python3
"""phase_report.py: a tile's phases on the GPU against the SM90 model's.

    python3 hw/h200/phase_report.py predict <sim> <phase_stamps.csv> <out.csv>
            [--params FILE] [--jobs N]
    python3 hw/h200/phase_report.py summary <out.csv>

Reads what hw/h200/run_phase_stamps.sh wrote (gemm_bench --all --stamp-tiles:
each configuration's line, then its matmul_tile_stamps section with the rows
"median", "all" and "clock"), runs `sim run --kernel matmul --arch sm90
--stamp-tiles` for each configuration pinned at the clocks its phases ran at
on the GPU (--sm-clock MAIN,REST from the "clock" row; the configuration as
sweep_report.sim_command runs a measured row: the TMA-store epilogue of an
_et label, its variants, gemm_bench's input sets), and writes one row
per configuration:

    shape,tile_n,stages,tiles,event_us,span_us,overhead_us,main_ghz,rest_ghz,
    gpu_first_wait,gpu_mainloop,gpu_epilogue,gpu_to_next,
    sim_first_wait,sim_mainloop,sim_epilogue,sim_to_next,sim_kernel_us,sim_event_us,
    gpu_spread_ns,sim_spread_ns

The phases are SM cycles, medians over every tile (first_wait, mainloop,
epilogue: the "all" rows) or over the tiles that have a next one (to_next).
span_us is the GPU's first tile start to its last tile's stores issued
(%globaltimer), overhead_us the event time less it; sim_kernel_us is the
model's predicted time less its launch overhead, sim_event_us the predicted
time; gpu_spread_ns and sim_spread_ns how far apart the CTAs' main loops end at
their 4th tile (10th to 90th percentile; the model's cycles at the main loop's
clock), where every CTA has one. Predictions are cached in out.csv.pred
(resumable). `summary` (also
printed after `predict`) needs only out.csv: per tile width, for launches of
fewer than 128 tiles and of 128 or more, the median over the configurations
of the model's phase over the GPU's (so that the model's error can be put on
the phase that carries it) and the error of the model's time against the
event time, then (CSVs with the spread columns) a line of the median CTAs'
spread on the GPU and in the model; docs/hardware.md quotes these lines and tests/hw:phase_report_test
re-derives them from the committed CSVs.
"""
import concurrent.futures
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep_report  # noqa: E402
import script_main  # noqa: E402

COLUMNS = ['shape', 'tile_n', 'stages', 'tiles', 'event_us', 'span_us', 'overhead_us', 'main_ghz',
           'rest_ghz', 'gpu_first_wait', 'gpu_mainloop', 'gpu_epilogue', 'gpu_to_next',
           'sim_first_wait', 'sim_mainloop', 'sim_epilogue', 'sim_to_next', 'sim_kernel_us',
           'sim_event_us', 'gpu_spread_ns', 'sim_spread_ns']
# The CTAs' spread is read at their (SPREAD_TILE + 1)-th tile: the 10th to the
# 90th percentile CTA's main-loop end, where every CTA of the first tile has one.
SPREAD_TILE = 3


def spread_at(rows):
    """p90 - p10 at SPREAD_TILE from {t: (p10, p90, ctas)}, or None."""
    if SPREAD_TILE not in rows or 0 not in rows or rows[SPREAD_TILE][2] != rows[0][2]:
        return None
    return rows[SPREAD_TILE][1] - rows[SPREAD_TILE][0]


def parse(path):
    """{(shape, tile_n, stages): {...}} from gemm_bench's lines (event_us and
    sm_mhz, the timed launches') and sections (the rows median, all and clock,
    their fields from the tile count on; spread)."""
    cfgs = {}
    with open(path) as f:
        for line in f:
            p = line.strip().split(',')
            if not p or p[0].startswith('#') or p[0] in ('section', 'config', 'shape'):
                continue
            if len(p) == 11 and p[8] == 'ok':
                c = cfgs.setdefault((p[0], p[1], p[2]), {})
                c['event_us'], c['sm_mhz'] = float(p[3]), float(p[9])
            elif len(p) == 12 and p[4] in ('median', 'all', 'clock'):
                # label (shape,tile_n,stages,epilogue),row,-,tiles,phases...
                c = cfgs.setdefault((p[0], p[1], p[2]), {})
                c[p[4]] = p[6:]
            elif len(p) == 12 and p[4] == 'spread':
                # label,spread,-,tile,p10,p50,p90 (ns after the first tile start),epilogue,ctas
                c = cfgs.setdefault((p[0], p[1], p[2]), {})
                c.setdefault('spread', {})[int(p[6])] = (float(p[7]), float(p[9]), int(p[11]))
    return {k: v for k, v in cfgs.items() if 'event_us' in v and 'clock' in v and 'all' in v}


def simulate(sim, shape, tile_n, stages, main_ghz, rest_ghz, params):
    # shape is gemm_bench's label: _et (the TMA-store epilogue) and the
    # variants sweep_report.sim_command reads (_gG, _pp) after MxNxK.
    name, tma = sweep_report.without_epilogue(shape)
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, 'run.json')
        cmd = sweep_report.sim_command(sim, name, tile_n, stages, params=params,
                                       sm_clock=f'{main_ghz:.3f},{rest_ghz:.3f}',
                                       epilogue='tma' if tma else None)
        cmd[cmd.index('-')] = out  # --json FILE: the stamps' lines go to stdout
        cmd += ['--stamp-tiles']
        subprocess.run(cmd, check=True, capture_output=True)
        with open(out) as f:
            j = json.load(f)
    # (a model from before all_tiles gives its event time only)
    whole, med = j['stamps'].get('all_tiles', {}), j['stamps'].get('tile_medians', {})
    # The model's spread rows are in SM cycles; at the main loop's clock, in ns.
    spread = spread_at({t['tile']: (t['p10'], t['p90'], t['ctas'])
                        for t in j['stamps'].get('tile_spread', [])})
    return {'sim_first_wait': whole.get('first_wait', ''), 'sim_mainloop': whole.get('mainloop', ''),
            'sim_epilogue': whole.get('epilogue', ''),
            'sim_to_next': med['to_next'] if med.get('tiles') else '',
            'sim_event_us': j['predicted_time_us'],
            'sim_spread_ns': '' if spread is None else f'{spread / main_ghz:.0f}'}


def predict(argv):
    if len(argv) < 3:
        raise script_main.Usage(__doc__)
    sim, stamps, out = argv[:3]
    opt = lambda name, default=None: argv[argv.index(name) + 1] if name in argv else default
    params, jobs = opt('--params'), int(opt('--jobs', '2'))
    with open(params or os.path.join(os.path.dirname(__file__), '../../models/sm90/params.json')) as f:
        p = json.load(f)['params']
    overhead_us = p['launch_overhead_cycles']['value'] / (1e3 * p['clock_ghz']['value'])
    cfgs = parse(stamps)
    cache_path, cache, lock = out + '.pred', {}, threading.Lock()
    if os.path.exists(cache_path):
        with open(cache_path) as f:
            for line in f:
                key, value = line.rstrip('\n').split('\t')
                cache[key] = json.loads(value)

    def one(key):
        c = cfgs[key]
        main_ghz, rest_ghz = float(c['clock'][1]), float(c['clock'][2])
        ck = '/'.join(key) + f'/{main_ghz:.3f}/{rest_ghz:.3f}/{params or ""}/spread{SPREAD_TILE}'
        if ck not in cache:
            r = simulate(sim, *key, main_ghz, rest_ghz, params)
            with lock, open(cache_path, 'a') as f:
                f.write(ck + '\t' + json.dumps(r) + '\n')
                cache[ck] = r
        return cache[ck]

    keys = sorted(cfgs, key=lambda k: cfgs[k]['event_us'])
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        sims = list(pool.map(one, keys))
    rows = []
    for key, s in zip(keys, sims):
        c = cfgs[key]
        span_us = float(c['clock'][3]) / 1e3
        rows.append({'shape': key[0], 'tile_n': key[1], 'stages': key[2], 'tiles': c['all'][0],
                     'event_us': c['event_us'], 'span_us': f'{span_us:.2f}',
                     'overhead_us': f"{c['event_us'] - span_us:.2f}", 'main_ghz': c['clock'][1],
                     'rest_ghz': c['clock'][2], 'gpu_first_wait': c['all'][1],
                     'gpu_mainloop': c['all'][2], 'gpu_epilogue': c['all'][3],
                     'gpu_to_next': c['median'][4] if c.get('median', ['0'])[0] != '0' else '',
                     **s, 'sim_kernel_us': f"{s['sim_event_us'] - overhead_us:.2f}",
                     'gpu_spread_ns': '' if (g := spread_at(c.get('spread', {}))) is None else f'{g:.0f}'})
    with open(out, 'w', newline='') as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(rows)
    summary(rows)


def summary(rows):
    def ratio(r, name):
        g, s = r['gpu_' + name], r['sim_' + name]
        return float(s) / float(g) if g and s and float(g) > 0 else None
    groups = {}
    for r in rows:
        m, n = (int(x) for x in r['shape'].split('x')[:2])
        tiles = -(-m // 128) * -(-n // int(r['tile_n']))
        groups.setdefault((int(r['tile_n']), tiles >= 128), []).append(r)
    groups[(0, False)] = rows
    for (tile_n, many), g in sorted(groups.items(), key=lambda kv: (kv[0][0] == 0, kv[0])):
        name = 'all' if tile_n == 0 else f"128x{tile_n}, {'128 or more' if many else 'under 128'} tiles"
        cols = []
        for phase, label in (('first_wait', 'first wait'), ('mainloop', 'main loop'),
                             ('epilogue', 'epilogue'), ('to_next', 'to next')):
            v = [x for x in (ratio(r, phase) for r in g) if x is not None]
            cols.append(f"{label} {statistics.median(v):.3f}" if v else f"{label} -")
        err = [100 * (float(r['sim_event_us']) / float(r['event_us']) - 1) for r in g]
        print(f"{name}: {len(g)} configurations; model/GPU median {', '.join(cols)}; "
              f"time MAPE {sum(map(abs, err)) / len(err):.1f} %, median {statistics.median(err):+.1f} %")
        # CSVs from before the spread columns print the line above alone.
        sp = [(float(r['sim_spread_ns']), float(r['gpu_spread_ns'])) for r in g
              if r.get('sim_spread_ns') and r.get('gpu_spread_ns')]
        if sp:
            print(f"{name}: CTAs' spread at their tile {SPREAD_TILE + 1} (10th to 90th percentile), "
                  f"{len(sp)} configurations; GPU median {statistics.median(x[1] for x in sp):.0f} ns, "
                  f"model {statistics.median(x[0] for x in sp):.0f} ns")


def main(argv):
    if argv and argv[0] == 'predict':
        predict(argv[1:])
    elif len(argv) == 2 and argv[0] == 'summary':
        with open(argv[1]) as f:
            summary(list(csv.DictReader(f)))
    else:
        raise script_main.Usage(__doc__)


if __name__ == '__main__':
    script_main.run('phase_report.py', main, sys.argv[1:])
