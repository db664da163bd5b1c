#!/bin/bash
# slurm_test.sh: `sim sweep` and `sim verify` through a real single-node Slurm.
#
#   slurm_test.sh <sim binary>
#
# First, always: the Slurm options' usage errors (exit 2, one line on stderr,
# nothing on stdout): no sbatch on PATH, a job directory that is a file or a
# directory that is not empty, options that need --slurm, bad values, and
# sim collect on a directory that is not a job.
#
# Then, where Slurm can start (root, Debian's slurm-wlm and munge installed):
# munged, slurmctld and slurmd on localhost (local_slurm.sh: a generated munge
# key and slurm.conf in a short temporary directory), the node with 4 CPUs
# whatever the machine has, so 4 one-CPU array tasks run at once; no
# accounting (sim reads squeue, Slurm's notes in the task logs and its own
# exit markers). Through it:
#   1. a sweep (sm100 matmul 512^3, stages 2-4, tile-n 128,256) in 4 tasks
#      and a verify (sm100 matmul 256^3, 8 schedules) in 4 tasks, with
#      --wait: the merged JSON must be byte-identical (cmp) to the local
#      run's, the text the same apart from the wall time, and sim collect
#      must merge them again the same way; the same for a sweep over
#      cluster shapes (sm90, 1x1 and 2x1), whose manifest names each
#      configuration's cluster;
#   2. (not under a sanitizer) a verify of 2 slow schedules (1024^3, about 6 s each) in 2 tasks: task
#      1 is cancelled with scancel while it runs; sim collect --wait must
#      exit 3 and report slice 1 as cancelled, in the text and in the JSON
#      ("partial": true, "missing"); sim collect --resume --wait must run
#      only slice 1 again and give the local run's JSON.
# Every daemon it started is stopped on exit (trap). Where Slurm cannot
# start, it prints SKIPPED with the reason and exits 0.
set -u
. "$(dirname "$0")/../cli/asan_note.sh" || exit 1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

sim="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
finish() {
  if [ "$failures" -ne 0 ]; then
    echo "$failures failure(s)"
    exit 1
  fi
  echo "PASS"
  exit 0
}

