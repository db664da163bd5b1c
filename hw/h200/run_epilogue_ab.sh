#!/bin/bash
# A/B of the SM90 epilogue: st.global from registers against the TMA store.
export PATH=/usr/local/cuda/bin:$PATH
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp}
. hw/h200/gemm_bench_bin.sh > $out/build.log 2>&1 || { cat $out/build.log; exit 2; }
board=$(nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader)
echo "# $board" > $out/epilogue_ab.csv
echo "round,shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz" >> $out/epilogue_ab.csv
for c in 1x1 2x1 2x2; do
  $bin --m 257 --n 199 --k 72 --all --runs 3 --cluster $c --tma-epilogue | sed 's/^/check,/' >> $out/epilogue_ab.csv || echo "check $c failed"
done
for round in 1 2; do
  for s in "4096 4096 4096" "8192 8192 8192" "6144 6144 6144" "3072 3072 3072" "4000 3000 2048" "8192 1000 4096" "1000 8192 4096" "2048 2048 2048"; do
    set -- $s
    for e in "" "--tma-epilogue"; do
      timeout 120 $bin --m $1 --n $2 --k $3 --all --runs 20 --clusters 1x1,2x1 $e | sed "s/^/$round,/" >> $out/epilogue_ab.csv
    done
  done
  echo "round $round at $SECONDS s"
done
grep -c ",ok," $out/epilogue_ab.csv; grep -v ",ok,\|^#\|^round" $out/epilogue_ab.csv | head
