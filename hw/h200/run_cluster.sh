#!/bin/bash
# run_cluster.sh: thread-block clusters on a Hopper GPU. Builds gemm_bench and
# hw/h200/cluster_calibrate.cu with nvcc, runs the calibration (cluster
# occupancy, remote mbarrier arrives, barrier.cluster, multicast TMA), checks
# every cluster shape on an odd shape, then runs every tile/stage
# configuration of the SM90 matmul against cuBLAS for each cluster shape
# (gemm_bench --all --clusters ...) on square and odd shapes, in rounds (each
# round every shape in turn, as run_shapes.sh, so that a configuration's
# rounds are minutes apart and their median smooths the board's drift).
#   ROUNDS=2            rounds to run (default 2)
#   DEADLINE_S=420      start no round after this many seconds (the device's
#                       10-minute limit per command); what ran is kept
#   HARD_S=500          start no gemm_bench run after this many seconds
#   RUNS=20             timed launches per configuration (the median is reported)
#   CLUSTERS=1x1,2x1,1x2  the cluster shapes (gemm_bench --clusters)
#   GEMM_BENCH=...      a gemm_bench already built (else one is built here)
#   EPILOGUE=tma        run every configuration with the TMA-store epilogue
#                       (gemm_bench --tma-epilogue; shapes then end in _et)
# A cluster shape whose check (257x199x72, every configuration) fails or hangs
# (RUN_TIMEOUT_S=30) is left out of the rounds, and said so. Each gemm_bench run
# of the rounds is limited to SHAPE_TIMEOUT_S=120 (exit 124: a hang, logged).
# Output in $OUT (or /tmp), each CSV with the board's name and UUID on its
# first line as a comment:
#   cluster_calibration.csv  cluster_calibrate's what,param,value,unit lines;
#   cluster_check.csv        the odd-shape check, gemm_bench's columns;
#   cluster_gemm.csv         round, then gemm_bench's columns (shape ends in
#                            _cMxN for a cluster other than 1x1);
#   cluster_run.log          this script's output (builds, ptxas, progress).
# Exit status: 0 every check passed, 1 a check failed or a run hung, 2 a build
# failed.
set -uo pipefail
export PATH="/usr/local/cuda/bin:$PATH"
cd "$(dirname "$0")/../.."
# The log's tee first, so that it holds the board line run_preamble.sh prints.
exec > >(tee "${OUT:-/tmp}/cluster_run.log") 2>&1
. hw/h200/run_preamble.sh
elapsed() { echo $(( $(date +%s) - start )); }
nvcc --version | tail -1
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"

# The calibration builds beside gemm_bench (two nvcc processes).
cal=/tmp/cluster_calibrate
nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. -Xptxas -v \
  hw/h200/cluster_calibrate.cu -lcuda -o "$cal" >/tmp/cluster_calibrate_build.txt 2>&1 &
cal_pid=$!
. hw/h200/gemm_bench_bin.sh
echo "gemm_bench built at $(elapsed) s"
if ! wait "$cal_pid"; then
  cat /tmp/cluster_calibrate_build.txt
  echo "cluster_calibrate build failed"
  exit 2
fi
grep -E "warning|error|spill" /tmp/cluster_calibrate_build.txt | sort | uniq -c
echo "cluster_calibrate built at $(elapsed) s"

rc=0
{
  echo "# $board"
  timeout "${CAL_TIMEOUT_S:-120}" "$cal"
  echo "# cluster_calibrate exit status $?"
} >"$out/cluster_calibration.csv"
cat "$out/cluster_calibration.csv"
grep -q "^# cluster_calibrate exit status 0$" "$out/cluster_calibration.csv" || rc=1
echo "calibration done at $(elapsed) s"

# Check each cluster shape alone on an odd shape; keep those that pass.
IFS=, read -r -a wanted <<<"${CLUSTERS:-1x1,2x1,1x2}"
keep=()
{ echo "# $board"; echo "$header"; } >"$out/cluster_check.csv"
for c in "${wanted[@]}"; do
  timeout "${RUN_TIMEOUT_S:-30}" "$bin" --m 257 --n 199 --k 72 --all --runs 3 --cluster "$c" \
    ${EPILOGUE:+$([ "$EPILOGUE" = tma ] && echo --tma-epilogue)} >>"$out/cluster_check.csv"
  s=$?
  if [ "$s" -eq 0 ]; then
    keep+=("$c")
  else
    echo "cluster $c: check exit status $s (124: hang); left out of the rounds"
    rc=1
  fi
done
echo "checked at $(elapsed) s: keeping ${keep[*]:-none}"
if [ "${#keep[@]}" -eq 0 ]; then exit 1; fi
list=$(IFS=,; echo "${keep[*]}")

epilogue=""
[ "${EPILOGUE:-regs}" = tma ] && epilogue=--tma-epilogue
shapes=("4096 4096 4096" "8192 8192 8192" "3072 3072 3072" "6144 6144 6144"
        "4000 3000 2048" "1000 8192 4096" "8192 1000 4096" "2500 2500 2500")
{ echo "# $board"; echo "round,$header"; } >"$out/cluster_gemm.csv"
for round in $(seq "${ROUNDS:-2}"); do
  if [ "$(elapsed)" -gt "${DEADLINE_S:-420}" ]; then
    echo "round $round not started: past DEADLINE_S"
    break
  fi
  for shape in "${shapes[@]}"; do
    if [ "$(elapsed)" -gt "${HARD_S:-500}" ]; then
      echo "round $round, $shape not started: past HARD_S"
      continue
    fi
    set -- $shape
    timeout "${SHAPE_TIMEOUT_S:-120}" "$bin" --m "$1" --n "$2" --k "$3" --all --clusters "$list" \
      --runs "${RUNS:-20}" ${epilogue} | sed "s/^/$round,/" >>"$out/cluster_gemm.csv"
    s=${PIPESTATUS[0]}
    if [ "$s" -ne 0 ]; then
      echo "round $round, $shape: gemm_bench exit status $s (124: hang)"
      rc=1
    fi
  done
  echo "round $round done at $(elapsed) s: $(grep -c ",ok," "$out/cluster_gemm.csv") rows ok"
done
grep -v "^#\|,ok,\|does_not_fit" "$out/cluster_gemm.csv" "$out/cluster_check.csv" | grep -v ":round,\|:shape," | head -5
echo "exit status $rc at $(elapsed) s"
exit $rc
