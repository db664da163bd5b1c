#!/usr/bin/env bash
# dsmem_rate_test.sh README: hw/h200/dsmem_rate.py recovers the ports of a
# known network from rows laid out as cluster_calibrate's section e prints
# them (receiving port 40 B per cycle, sending port 56, a fixed 900 cycles and
# 30 more per sender: the value is the lower port, 40), and its check passes a
# parameter file with that value and fails one with another.
. "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
t=$(scratch)
python3 - "$t/e.csv" <<'PY'
import sys
recv, send, slot = 40.0, 56.0, 8192
lines = ['# synthetic board', 'what,param,value,unit', 'tma_round_trip,plain single_cta 16384B,1200,cycles']
def row(name, size, warps, reps, bytes_in, rate, senders):
    cycles = 900 + 30 * senders + (bytes_in / rate if bytes_in else 0)
    lines.append(f'dsmem_store_exchange,{name} size={size} send_warps={warps} reps={reps} '
                 f'bytes_in={bytes_in},{round(cycles)},cycles')
for size in (2, 4, 8):
    for warps in (1, 2, 4, 8):
        for reps in (0, 1, 8):
            b = (size - 1) * warps * reps * slot
            row('to_one', size, warps, reps, b, min(recv, (size - 1) * send), size - 1)
    for warps in (size - 1, 2 * (size - 1)):
        for reps in (0, 1, 8):
            if warps <= 8:
                b = warps // (size - 1) * reps * slot
                row('from_one', size, warps, reps, b, min(send / (size - 1), recv), 1)
    for reps in (0, 1, 8):
        b = (size - 1) * (8 // size) * reps * slot
        row('reduce', size, 8, reps, b, min(recv, send), size - 1)
open(sys.argv[1], 'w').write('\n'.join(lines) + '\n')
PY
v=$(python3 hw/h200/dsmem_rate.py value "$t/e.csv")
[ "$v" = "40.0" ] || fail "value $v, expected 40.0"
python3 hw/h200/dsmem_rate.py report "$t/e.csv" > "$t/report.txt"
grep -q "^from_one,8,7,56.0$" "$t/report.txt" || fail "from_one's sending port is not 56: $(grep from_one "$t/report.txt" | tail -1)"
grep -q "^to_one,2,1,40.0$" "$t/report.txt" || fail "to_one's receiving port is not 40"
grep -q "sending port (from_one, most) 56.0: dsmem_store_bytes_per_cycle 40.0" "$t/report.txt" ||
  fail "summary: $(tail -1 "$t/report.txt")"
for v in 40.0 48.0; do
  python3 - "$t/p.json" "$v" <<'PY'
import json, sys
json.dump({'params': {'dsmem_store_bytes_per_cycle': {'value': float(sys.argv[2])}}}, open(sys.argv[1], 'w'))
PY
  if python3 hw/h200/dsmem_rate.py check "$t/e.csv" "$t/p.json" >/dev/null; then
    [ "$v" = "40.0" ] || fail "check passed a file with $v"
  else
    [ "$v" != "40.0" ] || fail "check failed the file with the value"
  fi
done
grep -v "^dsmem_store_exchange" "$t/e.csv" > "$t/none.csv"
if python3 hw/h200/dsmem_rate.py value "$t/none.csv" 2>/dev/null; then fail "a CSV without section e gave a value"; fi
echo "dsmem_rate_test: the ports of a known network recovered, the check holds the value"
