#!/usr/bin/env python3
"""fit_event_model.py: the EventModel of each family and architecture
(runner/family/family.h, used by runner/family/estimate.h) from measured runs.

    tools/fit_event_model.py SIM [--data FILE]

Runs `SIM run --json -` in timing mode over ten GEMM shapes per matmul-like
family and architecture (both MI300X kernels, both block-scaled formats) and
ten conv2d shapes, records events and wall time (to FILE, JSON lines, when
given), fits events = tiles * (per_tile + per_kstep * k_steps) by least squares
on the first six shapes of each group and prints the fit, its largest error on
those six and its error on the four held out, and the events per second of
each group. The registrations take the printed coefficients; docs/sim.md
("Estimates and progress") records a run. Standard library only.
"""
import argparse
import json
import math
import os
import subprocess
import sys

GEMM = [(256, 256, 512), (512, 512, 1024), (1024, 1024, 512), (1024, 512, 2048), (768, 1280, 1024),
        (2048, 2048, 1024),
        # held out
        (1536, 1536, 3072), (333, 517, 1000), (4096, 2048, 512), (2048, 1024, 4096)]
CONV = [(2, 28, 28, 64, 64, 3), (4, 56, 56, 64, 128, 3), (8, 14, 14, 256, 256, 3), (2, 33, 29, 70, 96, 3),
        (1, 64, 64, 128, 128, 1), (4, 28, 28, 128, 256, 1),
        # held out
        (2, 20, 20, 64, 64, 5), (8, 28, 28, 64, 64, 3), (2, 112, 112, 64, 64, 3), (16, 14, 14, 128, 128, 3)]
TILE_K = {('matmul', 'mi300x'): 32, ('blockwise_fp8_matmul', 'sm100'): 128}


def cases():
    for m, n, k in GEMM:
        yield 'matmul', 'sm100', '', ['--m', m, '--n', n, '--k', k]
        yield 'matmul', 'sm90', '', ['--m', m, '--n', n, '--k', k]
        for kern in ('pingpong', 'wave_specialized'):
            yield 'matmul', 'mi300x', kern, ['--m', m, '--n', n, '--k', k, '--amd-kernel', kern]
        k256 = (k + 255) // 256 * 256
        for fmt in ('mxfp8', 'nvfp4'):
            yield 'block_scaled_matmul', 'sm100', fmt, ['--m', m, '--n', n, '--k', k256, '--format', fmt]
        yield 'blockwise_fp8_matmul', 'sm100', '', ['--m', m, '--n', n, '--k', (k + 127) // 128 * 128]
    for nb, h, w, c, kk, r in CONV:
        yield 'conv2d', 'sm100', '', ['--n', nb, '--h', h, '--w', w, '--c', c, '--k', kk, '--r', r,
                                      '--s', r, '--pad', r // 2]


def gemm_view(family, args, m, n, k):
    if family != 'conv2d':
        return m, n, k
    a = dict(zip(args[0::2], args[1::2]))
    p = a['--h'] + 2 * a['--pad'] - a['--r'] + 1
    q = a['--w'] + 2 * a['--pad'] - a['--s'] + 1
    return a['--n'] * p * q, a['--k'], a['--r'] * a['--s'] * ((a['--c'] + 63) // 64 * 64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('sim')
    ap.add_argument('--data')
    args = ap.parse_args()
    env = dict(os.environ, SYSTEMC_DISABLE_COPYRIGHT_MESSAGE='1')
    groups = {}
    out = open(args.data, 'w') if args.data else None
    for family, arch, variant, a in cases():
        cmd = [args.sim, 'run', '--kernel', family, '--arch', arch] + [str(x) for x in a] + ['--json', '-']
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            print(f'{" ".join(cmd)}: exit {p.returncode}: {p.stderr[:300]}', file=sys.stderr)
            return 1
        d = json.loads(p.stdout)
        m, n, k = gemm_view(family, a, d['shape'].get('m'), d['shape'].get('n'), d['shape'].get('k'))
        c = d['config']
        tiles = math.ceil(m / c['tile_m']) * math.ceil(n / c['tile_n'])
        ksteps = math.ceil(k / TILE_K.get((family, arch), 64))
        wall = d['host_timing']['wall_s']
        groups.setdefault((family, arch, variant), []).append((tiles, ksteps, d['events'], wall))
        if out:
            out.write(json.dumps({'family': family, 'arch': arch, 'variant': variant, 'args': a,
                                  'tiles': tiles, 'ksteps': ksteps, 'events': d['events'],
                                  'wall_s': wall}) + '\n')
    for key, g in groups.items():
        train, test = g[:6], g[6:]
        s11 = sum(t * t for t, k, e, _ in train)
        s12 = sum(t * t * k for t, k, e, _ in train)
        s22 = sum((t * k) ** 2 for t, k, e, _ in train)
        y1 = sum(t * e for t, k, e, _ in train)
        y2 = sum(t * k * e for t, k, e, _ in train)
        det = s11 * s22 - s12 * s12
        a = (y1 * s22 - y2 * s12) / det
        b = (s11 * y2 - s12 * y1) / det
        fit_err = max(abs(t * (a + b * k) / e - 1) for t, k, e, _ in train)
        held = ' '.join(f'{100 * (t * (a + b * k) / e - 1):+.0f}%' for t, k, e, _ in test)
        rate = sum(e for _, _, e, _ in g) / sum(w for *_, w in g)
        print(f'{"/".join(x for x in key if x):40s} per_tile {a:6.0f}  per_kstep {b:6.1f}  '
              f'fit max {100 * fit_err:3.0f}%  held out {held}  {rate / 1e6:.2f} M events/s')
    return 0


if __name__ == '__main__':
    sys.exit(main())
