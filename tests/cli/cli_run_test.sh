#!/bin/bash
# cli_run_test.sh: functional `sim run`s end to end.
#
#   cli_run_test.sh <sim binary> <traces/tools/check_trace.py> <cli_checks.py> <models/sm90/params.json>
#                   <models/sm100/params.json>
#
# Each run uses --functional --json - --trace FILE and must exit 0, print the
# JSON summary (and only it) on stdout, and pass the summary contract checks
# (cli_checks.py summary). The trace must pass check_trace.py and have the
# expected tracks and at least one flow (cli_checks.py trace).
set -u
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

sim="$1"
checker="$2"
checks="$3"
sm90_params="$4"  # models/sm90/params.json (the --params case)
sm100_params="$5"  # models/sm100/params.json (the B200's power limit)
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run_case NAME M N K [CHECK OPTIONS...] -- [SIM OPTIONS...]
run_case() {
  local name="$1" m="$2" n="$3" k="$4"
  shift 4
  local check_opts=()
  while [ "$1" != "--" ]; do
    check_opts+=("$1")
    shift
  done
  shift
  local trace="$tmp/$name.pftrace" json="$tmp/$name.json" err="$tmp/$name.err"
  local what="sim run --kernel matmul --arch sm100 --m $m --n $n --k $k $* --functional --json - --trace $trace"
  rm -f "$trace"
  timeout 50 "$sim" run --kernel matmul --arch sm100 --m "$m" --n "$n" --k "$k" "$@" \
    --functional --json - --trace "$trace" >"$json" 2>"$err"
  local rc=$?
  if [ "$rc" -ne 0 ]; then
    fail "$name: $what: exit status $rc, want 0; stderr: $(head -c 2000 "$err")"
    return
  fi
  if grep -nE 'terminate|Segmentation|Aborted|what\(\)' "$err"; then
    fail "$name: stderr looks like a crash"
  fi
  # The human-readable summary goes to stderr when the JSON takes stdout.
  grep -qF "check       PASSED" "$err" || fail "$name: stderr lacks 'check       PASSED': $(cat "$err")"
  [ "$(awk 'END { print NR }' "$json")" -eq 1 ] ||
    fail "$name: stdout is not exactly one line of JSON: $(head -c 2000 "$json")"
  python3 "$checks" summary "$json" --m "$m" --n "$n" --k "$k" --functional "${check_opts[@]}" ||
    fail "$name: JSON summary check failed"
  if [ ! -s "$trace" ]; then
    fail "$name: no trace written at $trace"
    return
  fi
  local out
  out=$(python3 "$checker" "$trace")
  [ "$?" -eq 0 ] || fail "$name: check_trace.py rejected the trace: $out"
  echo "$out"
  local ctas
  ctas=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["config"]["ctas"])' "$json")
  python3 "$checks" trace "$checker" "$trace" --ctas "$ctas" ||
    fail "$name: trace layout check failed"
  echo "ok: $name"
}

# Ragged in every dimension (partial tiles in M, N and K), default config.
run_case ragged 257 129 65 -- --pad-rows
# Two stages, 128-wide tiles, F32 output.
run_case s2_tn128_f32 200 136 72 --stages 2 --tile-n 128 --out-dtype f32 -- \
  --stages 2 --tile-n 128 --out-dtype f32
# The smallest problem: one element, one CTA.
run_case one 1 1 1 -- --pad-rows
# The CLC tile scheduler: one CTA per tile (fewer tiles than SMs here).
run_case clc 300 200 100 --tile-n 64 -- --scheduler clc --tile-n 64 --pad-rows

# The 2-SM kernel (CTA pairs): exact, and its trace links the pair's SMs
# (the leader's commits to the peer's barriers, multicast boxes).
run_case pair 300 200 136 --tile-n 64 -- --cluster 2x1 --tile-n 64
python3 "$checks" trace "$checker" "$tmp/pair.pftrace" --ctas 16 --cross-sm-flows 1 ||
  fail "pair: no flow from one SM of a pair to the other"
