#!/usr/bin/env bash
# build_ab_report_test.sh README: for every A/B run of two gemm_bench builds
# (docs/results/*_ab_????????_????-??-??.csv with a build column, from
# hw/h200/run_build_ab.sh), the line hw/h200/build_ab_report.py derives from
# it appears verbatim in docs/hardware.md, so the quoted ratios cannot drift
# from the data (a run of more builds, MORE's: also each further build X's
# lines against old and new, --pair old,X and --pair X,new); runs of one
# build under several tile shapes (docs/results/*_best_????????_????-??-??.csv,
# gemm_bench --tile-m through wrappers) likewise with --best, which compares
# each shape's best only; and a doctored CSV (one new row 3x slower) is caught.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
runs=()
for f in docs/results/*_ab_????????_????-??-??.csv; do
  grep -q "^build,round," "$f" && runs+=("$f")
done
[ ${#runs[@]} -gt 0 ] || fail "no docs/results/*_ab_*.csv of run_build_ab.sh"
for run in "${runs[@]}"; do
  python3 hw/h200/build_ab_report.py "$run" | all_quoted || fail "$run: its line is not quoted"
  for x in $(grep -v '^#' "$run" | cut -d, -f1 | sort -u | grep -vx 'build\|old\|new'); do
    for pair in "old,$x" "$x,new"; do
      python3 hw/h200/build_ab_report.py "$run" --pair "$pair" | all_quoted ||
        fail "$run: its line for --pair $pair is not quoted"
    done
  done
done
for run in docs/results/*_best_????????_????-??-??.csv; do
  [ -e "$run" ] || continue
  python3 hw/h200/build_ab_report.py --best "$run" | all_quoted || fail "$run: its --best line is not quoted"
  for x in $(grep -v '^#' "$run" | cut -d, -f1 | sort -u | grep -vx 'build\|old\|new'); do
    for pair in "old,$x" "$x,new"; do
      python3 hw/h200/build_ab_report.py --best "$run" --pair "$pair" | all_quoted ||
        fail "$run: its --best line for --pair $pair is not quoted"
    done
  done
done
# The check can fail: the first new row 3x slower changes a quoted figure
# (the copy keeps the original's name, so only its numbers differ).
d=$(scratch)/doctored
mkdir -p "$d"
t="$d/$(basename "${runs[0]}")"
awk -F, -v OFS=, 'BEGIN { done = 0 } $1 == "build" { for (i = 1; i <= NF; i++) if ($i == "ours_us") c = i }
  !done && $1 == "new" && c { $c = $c * 3; done = 1 } { print }' "${runs[0]}" > "$t"
cmp -s "$t" "${runs[0]}" && fail "the doctored copy is unchanged"
if python3 hw/h200/build_ab_report.py "$t" | all_quoted >/dev/null; then fail "a doctored CSV passed"; fi
echo PASS
