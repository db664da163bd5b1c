#!/bin/bash
# Runs the nvcc-built benchmark (gemm_bench.bin, from its runfiles) with the given arguments.
set -euo pipefail
for dir in "${RUNFILES_DIR:-$0.runfiles}/structured_kernels/hw/h200" "$(dirname "$0")"; do
  if [ -x "$dir/gemm_bench.bin" ]; then exec "$dir/gemm_bench.bin" "$@"; fi
done
echo "gemm_bench: gemm_bench.bin not found next to $0" >&2
exit 2
