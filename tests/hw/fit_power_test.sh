#!/usr/bin/env bash
# fit_power_test.sh README: for every activity CSV that hw/h200/fit_power.py
# wrote from a board's stamped clocks (docs/results/*_power_activity_*.csv),
# the lines `fit_power.py check` derives from it and the board's committed
# parameter file (h100_*: models/sm90/params_h100.json, else params.json)
# appear verbatim in docs/hardware.md, so the clock errors quoted cannot drift
# from the data or the file; a doctored CSV (one row's measured clock tripled)
# is caught.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
csvs=(docs/results/*_power_activity_*.csv)
[ ${#csvs[@]} -gt 0 ] || fail "no docs/results/*_power_activity_*.csv"
params_of() { case "$(basename "$1")" in h100_*) echo models/sm90/params_h100.json ;; *) echo models/sm90/params.json ;; esac; }
check_docs() { python3 hw/h200/fit_power.py check "$1" --params "$2" | all_quoted; }
for csv in "${csvs[@]}"; do
  check_docs "$csv" "$(params_of "$csv")" || fail "$csv: docs/hardware.md does not quote its clock errors"
done
t=$(scratch)/$(basename "${csvs[0]}")
python3 tests/hw/doctor_csv.py "${csvs[0]}" "$t" target_ghz
if check_docs "$t" "$(params_of "${csvs[0]}")" >/dev/null; then fail "a doctored CSV passed"; fi
echo "PASS: ${#csvs[@]} CSV(s)"
