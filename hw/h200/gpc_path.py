#!/usr/bin/env python3
"""gpc_path.py: the SM90 model's SM layout and per-GPC store path, from one board's measurements.

    python3 hw/h200/gpc_path.py derive --probe P.csv --stamps S.csv [--stamps S2.csv ...]
    python3 hw/h200/gpc_path.py apply  --probe P.csv --stamps S.csv ... --params IN.json --out OUT.json
    python3 hw/h200/gpc_path.py check  --probe P.csv --stamps S.csv ... --params F.json
    python3 hw/h200/gpc_path.py fill   --probe P.csv --stamps S.csv ...

The write path (models/sm90/write_path.h) can give each GPC a store path that
serves its first SMs at their own rate and shares the rest among the others.
It takes three parameters, each read here off a measurement, nothing fitted:

  gpc_store_bytes_per_cycle  hw/h200/gpc_probe.cu's "fragment" runs of one GPC
      alone (each SM stores 64 KiB in the matmul epilogue's layout, the GPC's
      SMs together): per run, the sum over its SMs of bytes over their own
      cycles; the median over the runs of the GPCs of the most common size
      (16 SMs on the H100 and H200), rounded to a whole byte.
  sm_gpc  per block index of a one-CTA-per-SM launch (the model's SM id), the
      GPC + 1 of the SM the block runs on (0 where the probe's GPC rows do not hold that SM):
      the probe's "gpc" rows for the map, and the block placement the most
      common among the stamped launches of one CTA per SM (gemm_bench
      --stamp-tiles "lead" rows: label,lead,-,cta,smid,lead4,lead8; ties go
      to the placement seen first); with --params, among those that agree
      with the file's "l2_side" (its SM ids are one placement's: the L2 side
      changes only where that placement's GPC does). The model's SM ids are
      that placement's: the GPC store path, the clusters' groups and where a
      launch of fewer CTAs than SMs runs all read sm_gpc
      (models/sm90/params.h).
  store_first  per block index, 1 where that SM leads: over the stamped
      launches of one CTA per SM that reach their 8th tile, the median of each
      SM's lead at its 8th main loop (ns before the median CTA); an SM leads
      where its median is over half of the largest SM's. With --leaders probe
      instead, the SMs the probe finds faster within their GPC: each SM's
      median cycles in its GPC's run over the GPC's median; an SM leads where
      that ratio is below halfway between the lowest SM's and 1 (for a board
      whose matmul was stamped too few times to tell its leaders; the stamps
      then need only the placement, no launch that reaches its 8th tile).

With --placement-only, sm_gpc alone (and no GPC store path: a rate of 0, no
leaders), for a file whose SM layout is measured but whose store path is not
taken.

`fill` checks the rule by which the model places a launch of fewer CTAs than
SMs (models/sm90/params.h fill_order) against every such stamped launch: the
SMs it takes per GPC, for some GPC first (the board starts at another GPC
from launch to launch), and prints how many agree.

`derive` prints the three values as JSON and a line on how each was read;
`apply` writes a copy of a parameter file with the three values replaced
(every other byte kept); `check` exits 1 with the first difference when a
parameter file does not hold what the measurements give, so that a committed
file cannot drift from its data (tests/hw:gpc_path_test).
"""
import argparse
import collections
import json
import re
import statistics
import sys

import script_main
from script_main import BadInput, Usage


def read_probe(path):
    """The GPC map {smid: gpc} and the GPC runs' summed fragment rates."""
    gpc_of, runs, own = {}, [], collections.defaultdict(list)
    chunk, key = [], None
    with open(path) as f:
        for line in f:
            cols = line.rstrip('\n').split(',')
            if cols[0] == 'gpc':
                for sm in cols[3].split():
                    gpc_of[int(sm)] = int(cols[1])
            elif cols[0] == 'fragment' and re.fullmatch(r'gpc\d+', cols[1]):
                active = int(cols[4])
                if key != (cols[1], active) or len(chunk) == active:
                    if chunk:
                        runs.append(chunk)
                    chunk, key = [], (cols[1], active)
                chunk.append((int(cols[5]), int(cols[6])))
                own[(int(cols[3]), int(cols[2]))].append(int(cols[6]))
    if chunk:
        runs.append(chunk)
    if not gpc_of:
        raise BadInput(f'{path}: no "gpc" rows (hw/h200/gpc_probe.cu output expected)')
    runs = [r for r in runs if len(r) >= 2]
    if not runs:
        raise BadInput(f'{path}: no "fragment" rows of a GPC run')
    size = collections.Counter(len(r) for r in runs).most_common(1)[0][0]
    rates = [sum(b / c for b, c in r) for r in runs if len(r) == size]
    ratio = {}
    for g in {g for g, _ in own}:
        cycles = {sm: statistics.median(c) for (gg, sm), c in own.items() if gg == g}
        mid = statistics.median(cycles.values())
        ratio.update({sm: c / mid for sm, c in cycles.items()})
    return gpc_of, size, rates, ratio


