#!/usr/bin/env python3
"""cli_checks.py: checks on `sim run` output for the tests in tests/cli.

    cli_checks.py summary FILE --m M --n N --k K [--stages S] [--tile-n T]
                  [--out-dtype D] [--seed S] [--functional]
        FILE holds the JSON summary (what `--json -` printed, or a --json file).
        Checks every key of the summary contract, that it describes the run
        that was asked for, that there are no findings and, with
        --functional, that the host check ran and passed.
    cli_checks.py trace CHECKER TRACE --ctas N
        Decodes TRACE with protoc through CHECKER (traces/tools/check_trace.py,
        whose schema is found next to it), and checks the track layout: a
        "CTA i" track per CTA holding the seven warp tracks "warp 0 epilogue"
        .. "warp 3 epilogue", "warp 4 scheduler", "warp 5 load", "warp 6 mma";
        at least one "TMA ..." track, a "tensor core" track, and at least one
        well-formed flow.
    cli_checks.py same-json A B
        A and B are the same JSON bytes apart from the host_timing member.
    cli_checks.py sweep FILE --m M --n N --k K --tile-n LIST --stages LIST
                  [--results R] [--kernel NAME] [--problem JSON]
        FILE holds `sim sweep --json` output. Checks its keys (kernel NAME,
        default matmul; "problem" exactly JSON, absent without --problem), that results
        and skipped together are exactly tile-n x stages (comma lists), that
        results are ranked by predicted_time_us ascending, completed and free
        of findings, that each skipped one names shared memory, and with
        --results that R configurations ran.

Prints one line per problem and exits 1 if there is any. Standard library only.
"""
import argparse
import collections
import importlib.util
import json
import re
import math
import os
import subprocess
import sys

problems = []


def fail(message):
    problems.append(message)
    print(f'cli_checks: {message}')


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def require(obj, key, kind, where):
    """Returns obj[key] if present and of the given kind ('number', 'int', 'str',
    'bool', 'list', 'dict'), else reports and returns None."""
    if not isinstance(obj, dict) or key not in obj:
        fail(f'{where}: missing key "{key}"')
        return None
    v = obj[key]
    ok = {
        'number': is_number(v),
        'int': isinstance(v, int) and not isinstance(v, bool),
        'str': isinstance(v, str),
        'bool': isinstance(v, bool),
        'list': isinstance(v, list),
        'dict': isinstance(v, dict),
    }[kind]
    if not ok:
        fail(f'{where}: "{key}" should be a {kind}, got {v!r}')
        return None
    return v


def in_range(v, lo, hi, what):
    if v is not None and not lo <= v <= hi:
        fail(f'{what} = {v} is outside [{lo}, {hi}]')


