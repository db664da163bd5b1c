#!/usr/bin/env bash
# gpc_path_test.sh README: the SM90 parameter files' SM layout and per-GPC
# store path (sm_gpc, gpc_store_bytes_per_cycle, store_first;
# models/sm90/params.h, models/sm90/write_path.h) are the ones
# hw/h200/gpc_path.py derives from the committed GPC probe and phase stamps
# named in each file's sources (the H200 file: the layout alone), so the
# numbers the model reads cannot drift from the data; a file with one leader
# moved is caught; the derivation reads what it should off a probe and stamps
# written here; and the fill rule's count over the H100's stamped launches is
# the one docs/hardware.md quotes.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
r=docs/results
h100=(--probe $r/h100_gpc_probe_2026-11-26.csv --stamps $r/h100_phase_stamps_regs_6eeb6be9_2026-12-07.csv)
python3 hw/h200/gpc_path.py check "${h100[@]}" --params models/sm90/params_h100.json ||
  fail "models/sm90/params_h100.json does not hold the GPC path of its measurements"
h200=(--probe $r/h200_gpc_probe_c791ccf2_2026-11-28.csv --stamps $r/h200_tile_lead_c791ccf2_2026-11-28.csv)
python3 hw/h200/gpc_path.py check --placement-only "${h200[@]}" --params models/sm90/params.json ||
  fail "models/sm90/params.json does not hold the SM layout of its measurements"
t=$(scratch)
python3 - models/sm90/params_h100.json "$t/doctored.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
v = p['params']['store_first']['value']
i = v.index(1)
v[i], v[i + 2] = 0, 1
json.dump(p, open(sys.argv[2], 'w'))
PY
if python3 hw/h200/gpc_path.py check "${h100[@]}" --params "$t/doctored.json" 2>/dev/null; then
  fail "a doctored store_first passed"
fi
# A board of 4 SMs in two GPCs (SMs 0-1, 2-3), stamped twice in one placement
# (blocks 0-3 on SMs 2 3 0 1) and once in another (0 2 1 3), where SM 2 leads
# the matmul; the probe's GPC runs sum to 51.2 + 51.2 and 41.0 + 81.9 B a
# cycle (median 112.6), and in GPC 1's run SM 3 is the faster. A parameter
# file whose L2 side changes after blocks 0 and 2 takes the second placement.
cat > "$t/probe.csv" <<'CSV'
gpc,0,2,0 1
gpc,1,2,2 3
fragment,gpc0,0,0,2,4096,80,40
fragment,gpc0,1,0,2,4096,80,40
fragment,gpc1,2,1,2,4096,100,50
fragment,gpc1,3,1,2,4096,50,25
CSV
{
  for launch in a b c; do
    case $launch in c) order="0 2 1 3" ;; *) order="2 3 0 1" ;; esac
    cta=0
    for sm in $order; do
      lead=0; [ "$sm" = 2 ] && lead=5000
      echo "s$launch,128,2,regs,lead,-,$cta,$sm,0,$lead,-,-"; cta=$((cta + 1))
    done
  done
} > "$t/stamps.csv"
got=$(python3 hw/h200/gpc_path.py derive --probe "$t/probe.csv" --stamps "$t/stamps.csv" | head -1)
want='{"gpc_store_bytes_per_cycle": 113, "sm_gpc": [2, 2, 1, 1], "store_first": [1, 0, 0, 0]}'
[ "$got" = "$want" ] || fail "derived $got, not $want"
got=$(python3 hw/h200/gpc_path.py derive --leaders probe --probe "$t/probe.csv" --stamps "$t/stamps.csv" | head -1)
want='{"gpc_store_bytes_per_cycle": 113, "sm_gpc": [2, 2, 1, 1], "store_first": [0, 1, 0, 0]}'
[ "$got" = "$want" ] || fail "derived with the probe's leaders $got, not $want"
# Stamps of launches too short to reach their 8th tile (no lead) give the
# placement: with the probe's leaders that is enough, with the stamps' it is
# a one-line error.
sed 's/,5000,-,-$/,-,-,-/; s/,0,-,-$/,-,-,-/' "$t/stamps.csv" > "$t/short.csv"
got=$(python3 hw/h200/gpc_path.py derive --leaders probe --probe "$t/probe.csv" --stamps "$t/short.csv" | head -1)
[ "$got" = "$want" ] || fail "the probe's leaders over stamps without tile 8 gave $got, not $want"
rc=0
python3 hw/h200/gpc_path.py derive --probe "$t/probe.csv" --stamps "$t/short.csv" > "$t/short.out" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "reaches its 8th tile" "$t/short.out" ||
  fail "the stamps' leaders without tile 8: exit $rc, $(cat "$t/short.out")"
