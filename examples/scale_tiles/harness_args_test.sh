#!/bin/bash
# harness_args_test.sh: the sk_verify_test binary's own arguments, as a kernel
# author meets them: --help answers with the usage and the kernels linked in
# (exit 0), and a config key the case never reads (a misspelling) is an error
# naming it (exit 2), not a setting silently ignored.
#
#   harness_args_test.sh <an sk_verify_test binary of scale_tiles>
set -u
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
bin="$1"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

"$bin" --help >"$tmp/out" 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "--help: exit $rc: $(head -c 300 "$tmp/out")"
grep -q "^usage:" "$tmp/out" || fail "--help: no usage line"
grep -q "^  scale_tiles " "$tmp/out" || fail "--help: does not list the kernel scale_tiles"

"$bin" --kernel scale_tiles --config rows=33,rowz=45 --schedules 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "misspelt key: exit $rc, want 2"
grep -q "'rowz' unknown to kernel scale_tiles" "$tmp/err" || fail "misspelt key: $(cat "$tmp/err")"

"$bin" --kernel scale_tiles --config rows=33,cols=72 --schedules 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "known keys: exit $rc: $(cat "$tmp/err")"

[ "$failures" -eq 0 ] && echo "all passed" || exit 1