# ---------------------------------------------------------------- usage errors
# expect_usage_error WANT COMMAND...: exit 2, one stderr line containing WANT, no stdout.
expect_usage_error() {
  local want="$1"
  shift
  timeout 20 "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$? lines
  lines=$(awk 'END { print NR }' "$tmp/err")
  [ "$rc" -eq 2 ] || fail "$*: exit status $rc, want 2: $(head -c 500 "$tmp/err")"
  [ "$lines" -eq 1 ] || fail "$*: $lines line(s) on stderr, want 1: $(head -c 1000 "$tmp/err")"
  grep -qF -- "$want" "$tmp/err" || fail "$*: stderr does not mention '$want': $(head -c 500 "$tmp/err")"
  [ -s "$tmp/out" ] && fail "$*: printed on stdout: $(head -c 500 "$tmp/out")"
  [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && echo "ok: usage error: $(cat "$tmp/err")"
}

SWEEP=(sweep --kernel matmul --arch sm100 --m 512 --n 512 --k 512 --stages 2-4 --tile-n 128,256)
VERIFY=(verify --kernel matmul --arch sm100 --m 256 --n 256 --k 256 --schedules 8)
SWEEP_CLUSTER=(sweep --kernel matmul --arch sm90 --m 512 --n 384 --k 256 --stages 2,3 --tile-n 128 --cluster 1x1,2x1)
mkdir -p "$tmp/usage/not_empty"
touch "$tmp/usage/not_empty/x" "$tmp/usage/file"
expect_usage_error "not found: sbatch" env PATH=/nonexistent "$sim" "${SWEEP[@]}" --slurm "$tmp/usage/j"
expect_usage_error "not found: sbatch" env PATH=/nonexistent "$sim" "${VERIFY[@]}" --slurm "$tmp/usage/j"
[ -e "$tmp/usage/j" ] && fail "--slurm without Slurm created the job directory"
# The directory checks need sbatch and squeue on PATH; stand-ins that are
# never run do.
mkdir -p "$tmp/usage/bin"
printf '#!/bin/sh\necho "stand-in called" >&2\nexit 1\n' >"$tmp/usage/bin/sbatch"
cp "$tmp/usage/bin/sbatch" "$tmp/usage/bin/squeue"
chmod +x "$tmp/usage/bin/sbatch" "$tmp/usage/bin/squeue"
fake_path="$tmp/usage/bin:/bin:/usr/bin"
expect_usage_error "not a directory" env PATH="$fake_path" "$sim" "${SWEEP[@]}" --slurm "$tmp/usage/file"
expect_usage_error "not empty" env PATH="$fake_path" "$sim" "${SWEEP[@]}" --slurm "$tmp/usage/not_empty"
expect_usage_error "cannot create" env PATH="$fake_path" "$sim" "${SWEEP[@]}" --slurm /proc/sim-slurm-job
expect_usage_error "sbatch failed" env PATH="$fake_path" "$sim" "${SWEEP[@]}" --slurm "$tmp/usage/j2"
expect_usage_error "already holds a job" env PATH="$fake_path" "$sim" "${SWEEP[@]}" --slurm "$tmp/usage/j2"
expect_usage_error "needs --slurm" "$sim" "${SWEEP[@]}" --tasks 4
expect_usage_error "needs --slurm" "$sim" "${VERIFY[@]}" --wait
expect_usage_error "--tasks" "$sim" "${SWEEP[@]}" --slurm "$tmp/usage/j3" --tasks 0
expect_usage_error "--time-limit" "$sim" "${SWEEP[@]}" --slurm "$tmp/usage/j3" --time-limit 1:2:3:4
expect_usage_error "--partition" "$sim" "${VERIFY[@]}" --slurm "$tmp/usage/j3" --partition 'a b'
expect_usage_error "--slice-out" "$sim" "${SWEEP[@]}" --slice 1/2
expect_usage_error "unknown option '--slurm'" "$sim" run --m 64 --n 64 --k 64 --slurm "$tmp/usage/j3"
expect_usage_error "not a job directory" "$sim" collect "$tmp/usage/not_empty"
expect_usage_error "no job directory" "$sim" collect
[ -e "$tmp/usage/j3" ] && fail "a refused command created its job directory"

# ------------------------------------------------------------ a local Slurm
. "$(dirname "$0")/local_slurm.sh"
trap stop_local_slurm EXIT
if ! start_local_slurm 4; then
  echo "SKIPPED the Slurm runs: $local_slurm_why"
  finish
fi
echo "ok: Slurm up (slurmctld and slurmd ports $local_slurm_ports, 4 CPUs)"

# same_text A B: the text reports agree apart from wall times, the submission
# lines and ASan's note (asan_note.sh: a local run under --config=asan prints
# one per schedule, the merge none).
same_text() {
  local a b
  a=$(drop_asan_note "$1" | grep -v -e '^submitted job' | sed -E -e 's/^wall [0-9.]+ s$/wall X s/' -e 's/ in [0-9.]+ s:/ in X s:/')
  b=$(drop_asan_note "$2" | grep -v -e '^submitted job' | sed -E -e 's/^wall [0-9.]+ s$/wall X s/' -e 's/ in [0-9.]+ s:/ in X s:/')
  [ "$a" = "$b" ] || { echo "$(diff <(echo "$a") <(echo "$b") | head -c 2000)"; return 1; }
}

# job_id DIR [N]: the array job id of the DIR's submission N (default 0).
job_id() {
  python3 -c 'import json, sys; print(json.load(open(sys.argv[1] + "/manifest.json"))["submissions"][int(sys.argv[2])]["job_id"])' "$1" "${2:-0}"
}

# ------------------------------------------- 1. merged JSON == local JSON
# local_vs_slurm NAME ARGS...: the command here and through Slurm (--tasks 4 --wait).
local_vs_slurm() {
  local name="$1"
  shift
  timeout 120 "$sim" "$@" --json "$tmp/$name.local.json" >"$tmp/$name.local.txt" 2>&1
  local rc=$?
  [ "$rc" -eq 0 ] || { fail "$name: local run exit status $rc: $(head -c 1000 "$tmp/$name.local.txt")"; return; }
  timeout 120 "$sim" "$@" --jobs 1 --json "$tmp/$name.slurm.json" --slurm "$tmp/$name.job" --tasks 4 --wait \
    >"$tmp/$name.slurm.txt" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || { fail "$name: --slurm --wait exit status $rc: $(head -c 2000 "$tmp/$name.slurm.txt")"; return; }
  grep -q "^submitted job [0-9]*: 4 array tasks" "$tmp/$name.slurm.txt" ||
    fail "$name: no submission line for 4 tasks: $(head -c 500 "$tmp/$name.slurm.txt")"
  cmp "$tmp/$name.local.json" "$tmp/$name.slurm.json" ||
    fail "$name: merged JSON differs from the local run's: $(diff <(tr ',' '\n' <"$tmp/$name.local.json") <(tr ',' '\n' <"$tmp/$name.slurm.json") | head -c 1500)"
  same_text "$tmp/$name.local.txt" "$tmp/$name.slurm.txt" || fail "$name: merged text differs from the local run's (above)"
  local n
  n=$(ls "$tmp/$name.job/slices" | grep -c '^slice-[0-3]\.json$')
  [ "$n" -eq 4 ] || fail "$name: $n slice result files, want 4"
  # sim collect merges the same again, to the JSON path given here.
  timeout 60 "$sim" collect "$tmp/$name.job" --json "$tmp/$name.collect.json" >"$tmp/$name.collect.txt" 2>&1
  rc=$?
  [ "$rc" -eq 0 ] || fail "$name: sim collect exit status $rc: $(head -c 1000 "$tmp/$name.collect.txt")"
  cmp "$tmp/$name.local.json" "$tmp/$name.collect.json" || fail "$name: sim collect's JSON differs from the local run's"
  echo "ok: $name: merged JSON identical to the local run's ($(wc -c <"$tmp/$name.local.json") bytes)"
}
local_vs_slurm sweep "${SWEEP[@]}"
local_vs_slurm verify "${VERIFY[@]}"
# A sweep over cluster shapes: the same, and the job's manifest names each
# configuration's cluster (what a PARTIAL report lists for a missing slice).
local_vs_slurm sweep_cluster "${SWEEP_CLUSTER[@]}"
python3 - "$tmp/sweep_cluster.job/manifest.json" <<'PY' || fail "sweep_cluster: the manifest's items (above)"
import json, sys
items = [i for s in json.load(open(sys.argv[1]))["slices"] for i in s["items"]]
got = sorted(i.get("cluster", "none") for i in items)
want = ["1x1", "1x1", "2x1", "2x1"]
if got != want:
    print(f"clusters of the manifest's items {got}, want {want}")
    sys.exit(1)
PY

# --------------------------------------- 2. a task cancelled while it runs
# Under a sanitizer (.bazelrc's ubsan and asan configurations set
# SK_SLURM_TEST_SKIP_CANCEL=1) this section is left out: its four schedules of
# 2048 x 2048 x 1024 are most of the test's time there, and the code they add
# over section 1 (scancel's state read from squeue, collect --resume) the
# plain suite runs.
if [ -n "${SK_SLURM_TEST_SKIP_CANCEL:-}" ]; then
  echo "ok: cancel: left out (SK_SLURM_TEST_SKIP_CANCEL)"
  finish
fi
# One schedule must outlast the second the test waits after the task starts:
# 1024^3 took 1.5 s a schedule once the reference was cached (2026-11-27), too
# close; 2048 x 2048 x 1024 is four times the work.
SLOW=(verify --kernel matmul --arch sm100 --m 2048 --n 2048 --k 1024 --schedules 2)
job="$tmp/cancel.job"
timeout 60 "$sim" "${SLOW[@]}" --jobs 1 --json "$tmp/cancel.slurm.json" --slurm "$job" --tasks 2 \
  >"$tmp/cancel.submit.txt" 2>&1 || fail "cancel: submission failed: $(cat "$tmp/cancel.submit.txt")"
id=$(job_id "$job")
running=""
for _ in $(seq 1 300); do
  running=$(squeue -h -r -j "$id" -o "%K %T" | awk '$1 == 1 && $2 == "RUNNING"')
  [ -n "$running" ] && break
  sleep 0.1
done
[ -n "$running" ] || fail "cancel: task ${id}_1 never ran: $(squeue -h -r)"
sleep 1
[ -e "$job/slices/slice-1.json" ] && fail "cancel: task 1 finished before it could be cancelled (too fast a machine for this test)"
scancel "${id}_1"
timeout 120 "$sim" collect --wait "$job" >"$tmp/cancel.collect.txt" 2>&1
rc=$?
[ "$rc" -eq 3 ] || fail "cancel: sim collect --wait exit status $rc, want 3 (incomplete): $(head -c 2000 "$tmp/cancel.collect.txt")"
grep -q "^PARTIAL" "$tmp/cancel.collect.txt" || fail "cancel: the text does not say PARTIAL: $(head -c 1000 "$tmp/cancel.collect.txt")"
grep -q "slice 1 cancelled.*seed 1" "$tmp/cancel.collect.txt" ||
  fail "cancel: the text does not report slice 1 (seed 1) as cancelled: $(cat "$tmp/cancel.collect.txt")"
python3 - "$tmp/cancel.slurm.json" <<'PY' || fail "cancel: partial JSON checks (above)"
import json, sys
d = json.load(open(sys.argv[1]))
problems = []
if d.get("partial") is not True: problems.append(f'partial = {d.get("partial")!r}, want true')
missing = d.get("missing", [])
if [m.get("slice") for m in missing] != [1]: problems.append(f"missing slices {missing}, want [1]")
elif missing[0].get("state") != "cancelled" or missing[0].get("seeds") != [1]:
    problems.append(f"missing[0] = {missing[0]}, want state cancelled, seeds [1]")
if d.get("explored") != 1: problems.append(f'explored = {d.get("explored")}, want 1')
for p in problems: print("partial JSON:", p)
sys.exit(1 if problems else 0)
PY
echo "ok: cancel: collect reports slice 1 as cancelled, exit 3"
timeout 120 "$sim" collect --resume "$job" --wait >"$tmp/cancel.resume.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "cancel: sim collect --resume --wait exit status $rc: $(head -c 2000 "$tmp/cancel.resume.txt")"
grep -q "^submitted job [0-9]*: slice 1 of sim verify again" "$tmp/cancel.resume.txt" ||
  fail "cancel: --resume did not resubmit slice 1 alone: $(head -c 1000 "$tmp/cancel.resume.txt")"
grep -q "PARTIAL" "$tmp/cancel.resume.txt" && fail "cancel: the resumed merge still says PARTIAL"
timeout 120 "$sim" "${SLOW[@]}" --json "$tmp/cancel.local.json" >"$tmp/cancel.local.txt" 2>&1 ||
  fail "cancel: local run failed: $(head -c 1000 "$tmp/cancel.local.txt")"
cmp "$tmp/cancel.local.json" "$tmp/cancel.slurm.json" ||
  fail "cancel: the resumed JSON differs from the local run's: $(cat "$tmp/cancel.slurm.json")"
timeout 60 "$sim" collect --resume "$job" >"$tmp/cancel.again.txt" 2>&1
grep -q "nothing to resubmit" "$tmp/cancel.again.txt" || fail "cancel: a second --resume did not say nothing to resubmit: $(cat "$tmp/cancel.again.txt")"
echo "ok: cancel: --resume ran slice 1 again; the JSON is the local run's"

finish
