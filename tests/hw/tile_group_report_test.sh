#!/usr/bin/env bash
# tile_group_report_test.sh README: for every model-against-measurement CSV of
# the tile order on the shape set (docs/results/h200_shapes_tile_group_model_*.csv)
# and on the shapes drawn to check the automatic order (h100_tile_order_model_*.csv),
# the lines hw/h200/tile_group_report.py summary derives from it appear
# verbatim in docs/hardware.md, so the quoted errors and picks cannot drift
# from the data, and so do the `auto` lines of the measured tile-order runs
# (docs/results/h100_tile_order_shapes_*.csv); and a doctored CSV (one
# predicted time changed) is caught.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
models=(docs/results/h200_shapes_tile_group_model_*.csv docs/results/h100_tile_order_model_*.csv)
[ ${#models[@]} -gt 0 ] || fail "no docs/results/h200_shapes_tile_group_model_*.csv"
quoted() {  # model.csv from to: every summary line, its leading "from:" read as "to:", is in docs/hardware.md
  python3 hw/h200/tile_group_report.py summary "$1" | sed "s|^$2:|$3:|" | all_quoted
}
for model in "${models[@]}"; do
  quoted "$model" x x || fail "$model: docs/hardware.md does not quote its figures"
done
# The kernel's --tile-group auto on the tile-order measurements that judge it
# (hw/h200/tile_group_report.py auto): each line quoted verbatim too.
auto_runs=(docs/results/h100_tile_order_shapes_????????_????-??-??.csv
           docs/results/h100_tile_group_losers_????????_????-??-??.csv)
[ ${#auto_runs[@]} -gt 0 ] || fail "no docs/results/h100_tile_order_shapes_*.csv"
for run in "${auto_runs[@]}"; do
  python3 hw/h200/tile_group_report.py auto "$run" | all_quoted || fail "$run: its auto line is not quoted"
done
# The check can fail: one prediction 3x off changes a quoted figure (the
# doctored copy is named as the original, so only its numbers differ).
t=$(scratch)/doctored.csv
python3 tests/hw/doctor_csv.py "${models[0]}" "$t" predicted_us
name=$(basename "${models[0]}" .csv)
if quoted "$t" doctored "$name" >/dev/null; then fail "a doctored CSV passed"; fi
echo PASS
