#!/usr/bin/env bash
# slurm_speedup.sh: the wall time of one `sim sweep` through a one-node Slurm
# on localhost with 1, 2 and 4 task slots (docs/slurm.md, "Speed-up"), and of
# the same sweep run here with --jobs 1, 2 and 4 for reference.
#
#   tools/slurm_speedup.sh SIM [SWEEP OPTIONS...]
#       (default options: --kernel matmul --arch sm100 --m 8192 --n 8192 --k 8192)
#
# Environment: TASKS=N submits with --tasks N (default: sim's default, one
# task per configuration up to 32); SLURM_CONF_LINE adds one line to the
# cluster's slurm.conf (e.g. SchedulerParameters=batch_sched_delay=0);
# LOCAL=0 skips the local reference runs.
#
# For each slot count it starts the cluster of tests/slurm/local_slurm.sh with
# that many CPUs (root, slurm-wlm and munge needed), submits the sweep with
# --slurm DIR --jobs 1 --wait (one configuration per array task: --tasks
# defaults to one per configuration up to 32), times it from submission to
# the merged output, checks that the merged JSON is byte-identical to the
# local run's, and stops the cluster. Prints one line per run.
set -euo pipefail
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
sim="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
opts=("$@")
[ ${#opts[@]} -gt 0 ] || opts=(--kernel matmul --arch sm100 --m 8192 --n 8192 --k 8192)
. "$(dirname "$0")/../tests/slurm/local_slurm.sh"
trap stop_local_slurm EXIT
work=$(mktemp -d)

now() { date +%s.%N; }
echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "sweep: sim sweep ${opts[*]}"
tasks=()
[ -n "${TASKS:-}" ] && tasks=(--tasks "$TASKS")
extra=()
[ -n "${SLURM_CONF_LINE:-}" ] && extra=("$SLURM_CONF_LINE")
echo "submitted with: --slurm DIR --jobs 1 --wait ${tasks[*]}; slurm.conf extra: ${extra[*]:-none}"
"$sim" sweep "${opts[@]}" --jobs 2 --json "$work/local.ref.json" >/dev/null
for j in 1 2 4; do
  [ "${LOCAL:-1}" = 0 ] && break
  t0=$(now)
  "$sim" sweep "${opts[@]}" --jobs "$j" --json "$work/local.$j.json" >"$work/local.$j.txt"
  t1=$(now)
  printf 'here   --jobs %s        %7.1f s\n' "$j" "$(awk -v a="$t0" -v b="$t1" "BEGIN { print b - a }")"
done
for slots in 1 2 4; do
  start_local_slurm "$slots" "${extra[@]}" || { echo "cannot start Slurm: $local_slurm_why"; exit 1; }
  t0=$(now)
  rc=0
  "$sim" sweep "${opts[@]}" --jobs 1 --json "$work/slurm.$slots.json" --slurm "$work/job.$slots" \
    --wait "${tasks[@]}" >"$work/slurm.$slots.txt" || rc=$?
  t1=$(now)
  stop_local_slurm
  same=$(cmp -s "$work/local.ref.json" "$work/slurm.$slots.json" && echo "JSON identical" || echo "JSON DIFFERS")
  ntasks=$(grep -o '[0-9]* array tasks' "$work/slurm.$slots.txt" || true)
  printf 'slurm  %s slot(s), %s  %7.1f s  exit %s, %s\n' "$slots" "$ntasks" "$(awk -v a="$t0" -v b="$t1" "BEGIN { print b - a }")" "$rc" "$same"
done
rm -rf "$work"
