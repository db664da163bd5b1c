#!/bin/bash
# gemm_bench_args_test.sh: gemm_bench refuses option combinations it cannot
# run, in one line and with exit 2, before it touches a GPU (its arguments are
# read first), so the check runs on a machine without one: the binary is
# loaded against the CUDA toolkit's stub libcuda, and a valid command line
# must get past the arguments to a CUDA call (which the stub fails).
# Among the refusals: a probe build (--stamp-tiles, --stamp-tile-points,
# --hold-kblock) with a K split, which the split rows would otherwise leave
# out in silence.
set -uo pipefail
bin="${1:?usage: gemm_bench_args_test.sh GEMM_BENCH_BIN}"  # the test's args: its runfiles path
[ -x "$bin" ] || { echo "FAIL: $bin is not an executable"; exit 1; }
stub=""
for d in /usr/local/cuda/lib64/stubs /usr/local/cuda/targets/x86_64-linux/lib/stubs; do
  [ -e "$d/libcuda.so" ] && stub="$d/libcuda.so" && break
done
[ -n "$stub" ] || { echo "FAIL: no stub libcuda.so in the CUDA toolkit"; exit 1; }
libs="${TEST_TMPDIR:-$(mktemp -d)}/libs"
mkdir -p "$libs"
ln -sf "$stub" "$libs/libcuda.so.1"
export LD_LIBRARY_PATH="$libs:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fails=0
# ARGS | text the one-line refusal must contain
while IFS='|' read -r args want; do
  [ -n "$args" ] || continue
  err=$("$bin" $args 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [[ "$err" != *"$want"* ]]; then
    echo "FAIL: gemm_bench $args: exit $rc, $lines line(s): $err (wanted exit 2 and '$want')"
    fails=$((fails + 1))
  fi
done <<'CASES'
--split-k 2 --stamp-tiles|--stamp-tiles runs without --split-k S > 1
--split-k 1,4 --stamp-tile-points|--stamp-tile-points runs without --split-k S > 1
--split-k 2 --hold-kblock 200|--hold-kblock runs without --split-k S > 1
--split-k 5|--split-k takes 1, 2, 3, 4 or 8
--split-tail|--split-tail splits the last wave's tiles
--pingpong --split-k 2|--pingpong runs without --cluster and --split-k
--sets 300|--sets must be 1-256
--pingpong --clustered-instance|--clustered-instance runs the cooperative 128-row tile
--tile-m 256 --clustered-instance|--clustered-instance runs the cooperative 128-row tile
CASES
# The control: the same options without the conflict get past the arguments
# to the first CUDA call, which the stub fails (CHECK_CUDA / CHECK_CUBLAS name
# their line of gemm_bench.cu; a refusal does not).
for args in "--split-k 1 --stamp-tiles" "--split-k 2" "--hold-kblock 200" "--clustered-instance"; do
  err=$("$bin" $args 2>&1 >/dev/null)
  if [[ "$err" != *"gemm_bench.cu:"* ]]; then
    echo "FAIL: gemm_bench $args: '$err' (wanted a CUDA call's failure past the arguments)"
    fails=$((fails + 1))
  fi
done
[ $fails -eq 0 ] || exit 1
echo PASS
