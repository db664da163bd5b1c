#!/usr/bin/env python3
"""layering.py: checks that the top-level packages depend on each other one way.

The layers, lowest first (docs/architecture.md draws them). A package may use
only packages of a strictly lower layer; packages of one layer do not use each
other. "Use" is an #include of a path under the other package, or a Bazel label
//pkg... in a BUILD file. Two rules inside kernels/ keep the one-source rule:

  * only the model bindings (kernels/arch/**/model/) reach the engine and the
    models; the rest of kernels/ builds for hardware and knows neither;
  * kernel logic (kernels/ outside kernels/arch/ and kernels/core/platform.h)
    has no preprocessor conditionals: the platform is chosen in kernels/arch/.

Usage: layering.py [--root DIR] [--graph]
  Prints one line per violation (file:line: what) and exits 1 if there is any,
  0 if none; --graph prints the package graph with include counts instead.
"""
import argparse
import collections
import os
import re
import sys

# Lowest layer first. A new top-level package must be placed here.
LAYERS = [
    ("third_party", "tools"),          # system libraries; build rules and scripts
    ("isa", "engine"),                 # ISA value types; the discrete-event engine
    ("models",),                       # hardware semantics and timing
    ("kernels", "traces"),             # kernel components; the Perfetto writer
    ("runner",),                       # launch, check and summarise a family's run
    ("verify",),                       # exploration, race and deadlock detection
    ("sim",),                          # the command line
    ("examples", "hw", "fuzz"),        # a user kernel, hardware runs, fuzzers
    ("tests", "docs"),                 # suites over everything (the fuzz dictionary too)
]
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}

SOURCE_EXT = (".h", ".hpp", ".cc", ".cpp", ".cu", ".cuh", ".hip", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
LABEL = re.compile(r'"//([A-Za-z0-9_.\-]+)')
TARGET = re.compile(r'\s*name\s*=\s*"([^"]+)"')
CONDITIONAL = re.compile(r"^\s*#\s*(if|ifdef|ifndef|elif)\b")
SKIP_DIRS = {".git", "node_modules"}


def packages(root):
    return sorted(d for d in os.listdir(root)
                  if os.path.isdir(os.path.join(root, d))
                  and not d.startswith((".", "bazel-")))


def files_of(root, pkg):
    for dirpath, dirnames, filenames in os.walk(os.path.join(root, pkg)):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def uses(path, tops):
    """(line number, used package, path used, BUILD target or None) for each
    include or label in path."""
    name = os.path.basename(path)
    is_build = name in ("BUILD", "BUILD.bazel")
    if not (is_build or path.endswith(SOURCE_EXT)):
        return
    target = None
    with open(path, errors="replace") as f:
        for n, line in enumerate(f, 1):
            if is_build:
                m = TARGET.match(line)
                if m:
                    target = m.group(1)
                for m in LABEL.finditer(line):
                    if m.group(1) != "visibility":
                        yield n, m.group(1), "//" + m.group(1), target
            else:
                m = INCLUDE.match(line)
                if m:
                    top = m.group(1).split("/")[0]
                    if top in tops and "/" in m.group(1):
                        yield n, top, m.group(1), None


def kernel_rules(rel, path, used):
    """The one-source rule inside kernels/: which files may use what."""
    problems = []
    parts = rel.split("/")
    is_binding = "arch" in parts and "model" in parts[parts.index("arch"):]
    for n, top, what, target in used:
        # In BUILD files the model build is the targets named for it.
        binding = is_binding or (target is not None and "model" in target)
        if top in ("engine", "models") and not binding:
            problems.append((n, f"uses {what}: only the model bindings "
                                f"(kernels/arch/**/model/) may use the {top}"))
    is_logic = not rel.startswith("kernels/arch/") and \
        rel != "kernels/core/platform.h" and rel.endswith(SOURCE_EXT)
    if is_logic:
        with open(path, errors="replace") as f:
            lines = f.read().split("\n")
        guard = None  # a header's include guard is not a platform switch
        for n, line in enumerate(lines, 1):
            m = CONDITIONAL.match(line)
            if not m:
                continue
            if guard is None and m.group(1) == "ifndef" and \
                    n < len(lines) and re.match(r"\s*#\s*define\b", lines[n]):
                guard = n
                continue
            problems.append((n, "preprocessor conditional in kernel logic: "
                                "choose the platform in kernels/arch/"))
    return problems


def check(root):
    tops = packages(root)
    graph = collections.defaultdict(collections.Counter)
    problems = []
    for pkg in tops:
        if pkg not in RANK:
            problems.append(f"{pkg}/: top-level package missing from the "
                            f"layer table in tools/layering.py")
            continue
        for path in files_of(root, pkg):
            rel = os.path.relpath(path, root)
            used = [u for u in uses(path, tops) if u[1] != pkg]
            for n, top, what, _ in used:
                graph[pkg][top] += 1
                if top not in RANK:
                    continue  # reported once as a missing package
                if RANK[top] >= RANK[pkg]:
                    where = "a higher" if RANK[top] > RANK[pkg] else "the same"
                    problems.append(f"{rel}:{n}: {pkg}/ uses {what}, which is "
                                    f"in {where} layer")
            if pkg == "kernels":
                problems += [f"{rel}:{n}: {msg}"
                             for n, msg in kernel_rules(rel, path, used)]
    return graph, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), ".."))
    ap.add_argument("--graph", action="store_true")
    args = ap.parse_args()
    if not os.path.isdir(args.root):
        print(f"layering.py: no directory {args.root}", file=sys.stderr)
        return 2
    graph, problems = check(args.root)
    if args.graph:
        for layer in reversed(LAYERS):
            for pkg in layer:
                if pkg in graph:
                    out = ", ".join(f"{t} {c}" for t, c in
                                    sorted(graph[pkg].items()))
                    print(f"{pkg:9} -> {out}")
        return 0
    for p in problems:
        print(p)
    if problems:
        print(f"layering.py: {len(problems)} violation(s); the layers are in "
              f"tools/layering.py and docs/architecture.md", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