echo '{"params": {"l2_side": {"value": [0, 1, 1, 0]}, "gpc_store_bytes_per_cycle": {"value": 0},
  "sm_gpc": {"value": []}, "store_first": {"value": []}}}' > "$t/params.json"
python3 hw/h200/gpc_path.py apply --probe "$t/probe.csv" --stamps "$t/stamps.csv" --params "$t/params.json" \
  --out "$t/applied.json" > /dev/null
got=$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["params"]
print(json.dumps({k: p[k]["value"] for k in ("gpc_store_bytes_per_cycle", "sm_gpc", "store_first")}))' "$t/applied.json")
want='{"gpc_store_bytes_per_cycle": 113, "sm_gpc": [1, 2, 1, 2], "store_first": [0, 1, 0, 0]}'
[ "$got" = "$want" ] || fail "applied with the file's L2 sides $got, not $want"
python3 hw/h200/gpc_path.py check --probe "$t/probe.csv" --stamps "$t/stamps.csv" --params "$t/applied.json" > /dev/null ||
  fail "a file just applied does not pass its check"
python3 hw/h200/gpc_path.py apply --placement-only --probe "$t/probe.csv" --stamps "$t/stamps.csv" \
  --params "$t/params.json" --out "$t/placed.json" > /dev/null
got=$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["params"]
print(json.dumps({k: p[k]["value"] for k in ("gpc_store_bytes_per_cycle", "sm_gpc", "store_first")}))' "$t/placed.json")
want='{"gpc_store_bytes_per_cycle": 0, "sm_gpc": [1, 2, 1, 2], "store_first": []}'
[ "$got" = "$want" ] || fail "the placement alone gave $got, not $want"
# The fill rule against launches of 2 CTAs: on SMs 0 and 2 (a TPC of each
# GPC) it holds, on SMs 0 and 1 (both of GPC 0) it does not.
{ cat "$t/stamps.csv"; echo "sd,128,2,regs,lead,-,0,0,0,0,-,-"; echo "sd,128,2,regs,lead,-,1,2,0,0,-,-"
  echo "se,128,2,regs,lead,-,0,0,0,0,-,-"; echo "se,128,2,regs,lead,-,1,1,0,0,-,-"; } > "$t/partial.csv"
got=$(python3 hw/h200/gpc_path.py fill --probe "$t/probe.csv" --stamps "$t/partial.csv")
[[ "$got" == "fill rule: 1 of 2 launches "* ]] || fail "the fill rule on two launches: $got"
# The H100's stamped launches, quoted in docs/hardware.md.
python3 hw/h200/gpc_path.py fill "${h100[@]}" | all_quoted || fail "docs/hardware.md does not quote the fill rule's count"
python3 hw/h200/gpc_path.py fill --probe $r/h100_gpc_probe_e57a052a_2026-12-08.csv \
  --stamps $r/h100_phase_stamps_regs_e57a052a_2026-12-08.csv | all_quoted ||
  fail "docs/hardware.md does not quote the fill rule's count on the second board"
echo "gpc_path_test: the committed file holds its measured GPC path; a doctored one is caught"
