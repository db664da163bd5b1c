#!/usr/bin/env python3
"""shape_set.py: the broad shape set on which the SM90 model is judged.

    python3 hw/h200/shape_set.py list            # shape,source,split per line
    python3 hw/h200/shape_set.py args            # "M N K" per line, for run_shapes.sh

Two parts, both fixed by what is committed here (the seed and the tables), so
the set and its split never depend on a measurement:
- RANDOM_COUNT shapes drawn log-uniformly: M, N and K each uniform in
  log2 over [256, 16384], rounded to a multiple of 64;
- the linear layers an LLM user tunes for: the fused QKV, attention output,
  fused gate/up and down projections of a 7B model (Llama-2-7B: hidden 4096,
  intermediate 11008, 32 heads, no grouped KV) and a 70B model (Llama-2-70B:
  hidden 8192, intermediate 28672, 64 query and 8 KV heads of 128), each at
  1, 128 and 4096 tokens. D = X W^T: M is the tokens, K the layer's input
  features, N its outputs; X is K-contiguous and so is W (the kernel's default
  layouts).
Every shape is 'calibration' or 'held_out', drawn with SPLIT_SEED before any
fitting: exactly half of each part is held out (the odd one of an odd count
goes to held_out). Parameters may be fitted only on calibration shapes; the
errors the docs report are those of the held-out shapes.
"""
import math
import random
import sys
import script_main

SHAPE_SEED = 20261126
SPLIT_SEED = 31
RANDOM_COUNT = 64
LOW, HIGH, MULTIPLE = 256, 16384, 64

# (model, layer, N, K) of D[M x N] = X[M x K] W^T.
LLM_LAYERS = [
    ('7b', 'qkv', 3 * 4096, 4096),
    ('7b', 'out', 4096, 4096),
    ('7b', 'gate_up', 2 * 11008, 4096),
    ('7b', 'down', 4096, 11008),
    ('70b', 'qkv', 8192 + 2 * 8 * 128, 8192),
    ('70b', 'out', 8192, 8192),
    ('70b', 'gate_up', 2 * 28672, 8192),
    ('70b', 'down', 8192, 28672),
]
LLM_TOKENS = [1, 128, 4096]


def random_shapes():
    rng = random.Random(SHAPE_SEED)
    lo, hi = math.log2(LOW), math.log2(HIGH)

    def dim():
        v = 2 ** rng.uniform(lo, hi)
        return min(HIGH, max(LOW, MULTIPLE * round(v / MULTIPLE)))

    shapes = []
    while len(shapes) < RANDOM_COUNT:
        s = (dim(), dim(), dim())
        if s not in shapes:
            shapes.append(s)
    return [(s, 'random') for s in shapes]


def llm_shapes():
    return [((t, n, k), f'llm_{model}_{layer}_t{t}')
            for model, layer, n, k in LLM_LAYERS for t in LLM_TOKENS]


def split(part):
    """Half of `part` held out, chosen by SPLIT_SEED (the odd one held out)."""
    rng = random.Random(f'{SPLIT_SEED}:{part[0][1] if part else ""}:{len(part)}')
    order = list(range(len(part)))
    rng.shuffle(order)
    held = set(order[:(len(part) + 1) // 2])
    return [(s, src, 'held_out' if i in held else 'calibration') for i, (s, src) in enumerate(part)]


def shape_set():
    """[(shape 'MxNxK', source, split)] in a fixed order: random, then LLM."""
    rows = split(random_shapes()) + split(llm_shapes())
    return [('x'.join(map(str, s)), src, sp) for s, src, sp in rows]


def splits():
    """{shape: split} of the set."""
    return {s: sp for s, _, sp in shape_set()}


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else 'list'
    if what == 'list':
        print('shape,source,split')
        for s, src, sp in shape_set():
            print(f'{s},{src},{sp}')
    elif what == 'args':
        for s, _, _ in shape_set():
            print(s.replace('x', ' '))
    else:
        raise script_main.BadInput(f'unknown command {what!r} (list or args)')


if __name__ == '__main__':
    script_main.run('shape_set.py', main)
