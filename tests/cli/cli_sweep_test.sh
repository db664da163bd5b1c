#!/bin/bash
# cli_sweep_test.sh: `sim sweep` end to end.
#
#   cli_sweep_test.sh <sim binary> <cli_checks.py>
#
# A small sweep with --json - must exit 0, print only the JSON on stdout (the
# table goes to stderr), rank the results by predicted time and cover every
# tile-n x stages configuration once (cli_checks.py sweep); the same sweep
# twice gives the same JSON bytes. A configuration that does not fit in
# shared memory is listed as skipped. Bad lists are usage errors: exit 2,
# exactly one line on stderr, nothing on stdout.
set -u
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

sim="$1"
checks="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

SHAPE=(--kernel matmul --arch sm100 --m 256 --n 256 --k 512)

# --- a sweep to stdout, twice ------------------------------------------------
for i in 1 2; do
  timeout 60 "$sim" sweep "${SHAPE[@]}" --stages 2-4 --tile-n 128,256 --json - \
    >"$tmp/sweep.$i.json" 2>"$tmp/sweep.$i.err"
  rc=$?
  [ "$rc" -eq 0 ] || fail "sweep run $i: exit status $rc, want 0; stderr: $(head -c 2000 "$tmp/sweep.$i.err")"
done
python3 "$checks" sweep "$tmp/sweep.1.json" --m 256 --n 256 --k 512 --tile-n 128,256 \
  --stages 2,3,4 --results 6 || fail "sweep JSON checks (above)"
[ "$(awk 'END { print NR }' "$tmp/sweep.1.json")" -eq 1 ] ||
  fail "stdout holds more than the JSON document: $(head -c 1000 "$tmp/sweep.1.json")"
grep -q "^rank" "$tmp/sweep.1.err" || fail "the table did not go to stderr: $(head -c 1000 "$tmp/sweep.1.err")"
cmp -s "$tmp/sweep.1.json" "$tmp/sweep.2.json" || fail "the same sweep twice gave different JSON"

# --- --sm-clock pins every configuration's clocks, as on sim run -------------
timeout 60 "$sim" sweep "${SHAPE[@]}" --stages 3 --tile-n 128 --sm-clock 1.5 --json "$tmp/clk.json" \
  >/dev/null 2>"$tmp/clk.err" || fail "sweep --sm-clock: $(head -c 1000 "$tmp/clk.err")"
timeout 60 "$sim" run "${SHAPE[@]}" --stages 3 --tile-n 128 --sm-clock 1.5 --json "$tmp/clk_run.json" \
  >/dev/null 2>&1 || fail "run --sm-clock failed"
timeout 60 "$sim" sweep "${SHAPE[@]}" --stages 3 --tile-n 128 --json "$tmp/noclk.json" \
  >/dev/null 2>&1 || fail "sweep without --sm-clock failed"
python3 - "$tmp/clk.json" "$tmp/clk_run.json" "$tmp/noclk.json" <<'PY' || fail "sweep --sm-clock does not give run --sm-clock's time"
import json, sys
swept = json.load(open(sys.argv[1]))["results"][0]["predicted_time_us"]
run = json.load(open(sys.argv[2]))["predicted_time_us"]
free = json.load(open(sys.argv[3]))["results"][0]["predicted_time_us"]
assert abs(swept - run) <= 1e-9 * run, (swept, run)
assert abs(swept - free) > 1e-3 * free, (swept, free)  # 1.5 GHz is not the power-limited clock
PY

# --- a configuration that does not fit is skipped, not an error --------------
timeout 60 "$sim" sweep "${SHAPE[@]}" --stages 4-5 --tile-n 256 --json "$tmp/skip.json" \
  >"$tmp/skip.out" 2>"$tmp/skip.err"
rc=$?
[ "$rc" -eq 0 ] || fail "sweep with a skipped configuration: exit status $rc, want 0; $(head -c 2000 "$tmp/skip.err")"
python3 "$checks" sweep "$tmp/skip.json" --m 256 --n 256 --k 512 --tile-n 256 --stages 4,5 \
  --results 1 || fail "skipped-sweep JSON checks (above)"
