#!/usr/bin/env python3
"""ptx_entry_check.py: fixed strings present in, or absent from, chosen kernels of a PTX file.

  ptx_entry_check.py FILE.ptx --entries REGEX [--min N] [--present S ...] [--absent S ...]

The kernels are the PTX's `.entry` functions whose (mangled) name matches
REGEX (re.search); each one's body runs from its `.entry` line to the next
`.entry` or the end of the file. Every chosen kernel must contain each
--present string and none of the --absent ones, as fixed strings (PTX
mnemonics are full of '.' and '::'). At least N kernels (default 1) must be
chosen, so that a renamed template cannot leave the check with nothing to
look at. On failure each kernel and string at fault is named. Exit 0 on pass,
1 on a failed check, 2 on bad arguments or an unreadable file.
"""
import argparse
import re
import sys


def entries(text):
    """(name, body) of every .entry in the PTX text."""
    starts = [m for m in re.finditer(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([\w$]+)", text, re.M)]
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        yield m.group(1), text[m.start():end]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ptx")
    ap.add_argument("--entries", required=True, help="regex over the .entry names")
    ap.add_argument("--min", type=int, default=1, help="kernels that must match (default 1)")
    ap.add_argument("--present", nargs="*", default=[])
    ap.add_argument("--absent", nargs="*", default=[])
    try:
        args = ap.parse_args(argv)
        pattern = re.compile(args.entries)
    except SystemExit:
        return 2
    except re.error as e:
        print(f"ptx_entry_check: bad --entries regex: {e}", file=sys.stderr)
        return 2
    if not args.present and not args.absent:
        print("ptx_entry_check: give --present or --absent strings", file=sys.stderr)
        return 2
    try:
        with open(args.ptx, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        print(f"ptx_entry_check: cannot read {args.ptx}: {e.strerror}", file=sys.stderr)
        return 2
    chosen = [(n, b) for n, b in entries(text) if pattern.search(n)]
    faults = []
    for name, body in chosen:
        faults += [f"{name}: missing {s!r}" for s in args.present if s not in body]
        faults += [f"{name}: contains {s!r}" for s in args.absent if s in body]
    if len(chosen) < args.min:
        faults.append(f"{len(chosen)} kernel(s) match {args.entries!r}, at least {args.min} wanted")
    if faults:
        print(f"FAIL: {args.ptx}:", file=sys.stderr)
        for f in faults:
            print(f"  {f}", file=sys.stderr)
        return 1
    print(f"PASS: {len(chosen)} kernel(s) matching {args.entries!r}: "
          f"{len(args.present)} string(s) present, {len(args.absent)} absent in each")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
