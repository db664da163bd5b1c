#!/bin/bash
# cli_determinism_test.sh: the same `sim run` twice gives the same results.
#
#   cli_determinism_test.sh <sim binary> <traces/tools/check_trace.py> <cli_checks.py>
#
# The exact same command (same output paths) is run twice; the traces must be
# byte-identical and the JSON bytes identical apart from host_timing. Done for
# the timing-mode run of the brief, a functional run with another seed and a
# CLC run whose grid exceeds the SMs. A functional run must predict the cycles
# of the timing run of the same launch on every architecture (the models
# decide times, not data; a functional run's device addresses are host
# addresses, and timing must not depend on where the host put them). Then
# `sim verify` and `sim sweep`, which run simulations in parallel, must give
# the same JSON bytes whatever --jobs is (their JSON holds no wall time).
set -u
. "$(dirname "$0")/asan_note.sh" || exit 1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

sim="$1"
checker="$2"
checks="$3"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# twice NAME SIM-RUN-OPTIONS...
twice() {
  local name="$1"
  shift
  local trace="$tmp/$name.pftrace" json="$tmp/$name.json"
  local i rc
  for i in 1 2; do
    rm -f "$trace" "$json"
    timeout 50 "$sim" run "$@" --trace "$trace" --json "$json" >"$tmp/$name.out.$i" 2>"$tmp/$name.err.$i"
    rc=$?
    if [ "$rc" -ne 0 ]; then
      fail "$name: run $i: sim run $* exit status $rc, want 0; stderr: $(head -c 2000 "$tmp/$name.err.$i")"
      return
    fi
    # Anything on stderr but ASan's note (asan_note.sh) fails.
    drop_asan_note "$tmp/$name.err.$i" >"$tmp/$name.err.rest"
    [ -s "$tmp/$name.err.rest" ] && fail "$name: run $i printed on stderr: $(head -c 2000 "$tmp/$name.err.rest")"
    cp "$trace" "$tmp/$name.$i.pftrace" || fail "$name: run $i wrote no trace"
    cp "$json" "$tmp/$name.$i.json" || fail "$name: run $i wrote no JSON"
  done
  cmp "$tmp/$name.1.pftrace" "$tmp/$name.2.pftrace" ||
    fail "$name: traces differ between two identical runs ($(wc -c <"$tmp/$name.1.pftrace") vs $(wc -c <"$tmp/$name.2.pftrace") bytes)"
  python3 "$checks" same-json "$tmp/$name.1.json" "$tmp/$name.2.json" ||
    fail "$name: JSON summaries differ apart from host_timing"
  # The text summary on stdout too, apart from its wall-clock figure.
  local a b
  a=$(sed -E 's/wall [0-9.e+-]+ s/wall X s/' "$tmp/$name.out.1")
  b=$(sed -E 's/wall [0-9.e+-]+ s/wall X s/' "$tmp/$name.out.2")
  [ "$a" = "$b" ] || fail "$name: text summaries differ: $(diff <(echo "$a") <(echo "$b"))"
  local out
  out=$(python3 "$checker" "$tmp/$name.1.pftrace")
  [ "$?" -eq 0 ] || fail "$name: check_trace.py rejected the trace: $out"
  echo "$out"
  echo "ok: $name"
}

twice timing --m 512 --n 384 --k 256
twice functional_seed7 --m 300 --n 200 --k 100 --pad-rows --tile-n 64 --stages 3 --seed 7 --functional
twice clc_timing --m 2048 --n 1024 --k 128 --tile-n 64 --scheduler clc --trace-sms 0-3

# both_modes NAME SIM-RUN-OPTIONS...: timing and --functional, the same cycles.
timing_only=()  # options both_modes passes to the timing run only
both_modes() {
  local name="$1"
  shift
  local mode rc
  for mode in timing functional; do
    local extra=("${timing_only[@]}")
    [ "$mode" = functional ] && extra=(--functional)
    timeout 50 "$sim" run "$@" "${extra[@]}" --json "$tmp/$name.$mode.json" >"$tmp/$name.$mode.out" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
      fail "$name: sim run $* ${extra[*]}: exit status $rc: $(head -c 2000 "$tmp/$name.$mode.out")"
      return
    fi
  done
  local t f
  t=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$tmp/$name.timing.json")
  f=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["cycles"])' "$tmp/$name.functional.json")
  [ -n "$t" ] && [ "$t" = "$f" ] || {
    fail "$name: timing mode predicts $t cycles, functional mode $f"
    return
  }
  echo "ok: $name ($t cycles in both modes)"
}

# Small launches, where timing mode puts A and B in one 2 MiB page.
both_modes modes_sm100 --m 300 --n 200 --k 100 --pad-rows --tile-n 64 --stages 3
# A functional run carries the race detector, so every warp runs as with
# --per-warp (timing runs simulate a consumer warpgroup's main loop once:
# models/sm90/lockstep.h, a few percent apart); --per-warp is refused there.
timing_only=(--per-warp)
both_modes modes_sm90 --arch sm90 --m 300 --n 200 --k 104
timing_only=()
both_modes modes_mi300x --arch mi300x --m 300 --n 200 --k 104

# across_jobs NAME COMMAND OPTIONS...: the JSON with --jobs 1 and --jobs 3.
across_jobs() {
  local name="$1"
  shift
  local j rc
  for j in 1 3; do
    timeout 120 "$sim" "$@" --jobs "$j" --json "$tmp/$name.jobs$j.json" >"$tmp/$name.out.$j" 2>&1
    rc=$?
    # verify exits 1 when it finds something; a clean kernel here finds nothing.
    if [ "$rc" -ne 0 ]; then
      fail "$name: sim $* --jobs $j: exit status $rc: $(head -c 2000 "$tmp/$name.out.$j")"
      return
    fi
  done
  # Neither verify's JSON nor sweep's holds a wall time: the bytes must match.
  if grep -q '"wall_s"' "$tmp/$name.jobs1.json"; then
    fail "$name: the JSON holds wall_s, which depends on the run"
    return
  fi
  cmp "$tmp/$name.jobs1.json" "$tmp/$name.jobs3.json" || {
    fail "$name: JSON differs between --jobs 1 and --jobs 3: $(diff <(tr ',' '\n' <"$tmp/$name.jobs1.json") <(tr ',' '\n' <"$tmp/$name.jobs3.json") | head -c 1500)"
    return
  }
  echo "ok: $name"
}

across_jobs verify_jobs verify --m 200 --n 136 --k 96 --tile-n 64 --stages 3 --schedules 6 --seed 11
across_jobs verify_jobs_sm90 verify --arch sm90 --m 130 --n 128 --k 80 --tile-n 128 --stages 3 --schedules 4
across_jobs sweep_jobs sweep --m 1024 --n 768 --k 512 --stages 2-4 --tile-n 64,128

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
