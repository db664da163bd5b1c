# report_lib.sh: what the tests/hw report tests share, sourced first thing
# with the test's first argument (README.md's location):
#   . "$(dirname "$(realpath "$1")")/tests/hw/report_lib.sh" "$1"
# It moves to the source tree (through README.md's real path: the tests are
# tagged "external" and read the committed CSVs and docs themselves) and
# gives them:
#   fail MSG...     prints "FAIL: MSG" on stderr and exits 1;
#   all_quoted      every line on its input appears verbatim in
#                   docs/hardware.md; names each one that does not, and fails
#                   on an empty input too (a report that prints nothing
#                   quotes nothing);
#   scratch         a directory for doctored copies (TEST_TMPDIR, else new).
# Invariant: a check built on all_quoted can fail, which each test shows by
# running it on a doctored copy of its data.
set -euo pipefail
root=$(dirname "$(realpath "$1")")
cd "$root"
shopt -s nullglob
fail() { echo "FAIL: $*" >&2; exit 1; }
all_quoted() {
  local line n=0 ok=0
  while IFS= read -r line; do
    n=$((n + 1))
    grep -qF -- "$line" "$root/docs/hardware.md" || { echo "not in docs/hardware.md: $line"; ok=1; }
  done
  [ "$n" -gt 0 ] || { echo "no line to look for in docs/hardware.md"; return 1; }
  return $ok
}
scratch() { echo "${TEST_TMPDIR:-$(mktemp -d)}"; }