grep -q "^skipped:" "$tmp/skip.out" || fail "the table does not list the skipped one: $(head -c 1000 "$tmp/skip.out")"

# --- every family sweeps (the grid and defaults come from its registration) ---
CONV=(--kernel conv2d --n 2 --h 9 --w 11 --c 37 --k 70 --r 3 --s 3 --pad 1)
timeout 60 "$sim" sweep "${CONV[@]}" --json "$tmp/conv.json" >"$tmp/conv.out" 2>"$tmp/conv.err"
rc=$?
[ "$rc" -eq 0 ] || fail "conv2d sweep: exit status $rc, want 0; $(head -c 2000 "$tmp/conv.err")"
# The GEMM view: M = N*P*Q = 2*9*11, N = K = 70, K = R*S*Cp = 9*64; the
# default grid is conv2d's: tile N 64 and 128, stages 2-4.
python3 "$checks" sweep "$tmp/conv.json" --kernel conv2d --m 198 --n 70 --k 576 --tile-n 64,128 \
  --stages 2,3,4 --results 6 \
  --problem '{"n":2,"h":9,"w":11,"c":37,"k":70,"r":3,"s":3,"stride":1,"pad":1,"dilation":1,"residual":false}' ||
  fail "conv2d sweep JSON checks (above)"
grep -q "^sweep conv2d (implicit GEMM) on sm100" "$tmp/conv.out" || fail "conv2d sweep table: $(head -c 500 "$tmp/conv.out")"
timeout 60 "$sim" sweep --kernel block_scaled_matmul --format nvfp4 --m 256 --n 256 --k 512 \
  --stages 5-6 --json "$tmp/bs.json" >"$tmp/bs.out" 2>"$tmp/bs.err"
rc=$?
[ "$rc" -eq 0 ] || fail "block-scaled sweep: exit status $rc, want 0; $(head -c 2000 "$tmp/bs.err")"
python3 "$checks" sweep "$tmp/bs.json" --kernel block_scaled_matmul --m 256 --n 256 --k 512 \
  --tile-n 128,256 --stages 5,6 --problem '{"m":256,"n":256,"k":512,"format":"nvfp4","pad-rows":false}' ||
  fail "block-scaled sweep JSON checks (above)"

