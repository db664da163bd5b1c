#!/usr/bin/env python3
"""tile_order_shapes.py: shapes drawn to check the SM90 matmul's automatic
tile order (sm90_auto_tile_group in kernels/matmul/sm90_matmul.h) on work
that did not set it. The rule was read off the 22 shapes of the shape set that
the sixth H100 ran with tile groups 1, 4 and 8 (docs/hardware.md, "The tile
order on the losers"); these are drawn afterwards, with a fixed seed, none of
them from shape_set.py: M log-uniform in [1024, 16384], N in [256, 16384], K in
[256, 8192], multiples of 64, at least 264 tiles of 128x128 (two waves: the
order of one wave's tiles cannot matter) and at most 1.5e11 multiply-adds (the
device's time).

  tile_order_shapes.py          one "M N K" per line
  tile_order_shapes.py shapes   "M N K;M N K;..." (run_tile_group.sh SHAPES=)
"""
import math
import random
import sys

SEED = 20261206
COUNT = 20


def draw(rng, lo, hi):
    return max(64, round(math.exp(rng.uniform(math.log(lo), math.log(hi))) / 64) * 64)


def shapes():
    rng = random.Random(SEED)
    out = []
    while len(out) < COUNT:
        m, n, k = draw(rng, 1024, 16384), draw(rng, 256, 16384), draw(rng, 256, 8192)
        tiles = math.ceil(m / 128) * math.ceil(n / 128)
        if tiles < 264 or m * n * k > 1.5e11:
            continue
        out.append((m, n, k))
    return out


if __name__ == '__main__':
    s = shapes()
    if sys.argv[1:] == ['shapes']:
        print(';'.join(f'{m} {n} {k}' for m, n, k in s))
    else:
        for m, n, k in s:
            print(m, n, k)
