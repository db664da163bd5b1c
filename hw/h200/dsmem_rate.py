#!/usr/bin/env python3
"""dsmem_rate.py: the SM-to-SM network's store rate from cluster_calibrate's section e.

hw/h200/cluster_calibrate.cu section e times DSMEM stores (st.shared::cluster.v4,
8 KiB per sending warp and rep) in three patterns: to_one (ranks 1..S-1 send
into rank 0: one SM receiving), from_one (rank 0 sends to the others: one SM
sending) and reduce (the K split's reduce-scatter, every SM sending and
receiving). Each row is the timed receiver's cycles from its cluster barrier to
the last arrival's flip, the median of 200 iterations, for reps = 0, 1 and 8,
with the bytes it received (bytes_in). The rate of a pattern is those bytes
between reps 1 and 8 over the cycles between them, so that the release-and-wait
and the first store's latency drop out; for from_one it is counted at the one
sending SM, whose S - 1 receivers get equal shares (bytes_in x (S - 1)).

The model (models/sm100/api_dsmem.cc) gives each SM one port to send and one to
receive, both at dsmem_store_bytes_per_cycle. Its value is the lower of the
saturated rates: the most any to_one row receives (the receiving port) and the
most any from_one row sends (the sending port). The reduce rows are the check:
each owner receives from S - 1 senders through its one port.

  dsmem_rate.py report CSV         every pattern's rate, and the value
  dsmem_rate.py value CSV          the value alone (bytes per SM cycle, 0.1)
  dsmem_rate.py check CSV PARAMS   exit 1 unless PARAMS holds that value
"""
import csv
import json
import re
import sys
import script_main

KEY = re.compile(r'^(\w+) size=(\d+) send_warps=(\d+) reps=(\d+) bytes_in=(\d+)$')


def rows(path):
    """{(pattern, size, warps): {reps: (cycles, bytes)}} from the CSV's section-e rows."""
    out = {}
    with open(path) as f:
        for r in csv.reader(x for x in f if not x.startswith('#')):
            if len(r) < 4 or r[0] != 'dsmem_store_exchange':
                continue
            m = KEY.match(r[1])
            if m is None:
                raise script_main.BadInput(f'{path}: unreadable row key "{r[1]}"')
            pattern, size, warps, reps, bytes_in = m.group(1), *map(int, m.groups()[1:])
            out.setdefault((pattern, size, warps), {})[reps] = (float(r[2]), bytes_in)
    if not out:
        raise script_main.BadInput(f'{path} holds no dsmem_store_exchange rows (section e)')
    return out


def rates(path):
    """[(pattern, size, warps, bytes per cycle)] for every group with reps 1 and 8."""
    got = []
    for (pattern, size, warps), by_reps in sorted(rows(path).items()):
        if 1 not in by_reps or 8 not in by_reps:
            continue
        (c1, b1), (c8, b8) = by_reps[1], by_reps[8]
        if c8 <= c1 or b8 <= b1:
            raise script_main.BadInput(f'{pattern} size={size} send_warps={warps}: eight reps '
                             f'({c8:.0f} cycles, {b8} bytes) are not more than one ({c1:.0f}, {b1})')
        share = size - 1 if pattern == 'from_one' else 1
        got.append((pattern, size, warps, share * (b8 - b1) / (c8 - c1)))
    return got


def value(path):
    r = rates(path)
    receive = [x for p, _, _, x in r if p == 'to_one']
    send = [x for p, _, _, x in r if p == 'from_one']
    if not receive or not send:
        raise script_main.BadInput('the CSV needs to_one and from_one rows with reps 1 and 8')
    return round(min(max(receive), max(send)), 1), max(receive), max(send)


def main():
    if len(sys.argv) == 3 and sys.argv[1] in ('report', 'value'):
        v, receive, send = value(sys.argv[2])
        if sys.argv[1] == 'value':
            print(v)
            return
        print('pattern,size,send_warps,bytes_per_cycle')
        for p, s, w, x in rates(sys.argv[2]):
            print(f'{p},{s},{w},{x:.1f}')
        print(f'receiving port (to_one, most) {receive:.1f}, sending port (from_one, most) {send:.1f}: '
              f'dsmem_store_bytes_per_cycle {v}')
        return
    if len(sys.argv) == 4 and sys.argv[1] == 'check':
        v = value(sys.argv[2])[0]
        with open(sys.argv[3]) as f:
            have = json.load(f)['params']['dsmem_store_bytes_per_cycle']['value']
        if have != v:
            print(f'dsmem_rate: {sys.argv[3]} has dsmem_store_bytes_per_cycle {have}, '
                  f'{sys.argv[2]} gives {v}')
            sys.exit(1)
        return
    print('usage: dsmem_rate.py report CSV | value CSV | check CSV PARAMS', file=sys.stderr)
    sys.exit(2)


if __name__ == '__main__':
    script_main.run('dsmem_rate.py', main)
