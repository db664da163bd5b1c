#!/bin/bash
# Runs an nvcc-built benchmark from its runfiles: the first argument names the
# binary (gemm_bench.bin, attention_bench.bin), the rest are its arguments.
set -euo pipefail
bin="${1:?usage: bench_wrapper.sh BINARY [ARGS...]}"
shift
for dir in "${RUNFILES_DIR:-$0.runfiles}/structured_kernels/hw/h200" "$(dirname "$0")"; do
  if [ -x "$dir/$bin" ]; then exec "$dir/$bin" "$@"; fi
done
echo "bench_wrapper: $bin not found next to $0" >&2
exit 2
