#!/usr/bin/env python3
"""cluster_report.py: the SM90 model against measured clustered matmuls.

  cluster_report.py predict MEASURED.csv --sim SIM --out MODEL.csv [--params FILE]
                    [--jobs N] [--clocks free,pinned]
      runs `sim run --kernel matmul --arch sm90` in timing mode for every
      configuration of MEASURED.csv (hw/h200/run_cluster.sh's cluster_gemm.csv:
      round, then gemm_bench's columns; the shape names M x N x K, then
      _cMxN for a cluster, _et for the TMA-store epilogue and _kS for a K
      split over S CTAs, as run_split_k.sh's split_k.csv), with the cluster
      shape, epilogue and split the name says, at the model's own
      power-limited clocks and with the SM clock pinned at the measured
      median (--sm-clock), each as one launch of gemm_bench's rotation over
      its input sets (--input-sets, as sweep_report.py); writes MODEL.csv.
  cluster_report.py summary MEASURED.csv MODEL.csv
      one line of the free-clock figures (MAPE over every row, and of the
      cluster's speed-up, cluster / 1x1, per cluster shape), which
      docs/hardware.md quotes verbatim (tests/hw:cluster_report_test).
  cluster_report.py report MEASURED.csv MODEL.csv
      joins them (the measured time is the median over rounds) and prints the
      mean absolute percentage error per cluster shape and overall, and per
      problem shape the model's pick (the predicted fastest tile x stages x
      cluster) against the measured fastest.

Every row is held out: the cluster parameters of models/sm90/params.json
(dsmem_latency, cluster_barrier_latency, cluster_release_latency, gpc_sms)
come from the calibration programs (hw/h200/cluster_calibrate.cu,
docs/hardware.md), and no GEMM time of a clustered launch was used to set
any parameter. Nothing is fitted here.
"""
import argparse
import csv
import json
import re
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sweep_report import bench_input_sets  # noqa: E402
import script_main  # noqa: E402

NAME = re.compile(r"^(\d+)x(\d+)x(\d+)(?:_c(\d)x(\d))?(_et)?(?:_k(\d))?$")


def parse_shape(name):
    """(M, N, K, cluster M, cluster N, TMA epilogue, K split) of a gemm_bench shape name."""
    m = NAME.match(name)
    if not m:
        raise ValueError(f"shape {name!r} is not MxNxK[_cMxN][_et][_kS]")
    cm, cn = (int(m.group(4)), int(m.group(5))) if m.group(4) else (1, 1)
    split = int(m.group(7)) if m.group(7) else 1
    return int(m.group(1)), int(m.group(2)), int(m.group(3)), cm, cn, m.group(6) is not None, split


def launch_label(cm, cn, split):
    """How a row's CTAs are grouped: its cluster shape, or its K split."""
    return f"split {split}" if split > 1 else f"{cm}x{cn}"


def read_measured(path):
    """{(shape, tile_n, stages): (median us, median sm MHz)} over the rounds."""
    times, clocks = {}, {}
    with open(path) as f:
        for r in csv.DictReader(l for l in f if not l.startswith("#")):
            if r["status"] != "ok":
                continue
            key = (r["shape"], int(r["tile_n"]), int(r["stages"]))
            times.setdefault(key, []).append(float(r["ours_us"]))
            clocks.setdefault(key, []).append(float(r["sm_mhz"]))
    return {k: (statistics.median(v), statistics.median(clocks[k])) for k, v in times.items()}


def simulate(sim, params, key, mhz, pinned):
    shape, tile_n, stages = key
    m, n, k, cm, cn, et, split = parse_shape(shape)
    cmd = [sim, "run", "--kernel", "matmul", "--arch", "sm90", "--m", str(m), "--n", str(n),
           "--k", str(k), "--tile-n", str(tile_n), "--stages", str(stages), "--json", "-"]
    if m % 8 or n % 8 or k % 8:
        cmd += ["--pad-rows"]  # gemm_bench pads rows to 16 bytes, as TMA needs
    # One launch of gemm_bench's rotation over its input sets, as measured
    # (sweep_report.bench_input_sets).
    cmd += ["--input-sets", str(bench_input_sets(m, n, k))]
    if cm * cn > 1:
        cmd += ["--cluster", f"{cm}x{cn}"]
    if split > 1:
        cmd += ["--split-k", str(split)]
    if et:
        cmd += ["--epilogue", "tma"]
    if params:
        cmd += ["--params", params]
    if pinned:
        cmd += ["--sm-clock", f"{mhz / 1000:.4f}"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode == 2:
        return "refused", 0.0
    if p.returncode != 0:
        return "failed", 0.0
    r = json.loads(p.stdout)
    return r.get("status", "failed"), float(r.get("predicted_time_us", 0.0))


def predict(a):
    measured = read_measured(a.measured)
    modes = [m for m in a.clocks.split(",") if m]
    jobs = [(key, mode) for key in sorted(measured) for mode in modes]
    with ThreadPoolExecutor(a.jobs) as ex:
        results = list(ex.map(lambda j: simulate(a.sim, a.params, j[0], measured[j[0]][1],
                                                 j[1] == "pinned"), jobs))
    out = {}
    for (key, mode), (status, us) in zip(jobs, results):
        out.setdefault(key, {})[mode] = (status, us)
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["shape", "tile_n", "stages", "pinned_mhz", "status_free", "model_us_free",
                    "status_pinned", "model_us_pinned"])
        for key in sorted(out):
            free = out[key].get("free", ("not_run", 0.0))
            pinned = out[key].get("pinned", ("not_run", 0.0))
            w.writerow([*key, f"{measured[key][1]:.0f}", free[0], f"{free[1]:.2f}", pinned[0],
                        f"{pinned[1]:.2f}"])


