# ncu_bin.sh: sourced from the repository root by the Nsight Compute scripts
# (run_ncu.sh, run_l2_halves.sh). Sets NCU to the ncu to run, or exits 2 when
# the machine has none, and prints the GPU's name, UUID and driver, which go
# with every figure.
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
[ -n "$NCU" ] || { echo "$(basename "$0" .sh): no ncu on this machine" >&2; exit 2; }
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