# The SM90 matmul in 2x1 clusters: the multicast boxes' flows cross SMs.
timeout 50 "$sim" run --kernel matmul --arch sm90 --m 300 --n 260 --k 192 --tile-n 128 \
  --cluster 2x1 --functional --trace "$tmp/sm90c.pftrace" --json "$tmp/sm90c.json" >"$tmp/sm90c.out" 2>&1 ||
  fail "sm90 cluster trace run: exit status $?: $(head -c 2000 "$tmp/sm90c.out")"
# Multicast's bytes: B's halves land in both CTAs of a pair but are looked up
# in L2 once, and on Hopper each second copy still takes the L2's rate
# (tma_multicast_l2_share 1): the copies are what the lookups saved.
python3 - "$tmp/sm90c.json" "$tmp/sm90c.out" <<'PY' || fail "sm90 cluster: multicast's bytes (above)"
import json, sys
u = json.load(open(sys.argv[1]))["utilization"]
fill, read, copies = u["smem_fill_bytes"], u["tma_l2_read_bytes"], u["tma_l2_copy_bytes"]
text = open(sys.argv[2]).read()
ok = 0 < read < fill and copies == fill - read and "of L2 reads saved; the L2's rate still carried" in text
if not ok:
    print(f"fill {fill}, L2 lookups {read}, copies {copies}; summary: {[l for l in text.splitlines() if 'multicast' in l]}")
sys.exit(0 if ok else 1)
PY
out=$(python3 "$checker" "$tmp/sm90c.pftrace") || fail "check_trace.py rejected the sm90 cluster trace: $out"
# The K split over clusters of two: nine tiles, each warp's 8 KiB of
# accumulators sent once to the rank that owns its rows.
timeout 50 "$sim" run --kernel matmul --arch sm90 --m 300 --n 260 --k 1000 --tile-n 128 \
  --split-k 2 --functional --json "$tmp/sm90k.json" --timeline "$tmp/sm90k.svg" \
  --timeline-cta 0,3 >"$tmp/sm90k.out" 2>&1 ||
  fail "sm90 K split run: exit status $?: $(head -c 2000 "$tmp/sm90k.out")"
# A cluster launch's CTA tracks carry their cluster and rank, and the
# CTAs sit on the SMs their clusters got: the timeline finds both.
grep -q "CTA 3 (cluster 1, rank 1)" "$tmp/sm90k.svg" ||
  fail "sm90 K split: the timeline has no block for CTA 3 (cluster 1, rank 1)"
# A launch of fewer CTAs than SMs runs on the SMs of the board's fill order
# (models/sm90/params.h): CTA 12 of 16 is not on SM 12, and its timeline
# finds it there.
timeout 50 "$sim" run --kernel matmul --arch sm90 --m 512 --n 1024 --k 512 \
  --timeline "$tmp/fill.svg" --timeline-cta 12 >"$tmp/fill.out" 2>&1 ||
  fail "sm90 timeline of CTA 12 of 16: $(head -c 2000 "$tmp/fill.out")"
grep -q "CTA 12 on SM " "$tmp/fill.svg" && ! grep -q "CTA 12 on SM 12\b" "$tmp/fill.svg" ||
  fail "sm90: CTA 12 of 16 is not placed by the fill order, or its timeline lacks it"
# With --trace --trace-sms the timeline's CTA is traced beside those SMs,
# wherever it runs: the trace then holds SM 0 and CTA 12's SM, no other.
timeout 50 "$sim" run --kernel matmul --arch sm90 --m 512 --n 1024 --k 512 --trace "$tmp/fill.pftrace" \
  --trace-sms 0 --timeline "$tmp/fill2.svg" --timeline-cta 12 >"$tmp/fill2.out" 2>&1 ||
  fail "sm90 trace of SM 0 with the timeline of CTA 12: $(head -c 2000 "$tmp/fill2.out")"
