#!/bin/bash
# Usage: ptx_check.sh FILE.ptx PATTERN...
# Fails, naming every missing one, unless each PATTERN occurs in FILE.ptx as a
# fixed string. Fixed strings because PTX mnemonics are full of '.' and '::'.
set -u

if [[ $# -lt 2 ]]; then
  echo "usage: $0 FILE.ptx PATTERN..." >&2
  exit 2
fi

ptx="$1"
shift
if [[ ! -s "${ptx}" ]]; then
  echo "FAIL: PTX file '${ptx}' is missing or empty" >&2
  exit 1
fi

missing=()
for pattern in "$@"; do
  if ! grep -qF -- "${pattern}" "${ptx}"; then
    missing+=("${pattern}")
  fi
done

if [[ ${#missing[@]} -gt 0 ]]; then
  echo "FAIL: ${#missing[@]} of $# expected instruction(s) missing from ${ptx}:" >&2
  for pattern in "${missing[@]}"; do
    echo "  missing: ${pattern}" >&2
  done
  exit 1
fi
echo "PASS: all $# expected instruction(s) present in ${ptx}"