def summary(args):
    try:
        with open(args.file) as f:
            text = f.read()
        s = json.loads(text)
    except (OSError, ValueError) as e:
        fail(f'{args.file}: not a JSON document: {e}')
        return
    if not isinstance(s, dict):
        fail(f'{args.file}: top level is not an object')
        return
    w = 'summary'
    if require(s, 'kernel', 'str', w) not in (None, 'matmul'):
        fail(f'kernel is {s["kernel"]!r}, want "matmul"')
    if require(s, 'arch', 'str', w) not in (None, 'sm100'):
        fail(f'arch is {s["arch"]!r}, want "sm100"')
    shape = require(s, 'shape', 'dict', w)
    if shape is not None:
        for k, want in (('m', args.m), ('n', args.n), ('k', args.k)):
            got = require(shape, k, 'int', 'shape')
            if got is not None and got != want:
                fail(f'shape.{k} = {got}, want {want}')
    config = require(s, 'config', 'dict', w)
    if config is not None:
        for k, kind in (('name', 'str'), ('tile_m', 'int'), ('tile_n', 'int'), ('tile_k', 'int'),
                        ('stages', 'int'), ('ctas', 'int'), ('out_dtype', 'str'),
                        ('functional', 'bool')):
            require(config, k, kind, 'config')
        for k, want in (('stages', args.stages), ('tile_n', args.tile_n),
                        ('out_dtype', args.out_dtype), ('functional', args.functional)):
            if k in config and config[k] != want:
                fail(f'config.{k} = {config[k]!r}, want {want!r}')
        if is_number(config.get('ctas')) and config['ctas'] < 1:
            fail(f'config.ctas = {config["ctas"]}, want at least 1')
    t = require(s, 'predicted_time_us', 'number', w)
    if t is not None and t <= 0:
        fail(f'predicted_time_us = {t}, want > 0')
    in_range(require(s, 'tflops', 'number', w), 0, 1e6, 'tflops')
    in_range(require(s, 'peak_fraction', 'number', w), 0, 1, 'peak_fraction')
    in_range(require(s, 'overlap_pct', 'number', w), 0, 100, 'overlap_pct')
    b = require(s, 'bottleneck', 'str', w)
    if b is not None and not b:
        fail('bottleneck is empty')
    roles = require(s, 'roles', 'list', w)
    if roles is not None:
        if not roles:
            fail('roles is empty')
        for i, r in enumerate(roles):
            where = f'roles[{i}]'
            if not isinstance(r, dict):
                fail(f'{where} is not an object')
                continue
            require(r, 'name', 'str', where)
            in_range(require(r, 'busy_pct', 'number', where), 0, 100, f'{where}.busy_pct')
            in_range(require(r, 'stall_pct', 'number', where), 0, 100, f'{where}.stall_pct')
        names = sorted(r.get('name') for r in roles if isinstance(r, dict))
        if names != ['epilogue', 'load', 'mma', 'scheduler']:
            fail(f'role names are {names}, want epilogue, load, mma, scheduler')
    findings = require(s, 'findings', 'list', w)
    if findings:
        fail(f'{len(findings)} finding(s), want none: {json.dumps(findings)[:2000]}')
    seed = require(s, 'seed', 'int', w)
    if seed is not None and seed != args.seed:
        fail(f'seed = {seed}, want {args.seed}')
    ev = require(s, 'events', 'int', w)
    if ev is not None and ev <= 0:
        fail(f'events = {ev}, want > 0')
    host = require(s, 'host_timing', 'dict', w)
    wall = require(host, 'wall_s', 'number', w + '.host_timing') if host is not None else None
    if wall is not None and wall < 0:
        fail(f'host_timing.wall_s = {wall}, want >= 0')
    if 'wall_s' in s:
        fail(f'{w}: wall_s outside host_timing')
    if args.functional:
        check = require(s, 'check', 'dict', w)
        if check is not None:
            passed = require(check, 'passed', 'bool', 'check')
            if passed is not True:
                fail(f'check.passed is {passed!r}, want true (detail: {check.get("detail")!r})')
            in_range(require(check, 'max_abs_err', 'number', 'check'), 0, math.inf,
                     'check.max_abs_err')
            in_range(require(check, 'max_rel_err', 'number', 'check'), 0, math.inf,
                     'check.max_rel_err')
            ref = require(check, 'reference', 'str', 'check')
            if ref is not None and not ref:
                fail('check.reference is empty')
    elif 'check' in s:
        fail('timing-mode summary has a "check" object (no check ran)')


