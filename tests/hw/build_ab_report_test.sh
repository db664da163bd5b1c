#!/usr/bin/env bash
# build_ab_report_test.sh README: for every A/B run of two gemm_bench builds
# (docs/results/*_ab_????????_????-??-??.csv with a build column, from
# hw/h200/run_build_ab.sh), the line hw/h200/build_ab_report.py derives from
# it appears verbatim in docs/hardware.md, so the quoted ratios cannot drift
# from the data; and a doctored CSV (one new row 3x slower) is caught.
set -euo pipefail
root=$(dirname "$(realpath "$1")")
cd "$root"
fail() { echo "FAIL: $*" >&2; exit 1; }
shopt -s nullglob
runs=()
for f in docs/results/*_ab_????????_????-??-??.csv; do
  grep -q "^build,round," "$f" && runs+=("$f")
done
[ ${#runs[@]} -gt 0 ] || fail "no docs/results/*_ab_*.csv of run_build_ab.sh"
for run in "${runs[@]}"; do
  line=$(python3 hw/h200/build_ab_report.py "$run")
  grep -qF -- "$line" docs/hardware.md || fail "not in docs/hardware.md: $line"
done
# The check can fail: the first new row 3x slower changes a quoted figure
# (the copy keeps the original's name, so only its numbers differ).
d=${TEST_TMPDIR:-$(mktemp -d)}/doctored
mkdir -p "$d"
t="$d/$(basename "${runs[0]}")"
awk -F, -v OFS=, 'BEGIN { done = 0 } $1 == "build" { for (i = 1; i <= NF; i++) if ($i == "ours_us") c = i }
  !done && $1 == "new" && c { $c = $c * 3; done = 1 } { print }' "${runs[0]}" > "$t"
cmp -s "$t" "${runs[0]}" && fail "the doctored copy is unchanged"
line=$(python3 hw/h200/build_ab_report.py "$t")
if grep -qF -- "$line" docs/hardware.md; then fail "a doctored CSV passed"; fi
echo PASS