sm12=$(grep -o "CTA 12 on SM [0-9]*" "$tmp/fill2.svg" | grep -o "[0-9]*$")
[ -n "$sm12" ] && [ "$sm12" != 0 ] || fail "sm90: the timeline beside --trace-sms 0 lacks CTA 12 ($sm12)"
python3 - "$tmp/fill.pftrace" "$sm12" <<'PY' || fail "sm90: --trace-sms 0 with CTA 12's timeline traced other SMs"
import re, sys
names = set(re.findall(rb"SM (\d+)", open(sys.argv[1], "rb").read()))
sys.exit(0 if names == {b"0", sys.argv[2].encode()} else 1)
PY
python3 - "$tmp/sm90k.json" "$tmp/sm90k.out" <<'PY' || fail "sm90 K split: DSMEM bytes or occupancy (above)"
import json, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
# Nine tiles, each on a cluster of two: one wave on 18 SMs.
ok = (r["utilization"]["dsmem_bytes"] == 9 * 8 * 8192 and r["check"]["passed"]
      and "K split's partial accumulators" in text and r["config"]["name"].endswith("_splitk2")
      and r["occupancy"]["ctas_per_tile"] == 2
      and "each split over a cluster of 2 CTAs, on 18 SMs (9 tiles at a time): 1.00 waves" in text)
if not ok:
    print(r["utilization"], r.get("config"), r.get("occupancy"),
          [l for l in text.splitlines() if "dsmem" in l or "occupancy" in l])
sys.exit(0 if ok else 1)
PY
python3 - "$checks" "$checker" "$tmp/sm90c.pftrace" <<'PY' || fail "sm90 cluster trace: no flow between SMs"
import subprocess, sys
r = subprocess.run([sys.executable, sys.argv[1], 'trace', sys.argv[2], sys.argv[3], '--ctas', '0',
                    '--cross-sm-flows', '1'], capture_output=True, text=True)
# The SM90 trace has its own warp layout; only the flow count matters here.
sys.exit(1 if 'flows between SMs' in r.stdout + r.stderr else 0)
PY

# CLC with more tiles than SMs (timing mode): the grid is every tile, the
# resident CTAs take over the rest; the JSON names the scheduler.
timeout 50 "$sim" run --kernel matmul --arch sm100 --m 2048 --n 2048 --k 256 --tile-n 64 \
  --scheduler clc --json "$tmp/clc_big.json" >"$tmp/clc_big.out" 2>&1 ||
  fail "clc timing run: exit status $?: $(head -c 2000 "$tmp/clc_big.out")"
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))["config"]
assert c["scheduler"] == "clc" and c["ctas"] == 512, c' "$tmp/clc_big.json" ||
  fail "clc timing run: config.scheduler or config.ctas wrong"

# A trace of chosen SMs holds only their CTAs, with the counter tracks; a
# timeline of one CTA is an SVG document naming its roles.
sel="$tmp/selected.pftrace"
timeout 50 "$sim" run --kernel matmul --arch sm100 --m 512 --n 512 --k 256 --tile-n 128 \
  --trace "$sel" --trace-sms 1,5 --timeline "$tmp/cta5.svg" --timeline-cta 5 >"$tmp/sel.out" 2>&1 ||
  fail "trace-sms run: exit status $?: $(head -c 2000 "$tmp/sel.out")"
out=$(python3 "$checker" "$sel") || fail "check_trace.py rejected the --trace-sms trace: $out"
python3 "$checks" trace "$checker" "$sel" --ctas 2 --counters || fail "--trace-sms 1,5 trace layout"
head -c 4 "$tmp/cta5.svg" | grep -q '<svg' || fail "--timeline did not write an SVG document"
grep -q 'warp 6 mma' "$tmp/cta5.svg" || fail "--timeline SVG lacks the mma warp's track"
tail -c 7 "$tmp/cta5.svg" | grep -q '</svg>' || fail "--timeline SVG is not closed"

