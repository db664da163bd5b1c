#!/bin/bash
# cli_contract_test.sh: the exit-status contract of every command
# (sim/cli/exit_codes.h), limits that are not findings, outputs that cannot be
# written after simulating, and simulation children that die with `sim`.
#
#   cli_contract_test.sh <sim binary>
#
#   0 clean, 1 findings or a failed check, 2 bad usage or input (or an output
#   not written after simulating, summary first), 3 a limit reached.
set -u
. "$(dirname "$0")/asan_note.sh" || exit 1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

sim="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_rc WANT ARGS...: `sim ARGS...` exits WANT within 60 s; its stdout and
# stderr are left in $tmp/out and $tmp/err.
expect_rc() {
  local want="$1"
  shift
  timeout 60 "$sim" "$@" >"$tmp/out" 2>"$tmp/err.raw"
  local rc=$?
  drop_asan_note "$tmp/err.raw" >"$tmp/err"
  if [ "$rc" -ne "$want" ]; then
    fail "sim $*: exit $rc, want $want: $(head -c 600 "$tmp/err")"
    return 1
  fi
  echo "ok: sim $* -> $rc"
}

# json_check FILE PYTHON-EXPR: the expression over the JSON document d holds.
json_check() {
  python3 - "$1" "$2" <<'PY' || fail "$1: $2"
import json, sys
d = json.load(open(sys.argv[1]))
assert eval(sys.argv[2]), json.dumps(d)[:800]
PY
}

# --- sim --help states the contract -----------------------------------------
expect_rc 0 --help && grep -q "3  no complete answer" "$tmp/out" ||
  fail "sim --help does not state the exit status 3"

# --- 0: clean runs ------------------------------------------------------------
expect_rc 0 run --m 64 --n 80 --k 96 --functional --json "$tmp/clean.json"
# The check states how close its worst element came to the tolerance it used.
json_check "$tmp/clean.json" '0 < d["check"]["max_tolerance_fraction"] < 1 and d["check"]["passed"]'
grep -q "of its tolerance" "$tmp/out" || fail "the check line does not give the tolerance used"
expect_rc 0 verify --m 64 --n 80 --k 96 --schedules 2

# --- the data seed: the data of a functional run, apart from its schedule -------
# A correct kernel's D does not depend on the schedule, so its worst error
# does not either: --seed 4 --data-seed 3 checks as --seed 3 does, not as
# --seed 4. sim verify runs every schedule on its first seed's data (drawn
# once before the schedules fork) unless --data-seed says otherwise, and its
# header, JSON and replay lines name it.
expect_rc 0 run --m 72 --n 80 --k 96 --functional --seed 3 --json "$tmp/ds3.json"
expect_rc 0 run --m 72 --n 80 --k 96 --functional --seed 4 --data-seed 3 --json "$tmp/ds43.json"
expect_rc 0 run --m 72 --n 80 --k 96 --functional --seed 4 --json "$tmp/ds4.json"
python3 - "$tmp/ds3.json" "$tmp/ds43.json" "$tmp/ds4.json" <<'PY' || fail "--data-seed does not pick the data"
import json, sys
a, b, c = (json.load(open(p))["check"]["max_abs_err"] for p in sys.argv[1:])
assert a == b and a != c, (a, b, c)
PY
expect_rc 0 verify --m 64 --n 80 --k 96 --schedules 3 --seed 5 --json "$tmp/vds.json"
json_check "$tmp/vds.json" 'd["data_seed"] == 5 and d["explored"] == 3 and d["findings"] == []'
grep -q "seeds 5..7, data seed 5" "$tmp/out" || fail "verify: the header does not name the data seed: $(head -2 "$tmp/out")"
expect_rc 0 verify --m 64 --n 80 --k 96 --schedules 2 --data-seed 9 --json "$tmp/vds9.json"
json_check "$tmp/vds9.json" 'd["data_seed"] == 9'
expect_rc 0 sweep --m 256 --n 256 --k 256 --tile-n 128 --stages 2-3

# --- 3: --max-cycles is a limit, not a deadlock ---------------------------------
# 8192^3 stopped at 1,000 cycles: every warp waits on loads still in flight.
for arch in sm100 sm90 mi300x; do
  expect_rc 3 run --arch "$arch" --m 8192 --n 8192 --k 8192 --max-cycles 1000 --json "$tmp/lim_$arch.json"
  json_check "$tmp/lim_$arch.json" \
    'd["status"] == "limit" and d["limit"] == "max_cycles" and d["findings"] == [] and d["tflops"] == 0 and d["predicted_time_us"] == 0 and d["cycles"] == 1000'
  grep -q "status      limit: stopped by --max-cycles" "$tmp/out" || fail "$arch: no limit line: $(head -3 "$tmp/out")"
  grep -qE "^  (predicted|overlap|resources) " "$tmp/out" && fail "$arch: a rate printed for a truncated run"
done
expect_rc 3 verify --m 256 --n 256 --k 256 --schedules 2 --max-cycles 1000 --json "$tmp/vlim.json"
json_check "$tmp/vlim.json" 'd["limited"] == 2 and d["findings"] == [] and d["errors"] == []'
grep -q "^limit: 2 schedule" "$tmp/out" || fail "verify: no limit line"

