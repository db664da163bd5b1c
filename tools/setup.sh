#!/usr/bin/env bash
# setup.sh: installs what the build needs on Debian 12, and nothing that is
# already there. Safe to run any number of times.
#
# Everything comes from Debian's archive: Bazel (bazel-bootstrap, run offline
# through the local repositories in third_party/), SystemC, Boost, fmt,
# doctest, protoc (trace validation), python3, clang 19 with its sanitizer
# and libFuzzer runtimes (tools/fuzz.sh), and the AMD device side: clang 19
# also compiles HIP for gfx942 (tools/hip.bzl, the tests/gfx942 compile
# checks, which always run), with the HIP headers (libamdhip64-dev) and the
# ROCm device libraries (rocm-device-libs) for device code that needs them.
# CUDA's nvcc is optional: the sm100 compile checks run when
# /usr/local/cuda/bin/nvcc exists and are reported as skipped otherwise.
# Slurm (slurm-wlm: slurmctld and slurmd; slurm-client: sbatch, squeue,
# scancel) and munge let tests/slurm start a one-node cluster on localhost
# (docs/slurm.md); setup.sh only installs them, it starts no daemon.
set -euo pipefail

packages=(
  bazel-bootstrap
  g++
  python3
  protobuf-compiler
  libsystemc-dev
  libfmt-dev
  doctest-dev
  libboost-program-options1.81-dev
  libboost-json1.81-dev
  clang-19
  libclang-rt-19-dev
  libamdhip64-dev
  rocm-device-libs
  slurm-wlm
  slurm-client
  munge
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages already installed"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