# A timeline of several CTAs, the busiest and the slowest chosen after the run
# (every SM traced for it), each its own block with a µs axis; on MI300X the
# SIMDs' MFMAs and the LDS pipe, and a legend without NVIDIA's kinds.
timeout 50 "$sim" run --kernel matmul --arch sm100 --m 512 --n 512 --k 256 --tile-n 128 \
  --timeline "$tmp/picks.svg" --timeline-cta 3,busiest,slowest >"$tmp/picks.out" 2>&1 ||
  fail "timeline-cta 3,busiest,slowest run: exit status $?: $(head -c 2000 "$tmp/picks.out")"
timeout 50 "$sim" run --kernel matmul --arch mi300x --m 256 --n 256 --k 256 \
  --timeline "$tmp/amd.svg" --timeline-cta slowest >"$tmp/amd.out" 2>&1 ||
  fail "mi300x timeline run: exit status $?: $(head -c 2000 "$tmp/amd.out")"
python3 - "$tmp/picks.svg" "$tmp/amd.svg" <<'PY' || fail "--timeline-cta blocks, µs axis or MI300X tracks"
import re, sys
def read(path):
    svg = open(path, encoding='utf-8').read()
    heads = re.findall(r'font-weight="bold">([^<]*)<', svg)
    legend = svg[svg.index('<g class="legend">'):]
    legend = re.findall(r'>([^<]+)</text>', legend[:legend.index('</g>')])
    return svg, heads, legend
svg, heads, legend = read(sys.argv[1])
assert heads[0] == 'CTA 3 on SM 3', heads
assert 2 <= len(heads) <= 3 and all(re.fullmatch(r'CTA \d+( \(.*\))? on SM \d+', h) for h in heads), heads
assert any('busiest' in h for h in heads) and any('slowest' in h for h in heads), heads
assert svg.count('class="axis us"') == len(heads), 'one µs axis per block'
assert '>issue</text>' in svg and 'TMA load' in legend and 'MFMA' not in legend, legend
svg, heads, legend = read(sys.argv[2])
assert len(heads) == 1 and re.fullmatch(r'workgroup \d+ \(slowest\) on CU \d+', heads[0]), heads
for track in ('MFMA SIMD 0', 'MFMA SIMD 3', 'LDS'):
    assert f'>{track}</text>' in svg, track
assert {'issue', 'MFMA', 'LDS read'} <= set(legend), legend
assert not {'TMA load', 'TMA store', 'MMA', 'MMA commit'} & set(legend), legend
PY

# The SM90 kernel on the H200 model: functional, checked, no findings.
timeout 50 "$sim" run --kernel matmul --arch sm90 --m 257 --n 199 --k 72 --tile-n 128 --stages 3 \
  --functional --json - >"$tmp/sm90.json" 2>"$tmp/sm90.err" ||
  fail "sm90 run: exit status $?: $(head -c 2000 "$tmp/sm90.err")"
python3 - "$tmp/sm90.json" <<'PY' || fail "sm90 summary"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["arch"] == "sm90", d["arch"]
assert d["status"] == "completed" and d["check"]["passed"] and not d["findings"], d
assert d["config"]["ctas"] == 6 and d["config"]["stages"] == 3, d["config"]
PY

# --params: a copy of the built-in SM90 file predicts what the built-in one
# does; the same file with a slower epilogue store path predicts longer.
timeout 50 "$sim" run --kernel matmul --arch sm90 --m 512 --n 512 --k 512 --tile-n 128 \
  --json - >"$tmp/p0.json" 2>/dev/null || fail "sm90 run without --params"