def read_leads(paths):
    """The stamped launches of one CTA per SM: [(label, {cta: (smid, lead8)})]."""
    launches = collections.OrderedDict()
    for path in paths:
        with open(path) as f:
            for line in f:
                cols = line.rstrip('\n').split(',')
                if len(cols) >= 10 and cols[4] == 'lead':
                    lead8 = None if cols[9] == '-' else float(cols[9])
                    launches.setdefault((path,) + tuple(cols[:4]), {})[int(cols[6])] = (int(cols[7]), lead8)
    return launches


def derive(probe, stamps, leaders_from='stamps', l2_side=None):
    gpc_of, size, rates, ratio = read_probe(probe)
    launches = read_leads(stamps)
    sms = max(len(v) for v in launches.values()) if launches else 0
    full = [v for v in launches.values() if len(v) == sms and sorted(v) == list(range(sms))]
    if sms < 2 or not full:
        raise BadInput(f'{", ".join(stamps)}: no "lead" rows of a launch of one CTA per SM')
    placements = collections.Counter(tuple(v[c][0] for c in range(sms)) for v in full)
    kept = placements
    if l2_side:
        # The SM ids of a parameter file are one placement's: its L2 side
        # changes only where the placement's GPC does.
        sides = {i for i in range(1, len(l2_side)) if l2_side[i] != l2_side[i - 1]}
        kept = collections.Counter({p: n for p, n in placements.items() if len(p) == len(l2_side) and sides <= {
            i for i in range(1, len(p)) if gpc_of.get(p[i], -1) != gpc_of.get(p[i - 1], -1)}})
        if not kept:
            raise BadInput('no stamped placement puts the GPCs where the parameter file\'s "l2_side" has them')
    placement, seen = kept.most_common(1)[0]
    if leaders_from == 'probe':
        # The probe's fast SMs: no stamped tile needed.
        low = min(ratio.values())
        leaders = sorted(sm for sm, r in ratio.items() if r < (1 + low) / 2)
        led = (f'{len(leaders)} leaders from the probe (ratio to their GPC {min(ratio[s] for s in leaders):.2f}-'
               f'{max(ratio[s] for s in leaders):.2f}, the rest from '
               f'{min(r for s, r in ratio.items() if s not in leaders):.2f}); ')
    else:
        leads = collections.defaultdict(list)
        reach8 = [v for v in full if any(l not in (None, 0.0) for _, l in v.values())]
        if not reach8:
            raise BadInput(f'{", ".join(stamps)}: no launch of one CTA per SM reaches its 8th tile')
        for v in reach8:
            for smid, lead8 in v.values():
                leads[smid].append(lead8 or 0.0)
        median = {sm: statistics.median(x) for sm, x in leads.items()}
        top = max(median.values())
        leaders = sorted(sm for sm, m in median.items() if top > 0 and m > top / 2)
        rest = sorted((m for sm, m in median.items() if sm not in leaders), reverse=True)
        led = (f'{len(leaders)} leaders over {len(reach8)} launches reaching tile 8 '
               f'(median lead {min(median[s] for s in leaders):.0f}-{top:.0f} ns, next {rest[0] if rest else 0:.0f} ns): ')
    values = {
        'gpc_store_bytes_per_cycle': round(statistics.median(rates)),
        'sm_gpc': [gpc_of[sm] + 1 if sm in gpc_of else 0 for sm in placement],
        'store_first': [1 if sm in leaders else 0 for sm in placement],
    }
    how = (f'GPC rate {statistics.median(rates):.1f} B per cycle (median of {len(rates)} runs of {size}-SM GPCs, '
           f'{min(rates):.1f}-{max(rates):.1f}); {len(gpc_of)} SMs in {len(set(gpc_of.values()))} GPCs; '
           f'placement seen in {seen} of {len(full)} launches of {sms} CTAs ({len(placements)} placements'
           f'{", the most common of the " + str(len(kept)) + " that agree with l2_side" if l2_side else ""}); '
           + led + f'SMs {" ".join(map(str, leaders))}')
    return values, how


