#!/usr/bin/env bash
# shape_report_test.sh README: for every model-against-measurement CSV of the
# shape set in docs/results (*_shapes_model_*.csv), (1) each row's split is the
# one hw/h200/shape_set.py draws from its committed seed, so no row was moved
# between calibration and held-out after the fact; (2) every summary line
# hw/h200/shape_report.py derives from the CSV appears verbatim in
# docs/hardware.md, so the quoted errors cannot drift from the data; and a
# doctored CSV (one prediction changed) is caught by (2). The same for the
# unseen shapes' CSVs (*_walk_model_*.csv).
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
csvs=(docs/results/*_shapes_model_*.csv)
[ ${#csvs[@]} -gt 0 ] || fail "no docs/results/*_shapes_model_*.csv"
splits=$(python3 hw/h200/shape_set.py list | tail -n +2 | cut -d, -f1,3 | sort)
check_docs() { python3 hw/h200/shape_report.py summary "$1" | all_quoted; }
for csv in "${csvs[@]}"; do
  have=$(python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])): print(r["shape"] + "," + r["split"])' "$csv" | sort -u)
  extra=$(comm -13 <(echo "$splits") <(echo "$have"))
  [ -z "$extra" ] || fail "$csv: shapes or splits not drawn by shape_set.py: $extra"
  check_docs "$csv" || fail "$csv: docs/hardware.md does not quote its figures"
done
# Shapes measured after the fits (*_walk_model_*.csv, shape_report.py predict
# --unseen): those of the set keep its split, every other one is held out.
for csv in docs/results/*_walk_model_*.csv; do
  python3 - "$csv" "$splits" <<'PY' || fail "$csv: a split differs from shape_set.py or an unseen shape is not held out"
import csv, sys
drawn = dict(l.split(',') for l in sys.argv[2].split())
for r in csv.DictReader(open(sys.argv[1])):
    assert r['split'] == drawn.get(r['shape'], 'held_out'), r['shape']
PY
  check_docs "$csv" || fail "$csv: docs/hardware.md does not quote its figures"
done
# The check can fail: one prediction 10 % off changes a quoted figure.
t=$(scratch)/doctored.csv
python3 tests/hw/doctor_csv.py "${csvs[0]}" "$t" predicted_us split=held_out
if check_docs "$t" >/dev/null; then fail "a doctored CSV passed"; fi
# The reports predict each row as one of gemm_bench's input-set rotation:
# min(8, ceil(192 MB / the set's bytes)) sets (hw/h200/gemm_bench.cu).
python3 - <<'PY' || fail "sweep_report.bench_input_sets differs from gemm_bench's rotation"
import sys
sys.path.insert(0, 'hw/h200')
from sweep_report import bench_input_sets as sets
assert sets(512, 512, 384) == 8            # 0.8 MB a set
assert sets(4096, 4096, 1920) == 7         # 31.5 MB
assert sets(8192, 8192, 6144) == 1         # 201 MB
assert sets(512, 512, 384, batch=300) == 1
PY
echo "PASS: ${#csvs[@]} CSV(s)"
