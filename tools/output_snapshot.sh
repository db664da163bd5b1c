#!/usr/bin/env bash
# output_snapshot.sh SIM OUTDIR: runs a fixed list of `sim` commands that
# covers every kernel family and architecture (functional and timing runs,
# verify, sweep, list, the usage errors) and keeps what each printed and wrote:
# the JSON (with its one run-dependent member, host_timing, removed), the Perfetto
# traces, the SVG timelines, the text and the exit status.
#
# A refactoring that must not change what users see is checked with
#   tools/output_snapshot.sh OLD_SIM /tmp/before
#   tools/output_snapshot.sh NEW_SIM /tmp/after
#   diff -r /tmp/before /tmp/after
# Text lines holding wall time are dropped, as they differ between runs.
set -uo pipefail
sim="$(realpath "$1")"
out="$2"
mkdir -p "$out"
cd "$out" || exit 2

n=0
snap() {  # snap NAME ARGS...: runs sim ARGS in $out, keeps exit status, text and files
  local name="$1"; shift
  n=$((n + 1))
  "$sim" "$@" > "$name.stdout" 2> "$name.stderr"
  echo "$?" > "$name.rc"
  # wall-clock figures differ from run to run
  sed -i -E 's/ in [0-9.]+ s:/ in _ s:/; /wall/d' "$name.stdout" "$name.stderr"
  for f in "$name".json; do
    [ -f "$f" ] && python3 - "$f" <<'EOF'
import json, sys
p = sys.argv[1]
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k != "host_timing"}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
d = json.load(open(p))
json.dump(strip(d), open(p, "w"), indent=1, sort_keys=True)
EOF
  done
}

snap list list
snap help --help
# Every family and architecture, functional (exact check) and timing.
snap mm100_f run --kernel matmul --arch sm100 --m 257 --n 129 --k 65 --pad-rows --functional --json mm100_f.json --trace mm100_f.pftrace --timeline mm100_f.svg
snap mm100_clc run --kernel matmul --arch sm100 --m 384 --n 512 --k 256 --tile-n 128 --stages 3 --scheduler clc --functional --json mm100_clc.json
snap mm100_t run --kernel matmul --arch sm100 --m 4096 --n 4096 --k 2048 --tile-n 256 --stages 4 --json mm100_t.json
snap mm100_f32 run --kernel matmul --arch sm100 --m 200 --n 100 --k 128 --out-dtype f32 --tile-n 64 --functional --json mm100_f32.json
snap mm90_f run --kernel matmul --arch sm90 --m 257 --n 129 --k 65 --pad-rows --functional --json mm90_f.json --trace mm90_f.pftrace
snap mm90_t run --kernel matmul --arch sm90 --m 2048 --n 2048 --k 2048 --tile-n 128 --stages 5 --json mm90_t.json --timeline mm90_t.svg
snap mm90_clk run --kernel matmul --arch sm90 --m 1024 --n 1024 --k 1024 --sm-clock 1.7,1.9 --json mm90_clk.json
snap amd_pp_f run --kernel matmul --arch mi300x --m 200 --n 136 --k 96 --functional --json amd_pp_f.json
snap amd_ws_f run --kernel matmul --arch mi300x --amd-kernel wave_specialized --m 130 --n 260 --k 64 --functional --json amd_ws_f.json
snap amd_t run --kernel matmul --arch mi300x --m 512 --n 512 --k 512 --json amd_t.json
snap conv_f run --kernel conv2d --n 2 --h 9 --w 11 --c 19 --k 70 --r 3 --s 3 --stride 2 --pad 1 --functional --json conv_f.json
snap conv_res run --kernel conv2d --n 1 --h 8 --w 8 --c 64 --k 128 --r 1 --s 1 --residual --beta 0.5 --functional --json conv_res.json
snap conv_t run --kernel conv2d --n 8 --h 56 --w 56 --c 64 --k 64 --r 3 --s 3 --pad 1 --json conv_t.json
snap bs_mx_f run --kernel block_scaled_matmul --format mxfp8 --m 200 --n 136 --k 192 --tile-n 128 --stages 3 --functional --json bs_mx_f.json
snap bs_e5_f run --kernel block_scaled_matmul --format mxfp8 --fp8-type e5m2 --m 130 --n 260 --k 128 --tile-n 128 --stages 2 --functional --json bs_e5_f.json
snap bs_fp4_f run --kernel block_scaled_matmul --format nvfp4 --m 256 --n 256 --k 256 --tile-n 256 --stages 2 --functional --json bs_fp4_f.json
snap bs_t run --kernel block_scaled_matmul --format nvfp4 --m 4096 --n 4096 --k 4096 --tile-n 256 --stages 4 --json bs_t.json
snap bw_f run --kernel blockwise_fp8_matmul --m 200 --n 136 --k 384 --stages 3 --functional --json bw_f.json
snap bw_t run --kernel blockwise_fp8_matmul --m 4096 --n 4096 --k 4096 --json bw_t.json
# Exploration and sweeps.
snap ver100 verify --kernel matmul --arch sm100 --m 256 --n 256 --k 256 --stages 2 --tile-n 128 --schedules 4 --json ver100.json
snap ver90 verify --kernel matmul --arch sm90 --m 200 --n 136 --k 128 --schedules 3 --json ver90.json
snap veramd verify --kernel matmul --arch mi300x --m 128 --n 128 --k 96 --schedules 2 --json veramd.json
snap verconv verify --kernel conv2d --n 1 --h 6 --w 6 --c 16 --k 64 --r 3 --s 3 --pad 1 --schedules 2 --json verconv.json
snap sweep100 sweep --kernel matmul --arch sm100 --m 1024 --n 1024 --k 1024 --stages 2-8 --tile-n 64,128,256 --json sweep100.json
snap sweep90 sweep --kernel matmul --arch sm90 --m 512 --n 512 --k 512 --stages 3-6 --tile-n 128,256 --json sweep90.json
# Usage errors: the first line and the exit status.
snap err_kernel run --kernel nope --m 1 --n 1 --k 1
snap err_range run --kernel matmul --arch sm100 --m 0 --n 1 --k 1
snap err_conv run --kernel conv2d --n 1 --h 4 --w 4 --c 4 --k 4 --r 9 --s 9
snap err_fmt run --kernel block_scaled_matmul --m 128 --n 128 --k 128
snap err_stray run --kernel matmul --m 128 --n 128 --k 128 extra
echo "output_snapshot: $n commands into $out"
