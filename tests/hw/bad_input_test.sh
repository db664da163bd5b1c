#!/usr/bin/env bash
# bad_input_test.sh README: the hw/h200 report and fit scripts end on bad
# input (a missing file, a file that is not the CSV or JSON they read, an
# unknown command) with one line on stderr naming the script and exit status
# 2, never a traceback (hw/h200/script_main.py), and on no arguments with
# their usage and exit status 2; and the check rejects a script that crashes
# instead, so it can fail.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
t=$(scratch)
one_line_2() {  # command...: exit 2, one stderr line, no traceback, nothing on stdout
  local rc=0
  "$@" > "$t/out" 2> "$t/err" || rc=$?
  [ "$rc" = 2 ] || { echo "$*: exit $rc, not 2: $(head -c 300 "$t/err")"; return 1; }
  [ "$(wc -l < "$t/err")" = 1 ] || { echo "$*: $(wc -l < "$t/err") lines on stderr"; return 1; }
  ! grep -q Traceback "$t/err" || { echo "$*: a traceback"; return 1; }
  [ ! -s "$t/out" ] || { echo "$*: wrote to stdout"; return 1; }
}
missing=$t/missing.csv
notcsv=README.md
h=hw/h200
cases=(
  "$h/shape_report.py summary $missing" "$h/shape_report.py summary $notcsv"
  "$h/ncu_report.py summary $missing" "$h/ncu_report.py summary $notcsv"
  "$h/cluster_report.py summary $missing $missing" "$h/cluster_report.py summary $notcsv $notcsv"
  "$h/attention_report.py report $missing $missing"
  "$h/cublas_report.py $missing"
  "$h/build_ab_report.py $missing" "$h/build_ab_report.py $notcsv"
  "$h/fit_power.py check $missing --params models/sm90/params.json"
  "$h/phase_report.py summary $missing"
  "$h/tile_group_report.py summary $missing"
  "$h/dsmem_rate.py value $missing" "$h/dsmem_rate.py value $notcsv"
  "$h/oob_surface.py check $missing models/sm90/params.json"
  "$h/gpc_path.py derive --probe $missing --stamps $missing"
  "$h/gpc_path.py derive --probe $notcsv --stamps $notcsv"
  "$h/shape_set.py no_such_command"
)
for c in "${cases[@]}"; do
  read -r -a argv <<<"$c"
  one_line_2 python3 "${argv[@]}" || fail "bad input not refused in one line"
done
# No arguments: the script's usage on stderr, exit status 2, no traceback.
for script in shape_report ncu_report phase_report sweep_report tile_group_report fit_power gpc_path; do
  rc=0
  python3 "$h/$script.py" > "$t/out" 2> "$t/err" || rc=$?
  [ "$rc" = 2 ] && ! grep -q Traceback "$t/err" && [ -s "$t/err" ] ||
    fail "$script.py without arguments: exit $rc, not its usage and 2"
done
# The check can fail: a script that lets the error through is caught.
if one_line_2 python3 -c "open('$missing')" >/dev/null; then fail "a traceback passed the check"; fi
echo "PASS: ${#cases[@]} cases"
