#!/usr/bin/env python3
"""check_trace.py: validates a native Perfetto trace (.pftrace) written by our
trace writer, the way trace_processor would read it, but loudly.

    check_trace.py [--proto FILE] [--protoc BIN] [--max-errors N] trace.pftrace

It decodes the file with protoc against traces/proto/perfetto_trace_subset.proto
(found relative to this script unless --proto is given), then checks:
  * protoc succeeds and prints no bare field numbers (a field outside the
    subset, or a known field sent with the wrong wire type);
  * every packet has a non-zero trusted_packet_sequence_id and the first packet
    of each sequence sets SEQ_INCREMENTAL_STATE_CLEARED;
  * track descriptors: non-zero unique uuids, every parent_uuid names an
    earlier descriptor that is not a counter track, sibling names are unique
    (unless the later track sets sibling_merge_behavior explicitly);
  * events: a declared track, a timestamp, slices only on non-counter tracks,
    counter values only on counter tracks;
  * after trace_processor's stable sort by timestamp, BEGIN/END balance as a
    stack on every track;
  * every flow id originates exactly once and terminates exactly once, and the
    terminating slice starts at or after the originating slice (trace_processor
    picks arrow direction by slice start and ignores a terminator replayed
    before its origin).
Prints one line per violation and exits 1 if there is any; uses only the
standard library so other packages' tests can run it on simulator traces.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys

LINE_RE = re.compile(r'^\s*([A-Za-z_]\w*|\d+)(?:: (.*)| \{)$')
SLICE_TYPES = ('TYPE_SLICE_BEGIN', 'TYPE_SLICE_END', 'TYPE_INSTANT')


def unescape(text):
    """Decodes a protoc text-format string literal (C escapes, octal bytes)."""
    out, i, body = bytearray(), 0, text[1:-1]
    simple = {'n': 10, 'r': 13, 't': 9, '"': 34, "'": 39, '\\': 92, 'a': 7, 'b': 8, 'f': 12, 'v': 11}
    while i < len(body):
        c = body[i]
        if c != '\\':
            out += c.encode('utf-8')
            i += 1
        elif body[i + 1] in simple:
            out.append(simple[body[i + 1]])
            i += 2
        elif body[i + 1] == 'x':
            m = re.match(r'[0-9a-fA-F]{1,2}', body[i + 2:])
            out.append(int(m.group(0), 16))
            i += 2 + len(m.group(0))
        else:
            m = re.match(r'[0-7]{1,3}', body[i + 1:])
            out.append(int(m.group(0), 8))
            i += 1 + len(m.group(0))
    return out.decode('utf-8', errors='replace')


def parse_value(text):
    if text.startswith('"'):
        return unescape(text)
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text  # an enum name


def packets(lines, unknown):
    """Yields each top-level `packet` as nested dicts {field: [values]}.
    Bare-number fields are reported through `unknown(packet index, field path)`."""
    stack, index = [], 0
    for line in lines:
        line = line.rstrip('\n')
        if line.strip() == '}':
            node = stack.pop()[1]
            if not stack:
                yield node
                index += 1
            continue
        m = LINE_RE.match(line)
        if not m:
            raise ValueError('unexpected protoc output line: %r' % line)
        key, value = m.group(1), m.group(2)
        if key.isdigit():
            unknown(index, '.'.join([k for k, _ in stack[1:]] + [key]))
        if value is None:
            node = collections.defaultdict(list)
            if stack:
                stack[-1][1][key].append(node)
            stack.append((key, node))
        elif stack:
            stack[-1][1][key].append(parse_value(value))
        # else: a scalar at Trace level, i.e. not a packet; already reported.


def one(node, key, default=None):
    values = node.get(key) if node is not None else None
    return values[0] if values else default


def check(text_lines, report):
    """Runs every check on protoc's text output; returns summary counts."""
    tracks = {}      # uuid -> (name, is_counter)
    siblings = {}    # (parent, name) -> uuid
    seq_seen = set()
    events = []      # (ts, packet index, type, uuid, name, flows, terms)
    n = -1
    unknown = lambda n, path: report(f'packet #{n}: unknown field {path} (not in the schema subset, '
                                     'or sent with the wrong wire type)')
    for n, p in enumerate(packets(text_lines, unknown)):
        seq = one(p, 'trusted_packet_sequence_id', 0)
        if seq == 0:
            report(f'packet #{n}: no trusted_packet_sequence_id (trace_processor drops its events)')
        elif seq not in seq_seen:
            seq_seen.add(seq)
            if not (one(p, 'sequence_flags', 0) & 1 or one(p, 'incremental_state_cleared') == 'true'):
                report(f'packet #{n}: first packet of sequence {seq} lacks SEQ_INCREMENTAL_STATE_CLEARED')
        desc, ev = one(p, 'track_descriptor'), one(p, 'track_event')
        if desc is not None:
            uuid, parent, name = one(desc, 'uuid', 0), one(desc, 'parent_uuid', 0), one(desc, 'name', '')
            where = f"packet #{n}: track {uuid} '{name}'"
            if uuid == 0:
                report(f'{where}: uuid must be non-zero')
            elif uuid in tracks:
                report(f'{where}: uuid already declared (descriptors must be emitted once)')
            if parent != 0 and parent not in tracks:
                report(f'{where}: parent_uuid {parent} is not declared by an earlier descriptor')
            elif parent != 0 and tracks[parent][1]:
                report(f'{where}: parent_uuid {parent} is a counter track')
            if (parent, name) in siblings and 'sibling_merge_behavior' not in desc:
                report(f'{where}: sibling of track {siblings[(parent, name)]} with the same name '
                       '(the UI merges them)')
            siblings.setdefault((parent, name), uuid)
            if uuid != 0:
                tracks.setdefault(uuid, (name, 'counter' in desc))
        if ev is None:
            continue
        etype, uuid, ts = one(ev, 'type', 'TYPE_UNSPECIFIED'), one(ev, 'track_uuid', 0), one(p, 'timestamp')
        where = f'packet #{n}: {etype} at ts {ts} on track {uuid}'
        if ts is None:
            report(f'{where}: no timestamp')
            continue
        if uuid not in tracks:
            report(f'{where}: track is not declared by an earlier descriptor')
            continue
        name, is_counter = tracks[uuid]
        where += f" '{name}'"
        if etype == 'TYPE_COUNTER':
            if not is_counter:
                report(f'{where}: counter value on a non-counter track')
            if 'counter_value' not in ev and 'double_counter_value' not in ev:
                report(f'{where}: counter event without a value')
        elif etype in SLICE_TYPES:
            if is_counter:
                report(f'{where}: slice event on a counter track')
                continue
            events.append((ts, n, etype, uuid, one(ev, 'name', ''), ev.get('flow_ids', []),
                           ev.get('terminating_flow_ids', [])))
        else:
            report(f'{where}: unsupported event type')
    return n + 1, len(tracks), replay(events, tracks, report)


