# gemm_bench_bin.sh: sourced from the repository root by the hardware scripts
# (run_sweep.sh, run_cta_scan.sh, run_ncu.sh). Sets `bin` to the gemm_bench
# to run: $GEMM_BENCH when given (e.g. one `bazel build //hw/h200:gemm_bench`
# made), else one built here with nvcc into /tmp; exits 2 when that build fails.
# With OLD=DIR (another tree, e.g. `git archive <commit> kernels hw isa | tar
# -x -C DIR`), also sets `old` to that tree's gemm_bench, for A/B runs.
bin="${GEMM_BENCH:-}"
if [ -z "$bin" ]; then
  bin=/tmp/gemm_bench
  nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/gemm_bench.cu \
    -lcublas -lcuda -o "$bin" || exit 2
fi
old=""
if [ -n "${OLD:-}" ]; then
  old=/tmp/gemm_bench_old
  (cd "$OLD" && nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. \
    hw/h200/gemm_bench.cu -lcublas -lcuda -o "$old") || exit 2
fi
