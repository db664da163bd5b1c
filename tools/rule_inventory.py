#!/usr/bin/env python3
"""rule_inventory.py: checks docs/verify.md's rule inventory against the code and the tests.

The inventory (the section "## Rule inventory" of docs/verify.md) is a set of
markdown tables, one row per hardware rule:

    | rule (ISA section) | reported as | checked by | status |

"reported as" holds the finding rule names in backticks (`tmem.leak`), or
nothing for a rule the model does not check; "checked by" holds the test
files in backticks (`tests/model/tmem_test.cc`, `verify/corpus/BUILD`).

Fails (exit 1, one line per problem) when
  1. a rule name the code emits is missing from the inventory;
  2. a row names a test file that does not exist or does not mention one of
     the row's rule names;
  3. the inventory names a rule the code no longer emits;
  4. a row with a rule name names no test and its status does not say
     "no test".

Rule names emitted by the code are the string literals of the form
"prefix.name" in the C++ sources of the packages that report findings
(models, engine, verify, kernels, runner), except tests, the corpus's case
names and the operation names below, which appear in messages and observer
keys but are never a finding's rule.

Usage: rule_inventory.py [--root DIR] [--list]
"""
import argparse
import os
import re
import sys

SOURCE_DIRS = ["models", "engine", "verify", "kernels", "runner"]
DOC = "docs/verify.md"
SECTION = "## Rule inventory"

# Dotted literals that name an operation, a barrier or a family, not a rule.
NOT_RULES = {
    "bar.sync", "clc.response", "clc.consumed", "clc.try_cancel", "clusterlaunchcontrol.try_cancel",
    "family.conv2d", "input.empty", "input.full", "ld.shared", "st.global", "st.shared",
    "mbarrier.arrive", "mbarrier.expect_tx", "mbarrier.init", "mbarrier.inval", "split_k.free",
    "split_k.full",
    "tcgen05.alloc", "tcgen05.commit", "tcgen05.dealloc", "tcgen05.ld", "tcgen05.mma",
    "tcgen05.relinquish_alloc_permit", "tcgen05.st", "tma.load", "wgmma.fence", "wgmma.wait_group",
}
NOT_RULE_PREFIXES = ("corpus",)  # case names: corpus.fixed, corpus_amd.pingpong, ...

LITERAL = re.compile(r'"([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)"')
RULE = re.compile(r"`([a-z][a-z0-9_]*\.[a-z][a-z0-9_]*)`")
PATH = re.compile(r"`([A-Za-z0-9_./-]+/(?:[A-Za-z0-9_.-]+\.(?:cc|h|sh|py|bzl)|BUILD))`")


def emitted_rules(root):
    """{rule: [file, ...]} of the dotted literals in the reporting packages."""
    found = {}
    for top in SOURCE_DIRS:
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            rel_dir = os.path.relpath(dirpath, root)
            for name in sorted(files):
                if not name.endswith((".cc", ".h")) or name.endswith("_test.cc"):
                    continue
                rel = os.path.join(rel_dir, name)
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for lit in LITERAL.findall(text):
                    if lit in NOT_RULES or lit.split(".")[0].startswith(NOT_RULE_PREFIXES):
                        continue
                    found.setdefault(lit, []).append(rel)
    return found


def inventory_rows(root):
    """[(line number, rules, tests, status)] of the inventory's table rows."""
    path = os.path.join(root, DOC)
    if not os.path.exists(path):
        return None
    rows, inside = [], False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("## "):
                inside = line.strip() == SECTION
                continue
            if not inside or not line.startswith("|") or line.startswith("|---"):
                continue
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) < 4 or cells[0].lower().startswith("rule"):
                continue  # a header row
            rules = RULE.findall(cells[1])
            tests = PATH.findall(cells[2])
            rows.append((n, rules, tests, cells[3]))
    return rows


def check(root):
    problems = []
    rows = inventory_rows(root)
    if rows is None:
        return [f"{DOC}: missing"], {}, []
    if not rows:
        return [f"{DOC}: no '{SECTION}' section with table rows"], {}, []
    code = emitted_rules(root)
    listed = {}
    for n, rules, tests, status in rows:
        for r in rules:
            listed.setdefault(r, n)
        for t in tests:
            p = os.path.join(root, t)
            if not os.path.isfile(p):
                problems.append(f"{DOC}:{n}: names {t}, which does not exist")
                continue
            with open(p, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for r in rules:
                if r not in text:
                    problems.append(f"{DOC}:{n}: names {t} as a test of {r}, but {t} does not "
                                    f"mention {r}")
        if rules and not tests and "no test" not in status.lower():
            problems.append(f"{DOC}:{n}: {', '.join(rules)} names no test and its status does not "
                            f"say 'no test'")
    for r in sorted(code):
        if r not in listed:
            problems.append(f"{code[r][0]}: emits {r}, which is missing from the rule inventory "
                            f"in {DOC} (or, if it is not a rule, from NOT_RULES in "
                            f"tools/rule_inventory.py)")
    for r, n in sorted(listed.items(), key=lambda x: x[1]):
        if r not in code:
            problems.append(f"{DOC}:{n}: lists {r}, which no source in "
                            f"{', '.join(SOURCE_DIRS)} emits any more")
    return problems, code, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--list", action="store_true", help="print the counts of the inventory")
    args = ap.parse_args()
    if not os.path.isdir(args.root):
        print(f"rule_inventory.py: no directory {args.root}", file=sys.stderr)
        return 2
    problems, code, rows = check(args.root)
    for p in problems:
        print(p)
    if args.list and rows:
        checked = sum(1 for _, r, t, _ in rows if r and t)
        untested = sum(1 for _, r, t, _ in rows if r and not t)
        unchecked = sum(1 for _, r, _, _ in rows if not r)
        print(f"{len(rows)} rows: {checked} checked by a named test, {untested} reported but "
              f"without a test, {unchecked} not reported (out of scope or gap); "
              f"{len(code)} rule names emitted")
    if problems:
        print(f"rule_inventory.py: {len(problems)} problem(s); the inventory is the section "
              f"'{SECTION}' of {DOC}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
