#!/usr/bin/env bash
# cublas_report_test.sh README: every line hw/h200/cublas_report.py prints for
# the runs docs/hardware.md quotes (our best configuration per shape against
# cuBLAS, "The shape set with every lever") appears there verbatim, so the
# quoted ratios cannot drift from the committed CSVs; and a doctored run (one
# shape's times tripled) is caught, so the check can fail.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
cd docs/results
report() { python3 "$root/hw/h200/cublas_report.py" "$@"; }
quoted() { report "$@" | all_quoted; }  # every line of the report
best_quoted() { report "$@" | tail -n 1 | all_quoted; }  # its last line: each shape's best run
runs=(h100_shapes_split_de444f15_2026-12-05.csv h100_shapes_split_tma_epilogue_de444f15_2026-12-05.csv)
quoted "${runs[@]}" || fail "the shape set with the split"
quoted "${runs[@]}" --no-split || fail "the shape set without the split"
clusters=h100_shapes_under_095_clusters_de444f15_2026-12-05.csv
tile192=h100_shapes_under_095_tile192_61bd4690_2026-12-05.csv
best_quoted "${runs[@]}" "$clusters" || fail "best of 3 runs"
best_quoted "${runs[@]}" "$clusters" "$tile192" || fail "best of 4 runs"
quoted h100_shapes_split_f56b05dd_2026-12-05.csv || fail "the second board's run"
quoted h100_shapes_065a1e3c_2026-12-05.csv h100_shapes_tma_epilogue_065a1e3c_2026-12-05.csv ||
  fail "the fourth board's runs"
quoted h100_shapes_7eaaef49_2026-12-05.csv h100_shapes_tma_epilogue_7eaaef49_2026-12-05.csv ||
  fail "the fifth board's runs"
sixth=(h100_shapes_2842328c_2026-12-06.csv h100_shapes_tma_epilogue_2842328c_2026-12-06.csv)
quoted "${sixth[@]}" || fail "the sixth board's runs"
best_quoted "${sixth[@]}" h100_tile_group_losers_2842328c_2026-12-06.csv ||
  fail "the sixth board with the tile groups"
quoted h100_shapes_tma_epilogue_tile_group_auto_2f4342f5_2026-12-06.csv \
  h100_shapes_pingpong_tma_epilogue_2f4342f5_2026-12-06.csv || fail "both schedules, fenced"
few=h100_split3_few_tile_e93398f6_2026-12-06.csv
quoted "$few" --splits 1,2,4 --shapes || fail "the few-tile shapes without the split over 3"
quoted "$few" --shapes || fail "the few-tile shapes with the split over 3"
both=(h100_shapes_tma_epilogue_tile_group_auto_split3_e93398f6_2026-12-06.csv
  h100_shapes_pingpong_tma_epilogue_e93398f6_2026-12-06.csv)
quoted "${both[@]}" || fail "both schedules with the split over 3"
best_quoted "${both[@]}" --splits 1,2,4 || fail "both schedules without the split over 3"
edge=(h100_shapes_tma_epilogue_tile_group_auto_edge_64bcc282_2026-12-06.csv
  h100_shapes_pingpong_tma_epilogue_edge_64bcc282_2026-12-06.csv)
quoted "${edge[@]}" || fail "both schedules with the edge box"
best_quoted "${edge[@]}" --splits 1,2,4 || fail "both schedules with the edge box, without S = 3"
tail=h100_split_tail_9cc67d4d_2026-12-06.csv
quoted "$tail" --splits 1 || fail "the last-wave shapes without the tail split"
quoted "$tail" || fail "the last-wave shapes with the tail split"
slots=(h100_shapes_tma_epilogue_tile_group_auto_slots_9cc67d4d_2026-12-06.csv
  h100_shapes_pingpong_tma_epilogue_slots_9cc67d4d_2026-12-06.csv)
quoted "${slots[@]}" || fail "both schedules with slots by the split"
best_quoted "${slots[@]}" --splits 1,2,4 || fail "both schedules with slots by the split, without S = 3, 8"
quoted h200_shapes_01a93a03_2026-12-06.csv || fail "the second H200's run"
# The check can fail: one shape's times tripled in a copy of a run.
t=$(scratch)
python3 - "${runs[1]}" "$t/${runs[1]}" <<'PY'
import sys
out = []
for line in open(sys.argv[1]):
    f = line.rstrip('\n').split(',')
    if not line.startswith('#') and len(f) > 4 and f[1].startswith('7360x576x3584') and f[9] == 'ok':
        f[4] = f'{float(f[4]) * 3:.2f}'
    out.append(','.join(f) + '\n')
open(sys.argv[2], 'w').writelines(out)
PY
if quoted "${runs[0]}" "$t/${runs[1]}" >/dev/null; then fail "a doctored run passed"; fi
echo PASS