# --- usage errors -------------------------------------------------------------
# expect_usage_error WANT ARGS...: exit 2, one stderr line containing WANT, no stdout.
expect_usage_error() {
  local want="$1"
  shift
  timeout 20 "$sim" sweep "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(awk 'END { print NR }' "$tmp/err")
  [ "$rc" -eq 2 ] || fail "sim sweep $*: exit status $rc, want 2"
  [ "$lines" -eq 1 ] || fail "sim sweep $*: $lines line(s) on stderr, want 1: $(head -c 1000 "$tmp/err")"
  grep -qF -- "$want" "$tmp/err" || fail "sim sweep $*: stderr does not mention '$want': $(head -c 1000 "$tmp/err")"
  [ -s "$tmp/out" ] && fail "sim sweep $*: printed on stdout: $(head -c 500 "$tmp/out")"
  [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && echo "ok: sim sweep $* -> 2: $(cat "$tmp/err")"
}
expect_usage_error "--stages" "${SHAPE[@]}" --stages 1-3
expect_usage_error "--stages" "${SHAPE[@]}" --stages 4-2
expect_usage_error "--tile-n" "${SHAPE[@]}" --tile-n 96
expect_usage_error "--stages" "${SHAPE[@]}" --stages x
expect_usage_error "--stages" "${SHAPE[@]}" --stages 2,,3
expect_usage_error "--jobs" "${SHAPE[@]}" --jobs 0
expect_usage_error "conv3d" --kernel conv3d --m 64 --n 64 --k 64
expect_usage_error "--tile-n 256 is not supported (64, 128)" "${CONV[@]}" --tile-n 256
expect_usage_error "--format mxfp8|nvfp4 is required" --kernel block_scaled_matmul --m 64 --n 64 --k 64
expect_usage_error "--m" --n 64 --k 64
expect_usage_error "extra" "${SHAPE[@]}" extra
expect_usage_error "'ping' is not one of pingpong, wave_specialized" --arch mi300x --m 64 --n 64 --k 64 --amd-kernel ping
expect_usage_error "has one kernel" "${SHAPE[@]}" --amd-kernel pingpong
# A sweep none of whose configurations can run is refused like sim run: the
# problem's own reason when all share it, else the first and a count.
expect_usage_error "TMA needs a global row pitch that is a multiple of 16 bytes" --m 256 --n 256 --k 100 --tile-n 128 --stages 2-3
expect_usage_error "no configuration of the sweep can run" "${SHAPE[@]}" --stages 7-8 --tile-n 256

# --- mi300x: both AMD kernels, labelled with their own tile K (32) -------------
timeout 120 "$sim" sweep --arch mi300x --m 256 --n 384 --k 256 --json "$tmp/amd.json" >"$tmp/amd.txt" 2>&1 ||
  fail "mi300x sweep: $(head -c 1000 "$tmp/amd.txt")"
python3 - "$tmp/amd.json" <<'PY' || fail "mi300x sweep JSON (above)"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((r["amd_kernel"], r["stages"]) for r in d["results"])
assert got == [("pingpong", 2), ("pingpong", 3), ("wave_specialized", 2), ("wave_specialized", 3)], got
assert all(r["tile_k"] == 32 and r["status"] == "completed" for r in d["results"]), d["results"]
assert d["skipped"] == [], d["skipped"]
PY
grep -q "128x128x32  wave_specialized" "$tmp/amd.txt" || fail "mi300x sweep table: $(head -c 800 "$tmp/amd.txt")"

# --- sm90 kernel schedules: both ranked in one sweep, ping-pong's wide tiles skipped --
timeout 120 "$sim" sweep --arch sm90 --m 256 --n 256 --k 128 --tile-n 128,256 --stages 3 \
  --kernel-schedule cooperative,pingpong --json "$tmp/sched.json" >"$tmp/sched.txt" 2>&1 ||
  fail "schedule sweep: $(head -c 1000 "$tmp/sched.txt")"
python3 - "$tmp/sched.json" <<'PY' || fail "schedule sweep JSON (above)"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((r["kernel_schedule"], r["tile_n"]) for r in d["results"])
assert got == [("cooperative", 128), ("cooperative", 256), ("pingpong", 128)], got
assert all(r["status"] == "completed" and r["findings"] == 0 for r in d["results"]), d["results"]
assert [(k["kernel_schedule"], k["tile_n"]) for k in d["skipped"]] == [("pingpong", 256)], d["skipped"]
PY
grep -q "128x128x64/pingpong " "$tmp/sched.txt" || fail "schedule sweep table: $(head -c 800 "$tmp/sched.txt")"

# --- sm90 clusters: --cluster takes a list; each configuration runs per cluster -----
timeout 120 "$sim" sweep --kernel matmul --arch sm90 --m 300 --n 260 --k 128 --tile-n 128 --stages 2,3 \
  --cluster 1x1,2x1 --json "$tmp/cl.json" >"$tmp/cl.txt" 2>&1 || fail "cluster sweep: $(head -c 1000 "$tmp/cl.txt")"
python3 - "$tmp/cl.json" <<'PY' || fail "cluster sweep JSON (above)"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((r["cluster"], r["stages"]) for r in d["results"])
assert got == [("1x1", 2), ("1x1", 3), ("2x1", 2), ("2x1", 3)], got
assert all(r["status"] == "completed" for r in d["results"]), d["results"]
PY
grep -q "128x128x64/2x1" "$tmp/cl.txt" || fail "cluster sweep table: $(head -c 800 "$tmp/cl.txt")"
expect_usage_error "--cluster must be" --kernel matmul --arch sm90 --m 256 --n 256 --k 128 --cluster 1x1,3x1

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
