#!/usr/bin/env bash
# cluster_report_test.sh README: for every model-against-measurement CSV of
# the clustered matmul on the H200 (docs/results/h200_cluster_*_model_*.csv,
# beside its measurement, the same name without "_model" and without an
# "_at_DATE" suffix, which a prediction made later than the first carries), the line
# hw/h200/cluster_report.py summary derives from the two appears verbatim in
# docs/hardware.md (after the run's name), so the quoted errors cannot drift
# from the data; and a doctored model CSV (one prediction changed) is caught.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
models=(docs/results/h200_cluster_*_model_*.csv)
[ ${#models[@]} -gt 0 ] || fail "no docs/results/h200_cluster_*_model_*.csv"
quoted() {  # name measured model: the summary line, after the name, is in docs/hardware.md
  local line
  line=$(python3 hw/h200/cluster_report.py summary "$2" "$3") || return 1
  echo "$1: $line" | all_quoted
}
measurement_of() { local m=${1/_model_/_}; echo "${m/_at_*.csv/.csv}"; }
for model in "${models[@]}"; do
  measured=$(measurement_of "$model")
  [ -f "$measured" ] || fail "$model: no measurement $measured"
  name=$(basename "$model"); name=${name%%_model_*}
  quoted "$name" "$measured" "$model" || fail "$model: docs/hardware.md does not quote its figures"
done
# The check can fail: one prediction 3x off changes a quoted figure.
t=$(scratch)/doctored.csv
python3 tests/hw/doctor_csv.py "${models[0]}" "$t" model_us_free
name=$(basename "${models[0]}"); name=${name%%_model_*}
if quoted "$name" "$(measurement_of "${models[0]}")" "$t" >/dev/null; then fail "a doctored CSV passed"; fi
echo PASS