cp "$sm90_params" "$tmp/same.json"
python3 - "$sm90_params" "$tmp/slow.json" <<'PY' || fail "could not write the modified parameter file"
import json, sys
d = json.load(open(sys.argv[1]))
d["params"]["store_bytes_per_cycle"]["value"] /= 4
json.dump(d, open(sys.argv[2], "w"))
PY
for f in same slow; do
  timeout 50 "$sim" run --kernel matmul --arch sm90 --m 512 --n 512 --k 512 --tile-n 128 \
    --params "$tmp/$f.json" --json - >"$tmp/p_$f.json" 2>"$tmp/p_$f.err" ||
    fail "sm90 run with --params $f: $(head -c 500 "$tmp/p_$f.err")"
done
python3 - "$tmp/p0.json" "$tmp/p_same.json" "$tmp/p_slow.json" <<'PY' || fail "--params did not take effect"
import json, sys
base, same, slow = (json.load(open(p))["predicted_time_us"] for p in sys.argv[1:])
assert same == base, (same, base)
assert slow > base * 1.05, (slow, base)
PY

# sim sweep takes --params too: the same configuration swept with the slow
# file predicts what sim run did with it, and longer than without.
for f in none slow; do
  p=(); [ "$f" = slow ] && p=(--params "$tmp/slow.json")
  timeout 50 "$sim" sweep --kernel matmul --arch sm90 --m 512 --n 512 --k 512 --tile-n 128 \
    --stages 4 "${p[@]}" --json "$tmp/sw_$f.json" >/dev/null 2>"$tmp/sw_$f.err" ||
    fail "sm90 sweep with --params $f: $(head -c 500 "$tmp/sw_$f.err")"
done
python3 - "$tmp/p_slow.json" "$tmp/sw_none.json" "$tmp/sw_slow.json" <<'PY' || fail "sweep --params did not take effect"
import json, sys
run_slow = json.load(open(sys.argv[1]))
none, slow = (json.load(open(p))["results"][0] for p in sys.argv[2:])
t = lambda r: r["predicted_time_us"]
assert t(slow) > t(none) * 1.05, (t(slow), t(none))
assert run_slow["config"]["stages"] == 4, run_slow["config"]
assert abs(t(slow) - t(run_slow)) < 1e-6 * t(run_slow), (t(slow), t(run_slow))
PY

# The SM90 epilogue's stores share one write path: with 8 CTAs storing, a
# four times wider shared path changes nothing (each SM's own rate binds);
# with 128 CTAs storing at once it shortens the launch.
python3 - "$sm90_params" "$tmp/wide.json" <<'PY' || fail "could not write the wide-store parameter file"
import json, sys
d = json.load(open(sys.argv[1]))
d["params"]["gpu_store_bytes_per_cycle"]["value"] *= 4
json.dump(d, open(sys.argv[2], "w"))
PY
for m in 512 2048; do
  for f in same wide; do
    timeout 50 "$sim" run --kernel matmul --arch sm90 --m "$m" --n "$m" --k 64 --tile-n 256 \
      --stages 4 --sm-clock 1.9 --params "$tmp/$f.json" --json - >"$tmp/st_${m}_$f.json" \
      2>"$tmp/st_${m}_$f.err" || fail "sm90 store run $m $f: $(head -c 500 "$tmp/st_${m}_$f.err")"
  done
done
python3 - "$tmp"/st_512_same.json "$tmp"/st_512_wide.json "$tmp"/st_2048_same.json \
  "$tmp"/st_2048_wide.json <<'PY' || fail "shared store path"
import json, sys
few, few_wide, many, many_wide = (json.load(open(p))["cycles"] for p in sys.argv[1:])
assert few == few_wide, (few, few_wide)
assert many > many_wide * 1.15, (many, many_wide)
PY