def load_checker(path):
    spec = importlib.util.spec_from_file_location('check_trace', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def trace(args):
    ct = load_checker(args.checker)
    proto = os.path.join(os.path.dirname(os.path.abspath(args.checker)), '..', 'proto',
                         'perfetto_trace_subset.proto')
    proto = os.path.abspath(proto)
    try:
        with open(args.trace, 'rb') as stdin:
            proc = subprocess.run(['protoc', '--decode=perfetto.protos.Trace', '-I',
                                   os.path.dirname(proto), proto],
                                  stdin=stdin, capture_output=True, text=True)
    except OSError as e:
        fail(f'cannot run protoc on {args.trace}: {e}')
        return
    if proc.returncode != 0:
        fail(f'protoc rc {proc.returncode}: {proc.stderr.strip()[-500:]}')
        return
    lines = proc.stdout.splitlines()

    violations = []
    _, _, (slices, flows) = ct.check(lines, violations.append)
    for v in violations[:20]:
        fail(f'check_trace: {v}')
    if flows < 1:
        fail(f'{args.trace}: no well-formed flow (want at least one)')
    if slices < 1:
        fail(f'{args.trace}: no slices')

    tracks = {}  # uuid -> (name, parent uuid)
    for p in ct.packets(lines, lambda *a: None):
        d = ct.one(p, 'track_descriptor')
        if d is not None:
            tracks[ct.one(d, 'uuid', 0)] = (ct.one(d, 'name', ''), ct.one(d, 'parent_uuid', 0))
    names = collections.Counter(name for name, _ in tracks.values())
    for want in ('warp 5 load', 'warp 6 mma', 'warp 0 epilogue', 'warp 4 scheduler', 'tensor core'):
        if names[want] < 1:
            fail(f'{args.trace}: no track named "{want}"')
    if not any(n.startswith('TMA ') for n in names):
        fail(f'{args.trace}: no "TMA ..." track')
    if getattr(args, 'counters', False):
        for want in ('TMA bytes in flight', 'input stages full'):
            if names[want] != args.ctas:
                fail(f'{args.trace}: {names[want]} "{want}" counter tracks, want one per traced SM')

    # --cross-sm-flows N: at least N flows begin on one SM's tracks and end on
    # another's (a cluster's remote arrives, multicast loads and commits).
    if getattr(args, 'cross_sm_flows', 0):
        def sm_of(uuid):
            seen = set()
            while uuid and uuid not in seen:
                seen.add(uuid)
                name, parent = tracks.get(uuid, ('', 0))
                if name.startswith('SM '):
                    return name
                uuid = parent
            return None
        origin, end = {}, {}
        for p in ct.packets(lines, lambda *a: None):
            ev = ct.one(p, 'track_event')
            if ev is None:
                continue
            sm = sm_of(ct.one(ev, 'track_uuid', 0))
            for f in ev.get('flow_ids', []):
                origin[f] = sm
            for f in ev.get('terminating_flow_ids', []):
                end[f] = sm
        cross = sum(1 for f, sm in origin.items() if f in end and end[f] != sm)
        if cross < args.cross_sm_flows:
            fail(f'{args.trace}: {cross} flows between SMs, want at least {args.cross_sm_flows}')

    # Each CTA track holds exactly the seven warp tracks.
    warps = ['warp 0 epilogue', 'warp 1 epilogue', 'warp 2 epilogue', 'warp 3 epilogue',
             'warp 4 scheduler', 'warp 5 load', 'warp 6 mma']
    ctas = {u: n for u, (n, _) in tracks.items() if n.startswith('CTA ')}
    if len(ctas) != args.ctas:
        fail(f'{args.trace}: {len(ctas)} "CTA" tracks, want {args.ctas} (config.ctas)')
    for u, n in sorted(ctas.items(), key=lambda x: x[1]):
        children = sorted(name for name, parent in tracks.values() if parent == u)
        if children != warps:
            fail(f'{args.trace}: track "{n}" holds {children}, want {warps}')
    if problems:
        print(f'cli_checks: {args.trace}: tracks: {sorted(names)[:200]}')


def same_json(args):
    """Two `sim run` summaries of the same inputs: the bytes outside the
    host_timing member (the run's wall time) must be identical."""
    texts = []
    for path in (args.a, args.b):
        try:
            with open(path, 'rb') as f:
                raw = f.read()
            d = json.loads(raw)
        except (OSError, ValueError) as e:
            fail(f'{path}: not a JSON document: {e}')
            return
        if not isinstance(d, dict) or not isinstance(d.get('host_timing'), dict) or \
                not isinstance(d['host_timing'].get('wall_s'), (int, float)):
            fail(f'{path}: summary lacks host_timing.wall_s')
            return
        if 'wall_s' in d:
            fail(f'{path}: wall_s outside host_timing')
            return
        rest, n = re.subn(rb',?\s*"host_timing"\s*:\s*\{[^{}]*\}', b'', raw)
        if n != 1:
            fail(f'{path}: host_timing found {n} times in the bytes')
            return
        texts.append(rest)
    a, b = texts
    if a != b:
        i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        fail(f'summaries differ (apart from host_timing) at byte {i}: '
             f'{a[max(0, i - 80):i + 80]!r} vs {b[max(0, i - 80):i + 80]!r}')


def sweep(args):
    try:
        with open(args.file) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        fail(f'{args.file}: not a JSON document: {e}')
        return
    if not isinstance(d, dict):
        fail(f'{args.file}: top level is not an object')
        return
    for key, want in (('kernel', args.kernel), ('arch', 'sm100'), ('m', args.m), ('n', args.n),
                      ('k', args.k)):
        if d.get(key) != want:
            fail(f'sweep: "{key}" is {d.get(key)!r}, want {want!r}')
    # The family's own fields: "problem" holds exactly the given ones.
    want_problem = json.loads(args.problem) if args.problem else None
    if d.get('problem') != want_problem:
        fail(f'sweep: "problem" is {d.get("problem")!r}, want {want_problem!r}')
    results = require(d, 'results', 'list', 'sweep') or []
    skipped = require(d, 'skipped', 'list', 'sweep') or []
    seen = []
    times = []
    for i, r in enumerate(results):
        w = f'results[{i}]'
        for key, kind in (('tile_m', 'int'), ('tile_n', 'int'), ('tile_k', 'int'),
                          ('stages', 'int'), ('out_dtype', 'str'),
                          ('predicted_time_us', 'number'), ('tflops', 'number'),
                          ('peak_fraction', 'number'), ('overlap_pct', 'number'),
                          ('bottleneck', 'str'), ('status', 'str'), ('findings', 'int')):
            require(r, key, kind, w)
        if not isinstance(r, dict):
            continue
        seen.append((r.get('tile_n'), r.get('stages')))
        times.append(r.get('predicted_time_us'))
        if r.get('status') != 'completed' or r.get('findings') != 0:
            fail(f'{w}: status {r.get("status")!r} with {r.get("findings")!r} findings')
        if is_number(r.get('predicted_time_us')) and not r['predicted_time_us'] > 0:
            fail(f'{w}: predicted_time_us {r["predicted_time_us"]} is not positive')
    if all(is_number(t) for t in times) and times != sorted(times):
        fail(f'results are not ranked by predicted_time_us: {times}')
    for i, k in enumerate(skipped):
        w = f'skipped[{i}]'
        require(k, 'tile_n', 'int', w)
        require(k, 'stages', 'int', w)
        reason = require(k, 'reason', 'str', w)
        if isinstance(k, dict):
            seen.append((k.get('tile_n'), k.get('stages')))
        if reason is not None and 'shared memory' not in reason:
            fail(f'{w}: reason does not mention shared memory: {reason!r}')
    want = sorted((int(t), int(s)) for t in args.tile_n.split(',') for s in args.stages.split(','))
    if sorted(seen) != want or len(set(seen)) != len(seen):
        fail(f'configurations {sorted(seen)}, want each of {want} once')
    if args.results is not None and len(results) != args.results:
        fail(f'{len(results)} results, want {args.results}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    s = sub.add_parser('summary')
    s.add_argument('file')
    s.add_argument('--m', type=int, required=True)
    s.add_argument('--n', type=int, required=True)
    s.add_argument('--k', type=int, required=True)
    s.add_argument('--stages', type=int, default=4)
    s.add_argument('--tile-n', type=int, default=256)
    s.add_argument('--out-dtype', default='bf16')
    s.add_argument('--seed', type=int, default=0)
    s.add_argument('--functional', action='store_true')
    t = sub.add_parser('trace')
    t.add_argument('checker')
    t.add_argument('trace')
    t.add_argument('--ctas', type=int, required=True)
    t.add_argument('--counters', action='store_true', help='require the counter tracks')
    t.add_argument('--cross-sm-flows', type=int, default=0,
                   help='require at least this many flows from one SM to another')
    j = sub.add_parser('same-json')
    j.add_argument('a')
    j.add_argument('b')
    w = sub.add_parser('sweep')
    w.add_argument('file')
    w.add_argument('--m', type=int, required=True)
    w.add_argument('--n', type=int, required=True)
    w.add_argument('--k', type=int, required=True)
    w.add_argument('--tile-n', required=True)
    w.add_argument('--stages', required=True)
    w.add_argument('--results', type=int)
    w.add_argument('--kernel', default='matmul')
    w.add_argument('--problem', help='the JSON "problem" object the sweep must hold')
    args = ap.parse_args()
    {'summary': summary, 'trace': trace, 'same-json': same_json, 'sweep': sweep}[args.cmd](args)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
