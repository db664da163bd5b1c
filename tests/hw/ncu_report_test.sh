#!/usr/bin/env bash
# ncu_report_test.sh README: for every model-against-Nsight-Compute CSV in
# docs/results (*_ncu_*_model_*.csv, hw/h200/ncu_report.py predict), every
# summary line hw/h200/ncu_report.py derives from it appears verbatim in
# docs/hardware.md, so the DRAM figures quoted cannot drift from the data; a
# doctored CSV (one row's model reads tripled) is caught.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
csvs=(docs/results/*_ncu_*_model_*.csv)
[ ${#csvs[@]} -gt 0 ] || fail "no docs/results/*_ncu_*_model_*.csv"
check_docs() { python3 hw/h200/ncu_report.py summary "$1" | all_quoted; }
for csv in "${csvs[@]}"; do
  check_docs "$csv" || fail "$csv: docs/hardware.md does not quote its figures"
done
t=$(scratch)/doctored.csv
python3 tests/hw/doctor_csv.py "${csvs[0]}" "$t" model_reads
if check_docs "$t" >/dev/null; then fail "a doctored CSV passed"; fi
echo "PASS: ${#csvs[@]} CSV(s)"