# The SM90 main loop with few CTAs (no shared bandwidth binds) runs at the
# tensor core's rate: each k-block of two consumer warpgroups is 8 wgmma ops of
# round(wgmma_ii_per_op + N * wgmma_ii_per_n) cycles, back to back (the H200's per-CTA
# timelines: 1,032 SM cycles per k-block for N = 256 and 518.5 for N = 128;
# docs/hardware.md, "The clock inside a launch"). The K step from 4096 to 8192
# adds 64 k-blocks.
for cfg in "2048 256 4" "1024 128 5"; do
  set -- $cfg
  for k in 4096 8192; do
    timeout 50 "$sim" run --kernel matmul --arch sm90 --m 512 --n "$1" --k "$k" --tile-n "$2" \
      --stages "$3" --sm-clock 1.8 --json - >"$tmp/kb_$2_$k.json" 2>"$tmp/kb_$2_$k.err" ||
      fail "sm90 k-block run $2 $k: $(head -c 500 "$tmp/kb_$2_$k.err")"
  done
done
python3 - "$sm90_params" "$tmp" <<'PY' || fail "sm90 k-block rate"
import json, sys
p = {k: v["value"] for k, v in json.load(open(sys.argv[1]))["params"].items()}
for n in (256, 128):
    short, long = (json.load(open(f"{sys.argv[2]}/kb_{n}_{k}.json"))["cycles"] for k in (4096, 8192))
    per_kblock = (long - short) / 64
    expected = 8 * int(p["wgmma_ii_per_op"] + n * p["wgmma_ii_per_n"] + 0.5)
    # Within half a cycle a k-block: with the launch spread over the GPCs
    # (fill_order) the CTAs read from both L2 halves, and one far-side fetch
    # in the 64 k-blocks shows as 0.14 cycles each.
    assert abs(per_kblock - expected) <= 0.5, (n, per_kblock, expected)
PY

# The SM100 (B200) clocks: a full-grid GEMM's tensor phase falls below the
# datasheet clock under the board's 1000 W (each phase's draw at most the
# limit); a launch of a few CTAs runs at the caps; --sm-clock pins the clock,
# and at the maximum clock the same launch would draw more than the limit.
for c in auto 1.965; do
  extra=()
  [ "$c" = auto ] || extra=(--sm-clock "$c")
  timeout 100 "$sim" run --kernel matmul --arch sm100 --m 4096 --n 4096 --k 4096 --tile-n 256 \
    --stages 4 "${extra[@]}" --json - >"$tmp/b200_$c.json" 2>"$tmp/b200_$c.err" ||
    fail "sm100 run at clock $c: $(head -c 500 "$tmp/b200_$c.err")"
done
timeout 100 "$sim" run --kernel matmul --arch sm100 --m 512 --n 512 --k 2048 --tile-n 256 \
  --json - >"$tmp/b200_small.json" 2>"$tmp/b200_small.err" ||
  fail "sm100 small run: $(head -c 500 "$tmp/b200_small.err")"
python3 - "$sm100_params" "$tmp/b200_auto.json" "$tmp/b200_1.965.json" "$tmp/b200_small.json" <<'PY' || fail "sm100 clock"
import json, sys
p = {k: v["value"] for k, v in json.load(open(sys.argv[1]))["params"].items()}
auto, top, small = (json.load(open(f)) for f in sys.argv[2:])
ca = auto["sm_clocks"]
assert 1.2 < ca["tensor_phase_ghz"] < 0.99 * p["tensor_phase_clock_ghz"], ca
assert ca["tensor_phase_ghz"] < ca["rest_phase_ghz"] <= p["clock_ghz"], ca
assert auto["power_w"] < 1.03 * p["power_limit_w"], auto["power_w"]
assert top["power_w"] > p["power_limit_w"], top["power_w"]
assert abs(top["clock_ghz"] - p["clock_ghz"]) < 1e-9, top["clock_ghz"]
assert top["predicted_time_us"] < auto["predicted_time_us"]
cs = small["sm_clocks"]
assert abs(cs["tensor_phase_ghz"] - p["tensor_phase_clock_ghz"]) < 1e-9, cs
assert small["power_w"] < p["power_limit_w"], small["power_w"]
PY

