#!/bin/bash
# run_split_k.sh: the SM90 matmul's K split over a cluster (--split-k) on a
# Hopper GPU: the odd-shape correctness run of every split and stage count,
# then the shape set's shapes with few tiles and long K (where cuBLAS splits
# K and the kernel without a split leaves most SMs idle), every 128-column
# configuration with splits 1, 2, 4 and 8, both epilogues, ROUNDS rounds in
# turn (split_k.csv; the shape column ends in _kS for S > 1, _et for the TMA
# epilogue). Output in $OUT (or /tmp).
# SHAPES="M N K;M N K" measures those shapes instead, ROUNDS=R that many
# rounds (default 2), SPLITS the list (default 1,2,4,8).
# GEMM_BENCH=path runs a gemm_bench already built (gemm_bench_bin.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
. hw/h200/gemm_bench_bin.sh
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
rc=0
"$bin" --m 257 --n 199 --k 1000 --split-k 2,4,8 --tile-n 128 --all --runs 3 > "$out/split_k_odd.csv" || rc=1
"$bin" --m 257 --n 199 --k 1000 --split-k 2,4,8 --tile-n 128 --all --runs 3 --tma-epilogue >> "$out/split_k_odd.csv" || rc=1
echo "odd shapes: $(grep -c ",ok," "$out/split_k_odd.csv") ok, $(grep -c "MISMATCH" "$out/split_k_odd.csv") mismatched"
{ echo "# $board"; echo "round,$header"; } > "$out/split_k.csv"
default="384 384 10048;576 448 12672;384 1344 10880;256 1856 8704;1600 320 15808;512 1152 7104"
default+=";2432 256 14336;1856 320 4160;384 832 3648;128 4096 11008;1 8192 28672;1 8192 8192;1 4096 11008"
IFS=';' read -r -a shapes <<<"${SHAPES:-$default}"
for round in $(seq 1 "${ROUNDS:-2}"); do
  for shape in "${shapes[@]}"; do
    set -- $shape
    for epi in "" "--tma-epilogue"; do
      "$bin" --m "$1" --n "$2" --k "$3" --tile-n 128 --split-k "${SPLITS:-1,2,4,8}" --all --runs 10 $epi |
        sed "s/^/$round,/" >> "$out/split_k.csv" || rc=1
    done
  done
  echo "round $round: $(grep -c ",ok," "$out/split_k.csv") rows ok, $(($(date +%s) - start)) s"
done
grep -v "^#\|,ok,\|^round,\|does_not_fit" "$out/split_k.csv" | head -5
exit $rc