def replay(events, tracks, report):
    """Replays slice events in trace_processor's order; checks nesting and flows."""
    events.sort(key=lambda e: (e[0], e[1]))  # stable: equal ts keep file order
    open_slices = collections.defaultdict(list)  # uuid -> [(start ts, name, packet)]
    origins, terms = collections.defaultdict(list), collections.defaultdict(list)
    slices = 0
    for ts, n, etype, uuid, name, flows, terminating in events:
        start = ts
        if etype == 'TYPE_SLICE_BEGIN':
            open_slices[uuid].append((ts, name, n))
            slices += 1
        elif etype == 'TYPE_SLICE_END':
            if not open_slices[uuid]:
                report(f"packet #{n}: SLICE_END at ts {ts} on track {uuid} '{tracks[uuid][0]}' "
                       'has no open slice')
                continue
            start = open_slices[uuid].pop()[0]
        else:
            slices += 1
        for fid in flows:
            origins[fid].append((ts, n, start))
        for fid in terminating:
            terms[fid].append((ts, n, start))
    for uuid, stack in open_slices.items():
        for start, name, n in stack:
            report(f"packet #{n}: slice '{name}' begun at ts {start} on track {uuid} "
                   f"'{tracks[uuid][0]}' never ends")
    good_flows = 0
    for fid in sorted(set(origins) | set(terms)):
        outs, ins = origins.get(fid, []), terms.get(fid, [])
        for verb, ends in (('originates', outs), ('terminates', ins)):
            if len(ends) != 1:
                at = ''.join(f'{" at" if i == 0 else ","} packet #{e[1]}' for i, e in enumerate(ends))
                report(f'flow id {fid}: {verb} {len(ends)} times (must be once){at}')
        if len(outs) != 1 or len(ins) != 1:
            continue
        (o_ts, o_n, o_start), (t_ts, t_n, t_start) = outs[0], ins[0]
        if o_n == t_n:
            report(f'flow id {fid}: originates and terminates on the same event (packet #{o_n})')
        elif (t_ts, t_n) < (o_ts, o_n):
            report(f'flow id {fid}: terminator (packet #{t_n}, ts {t_ts}) is replayed before its '
                   f'origin (packet #{o_n}, ts {o_ts}); trace_processor drops it (backward flow)')
        elif t_start < o_start:
            report(f'flow id {fid}: terminating slice starts at {t_start}, before the originating '
                   f'slice at {o_start}; the arrow would point backwards (backward flow)')
        else:
            good_flows += 1
    return slices, good_flows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('--proto', default=os.path.join(here, '..', 'proto', 'perfetto_trace_subset.proto'))
    ap.add_argument('--protoc', default=shutil.which('protoc') or '/usr/bin/protoc')
    ap.add_argument('--max-errors', type=int, default=200, help='0 = print all')
    args = ap.parse_args()
    errors = []

    def report(message):
        errors.append(message)
        if not args.max_errors or len(errors) <= args.max_errors:
            print(f'check_trace: {args.trace}: {message}')

    proto = os.path.abspath(args.proto)
    cmd = [args.protoc, '--decode=perfetto.protos.Trace', '-I', os.path.dirname(proto), proto]
    summary = None
    try:
        with open(args.trace, 'rb') as stdin:
            proc = subprocess.Popen(cmd, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
    except OSError as e:  # missing trace file or protoc
        report(f'cannot run protoc on the trace: {e}')
    else:
        try:
            summary = check(proc.stdout, report)
        except ValueError as e:  # protoc printed something this parser does not know
            report(str(e))
            for _ in proc.stdout:  # drain, so protoc can exit
                pass
        stderr = proc.stderr.read()
        if proc.wait() != 0:
            last = (stderr.strip().splitlines() or ['no message'])[-1]
            report(f'protoc could not decode the trace (rc {proc.returncode}): {last}')
    if errors:
        print(f'check_trace: {args.trace}: FAILED with {len(errors)} violation(s)')
        return 1
    print(f'check_trace: {args.trace}: ok: {summary[0]} packets, {summary[1]} tracks, '
          f'{summary[2][0]} slices, {summary[2][1]} flows')
    return 0


if __name__ == '__main__':
    sys.exit(main())
