#!/usr/bin/env bash
# oob_surface_test.sh README: the SM90 parameter files' zero-fill surface
# (tma_oob_surface_*, models/sm100/oob_path.h) is the one
# hw/h200/oob_surface.py derives from the committed oob_depth CSV, so the
# numbers the model reads cannot drift from the data; and a file with one
# rate changed is caught.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
csv=docs/results/h200_l2_stream_oob_depth_91111c11_2026-12-04.csv
for params in models/sm90/params.json models/sm90/params_h100.json; do
  python3 hw/h200/oob_surface.py check "$csv" "$params" || fail "$params does not hold the surface of $csv"
done
t=$(scratch)/doctored.json
python3 - "$t" <<'PY'
import json, sys
p = json.load(open('models/sm90/params.json'))
v = p['params']['tma_oob_surface_rows_tenths']['value']
i = next(i for i, x in enumerate(v) if x > 0)
v[i] += 1
json.dump(p, open(sys.argv[1], 'w'))
PY
if python3 hw/h200/oob_surface.py check "$csv" "$t" >/dev/null; then fail "a doctored surface passed"; fi
echo "oob_surface_test: both parameter files hold the measured surface"
