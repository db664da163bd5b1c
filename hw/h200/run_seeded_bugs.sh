#!/bin/bash
# run_seeded_bugs.sh: every SM90 seeded bug on the GPU, plain and under
# compute-sanitizer's racecheck, synccheck, initcheck and memcheck. Prints one
# line per run: bug,tool,outcome,sanitizer_errors (outcome: ok, mismatch,
# error, or hang when the run outlived its timeout).
set -uo pipefail
cd "$(dirname "$0")/../.."
bin=/tmp/seeded_bugs
nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/seeded_bugs.cu -lcuda -o "$bin" || exit 2
echo "bug,tool,outcome,sanitizer_errors"
for bug in fixed early_release no_full_wait expect_tx_low expect_tx_high parity_fixed \
           empty_count_low store_unbounded empty_not_initialised; do
  for tool in none racecheck synccheck initcheck memcheck; do
    if [ "$tool" = none ]; then
      out=$(timeout 15 "$bin" --bug "$bug" 2>&1); rc=$?
    else
      out=$(timeout 25 compute-sanitizer --tool "$tool" "$bin" --bug "$bug" 2>&1); rc=$?
    fi
    outcome=$(echo "$out" | sed -n "s/^result $bug \([a-z]*\).*/\1/p" | head -1)
    [ "$rc" -eq 124 ] && outcome=hang
    [ -z "$outcome" ] && outcome="exit$rc"
    errors=$(echo "$out" | grep -oE "(ERROR SUMMARY: [0-9]+ error|RACECHECK SUMMARY: [0-9]+ hazard)" | grep -oE "[0-9]+" | head -1)
    echo "$bug,$tool,$outcome,${errors:--}"
    if [ -n "${OUT:-}" ]; then printf '== %s %s\n%s\n' "$bug" "$tool" "$out" >>"$OUT/seeded_bugs.log"; fi
  done
done
