# run_preamble.sh: sourced by the hardware run scripts right after they cd to
# the repository root. Sets `out` (where results go: $OUT, else /tmp), `start`
# (the script's start, in seconds) and `board` (the GPU's name, UUID, driver,
# power limit and maximum SM clock, which go with every figure), and prints
# the board.
out="${OUT:-/tmp}"
start=$(date +%s)
board=$(nvidia-smi --query-gpu=name,uuid,driver_version,power.limit,clocks.max.sm --format=csv,noheader)
echo "$board"
