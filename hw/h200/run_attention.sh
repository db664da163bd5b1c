#!/bin/bash
# run_attention.sh: builds the SM90 attention benchmark on the GPU machine and
# runs its sweep (hw/h200/attention_bench.cu: FlashAttention's 16k-token set at
# head dim 64 and 128, causal and not, ragged and GQA shapes, each checked
# against the FP32 reference and timed), once per element type in $DTYPES
# (default "bf16"; "bf16 f16" runs both, FP16 with --in-dtype f16).
# Output: the board, the ptxas register/spill lines and the CSV; with $OUT
# set, the CSV goes to $OUT/attention.csv (FP16: attention_f16.csv), the full log to
# $OUT/attention_run.log and the kernel's SASS (if cuobjdump is there) to
# $OUT/attention.sass.gz. NVCC_EXTRA_FLAGS, if set, goes to nvcc before -I.
# Exit status: the benchmark's (0 all checks passed, 1 a check failed, 2 a
# CUDA error, 3 a hang), or 2 if the build failed.
set -uo pipefail
cd "$(dirname "$0")/../.."
out="${OUT:-/tmp}"
exec > >(tee "$out/attention_run.log") 2>&1
nvidia-smi --query-gpu=name,uuid,driver_version,clocks.sm,clocks.mem,clocks.max.sm,power.limit \
  --format=csv,noheader
nvcc --version | tail -1
bin=/tmp/attention_bench
# shellcheck disable=SC2086
nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a ${NVCC_EXTRA_FLAGS:-} -I. -Xptxas -v \
  hw/h200/attention_bench.cu -lcuda -o "$bin" >"$out/attention_ptxas.txt" 2>&1
build=$?
grep -E "error|registers|spill|C75" "$out/attention_ptxas.txt" | sed -E 's/_ZN[^ ]*Config(ILi[0-9]+ELi[0-9]+E)[^ ]*/attention\1/' |
  sort | uniq -c
if [ "$build" -ne 0 ]; then
  echo "build failed ($build)"
  exit 2
fi
rc=0
for dtype in ${DTYPES:-bf16}; do
  csv="$out/attention.csv"
  [ "$dtype" = bf16 ] || csv="$out/attention_$dtype.csv"
  "$bin" --sweep --runs 20 --in-dtype "$dtype" | tee "$csv"
  r=${PIPESTATUS[0]}
  echo "attention_bench --in-dtype $dtype exit status $r"
  [ "$r" -gt "$rc" ] && rc=$r
done
if command -v cuobjdump >/dev/null; then
  cuobjdump -sass "$bin" | gzip >"$out/attention.sass.gz"
fi
exit "$rc"
