#!/bin/bash
# run_decode_ab.sh: run_build_ab.sh on the shapes whose A is shorter than one
# tile (the shape set's decode projections, M = 1, and 1x8192x8192 again at
# M = 16, 64 and 100), every configuration and, on shapes of fewer 128x128
# tiles than SMs, the K split (1, 2, 4, 8).
#   GEMM_BENCH=...     the build under test (else one is built here)
#   GEMM_BENCH_OLD=... the build to compare with (required: e.g. nvcc of
#                      hw/h200/gemm_bench.cu in `git archive <commit>`'s tree)
#   ROUNDS=2 RUNS=10   rounds, and timed launches per configuration
# Output: decode_ab.csv in $OUT (or /tmp): build (old/new), round, then
# gemm_bench's columns; the board on the first line as a comment. A build
# from before 2026-12-05's 128x192 in --all runs fewer configurations than
# one after it: compare the builds on the configurations both ran.
cd "$(dirname "$0")/../.."
SHAPES="$(python3 hw/h200/shape_set.py args | awk '$1 < 128'; printf '%s\n' "16 8192 8192" "64 8192 8192" "100 8192 8192")"
SHAPES="${SHAPES//$'\n'/;}" NAME=decode_ab SPLITS=1,2,4,8 SPLIT_TILES=132 ARGS= exec hw/h200/run_build_ab.sh
