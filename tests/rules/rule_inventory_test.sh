#!/usr/bin/env bash
# rule_inventory_test.sh RULE_INVENTORY_PY README: the source tree's rule
# inventory matches the code and the tests, and seeded trees with one problem
# each fail the check with the message that names it, while the fixed twin
# passes.
set -euo pipefail
checker=$1
root=$(dirname "$(realpath "$2")")
fail() { echo "FAIL: $*" >&2; exit 1; }

# The tree itself.
if ! out=$(python3 "$checker" --root "$root" --list 2>&1); then
  echo "$out" >&2
  fail "the rule inventory in docs/verify.md does not match the code and the tests"
fi
echo "$out"

# A minimal tree: one model file emitting two rules (and an operation name),
# one test mentioning both, and an inventory listing them.
t=${TEST_TMPDIR:-$(mktemp -d)}/tree
base() {
  rm -rf "$t" && mkdir -p "$t"/{models/x,tests/model,docs}
  cat > "$t/models/x/api.cc" <<'CC'
void f() {
  finding("mbarrier", "mbarrier.bad_count", "count out of range");
  report("tmem.leak");
  begin_op("tcgen05.mma");
}
CC
  printf 'CHECK(r.has_rule("mbarrier.bad_count"));\nCHECK(r.has_rule("tmem.leak"));\n' \
    > "$t/tests/model/x_test.cc"
  cat > "$t/docs/verify.md" <<'MD'
# The verifier

## Rule inventory

| Rule (source) | Reported as | Checked by | Status |
|---|---|---|---|
| Count in range (9.7.13.15.2) | `mbarrier.bad_count` | `tests/model/x_test.cc` | checked |
| TMEM freed before exit (9.7.16.7.1) | `tmem.leak` | `tests/model/x_test.cc` | checked |
| Remote barriers (9.7.13.15.8) | — | — | out of scope: needs clusters |

## How races are found

| `not.listed` | in another section | `tests/model/x_test.cc` | ignored |
MD
}

expect_ok() {  # description
  local out
  out=$(python3 "$checker" --root "$t" 2>&1) || fail "$1: fixed twin rejected: $out"
}
expect_problem() {  # description, expected text
  local out rc=0
  out=$(python3 "$checker" --root "$t" 2>&1) || rc=$?
  [ "$rc" = 1 ] || fail "$1: exit $rc, expected 1 ($out)"
  grep -qF -- "$2" <<<"$out" || fail "$1: no '$2' in: $out"
}

base; expect_ok "base tree"

# 1. The code emits a rule the inventory does not list.
base; echo 'void g() { finding("tma", "tma.new_rule", "x"); }' >> "$t/models/x/api.cc"
expect_problem "unlisted rule" "models/x/api.cc: emits tma.new_rule, which is missing from the rule inventory"

# 2. A test named for a rule does not mention it.
base; printf 'CHECK(r.has_rule("mbarrier.bad_count"));\n' > "$t/tests/model/x_test.cc"
expect_problem "test without the rule" "names tests/model/x_test.cc as a test of tmem.leak, but tests/model/x_test.cc does not mention tmem.leak"

# 2b. A test named for a rule does not exist.
base; sed -i 's#`tests/model/x_test.cc` | checked |$#`tests/model/gone_test.cc` | checked |#' "$t/docs/verify.md"
expect_problem "missing test file" "names tests/model/gone_test.cc, which does not exist"

# 3. The inventory lists a rule the code no longer emits.
base; sed -i '/tmem.leak/d' "$t/models/x/api.cc"
expect_problem "stale rule" "lists tmem.leak, which no source in models, engine, verify, kernels, runner emits any more"

# 4. A reported rule without a test must say so.
base; sed -i 's#| `tmem.leak` | `tests/model/x_test.cc` | checked |#| `tmem.leak` | — | checked |#' "$t/docs/verify.md"
expect_problem "untested rule not marked" "tmem.leak names no test and its status does not say 'no test'"
base; sed -i 's#| `tmem.leak` | `tests/model/x_test.cc` | checked |#| `tmem.leak` | — | no test |#' "$t/docs/verify.md"
expect_ok "untested rule marked 'no test'"

# Test files and operation names are not rules.
base; echo 'CHECK(f.rule == "tma.only_in_a_test");' > "$t/models/x/api_test.cc"
expect_ok "dotted literal in a test"

echo "rule_inventory: source tree and 6 seeded cases OK"