# --- 3: --wall-limit stops the simulation itself, with a summary ---------------
start=$(date +%s)
expect_rc 3 run --arch sm90 --m 16384 --n 16384 --k 16384 --wall-limit 1 --json "$tmp/wall.json"
json_check "$tmp/wall.json" 'd["status"] == "limit" and d["limit"] == "wall" and d["findings"] == []'
[ $(($(date +%s) - start)) -le 20 ] || fail "--wall-limit 1 took $(($(date +%s) - start)) s"
expect_rc 3 sweep --m 16384 --n 16384 --k 16384 --tile-n 256 --stages 4 --wall-limit 1 --json "$tmp/swall.json"
json_check "$tmp/swall.json" 'd["results"][0]["status"] == "limit"'

# --- Estimates and progress (docs/sim.md) ---------------------------------------
# A huge shape is announced with its estimate before it runs, names the wall
# limit that will stop it, reports progress on stderr with --progress (also
# when stderr is a file) and stops at the limit with status limit.
start=$(date +%s)
expect_rc 3 run --m 1048576 --n 1048576 --k 1048576 --wall-limit 4 --progress --json "$tmp/huge.json"
json_check "$tmp/huge.json" 'd["status"] == "limit" and d["limit"] == "wall"'
[ $(($(date +%s) - start)) -le 25 ] || fail "the huge shape took $(($(date +%s) - start)) s"
head -1 "$tmp/err" | grep -qE "^sim: estimate: .* events, about .* days of wall time; --wall-limit 4 s stops it first" ||
  fail "no estimate line first for a huge shape: $(head -c 400 "$tmp/err")"
grep -qE "^sim: [0-9.]+ us simulated, cycle [0-9]+, [0-9.]+ M events, [0-9.]+ s; 0% of the estimated .* events, ETA" "$tmp/err" ||
  fail "--progress printed no progress line: $(head -c 600 "$tmp/err")"
# A small run prints neither (stderr is not a terminal here).
expect_rc 0 run --m 64 --n 64 --k 64
[ -s "$tmp/err" ] && fail "a small run printed on stderr: $(head -c 300 "$tmp/err")"
expect_rc 2 run --m 64 --n 64 --k 64 --progress --no-progress
# Sweeps and verify count what is done.
expect_rc 0 sweep --m 256 --n 256 --k 256 --tile-n 128 --stages 2-3 --progress
grep -q "^sim sweep: 2/2 configurations done" "$tmp/err" || fail "sweep --progress: no done/total line: $(head -c 300 "$tmp/err")"
expect_rc 0 verify --m 64 --n 80 --k 96 --schedules 3 --progress
grep -q "^sim verify: 3/3 schedules done" "$tmp/err" || fail "verify --progress: no done/total line: $(head -c 300 "$tmp/err")"

# --- 2: an output that cannot be written after simulating ----------------------
# /dev/full passes the up-front check (it exists and is writable) and fails on
# write: the summary is still printed, then one line per output, exit 2.
expect_rc 2 run --m 64 --n 64 --k 64 --trace /dev/full
grep -q "status      completed" "$tmp/out" || fail "--trace /dev/full: no summary"
grep -q "^sim: --trace: writing '/dev/full' failed" "$tmp/err" || fail "--trace /dev/full: $(cat "$tmp/err")"
expect_rc 2 run --m 64 --n 64 --k 64 --json /dev/full
grep -q "status      completed" "$tmp/out" || fail "--json /dev/full: no summary"
grep -q "^sim: --json: writing '/dev/full' failed" "$tmp/err" || fail "--json /dev/full: $(cat "$tmp/err")"
# Two outputs to one file are refused before anything runs.
expect_rc 2 run --m 64 --n 64 --k 64 --trace "$tmp/x" --timeline "$tmp/x"
grep -q "name the same file" "$tmp/err" || fail "same file: $(cat "$tmp/err")"

# --- children die with their parent --------------------------------------------
# children_of PID: the processes whose parent is PID (from /proc).
children_of() {
  local f
  for f in /proc/[0-9]*/stat; do
    awk -v p="$1" '{ sub(/.*\) /, ""); if ($2 == p) { split(FILENAME, a, "/"); print a[3] } }' "$f" 2>/dev/null
  done
}
# alive PID: the process exists and is not a zombie.
alive() {
  [ -r "/proc/$1/stat" ] && [ "$(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1)" != "Z" ]
}
for sig in TERM INT HUP; do
  # A background job of a script starts with SIGINT ignored; give sim the
  # default dispositions a terminal user's sim has.
  env --default-signal=INT,HUP,TERM "$sim" run --arch sm90 --m 16384 --n 16384 --k 16384 \
    --wall-limit 120 >/dev/null 2>&1 &
  parent=$!
  child=""
  for _ in $(seq 100); do
    child=$(children_of "$parent" | head -n 1)
    [ -n "$child" ] && break
    sleep 0.1
  done
  if [ -z "$child" ]; then
    fail "SIG$sig: no simulation child appeared"
    kill -KILL "$parent" 2>/dev/null
    continue
  fi
  kill -"$sig" "$parent"
  gone=0
  for _ in $(seq 50); do
    if ! alive "$parent" && ! alive "$child"; then
      gone=1
      break
    fi
    sleep 0.1
  done
  kill -KILL "$parent" 2>/dev/null
  wait "$parent" 2>/dev/null
  if [ "$gone" -eq 1 ]; then
    echo "ok: SIG$sig to sim: its simulation child $child ended"
  else
    fail "SIG$sig to sim: sim or its simulation child $child still running 5 s later"
    kill -KILL "$child" 2>/dev/null
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
