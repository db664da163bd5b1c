#!/usr/bin/env python3
"""attention_report.py: the SM90 model against measured attention times.

  attention_report.py predict MEASURED.csv --sim SIM --params FILE --out MODEL.csv
                       [--variant V] [--jobs N] [--wall-limit S]
      runs `sim run --kernel attention --arch sm90` in timing mode for every
      configuration of MEASURED.csv (hw/h200/attention_bench.cu's columns,
      with an optional leading variant_round column: --variant picks rows
      whose variant_round starts with V; --stages S only that stage count), twice: at the model's own
      power-limited clocks and with the SM clock pinned at the measured mean
      (--sm-clock; --clock-column kernel_mhz takes the clock read inside the
      timed kernel instead of the bench's probe around it), and writes MODEL.csv; a configuration the binary refuses
      (exit 2, e.g. a head dim an older build lacks) is written as "refused".
  attention_report.py report MEASURED.csv MODEL.csv [--variant V]
      joins them (the measured time is the median over rounds) and prints,
      per configuration and overall, the model's error (predicted / measured
      - 1) both ways, and the mean absolute percentage error.

  attention_report.py loop CALIB.csv --sim SIM --params FILE [--out MODEL.csv]
      the kernel's block loop without loads, in the model against the
      hardware: CALIB.csv is hw/h200/attention_calibrate.cu's output, whose
      section 4 "pingpong" rows time both consumer warpgroups' loop on
      resident Q, K and V. The model runs one 128-row tile per SM over 32,768
      keys (256 blocks; 512 of 64 keys at head dim 256) with a copy of FILE in
      which loads and stores cost nothing (HBM, L2, port and store rates
      1e6 bytes per cycle, TMA latencies 1 cycle), and the cycles per block
      are compared.

No fitting happens here: the model's parameters are those of the file given.
"""
import argparse
import csv
import json
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
import script_main

KEY = ("batch", "heads", "kv_heads", "seqlen_q", "seqlen_k", "head_dim", "causal", "stages")


def read_measured(path, variant, stages=0, clock="sm_mhz"):
    rows = {}
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    for r in csv.DictReader(lines):
        if variant and not r.get("variant_round", "").startswith(variant):
            continue
        if r["status"] != "ok" or (stages and int(r["stages"]) != stages):
            continue
        k = tuple(int(r[c]) for c in KEY)
        rows.setdefault(k, []).append((float(r["ours_us"]), float(r[clock])))
    return {k: (statistics.median(t for t, _ in v), statistics.median(m for _, m in v)) for k, v in rows.items()}


def sim_args(k):
    b, h, kvh, sq, sk, d, causal, stages = k
    a = ["run", "--kernel", "attention", "--arch", "sm90", "--batch", str(b), "--heads", str(h),
         "--kv-heads", str(kvh), "--seqlen-q", str(sq), "--seqlen-k", str(sk), "--head-dim", str(d),
         "--stages", str(stages)]
    return a + (["--causal"] if causal else [])


def predict(args):
    measured = read_measured(args.measured, args.variant, args.stages, args.clock_column)

    def one(item):
        k, (_, mhz) = item
        out = {}
        for label, extra in (("free", []), ("pinned", ["--sm-clock", f"{mhz / 1000:.3f}"])):
            if label not in args.clocks.split(","):
                out[label] = ("not_run", 0.0)
                continue
            with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                cmd = [args.sim] + sim_args(k) + ["--params", args.params, "--json", tmp.name,
                                                  "--wall-limit", str(args.wall_limit)] + extra
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode == 2:  # a configuration this build refuses: reported, not fatal
                    print(f"{' '.join(cmd)}: refused: {p.stderr.strip()}", file=sys.stderr)
                    out[label] = ("refused", 0.0)
                    continue
                if p.returncode not in (0, 1, 3):  # 3: stopped at --wall-limit
                    raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
                j = json.load(open(tmp.name))
            out[label] = (j["status"], j["predicted_time_us"])
        return k, out

    with ThreadPoolExecutor(args.jobs) as ex:
        results = list(ex.map(one, sorted(measured.items())))
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(list(KEY) + ["status_free", "model_us_free", "status_pinned", "model_us_pinned", "pinned_mhz"])
        for k, out in results:
            w.writerow(list(k) + [out["free"][0], f"{out['free'][1]:.2f}", out["pinned"][0],
                                  f"{out['pinned'][1]:.2f}", f"{measured[k][1]:.0f}"])