# The SM90 clocks: a dense launch runs its tensor phase at the power-limited
# clock (below the tensor phase's cap, that phase's draw at the board's limit)
# and the rest faster; --sm-clock pins them, one clock for both or T,R, and a
# slower clock gives a longer time but fewer cycles (the memory side keeps
# its speed).
for c in auto 1.98 1.4 1.6,1.9; do
  extra=()
  [ "$c" = auto ] || extra=(--sm-clock "$c")
  timeout 100 "$sim" run --kernel matmul --arch sm90 --m 2048 --n 2048 --k 4096 --tile-n 256 \
    --stages 4 "${extra[@]}" --json - >"$tmp/clk_$c.json" 2>"$tmp/clk_$c.err" ||
    fail "sm90 run at clock $c: $(head -c 500 "$tmp/clk_$c.err")"
done
python3 - "$sm90_params" "$tmp/clk_auto.json" "$tmp/clk_1.98.json" "$tmp/clk_1.4.json" "$tmp/clk_1.6,1.9.json" <<'PY' || fail "sm90 clock"
import json, sys
p = {k: v["value"] for k, v in json.load(open(sys.argv[1]))["params"].items()}
auto, top, slow, two = (json.load(open(f)) for f in sys.argv[2:])
ca = auto["sm_clocks"]
assert 1.3 < ca["tensor_phase_ghz"] < p["tensor_phase_clock_ghz"], ca
assert ca["tensor_phase_ghz"] < ca["rest_phase_ghz"] <= 1.98, ca
# Most of the launch is its tensor phase; the average clock lies between.
assert 0.6 * auto["cycles"] < ca["tensor_phase_cycles"] < auto["cycles"], (ca, auto["cycles"])
assert ca["tensor_phase_ghz"] < auto["clock_ghz"] < ca["rest_phase_ghz"], auto["clock_ghz"]
# The search stops once neither clock moves by 1 % (runner/kernels/power_clocks.h),
# so the draw at the clocks found may pass the limit by that much.
assert auto["power_w"] < 1.01 * 700, auto["power_w"]
assert abs(top["clock_ghz"] - 1.98) < 1e-9 and top["power_w"] > 700, (top["clock_ghz"], top["power_w"])
assert abs(slow["clock_ghz"] - 1.4) < 1e-9 and slow["power_w"] < 700, (slow["clock_ghz"], slow["power_w"])
assert top["predicted_time_us"] < auto["predicted_time_us"] < slow["predicted_time_us"]
assert slow["cycles"] <= top["cycles"], (slow["cycles"], top["cycles"])
# Two pinned clocks: the time is each phase's cycles at its own clock.
c2 = two["sm_clocks"]
assert (c2["tensor_phase_ghz"], c2["rest_phase_ghz"]) == (1.6, 1.9), c2
t, n = c2["tensor_phase_cycles"], two["cycles"]
kernel_us = (t / 1.6 + (n - t) / 1.9) / 1e3
overhead_us = p["launch_overhead_cycles"] / (p["clock_ghz"] * 1e3)
assert abs(two["predicted_time_us"] - kernel_us - overhead_us) < 1e-6 * kernel_us, (two, kernel_us)
# HBM keeps its speed in time: its utilization is the bytes over its bandwidth
# (bytes per cycle at the maximum clock) times the kernel's time, whatever
# the phases' clocks.
u = two["utilization"]
hbm_bytes_per_us = p["hbm_bytes_per_cycle"] * p["clock_ghz"] * 1e3
want = 100 * u["hbm_bytes"] / (hbm_bytes_per_us * kernel_us)
assert u["hbm_bytes"] > 0 and abs(u["hbm_pct"] - want) < 1e-6 * want, (u, want)
PY

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