def fill_counts(size, n, start):
    """Per GPC, the SMs a launch of n CTAs takes by the fill rule
    (models/sm90/params.h fill_order): the SMs in no GPC (-1) first, then one
    SM of each TPC, GPC after GPC in turn from GPC `start`, then the TPCs'
    other SMs the same way."""
    gpcs = sorted(g for g in size if g >= 0)
    order = gpcs[start:] + gpcs[:start]
    count = collections.Counter()
    count[-1] = min(n, size.get(-1, 0))
    left = n - count[-1]
    for _ in range(2):  # each TPC's first SMs, then its second
        for k in range(max(size.values())):
            for g in order:
                if left > 0 and size[g] // 2 > k:
                    count[g] += 1
                    left -= 1
    return count


def fill(probe, stamps):
    """How many stamped launches of fewer CTAs than SMs (the largest launch's
    CTAs) take, per GPC, the SMs the fill rule gives them (for some GPC
    first)."""
    gpc_of = read_probe(probe)[0]
    stamped = read_leads(stamps).values()
    sms = max((len(v) for v in stamped), default=0)
    size = collections.Counter(gpc_of.values())
    size[-1] = sms - len(gpc_of)
    match, launches, sizes = 0, 0, set()
    for v in stamped:
        if len(v) >= sms or sorted(v) != list(range(len(v))):
            continue
        launches += 1
        sizes.add(len(v))
        got = collections.Counter(gpc_of.get(sm, -1) for sm, _ in v.values())
        if any(+fill_counts(size, len(v), s) == +got for s in range(len(size) - 1)):
            match += 1
    if not launches:
        raise BadInput(f'{", ".join(stamps)}: no "lead" rows of a launch of fewer CTAs than SMs')
    return (f'fill rule: {match} of {launches} launches of fewer CTAs than SMs ({min(sizes)}-{max(sizes)} CTAs, '
            f'{len(sizes)} grid sizes) take the SMs it gives per GPC')


def value_line(text, key):
    """The span of key's "value": ... in a parameter file's text."""
    m = re.search(r'"%s"\s*:\s*\{\s*"value"\s*:\s*' % re.escape(key), text)
    if not m:
        raise BadInput(f'no "{key}" with a "value" in the parameter file')
    start = m.end()
    if text.startswith('[', start):
        end = text.index(']', start) + 1
    else:
        end = re.compile(r'[,}\n]').search(text, start).start()
    return start, end


def replaced(text, values):
    for key in values:
        start, end = value_line(text, key)
        text = text[:start] + json.dumps(values[key]) + text[end:]
    return text


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise Usage(self.format_usage() + f'gpc_path.py: {message}\n')


def main(argv):
    ap = Parser(prog='gpc_path.py', description='the per-GPC store path from measurements')
    ap.add_argument('command', choices=('derive', 'apply', 'check', 'fill'))
    ap.add_argument('--probe', required=True)
    ap.add_argument('--stamps', action='append', required=True)
    ap.add_argument('--leaders', choices=('stamps', 'probe'), default='stamps')
    ap.add_argument('--placement-only', action='store_true',
                    help='sm_gpc alone (the SM layout: clusters, launches of fewer CTAs than SMs), no store path')
    ap.add_argument('--params')
    ap.add_argument('--out')
    a = ap.parse_args(argv)
    if a.command == 'fill':
        print(fill(a.probe, a.stamps))
        return 0
    text, held, l2_side = None, {}, None
    if a.params:
        with open(a.params) as f:
            text = f.read()
        held = json.loads(text)
        held = held.get('params', held)
        l2_side = held.get('l2_side', {}).get('value') or None
    values, how = derive(a.probe, a.stamps, a.leaders, l2_side)
    if a.placement_only:
        values = {'sm_gpc': values['sm_gpc'], 'gpc_store_bytes_per_cycle': 0, 'store_first': []}
        how = how.split('; ')
        how = '; '.join(h for h in how if not h.startswith('GPC rate') and 'leaders' not in h) + '; no store path'
    if a.command == 'derive':
        print(json.dumps(values))
        print(how)
        return 0
    if not a.params:
        raise Usage(ap.format_usage() + f'gpc_path.py {a.command}: --params is required\n')
    if a.command == 'apply':
        if not a.out:
            raise Usage(ap.format_usage() + 'gpc_path.py apply: --out is required\n')
        new = replaced(text, values)
        json.loads(new)
        with open(a.out, 'w') as f:
            f.write(new)
        print(how)
        return 0
    for key in values:
        if key not in held:
            raise BadInput(f'{a.params}: no "{key}"')
        if held[key]['value'] != values[key]:
            print(f'{a.params}: "{key}" is {json.dumps(held[key]["value"])[:80]}, the measurements give '
                  f'{json.dumps(values[key])[:80]}', file=sys.stderr)
            return 1
    print(f'{a.params}: the GPC store path is what the measurements give ({how})')
    return 0


if __name__ == '__main__':
    script_main.run('gpc_path.py', main, sys.argv[1:])
