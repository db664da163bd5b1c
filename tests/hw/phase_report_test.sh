#!/usr/bin/env bash
# phase_report_test.sh README: for every model-against-stamps CSV of the
# matmul's tile phases (docs/results/*_phase_model_*.csv), the lines
# hw/h200/phase_report.py summary derives from it appear verbatim in
# docs/hardware.md, so the quoted phases and errors cannot drift from the
# data; and a doctored CSV (one predicted time changed) is caught.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
models=(docs/results/*_phase_model_*.csv)
[ ${#models[@]} -gt 0 ] || fail "no docs/results/*_phase_model_*.csv"
quoted() { python3 hw/h200/phase_report.py summary "$1" | all_quoted; }
for model in "${models[@]}"; do
  quoted "$model" || fail "$model: docs/hardware.md does not quote its figures"
done
# The check can fail: one prediction 3x off changes a quoted figure.
t=$(scratch)/doctored.csv
python3 tests/hw/doctor_csv.py "${models[0]}" "$t" sim_event_us
if quoted "$t" >/dev/null; then fail "a doctored CSV passed"; fi
echo PASS
