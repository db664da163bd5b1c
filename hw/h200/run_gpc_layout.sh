#!/bin/bash
# run_gpc_layout.sh: what the SM90 parameter files' SM layout and GPC store
# path are read from (hw/h200/gpc_path.py), measured on one board in one call:
# hw/h200/gpc_probe.cu (the GPC map and a GPC's store rate), then
# run_phase_stamps.sh with the register epilogue (the block placement of the
# calibration shapes' launches, of one CTA per SM and of fewer, and the SMs
# that lead at their 8th tile).
#   GPC_PROBE=...   a gpc_probe already built (else one is built here)
#   GEMM_BENCH=...  a gemm_bench already built (else one is built here)
#   DEADLINE_S=420  start no stamped shape after this many seconds
# Output in $OUT (or /tmp): gpc_probe.csv (the board on its first line as a
# comment) and phase_stamps.csv. Then, here:
#   python3 hw/h200/gpc_path.py fill --probe gpc_probe.csv --stamps phase_stamps.csv
#   python3 hw/h200/gpc_path.py apply --probe gpc_probe.csv --stamps phase_stamps.csv \
#     --params models/sm90/params.json --out models/sm90/params.json [--placement-only]
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
probe="${GPC_PROBE:-}"
if [ -z "$probe" ]; then
  probe=/tmp/gpc_probe
  nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a hw/h200/gpc_probe.cu -o "$probe" || exit 2
fi
{ echo "# $board; hw/h200/gpc_probe.cu"; timeout 120 "$probe"; } > "$out/gpc_probe.csv" || {
  echo "gpc_probe failed"; exit 1; }
echo "gpc_probe: $(grep -c '^gpc,' "$out/gpc_probe.csv") GPCs in $(( $(date +%s) - start )) s"
used=$(( $(date +%s) - start ))
DEADLINE_S=$(( ${DEADLINE_S:-420} - used )) bash hw/h200/run_phase_stamps.sh
