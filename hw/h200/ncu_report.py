#!/usr/bin/env python3
"""ncu_report.py: the SM90 model's DRAM reads against Nsight Compute's.

    python3 hw/h200/ncu_report.py predict <sim> <ncu.csv> <out.csv> [--params FILE]
            [--epilogue regs|tma] [--tile-group G] [--jobs N]
    python3 hw/h200/ncu_report.py summary <out.csv>

`predict` reads what hw/h200/run_ncu.sh wrote (one row per configuration:
shape,tile_n,stages,kernel_us,...,dram_read_bytes,...), runs `sim run
--kernel matmul --arch sm90` in timing mode for each configuration as
gemm_bench ran it (sweep_report.sim_command: its input sets; --epilogue and
--tile-group as the measurement's BENCH_ARGS had them, which run_ncu.sh's
comment line records) and writes

    shape,tile_n,stages,ctas,operand_bytes,board_read_bytes,model_hbm_bytes,d_bytes,board_reads,model_reads

where operand_bytes is A and B once (2 K (M + N) bytes), board_reads the
board's DRAM reads over them, and model_reads the model's HBM bytes less D's
(M N 2 bytes, which the model counts as written to HBM) over them.

`summary` needs only out.csv: per shape and over every row, how the model's
reads compare with the board's (the MAPE of model_reads against
board_reads, its worst row, and the rows within 2 %). docs/hardware.md
quotes these lines verbatim and tests/hw:ncu_report_test re-derives them.
"""
import concurrent.futures
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sweep_report  # noqa: E402
import script_main  # noqa: E402

COLUMNS = ['shape', 'tile_n', 'stages', 'ctas', 'operand_bytes', 'board_read_bytes',
           'model_hbm_bytes', 'd_bytes', 'board_reads', 'model_reads']


def predict(args):
    if len(args) < 3:
        raise script_main.Usage(__doc__)
    sim, measured, out = args[:3]
    opt = lambda name, default=None: args[args.index(name) + 1] if name in args else default
    params, epilogue, group = opt('--params'), opt('--epilogue'), opt('--tile-group')
    with open(measured) as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith('#')))

    def one(r):
        name = r['shape'] + (f'_g{group}' if group else '')
        cmd = sweep_report.sim_command(sim, name, r['tile_n'], r['stages'], params=params,
                                       epilogue=epilogue)
        run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        if run.returncode != 0:
            raise SystemExit(f'ncu_report: sim failed for {name}: {run.stderr.strip()}')
        j = json.loads(run.stdout)
        m, n, k = (int(x) for x in r['shape'].split('x'))
        operands, d = 2 * k * (m + n), 2 * m * n
        hbm, board = j['utilization']['hbm_bytes'], float(r['dram_read_bytes'])
        return {'shape': r['shape'], 'tile_n': r['tile_n'], 'stages': r['stages'],
                'ctas': j['config']['ctas'], 'operand_bytes': operands,
                'board_read_bytes': int(board), 'model_hbm_bytes': hbm, 'd_bytes': d,
                'board_reads': f'{board / operands:.4f}',
                'model_reads': f'{(hbm - d) / operands:.4f}'}
    with concurrent.futures.ThreadPoolExecutor(int(opt('--jobs', '2'))) as pool:
        results = list(pool.map(one, rows))
    with open(out, 'w', newline='') as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        w.writerows(results)
    summary([out])


def line(name, rows):
    err = [float(r['model_reads']) / float(r['board_reads']) - 1 for r in rows]
    worst = max(err, key=abs)
    board = sorted(float(r['board_reads']) for r in rows)
    return (f'{name}: {len(rows)} configurations, board reads {board[0]:.2f}-{board[-1]:.2f}x A and B; '
            f'model reads MAPE {100 * sum(abs(e) for e in err) / len(err):.1f} %, worst '
            f'{100 * worst:+.1f} %, within 2 % on {sum(abs(e) < 0.02 for e in err)}')


def summary(args):
    if len(args) != 1:
        raise script_main.Usage(__doc__)
    with open(args[0]) as f:
        rows = list(csv.DictReader(f))
    if not rows:
        raise script_main.BadInput(f'no rows in {args[0]}')
    for shape in dict.fromkeys(r['shape'] for r in rows):
        print(line(shape, [r for r in rows if r['shape'] == shape]))
    print(line('all', rows))


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in ('predict', 'summary'):
        raise script_main.Usage(__doc__)
    (predict if sys.argv[1] == 'predict' else summary)(sys.argv[2:])


if __name__ == '__main__':
    script_main.run('ncu_report.py', main)
