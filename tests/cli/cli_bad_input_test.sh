#!/bin/bash
# cli_bad_input_test.sh: every bad `sim` invocation is a usage error.
#
#   cli_bad_input_test.sh <sim binary> <models/sm100/params.json>
#
# The contract (sim/main.cc): exit status 2 and exactly one line on stderr for
# bad usage or input. For each case below this also asserts that nothing is
# printed on stdout, that the line names what was wrong, that nothing looks
# like a crash, and that the CLI answers quickly (timeout 20 s: a hang shows
# as status 124). `sim --help`, `sim run --help` and `sim list` must exit 0.
set -u
. "$(dirname "$0")/asan_note.sh" || exit 1
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

sim="$1"
params_sm100="$2"  # models/sm100/params.json
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# Valid sizes so that each case fails only on the thing it is about.
MNK=(--m 64 --n 64 --k 64)

# expect_usage_error WANT ARGS...: `sim ARGS...` must exit 2 with exactly one
# stderr line containing WANT (empty WANT: any line), and no stdout.
expect_usage_error() {
  local want="$1"
  shift
  local what="sim $*"
  timeout 20 "$sim" "$@" >"$tmp/out" 2>"$tmp/err.raw"
  local rc=$?
  drop_asan_note "$tmp/err.raw" >"$tmp/err"
  local lines
  lines=$(awk 'END { print NR }' "$tmp/err")
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    fail "$what: did not finish within 20 s"
  elif [ "$rc" -ne 2 ]; then
    fail "$what: exit status $rc, want 2"
  fi
  if [ "$lines" -ne 1 ] || [ ! -s "$tmp/err" ]; then
    fail "$what: $lines line(s) on stderr, want exactly 1: $(head -c 1000 "$tmp/err")"
  elif [ -n "$(tail -c 1 "$tmp/err")" ]; then
    fail "$what: the stderr line does not end in a newline"
  fi
  if [ -n "$want" ] && ! grep -qF -- "$want" "$tmp/err"; then
    fail "$what: stderr does not mention '$want': $(head -c 1000 "$tmp/err")"
  fi
  if [ -s "$tmp/out" ]; then
    fail "$what: printed on stdout: $(head -c 500 "$tmp/out")"
  fi
  if grep -nE 'terminate|Segmentation|Aborted|what\(\)|core dumped|Assertion' "$tmp/err" "$tmp/out"; then
    fail "$what: output looks like a crash"
  fi
  [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && echo "ok: $what -> 2: $(cat "$tmp/err")"
}

# expect_ok WANT ARGS...: `sim ARGS...` must exit 0 with WANT on stdout and
# nothing on stderr.
expect_ok() {
  local want="$1"
  shift
  local what="sim $*"
  timeout 20 "$sim" "$@" >"$tmp/out" 2>"$tmp/err.raw"
  local rc=$?
  drop_asan_note "$tmp/err.raw" >"$tmp/err"
  [ "$rc" -eq 0 ] || fail "$what: exit status $rc, want 0; stderr: $(head -c 1000 "$tmp/err")"
  [ -s "$tmp/err" ] && fail "$what: printed on stderr: $(head -c 1000 "$tmp/err")"
  grep -qF -- "$want" "$tmp/out" || fail "$what: stdout lacks '$want': $(head -c 1000 "$tmp/out")"
  [ "$rc" -eq 0 ] && echo "ok: $what -> 0"
}

# --- numbers ---------------------------------------------------------------
expect_usage_error "--m" run --kernel matmul --arch sm100 --m 0 --n 64 --k 64
expect_usage_error "--n" run --m 64 --n -5 --k 64
expect_usage_error "--k" run --m 64 --n 64 --k abc
expect_usage_error "--m" run --m 1e3 --n 64 --k 64
expect_usage_error "--m" run --m "" --n 64 --k 64
expect_usage_error "--data-seed" run "${MNK[@]}" --functional --data-seed -1
expect_usage_error "--data-seed" verify "${MNK[@]}" --schedules 2 --data-seed x
# A timing run draws no data: a data seed there would be silently ignored.
expect_usage_error "--data-seed needs --functional" run "${MNK[@]}" --data-seed 3

# --- configuration ---------------------------------------------------------
expect_usage_error "--stages" run "${MNK[@]}" --stages 9
expect_usage_error "--stages" run "${MNK[@]}" --stages 1
# More stages than shared memory holds (default tile N is 256).
expect_usage_error "shared memory" run "${MNK[@]}" --stages 5
expect_usage_error "shared memory" run "${MNK[@]}" --stages 7 --tile-n 128
expect_usage_error "100" run "${MNK[@]}" --tile-n 100
expect_usage_error "fp8" run "${MNK[@]}" --out-dtype fp8
expect_usage_error "--scheduler" run "${MNK[@]}" --scheduler dynamic
expect_usage_error "--scheduler clc" run --m 1048576 --n 1048576 --k 64 --tile-n 64 --scheduler clc
expect_usage_error "conv3d" run --kernel conv3d "${MNK[@]}"
expect_usage_error "sm70" run --arch sm70 "${MNK[@]}"

# --- output paths ----------------------------------------------------------
expect_usage_error "/nonexistent_dir/x.json" run "${MNK[@]}" --json /nonexistent_dir/x.json
expect_usage_error "/nonexistent_dir/t.pftrace" run "${MNK[@]}" --trace /nonexistent_dir/t.pftrace
# Trace and timeline selections that name nothing, or come without their file.
expect_usage_error "--timeline-cta 3 does not exist" run "${MNK[@]}" --timeline "$tmp/t.svg" --timeline-cta 3
expect_usage_error "FROM:TO" run "${MNK[@]}" --timeline "$tmp/t.svg" --timeline-window 500
expect_usage_error "FROM < TO" run "${MNK[@]}" --timeline "$tmp/t.svg" --timeline-window 500:100
expect_usage_error "need --timeline" run "${MNK[@]}" --timeline-cta 0
# --timeline-cta lists CTA numbers, busiest and slowest: a word it does not
# know, an empty item, too many CTAs, a number past the launch inside a list,
# a choice among every CTA that --trace-sms would leave out, and one that
# would trace every SM of a launch too large to trace.
expect_usage_error "--timeline-cta expects CTA numbers, busiest or slowest" run "${MNK[@]}" \
  --timeline "$tmp/t.svg" --timeline-cta busiest,fastest
expect_usage_error "got '0,,1'" run "${MNK[@]}" --timeline "$tmp/t.svg" --timeline-cta 0,,1
expect_usage_error "at most 8 CTAs" run "${MNK[@]}" --timeline "$tmp/t.svg" --timeline-cta 0,1,2,3,4,5,6,7,8
expect_usage_error "--timeline-cta 2 does not exist" run "${MNK[@]}" --timeline "$tmp/t.svg" \
  --timeline-cta slowest,2
expect_usage_error "--timeline-cta 1 does not exist: this launch has 1 workgroups" run "${MNK[@]}" \
  --arch mi300x --timeline "$tmp/t.svg" --timeline-cta 0,1
expect_usage_error "--timeline-cta busiest chooses among every CTA" run --m 512 --n 512 --k 64 \
  --trace "$tmp/t.pftrace" --trace-sms 0 --timeline "$tmp/t.svg" --timeline-cta 0,busiest
expect_usage_error "--timeline-cta slowest traces every SM" run --m 16384 --n 16384 --k 16384 \
  --timeline "$tmp/t.svg" --timeline-cta slowest
expect_usage_error "--trace-sms needs --trace" run "${MNK[@]}" --trace-sms 0
expect_usage_error "--trace-sms" run "${MNK[@]}" --trace "$tmp/t.pftrace" --trace-sms 0,x
# SM90 limits: its tile widths and stage counts, BF16 output, no CLC.
expect_usage_error "tile N 64" run "${MNK[@]}" --arch sm90 --tile-n 64
expect_usage_error "do not fit" run "${MNK[@]}" --arch sm90 --tile-n 256 --stages 5
# Tile M: the split along N only on the SM90 matmul, with tile N 128.
expect_usage_error "128, 192 or 256" run "${MNK[@]}" --arch sm90 --tile-m 320 --tile-n 128
expect_usage_error "--tile-n 128" run "${MNK[@]}" --arch sm90 --tile-m 256 --tile-n 256
expect_usage_error "--tile-m needs --kernel matmul --arch sm90" run "${MNK[@]}" --arch sm100 --tile-m 256
expect_usage_error "runs without" run "${MNK[@]}" --arch sm90 --tile-m 192 --tile-n 128 --cluster 2x1
expect_usage_error "bf16" run "${MNK[@]}" --arch sm90 --tile-n 128 --out-dtype f32
expect_usage_error "needs --arch sm100" run "${MNK[@]}" --arch sm90 --tile-n 128 --scheduler clc
expect_usage_error "--tile-group 4 needs --arch sm90" run "${MNK[@]}" --tile-group 4
expect_usage_error "tile-group" run "${MNK[@]}" --arch sm90 --tile-n 128 --tile-group 0
expect_usage_error "--pingpong: each warpgroup holds a whole 128x128 tile" run "${MNK[@]}" --arch sm90 --tile-n 256 --stages 3 --pingpong
expect_usage_error "--pingpong runs without a cluster or a K split" run "${MNK[@]}" --arch sm90 --tile-n 128 --pingpong --cluster 2x1
expect_usage_error "--pingpong needs --arch sm90" run "${MNK[@]}" --pingpong
expect_usage_error "--kernel-schedule must be cooperative or pingpong, got 'pong'" run "${MNK[@]}" --arch sm90 --tile-n 128 --kernel-schedule pong
expect_usage_error "--pingpong and --kernel-schedule cooperative contradict each other" run "${MNK[@]}" --arch sm90 --tile-n 128 --pingpong --kernel-schedule cooperative
expect_usage_error "--kernel-schedule needs --arch sm90" run "${MNK[@]}" --kernel-schedule pingpong
expect_usage_error "--per-warp changes timing runs only: a --functional run simulates every warp already" run "${MNK[@]}" --arch sm90 --tile-n 128 --functional --per-warp
expect_usage_error "--per-warp changes timing runs only: sim verify simulates every warp already" verify "${MNK[@]}" --arch sm90 --tile-n 128 --per-warp --schedules 2
expect_usage_error "--tile-group expects a whole number in [1, 256] or 'auto', got 'four'" run "${MNK[@]}" --arch sm90 --tile-n 128 --tile-group four
expect_usage_error "--input-sets 8 needs --arch sm90 or sm100" run "${MNK[@]}" --arch mi300x --input-sets 8
expect_usage_error "input-sets" run "${MNK[@]}" --arch sm90 --tile-n 128 --input-sets 0
# SM100 clusters: the 2-SM kernel (2x1) only, K-major.
expect_usage_error "2x1 only" run "${MNK[@]}" --cluster 1x2
expect_usage_error "2x1 only" run "${MNK[@]}" --cluster 4x1
expect_usage_error "K-major operands only" run "${MNK[@]}" --cluster 2x1 --layout-b row
expect_usage_error "no thread-block" run "${MNK[@]}" --arch mi300x --cluster 2x1
expect_usage_error "--epilogue tma needs --arch sm90" run "${MNK[@]}" --epilogue tma
expect_usage_error "--stamp-tiles reads the SM90 matmul's probe points; needs --arch sm90" run "${MNK[@]}" --stamp-tiles
expect_usage_error "--cluster" run "${MNK[@]}" --arch sm90 --tile-n 128 --cluster 3x1
expect_usage_error "K-major operands only" run "${MNK[@]}" --arch sm90 --tile-n 128 --cluster 2x1 --layout-a col
# The K split over a cluster (sm90, tile N 128, no --cluster, enough k-blocks).
expect_usage_error "--split-k 2 needs --arch sm90" run "${MNK[@]}" --split-k 2
expect_usage_error "split-k" run "${MNK[@]}" --arch sm90 --tile-n 128 --split-k 5
expect_usage_error "tile N 128, or 192" run "${MNK[@]}" --arch sm90 --split-k 2
expect_usage_error "leave --cluster at 1x1" run "${MNK[@]}" --arch sm90 --tile-n 128 --split-k 2 --cluster 2x1
expect_usage_error "fewer than the 4 CTAs" run "${MNK[@]}" --arch sm90 --tile-n 128 --split-k 4
expect_usage_error "K split's 56 KiB" run --m 64 --n 64 --k 1024 --arch sm90 --tile-n 128 --split-k 3 --stages 6
expect_usage_error "K split's 48 KiB" run --m 64 --n 64 --k 1024 --arch sm90 --tile-n 192 --split-k 2 --stages 5
expect_usage_error "192 with --split-k 2" run "${MNK[@]}" --arch sm90 --tile-n 192 --split-k 4
expect_usage_error "give --split-k S" run "${MNK[@]}" --arch sm90 --tile-n 128 --split-tail
expect_usage_error "give --split-k with a split over 1" sweep "${MNK[@]}" --arch sm90 --tile-n 128 --stages 4 --split-tail
# MI300X limits: the CDNA3 kernels, their tile and stages, even K, BF16 output.
expect_usage_error "wave_specialized" run "${MNK[@]}" --arch mi300x --amd-kernel interleave
expect_usage_error "needs --arch mi300x" run "${MNK[@]}" --amd-kernel pingpong
expect_usage_error "tile N 256" run "${MNK[@]}" --arch mi300x --tile-n 256
expect_usage_error "outside 2-3" run "${MNK[@]}" --arch mi300x --stages 4
expect_usage_error "must be even" run --m 64 --n 64 --k 63 --arch mi300x
# Leading dimensions: shorter than a row, a pitch the loads cannot take (named
# with its rule; --pad is the way out), D's pitch for the SM100 TMA store.
expect_usage_error "--lda 60 is less than K = 64" run --m 64 --n 64 --k 64 --lda 60
expect_usage_error "--ldb 10 is less than K = 64" run --m 64 --n 64 --k 64 --ldb 10 --arch sm90
expect_usage_error "--ldd 63 is less than N = 64" run --m 64 --n 64 --k 64 --ldd 63
expect_usage_error "A's rows are 130 bytes apart (lda 65 x 2 bytes); TMA needs a global row pitch that is a multiple of 16 bytes" run --m 64 --n 64 --k 65
expect_usage_error "B's rows are 146 bytes apart" run --m 64 --n 64 --k 65 --lda 72 --ldb 73 --arch sm90
expect_usage_error "the LDS DMA loads dwords" run --m 64 --n 64 --k 64 --lda 65 --arch mi300x
expect_usage_error "D's rows are 130 bytes apart (ldd 65 x 2 bytes); the epilogue stores D with TMA" run --m 64 --n 64 --k 64 --ldd 65
expect_usage_error "host memory for M=4096 N=64 K=64 at lda 2097152" run --m 4096 --n 64 --k 64 --lda 2097152 --functional
expect_usage_error "--in-dtype must be bf16 or f16" run --m 64 --n 64 --k 64 --in-dtype fp8
expect_usage_error "--batch" run --m 64 --n 64 --k 64 --batch 0
expect_usage_error "--layout-a must be row or col" run --m 64 --n 64 --k 64 --layout-a colmajor
expect_usage_error "--lda 64 is less than M = 100: a row of A holds M elements" run --m 100 --n 64 --k 64 --layout-a col --lda 64
# An MN-major operand's LDS DMA dwords pair elements along M (N): an odd M
# needs its pitch padded (--pad-rows or an even --lda).
expect_usage_error "the LDS DMA loads dwords, so rows must start on 4 bytes (an M-contiguous A's dwords pair elements along M, so M = 65 needs its pitch padded to even)" run --arch mi300x --m 65 --n 64 --k 64 --layout-a col
expect_usage_error "so N = 63 needs its pitch padded to even" run --arch mi300x --m 64 --n 63 --k 64 --layout-b row --amd-kernel wave_specialized
expect_usage_error "whose strides must be below 2^40 bytes" run --m 1048576 --n 1048576 --k 64 --batch 2
expect_usage_error "the kernels number tiles in 31 bits" run --m 1048576 --n 1048576 --k 64 --batch 65535
expect_usage_error "--functional is limited to M*N*K*batch <= 2^33" run --m 4096 --n 4096 --k 256 --batch 3 --functional
expect_usage_error "its race detector tracks 16-byte granules" run --m 64 --n 64 --k 64 --ldd 65 --arch mi300x
expect_usage_error "bf16" run "${MNK[@]}" --arch mi300x --out-dtype f32
expect_usage_error "blockwise_fp8_matmul is modelled on sm100, not 'mi300x'" run --kernel blockwise_fp8_matmul "${MNK[@]}" --arch mi300x
# --params: unreadable, another arch's file, a value missing, a value out of range.
expect_usage_error "cannot read" run "${MNK[@]}" --arch sm90 --tile-n 128 --params "$tmp/no_such.json"
echo '{"arch": "sm100", "params": {}}' >"$tmp/p_sm100.json"
expect_usage_error "for sm100, not sm90" run "${MNK[@]}" --arch sm90 --tile-n 128 --params "$tmp/p_sm100.json"
echo '{"arch": "sm90", "params": {}}' >"$tmp/p_empty.json"
expect_usage_error "missing" run "${MNK[@]}" --arch sm90 --tile-n 128 --params "$tmp/p_empty.json"
echo '{"arch": "sm90", "params": {"clock_ghz": {"value": 0, "source": "x"}}}' >"$tmp/p_zero.json"
expect_usage_error "clock_ghz" run "${MNK[@]}" --arch sm90 --tile-n 128 --params "$tmp/p_zero.json"
# A typo or a repeated key in a parameter file names the key and its line; a
# file far larger than any parameter file is refused without reading it all.
sed 's/"clock_ghz"/"clok_ghz"/' "$params_sm100" >"$tmp/p_typo.json"
expect_usage_error 'unknown parameter "clok_ghz"' run "${MNK[@]}" --params "$tmp/p_typo.json"
sed 's/"params": {/"params": {\n "num_sms": {"value": 8, "source": "x"},/' "$params_sm100" >"$tmp/p_dup.json"
expect_usage_error 'duplicate key "num_sms"' run "${MNK[@]}" --params "$tmp/p_dup.json"
printf '{"arch": "sm100", "extra": 1, "params": {}}' >"$tmp/p_top.json"
expect_usage_error 'unknown key "extra"' run "${MNK[@]}" --params "$tmp/p_top.json"
expect_usage_error "larger than" run "${MNK[@]}" --params /dev/zero
# sim sweep reads the same option, checked before any configuration runs.
expect_usage_error "cannot read" sweep "${MNK[@]}" --arch sm90 --params "$tmp/no_such.json"
expect_usage_error "for sm100, not sm90" sweep "${MNK[@]}" --arch sm90 --params "$tmp/p_sm100.json"
# Whole option names only: no prefix matching.
expect_usage_error "unknown option '--stage'" run "${MNK[@]}" --stage 3
expect_usage_error "unknown option '--tim'" run "${MNK[@]}" --tim "$tmp/t.svg"
expect_usage_error "unknown option '--schedule'" verify "${MNK[@]}" --schedule 3
expect_usage_error "unknown option '--tile'" sweep "${MNK[@]}" --tile 128
# --sm-clock: NVIDIA only, a clock in GHz or two (tensor phase, rest).
expect_usage_error "NVIDIA only" run "${MNK[@]}" --arch mi300x --sm-clock 1.5
expect_usage_error "--sm-clock" run "${MNK[@]}" --arch sm90 --tile-n 128 --sm-clock 0
expect_usage_error "--sm-clock" run "${MNK[@]}" --arch sm90 --tile-n 128 --sm-clock fast
expect_usage_error "--sm-clock" run "${MNK[@]}" --arch sm90 --tile-n 128 --sm-clock 1.7,
expect_usage_error "--sm-clock" run "${MNK[@]}" --arch sm90 --tile-n 128 --sm-clock 1.7,20
expect_usage_error "NVIDIA only" sweep "${MNK[@]}" --arch mi300x --sm-clock 1.5
expect_usage_error "--sm-clock" sweep "${MNK[@]}" --arch sm100 --sm-clock 11
# An empty --json path is as wrong as an empty --trace path.
expect_usage_error "--trace" run "${MNK[@]}" --trace ""
expect_usage_error "--json" run "${MNK[@]}" --json ""

# --- the command line itself -----------------------------------------------
expect_usage_error "--m" run --n 64 --k 64
expect_usage_error "frobnicate" run "${MNK[@]}" --frobnicate
expect_usage_error "fly" fly
# conv2d: its own shape options, and matmul's are refused.
CONV=(--kernel conv2d --n 2 --h 9 --w 11 --c 37 --k 70 --r 3 --s 3)
expect_usage_error "--m is not an option of --kernel conv2d" run "${CONV[@]}" --m 64
expect_usage_error "--h is required" run --kernel conv2d --n 2 --w 11 --c 37 --k 70 --r 3 --s 3
expect_usage_error "--stride" run "${CONV[@]}" --stride 9
expect_usage_error "--beta needs --residual" run "${CONV[@]}" --beta 2
expect_usage_error "--beta expects a number in [-1e+06, 1e+06]" run "${CONV[@]}" --residual --beta x
expect_usage_error "--fp8-type must be e4m3 or e5m2" run --kernel block_scaled_matmul --format mxfp8 --fp8-type e2m1 "${MNK[@]}"
expect_usage_error "does not fit" run --kernel conv2d --n 1 --h 2 --w 2 --c 8 --k 8 --r 5 --s 5
expect_usage_error "sm100" run "${CONV[@]}" --arch sm90
expect_usage_error "tile N 256" run "${CONV[@]}" --tile-n 256
expect_usage_error "--r is not an option of --kernel matmul (matmul takes --m --n --k --batch --lda --ldb --ldd --in-dtype --layout-a --layout-b --tile-group --input-sets --cluster --split-k --split-tail --epilogue --pingpong --kernel-schedule --stamp-tiles --hold-kblock --per-warp --pad-rows; --r is for --kernel conv2d)" run "${MNK[@]}" --r 3
expect_usage_error "--stride is for --kernel conv2d" run "${MNK[@]}" --stride 2
expect_usage_error "--m is not an option of --kernel conv2d" sweep --kernel conv2d "${MNK[@]}"
# block-scaled and blockwise FP8: their own options, refused elsewhere.
expect_usage_error "--format mxfp8|nvfp4 is required" run --kernel block_scaled_matmul "${MNK[@]}"
expect_usage_error "--format must be mxfp8 or nvfp4" run --kernel block_scaled_matmul --format fp16 "${MNK[@]}"
expect_usage_error "--fp8-type must be e4m3 or e5m2" run --kernel block_scaled_matmul --format mxfp8 --fp8-type e3m4 "${MNK[@]}"
expect_usage_error "--fp8-type is an mxfp8 option" run --kernel block_scaled_matmul --format nvfp4 --fp8-type e4m3 "${MNK[@]}"
expect_usage_error "tile N 64" run --kernel block_scaled_matmul --format nvfp4 "${MNK[@]}" --tile-n 64
expect_usage_error "does not fit" run --kernel block_scaled_matmul --format nvfp4 "${MNK[@]}" --stages 6
expect_usage_error "--format is for --kernel block_scaled_matmul" run "${MNK[@]}" --format mxfp8
# NVFP4's MMA kind (kind::mxf4nvf4) has no transposed operands.
expect_usage_error "nvfp4 takes K-major operands only" run --kernel block_scaled_matmul --format nvfp4 "${MNK[@]}" --layout-a col
expect_usage_error "kind::mxf4nvf4 does not support transposed A or B" run --kernel block_scaled_matmul --format nvfp4 "${MNK[@]}" --layout-b row --batch 2
expect_usage_error "--layout-a must be row or col" run --kernel blockwise_fp8_matmul "${MNK[@]}" --layout-a k
expect_usage_error "--batch" run --kernel blockwise_fp8_matmul "${MNK[@]}" --batch 0
# conv2d's batch is its --n and its layouts are fixed.
expect_usage_error "--batch is not an option of --kernel conv2d: conv2d's batch is --n" run "${CONV[@]}" --batch 2
expect_usage_error "--layout-a is not an option of --kernel conv2d: its layouts are fixed: NHWC activations" run "${CONV[@]}" --layout-a col
expect_usage_error "--layout-b is not an option of --kernel conv2d: its layouts are fixed" run "${CONV[@]}" --layout-b row
expect_usage_error "tile N 256" run --kernel blockwise_fp8_matmul "${MNK[@]}" --tile-n 256
expect_usage_error "writes BF16" run --kernel blockwise_fp8_matmul "${MNK[@]}" --out-dtype f32
expect_usage_error "modelled on sm100" run --kernel blockwise_fp8_matmul "${MNK[@]}" --arch sm90
# Their pitches (--lda/--ldb/--ldd) are the plain matmul's contract in elements
# of the stored type: >= the row, and a packed pitch TMA cannot take (K = 65
# FP8 is 65 bytes; NVFP4's E2M1 are two per byte) refused with the rule unless
# --pad-rows.
expect_usage_error "A's rows are 65 bytes apart (lda 65 x 1 byte); TMA needs a global row pitch that is a multiple of 16 bytes" run --kernel block_scaled_matmul --format mxfp8 --m 64 --n 64 --k 65 --lda 65
expect_usage_error "B's rows are 65 bytes apart (ldb 65 x 1 byte); TMA needs a global row pitch that is a multiple of 16 bytes" run --kernel blockwise_fp8_matmul --m 64 --n 64 --k 65 --ldb 65
expect_usage_error "A's rows are 33 bytes apart (lda 66 x 1/2 byte (E2M1)); TMA needs" run --kernel block_scaled_matmul --format nvfp4 --m 64 --n 64 --k 65 --lda 66
expect_usage_error "NVFP4 packs two E2M1 elements per byte, so a pitch in elements must be even" run --kernel block_scaled_matmul --format nvfp4 --m 64 --n 64 --k 64 --lda 65
expect_usage_error "--lda 60 is less than K = 64: a row of A holds K elements" run --kernel block_scaled_matmul --format nvfp4 --m 64 --n 64 --k 64 --lda 60
expect_usage_error "--ldb 64 is less than N = 100: a row of B holds N elements" run --kernel blockwise_fp8_matmul --m 64 --n 100 --k 64 --layout-b row --ldb 64
expect_usage_error "D's rows are 130 bytes apart (ldd 65 x 2 bytes); the epilogue stores D with TMA" run --kernel blockwise_fp8_matmul --m 64 --n 64 --k 64 --ldd 65
expect_usage_error "SMs 0-5" run --m 300 --n 300 --k 64 --trace "$tmp/t.pftrace" --trace-sms 200
expect_usage_error "'-' is not supported" run "${MNK[@]}" --trace -
# --json /dev/full fails only when written, after simulating: cli_contract_test.
# Resource bounds (docs/reliability.md): host memory of a functional run, and
# the size of a trace that covers every SM.
expect_usage_error "host memory" run --m 1048576 --n 8192 --k 1 --pad-rows --functional
expect_usage_error "--trace-sms" run --m 16384 --n 16384 --k 16384 --trace "$tmp/big.pftrace"
# Option names with boost's message placeholders in them (found by fuzzing:
# the library's own message never finished substituting).
expect_usage_error "%original_token%" run "${MNK[@]}" "--timel%original_token%x"
expect_usage_error "more than once" run "${MNK[@]}" --m 64
expect_usage_error "needs a value" run "${MNK[@]}" --trace
expect_usage_error "takes no value" run "${MNK[@]}" --functional=yes
expect_usage_error "" # no command at all
# A stray positional argument must not be silently ignored.
expect_usage_error "extra" run "${MNK[@]}" extra

# --- a rejected run leaves existing output files alone ---------------------
# Usage errors are reported before anything runs; they must not truncate (or
# create) the files named by --trace / --json.
printf 'previous trace\n' >"$tmp/keep.pftrace"
printf '{"previous": 1}\n' >"$tmp/keep.json"
expect_usage_error "shared memory" run "${MNK[@]}" --stages 5 \
  --trace "$tmp/keep.pftrace" --json "$tmp/keep.json"
[ "$(cat "$tmp/keep.pftrace")" = "previous trace" ] ||
  fail "rejected run (--stages 5) truncated the existing --trace file (now $(wc -c <"$tmp/keep.pftrace") bytes)"
[ "$(cat "$tmp/keep.json")" = '{"previous": 1}' ] ||
  fail "rejected run (--stages 5) truncated the existing --json file (now $(wc -c <"$tmp/keep.json") bytes)"
rm -f "$tmp/new.pftrace"
expect_usage_error "/nonexistent_dir/x.json" run "${MNK[@]}" --trace "$tmp/new.pftrace" \
  --json /nonexistent_dir/x.json
[ -e "$tmp/new.pftrace" ] && fail "rejected run (bad --json path) created the --trace file anyway"

# --- help and list ---------------------------------------------------------
expect_ok "usage: sim" --help
expect_ok "--tile-n" run --help
expect_ok "matmul" list
grep -qF "sm100" "$tmp/out" || fail "sim list does not mention sm100"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
