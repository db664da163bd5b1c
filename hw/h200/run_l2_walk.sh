#!/bin/bash
# run_l2_walk.sh: the L2's rate by the matmul's tile walk (docs/hardware.md,
# "The L2's rate by the tile walk"). The SM90 model has one L2 rate, measured
# on 4096³'s 128x128 loads (11.4 TB/s); a shape with few row tiles shares its
# B panels among few consecutive CTAs and its A blocks among many. For shapes
# of K = 2624 and about 1,056 output tiles of 128x128 whose row tiles run
# from 1 to 132 (and 4096³), this runs:
#   1. `l2_stream gemm_shape M N K`: the matmul's loads alone and held for the
#      tensor core's k-block, every tile width and stage count;
#   2. gemm_bench --all on the same shapes, ROUNDS rounds (the matmul itself,
#      on the same board, for the model's check);
#   3. under Nsight Compute, the loads alone of 128x128 with 4 stages and
#      128x256 with 3 (the 4th launch of each: the first after the warm-ups):
#      L2 read sectors, their hits, the sectors that crossed between the two
#      L2 partitions (ltcfabric), DRAM bytes.
#   4. (skew) `l2_stream gemm_skew`: the loads of seven of these shapes with
#      each CTA's k-blocks started 0, 1 or 5 k-blocks past the last CTA's, so
#      that CTAs sharing a box ask for it at different times; and under Nsight
#      Compute the same counters for 896x14656x2624 and 4096x4224x2624 128x128
#      s4 with each skew.
#   STEPS="loads gemm ncu" (the default; any of loads, gemm, ncu, skew),
#   ROUNDS=3, DEADLINE_S=480 (no new step after it).
# Output in $OUT (or /tmp): l2_walk_loads.csv, l2_walk_gemm.csv,
# l2_walk_ncu.csv, l2_walk_skew.csv, l2_walk_skew_ncu.csv, each with the
# board's name and UUID as a comment line.
set -uo pipefail
cd "$(dirname "$0")/../.."
. hw/h200/run_preamble.sh
steps=" ${STEPS:-loads gemm ncu} "
step() { [[ "$steps" == *" $1 "* ]]; }
l2=/tmp/l2_stream
nvcc -std=c++20 -O3 -gencode=arch=compute_90a,code=sm_90a -I. hw/h200/l2_stream.cu -lcuda -o "$l2" &
build_l2=$!
if step gemm; then . hw/h200/gemm_bench_bin.sh; fi
wait "$build_l2" || exit 2
# M N K: row tiles 1, 2, 4, 7 (896x14656x2624, the shape set's), 8, 16, 32, 33, 66, 132; then 4096³.
shapes=("128 135168 2624" "256 67584 2624" "512 33792 2624" "896 14656 2624" "1024 16896 2624"
        "2048 8448 2624" "4096 4224 2624" "4224 4096 2624" "8448 2048 2624" "16896 1024 2624" "4096 4096 4096")
late() { [ $(( $(date +%s) - start )) -gt "${DEADLINE_S:-480}" ]; }
rc=0
# ncu_csv SHAPE TILE_N STAGES [K_SKEW]: the counters of one configuration's first launch after the warm-ups.
metrics=gpu__time_duration.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_read_lookup_hit.sum
metrics+=,lts__t_sectors_srcunit_ltcfabric.sum,dram__bytes_read.sum
ncu_csv() {
  "$NCU" --clock-control none --metrics "$metrics" -k regex:gemm_loads --launch-skip 3 --launch-count 1 \
    --csv --page raw "$l2" gemm_shape $1 $2 $3 ${4:-} > /tmp/ncu_one.txt 2>&1 || { tail -3 /tmp/ncu_one.txt; return 1; }
  python3 - "$1" "$2 $3 ${4:-}" "$metrics" /tmp/ncu_one.txt <<'PY'
import csv, sys
shape = "x".join(sys.argv[1].split())
cfg = ",".join(sys.argv[2].split())
rows = [r for r in csv.reader(l for l in open(sys.argv[4]) if l.startswith('"'))]
head, vals = rows[0], rows[2]  # names, units, the one kernel's values
for m in sys.argv[3].split(","):
    print(f"{shape},{cfg},{m},{vals[head.index(m)].replace(',', '')}")
PY
}
if step loads; then
echo "# $board" > "$out/l2_walk_loads.csv"
for s in "${shapes[@]}"; do
  late && { echo "loads: stopped before $s (DEADLINE_S)"; break; }
  "$l2" gemm_shape $s | grep -v "^section" | { if [ "$s" = "${shapes[0]}" ]; then cat; else grep -v "^shape"; fi; } \
    >> "$out/l2_walk_loads.csv" || rc=1
done
echo "loads done at $(( $(date +%s) - start )) s"
fi
if step gemm; then
header="shape,tile_n,stages,ours_us,ours_tflops,cublas_us,cublas_tflops,rel_err,status,sm_mhz,cublas_mhz"
{ echo "# $board; epilogue regs"; echo "round,$header"; } > "$out/l2_walk_gemm.csv"
for round in $(seq "${ROUNDS:-3}"); do
  late && { echo "gemm: round $round not started (DEADLINE_S)"; break; }
  for s in "${shapes[@]}"; do
    set -- $s
    "$bin" --m "$1" --n "$2" --k "$3" --all --runs 20 | sed "s/^/$round,/" >> "$out/l2_walk_gemm.csv" || rc=1
  done
  echo "gemm round $round done at $(( $(date +%s) - start )) s"
done
fi
if step ncu || step skew; then . hw/h200/ncu_bin.sh; fi
if step ncu; then
{ echo "# $board"; echo "shape,tile_n,stages,metric,value"; } > "$out/l2_walk_ncu.csv"
for s in "128 135168 2624" "896 14656 2624" "4096 4224 2624" "16896 1024 2624" "4096 4096 4096"; do
  for cfg in "128 4" "256 3"; do
    late && { echo "ncu: stopped before $s $cfg (DEADLINE_S)"; break 2; }
    ncu_csv "$s" $cfg >> "$out/l2_walk_ncu.csv" || rc=1
  done
done
echo "ncu done at $(( $(date +%s) - start )) s"
fi
if step skew; then
echo "# $board" > "$out/l2_walk_skew.csv"
"$l2" gemm_skew | grep -v "^section" >> "$out/l2_walk_skew.csv" || rc=1
echo "skew done at $(( $(date +%s) - start )) s"
{ echo "# $board"; echo "shape,tile_n,stages,k_skew,metric,value"; } > "$out/l2_walk_skew_ncu.csv"
for s in "896 14656 2624" "4096 4224 2624"; do
  for skew in 0 1 5; do
    late && { echo "skew ncu: stopped before $s $skew (DEADLINE_S)"; break 2; }
    ncu_csv "$s" 128 4 $skew >> "$out/l2_walk_skew_ncu.csv" || rc=1
  done
done
echo "skew ncu done at $(( $(date +%s) - start )) s"
fi
exit $rc