def report(args):
    measured = read_measured(args.measured, args.variant, args.stages)
    with open(args.model) as f:
        model = {tuple(int(r[c]) for c in KEY): r for r in csv.DictReader(f)}
    errs = {"free": [], "pinned": []}
    print("| batch x heads (kv) | seqlen q / k | d | causal | stages | measured µs | model µs (free) | error | model µs (pinned clock) | error |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for k in sorted(measured):
        if k not in model:
            continue
        m = model[k]
        t = measured[k][0]
        row = []
        for label in ("free", "pinned"):
            if m[f"status_{label}"] == "not_run":
                row += ["-", "-"]
                continue
            if m[f"status_{label}"] != "completed":
                row += ["-", m[f"status_{label}"]]
                continue
            e = float(m[f"model_us_{label}"]) / t - 1
            errs[label].append(e)
            row += [m[f"model_us_{label}"], f"{100 * e:+.1f} %"]
        b, h, kvh, sq, sk, d, causal, st = k
        heads = f"{b} x {h}" + (f" ({kvh})" if kvh != h else "")
        lens = f"{sq}" if sq == sk else f"{sq} / {sk}"
        print(f"| {heads} | {lens} | {d} | {'yes' if causal else 'no'} | {st} | {t:.1f} | " + " | ".join(row) + " |")
    for label, e in errs.items():
        if e:
            print(f"\n{label} clocks: {len(e)} rows, MAPE {100 * statistics.mean(abs(x) for x in e):.1f} %, "
                  f"median error {100 * statistics.median(e):+.1f} %, worst {100 * max(e, key=abs):+.1f} %")
    # The model's pick of the stage count per shape: the measured time of the
    # configuration it predicts fastest, against the measured best.
    for label in ("free", "pinned"):
        shapes = {}
        for k in measured:
            if k in model and model[k][f"status_{label}"] == "completed":
                shapes.setdefault(k[:-1], []).append(k)
        picks = []
        for ks in shapes.values():
            if len(ks) < 2:
                continue
            best = min(measured[k][0] for k in ks)
            pick = min(ks, key=lambda k: float(model[k][f"model_us_{label}"]))
            picks.append(measured[pick][0] / best - 1)
        if picks:
            print(f"{label} clocks, picks: {len(picks)} shapes with more than one stage count measured; the model's "
                  f"pick within 5 % of the measured best on {sum(p <= 0.05 for p in picks)}, within 1 % on "
                  f"{sum(p <= 0.01 for p in picks)}, worst {100 * max(picks):+.1f} %")


FREE_MEMORY = {"hbm_bytes_per_cycle": 1e6, "l2_bytes_per_cycle": 1e6, "tma_l2_bytes_per_cycle": 1e6,
               "sm_ingest_bytes_per_cycle": 1e5, "tma_base_latency": 1, "tma_l2_latency": 1,
               "tma_loaded_latency": 1, "store_bytes_per_cycle": 1e4, "gpu_store_bytes_per_cycle": 1e6}


def loop(args):
    measured = {}
    section = None
    with open(args.calib) as f:
        for line in f:
            if line.startswith("#"):
                continue
            cells = line.strip().split(",")
            if cells[0] == "section":
                section = cells[1]
            elif section == "consumer_steps" and cells[0] == "pingpong":
                measured[int(cells[1])] = float(cells[3])
    if not measured:
        raise script_main.BadInput(f"{args.calib}: no consumer_steps pingpong rows")
    params = json.load(open(args.params))
    table = params.get("params", params)
    for key, value in FREE_MEMORY.items():
        if key not in table:
            raise script_main.BadInput(f"{args.params}: no key {key}")
        table[key]["value"] = value
    sms = int(table["num_sms"]["value"])
    rows = []
    with tempfile.NamedTemporaryFile("w", suffix=".json") as pf:
        json.dump(params, pf)
        pf.flush()
        for d in sorted(measured):
            keys = 32768
            blocks = keys // (64 if d == 256 else 128)
            with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                cmd = [args.sim, "run", "--kernel", "attention", "--arch", "sm90", "--batch", "1", "--heads",
                       str(sms), "--seqlen-q", "128", "--seqlen-k", str(keys), "--head-dim", str(d), "--stages", "2",
                       "--params", pf.name, "--json", tmp.name, "--sm-clock", "1.8"]
                p = subprocess.run(cmd, capture_output=True, text=True)
                if p.returncode != 0:
                    raise SystemExit(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()}")
                j = json.load(open(tmp.name))
            model = j["predicted_time_us"] * 1.8e3 / blocks
            rows.append((d, measured[d], model))
    print("| head dim | hardware, cycles per block | model | error |")
    print("|---|---|---|---|")
    for d, m, mo in rows:
        print(f"| {d} | {m:.0f} | {mo:.0f} | {100 * (mo / m - 1):+.1f} % |")
    if args.out:
        with open(args.out, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["head_dim", "hardware_cycles_per_block", "model_cycles_per_block"])
            for d, m, mo in rows:
                w.writerow([d, f"{m:.1f}", f"{mo:.1f}"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("predict")
    p.add_argument("measured")
    p.add_argument("--sim", required=True)
    p.add_argument("--params", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--variant", default="")
    p.add_argument("--stages", type=int, default=0, help="only rows with this stage count (0: all)")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--wall-limit", type=int, default=900)
    p.add_argument("--clock-column", default="sm_mhz",
                   help="the measured clock the pinned prediction takes: sm_mhz (the bench's probe around the "
                        "timed launches) or kernel_mhz (read inside the last timed launch)")
    p.add_argument("--clocks", default="free,pinned",
                   help="which predictions: free (the model's power-limited clocks), pinned (the measured clock)")
    r = sub.add_parser("report")
    r.add_argument("measured")
    r.add_argument("model")
    r.add_argument("--variant", default="")
    r.add_argument("--stages", type=int, default=0)
    lp = sub.add_parser("loop")
    lp.add_argument("calib")
    lp.add_argument("--sim", required=True)
    lp.add_argument("--params", required=True)
    lp.add_argument("--out", default="")
    a = ap.parse_args()
    {"predict": predict, "report": report, "loop": loop}[a.cmd](a)


if __name__ == "__main__":
    script_main.run('attention_report.py', main)