def speedup_errors(measured, model, mode):
    """{cluster or split: [predicted (grouped / alone) / measured (grouped / alone) - 1]}."""
    out = {}
    for key, (us, _) in measured.items():
        m, n, k, cm, cn, et, split = parse_shape(key[0])
        if cm * cn * split == 1:
            continue
        base = (f"{m}x{n}x{k}{'_et' if et else ''}", key[1], key[2])
        rows = [model.get(key), model.get(base)]
        if base not in measured or any(r is None or r[f"status_{mode}"] != "completed" for r in rows):
            continue
        pred = float(rows[0][f"model_us_{mode}"]) / float(rows[1][f"model_us_{mode}"])
        out.setdefault(launch_label(cm, cn, split), []).append(pred / (us / measured[base][0]) - 1)
    return out


def read_model(path):
    with open(path) as f:
        return {(r["shape"], int(r["tile_n"]), int(r["stages"])): r for r in csv.DictReader(f)}


def summary(a):
    measured, model = read_measured(a.measured), read_model(a.model)
    errs = [float(model[k]["model_us_free"]) / us - 1 for k, (us, _) in measured.items()
            if k in model and model[k]["status_free"] == "completed"]
    if not errs:
        raise ValueError("no completed free-clock prediction matches a measured row")
    line = (f"{len(errs)} rows, MAPE {100 * statistics.mean(abs(e) for e in errs):.1f} %, "
            f"median {100 * statistics.median(errs):+.1f} %")
    for c, v in sorted(speedup_errors(measured, model, "free").items()):
        line += f"; speed-up {c}: {len(v)} rows, MAPE {100 * statistics.mean(abs(e) for e in v):.1f} %"
    print(line)


def report(a):
    measured = read_measured(a.measured)
    model = read_model(a.model)
    for mode in ("pinned", "free"):
        errs = {}
        by_problem = {}
        for key, (us, _) in measured.items():
            r = model.get(key)
            if r is None or r[f"status_{mode}"] != "completed":
                continue
            pred = float(r[f"model_us_{mode}"])
            m, n, k, cm, cn, et, split = parse_shape(key[0])
            errs.setdefault(launch_label(cm, cn, split), []).append(pred / us - 1)
            by_problem.setdefault(f"{m}x{n}x{k}{'_et' if et else ''}", []).append((us, pred, key))
        if not errs:
            continue
        print(f"{mode} clocks:")
        every = [e for v in errs.values() for e in v]
        for c in sorted(errs):
            v = errs[c]
            print(f"  {'' if c.startswith('split') else 'cluster '}{c}: {len(v)} rows, MAPE {100 * statistics.mean(abs(e) for e in v):.1f} %, "
                  f"median error {100 * statistics.median(v):+.1f} %, worst {100 * max(v, key=abs):+.1f} %")
        print(f"  all: {len(every)} rows, MAPE {100 * statistics.mean(abs(e) for e in every):.1f} %, "
              f"median error {100 * statistics.median(every):+.1f} %, worst {100 * max(every, key=abs):+.1f} %")
        gaps = []
        for prob, rows in sorted(by_problem.items()):
            best = min(rows)
            pick = min(rows, key=lambda r: r[1])
            gap = pick[0] / best[0] - 1
            gaps.append(gap)
            print(f"  {prob}: measured best {best[2][0]} t{best[2][1]} s{best[2][2]} {best[0]:.1f} us; "
                  f"model's pick {pick[2][0]} t{pick[2][1]} s{pick[2][2]} measured {pick[0]:.1f} us "
                  f"({100 * gap:+.1f} %)")
        print(f"  picks within 3 % of the measured best: {sum(g <= 0.03 for g in gaps)} of {len(gaps)}; "
              f"worst {100 * max(gaps):+.1f} %")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("predict")
    p.add_argument("measured")
    p.add_argument("--sim", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--params", default="")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--clocks", default="free,pinned")
    for name in ("report", "summary"):
        r = sub.add_parser(name)
        r.add_argument("measured")
        r.add_argument("model")
    a = ap.parse_args()
    {"predict": predict, "report": report, "summary": summary}[a.cmd](a)


if __name__ == "__main__":
    script_main.run('cluster_report.py', main)
