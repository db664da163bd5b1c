#!/bin/bash
# perfetto_protoc_test.sh: end-to-end check of the trace writer's output.
#
#   perfetto_protoc_test.sh <sample_trace binary> <check_trace.py> <subset .proto>
#
# 1. The valid sample trace must decode with protoc against our schema subset
#    (rc 0, no bare field numbers), contain the expected tracks/events, and pass
#    check_trace.py both with --proto and with the proto found next to it.
# 2. Each deliberately defective trace must make check_trace.py exit 1 with the
#    expected message, so the checker itself is tested.
# Runs from the runfiles root; PATH is /bin:/usr/bin (strict action env), which
# holds protoc and python3.
set -u

sample="$1"
checker="$2"
proto="$3"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# --- 1. the valid trace --------------------------------------------------
trace="$tmp/sample.pftrace"
"$sample" "$trace" || fail "sample_trace exited with $?"
protoc --decode=perfetto.protos.Trace -I "$(dirname "$proto")" "$proto" \
  <"$trace" >"$tmp/sample.txt" 2>"$tmp/protoc.err"
rc=$?
[ "$rc" -eq 0 ] || fail "protoc rc $rc: $(cat "$tmp/protoc.err")"
if grep -nE '^\s*[0-9]+(: | \{)' "$tmp/sample.txt"; then
  fail "decoded sample has bare-number (unknown) fields"
fi
for want in 'sequence_flags: 1' 'pid: 1' 'name: "SM 0"' 'name: "CTA 0"' 'name: "load"' \
  'name: "mma"' 'name: "epilogue0"' 'name: "TMA stage 0"' 'name: "TMA stage 1"' \
  'unit_name: "stages"' 'child_ordering: EXPLICIT' 'type: TYPE_SLICE_BEGIN' \
  'type: TYPE_SLICE_END' 'type: TYPE_INSTANT' 'type: TYPE_COUNTER' 'double_counter_value: ' \
  'flow_ids: 1' 'terminating_flow_ids: 1' 'double_value: 0.875' 'string_value: "A+B"'; do
  grep -qF -- "$want" "$tmp/sample.txt" || fail "decoded sample lacks '$want'"
done

out=$(python3 "$checker" --proto "$proto" "$trace")
rc=$?
[ "$rc" -eq 0 ] || fail "checker rejected the valid sample (rc $rc): $out"
case "$out" in
  *"ok: "*" 9 flows"*) ;;
  *) fail "unexpected checker summary: $out" ;;
esac
# Without --proto the checker must find the schema relative to itself.
python3 "$checker" "$trace" >/dev/null || fail "checker without --proto failed"

# --- 2. defective traces -------------------------------------------------
while IFS='|' read -r defect expected; do
  bad="$tmp/$defect.pftrace"
  "$sample" "$bad" "$defect" || { fail "sample_trace $defect exited with $?"; continue; }
  out=$(python3 "$checker" --proto "$proto" "$bad")
  rc=$?
  [ "$rc" -eq 1 ] || fail "$defect: checker rc $rc, want 1; output: $out"
  case "$out" in
    *"$expected"*) echo "ok: $defect rejected" ;;
    *) fail "$defect: output lacks '$expected': $out" ;;
  esac
done <<'EOF'
unbalanced|slice 'never closed' begun at ts 30 on track 2 'a' never ends
end-without-begin|SLICE_END at ts 30 on track 3 'b' has no open slice
backward-flow|flow id 7: terminator (packet #7, ts 30) is replayed before its origin
flow-on-wait-end|flow id 9: terminating slice starts at 30, before the originating slice at 40
duplicate-flow|flow id 5: originates 2 times
unknown-field|unknown field 999
varint-flow-id|unknown field track_event.47
bad-parent|parent_uuid 77 is not declared by an earlier descriptor
duplicate-sibling|sibling of track 2 with the same name
counter-on-slice-track|counter value on a non-counter track
missing-sequence-id|no trusted_packet_sequence_id
garbled|protoc could not decode the trace
EOF

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
