#!/usr/bin/env python3
"""gen-launch-traces.py — the block-launch calibration set as smsim inputs.

    python3 validate/gen-launch-traces.py [ROOT]   (from the repository root;
                                                   ROOT defaults to validate/calib-traces)

For every launch ncu profiled in validate/data/h200/kit-2026-12-01/launch/
(launch-ncu.raw.csv: launch_w<N> of calib_launch.cu, N = 0, 8, 300 dependent
IMADs per thread, 32..1024 threads, 0 or 16 KiB dynamic shared memory, 20
waves, plus the 1-wave and 1-block launches) it writes a native trace with the
launch exactly as ncu recorded it (grid, block, registers, static and dynamic
shared memory) and the warp-instruction stream of build/calib_launch.sass, to
validate/calib-traces/launch/<case>.trace, and the manifest
validate/calib-traces/launch-manifest.tsv that `smsim validate` reads:

    smsim validate validate/data/h200/kit-2026-12-01/launch \\
        --manifest validate/calib-traces/launch-manifest.tsv

It checks that each trace executes ncu's smsp__inst_executed.sum (2, 15, 307
warp-instructions per warp).  Deterministic: the same bytes on every run.
CALIBRATION data: configs/h200.yaml's scheduler.dispatch_* keys are fitted on
these launches (docs/calibration.md, "Block launch").
SPDX-License-Identifier: GPL-3.0-or-later
"""
import csv
import os
import sys

KIT = 'validate/data/h200/kit-2026-12-01'
CSV = KIT + '/launch/launch-ncu.raw.csv'
LAUNCHES = KIT + '/launch/launch-ncu-launches.csv'
ROOT = 'validate/calib-traces'

# The warp-instruction streams, read off build/calib_launch.sass (functions
# _Z8launch_wILi0EEvPjj, ...ILi8E..., ...ILi300E...).  The SASS ends N > 0
# with `@P0 EXIT` after ISETP (P0 is true for every thread: the store after it
# never runs); a guarded EXIT in a trace is a no-op (docs/trace-format.md), so
# the trace ends with a plain EXIT there.
HEAD = ['LDC R1, c[0x0][0x28]',
        'S2R R0, SR_TID.X',
        'ULDC UR5, c[0x0][0x218]',
        'UIADD3 UR4, UR5, 0x1, URZ',
        'LOP3.LUT R0, R0, UR5, RZ, 0x3c, !PT']
TAIL = ['IMAD R5, R0, R0, UR5',
        'ISETP.NE.AND P0, PT, R5, UR4, PT',
        'EXIT                                    # @P0 EXIT in the SASS: taken by every thread']


def body(n):
    if n == 0:
        return ['LDC R1, c[0x0][0x28]', 'EXIT']
    return HEAD + ['loop %d {' % (n - 1), '  IMAD R0, R0, R0, UR5', '}'] + TAIL


def insts(n):
    return 2 if n == 0 else len(HEAD) + n + 2


def num(v):
    return float(v.replace(',', ''))


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else ROOT
    out_dir, manifest = root + '/launch', root + '/launch-manifest.tsv'
    if not os.path.isfile(CSV):
        sys.exit('gen-launch-traces: %s: no such file (run from the repository root)' % CSV)
    rows = list(csv.reader(open(CSV, newline='')))
    head, data = rows[0], rows[2:]
    meta = list(csv.DictReader(open(LAUNCHES, newline='')))
    if len(meta) != len(data):
        sys.exit('gen-launch-traces: %d ncu rows but %d launches' % (len(data), len(meta)))
    col = {n: i for i, n in enumerate(head)}
    os.makedirs(out_dir, exist_ok=True)
    lines = ['# The block-launch calibration set (validate/gen-launch-traces.py): CALIBRATION, not validation.',
             'case\tblocks_per_sm\ttrace\tncu_csv\tncu_id']
    for r, m in zip(data, meta):
        rid = r[col['ID']]
        if rid != m['seq']:
            sys.exit('gen-launch-traces: row ID %s is launch %s' % (rid, m['seq']))
        n = int(m['work'])
        grid = int(num(r[col['launch__grid_size']]))
        block = int(num(r[col['launch__block_size']]))
        regs = int(num(r[col['launch__registers_per_thread']]))
        sstat = int(num(r[col['launch__shared_mem_per_block_static']]))
        sdyn = int(num(r[col['launch__shared_mem_per_block_dynamic']]))
        waves = m['waves']
        executed = num(r[col['smsp__inst_executed.sum']])
        warps = grid * ((block + 31) // 32)
        if executed != warps * insts(n):
            sys.exit('gen-launch-traces: launch %s: ncu executed %d warp-instructions, the trace %d'
                     % (rid, executed, warps * insts(n)))
        case = 'launch-w%d-t%d-d%s-%sw' % (n, block, '16k' if sdyn else '0', waves if grid > 1 else '1b')
        path = '%s/%s.trace' % (out_dir, case)
        with open(path, 'w') as f:
            f.write('# %s: launch_w<%d> of validate/kernels/calib_launch.cu as ncu profiled it\n' % (case, n))
            f.write('# (%s row ID %s); %d warp-instructions per warp.\n' % (CSV, rid, insts(n)))
            f.write('kernel launch_w%d grid=(%d,1,1) block=(%d,1,1) regs=%d smem_static=%d '
                    'smem_dynamic=%d {\n' % (n, grid, block, regs, sstat, sdyn))
            for l in body(n):
                f.write('  ' + l + '\n')
            f.write('}\n')
        lines.append('\t'.join([case, m['occ_api'], path, CSV, rid]))
    with open(manifest, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    print('gen-launch-traces: %d traces in %s, manifest %s' % (len(data), out_dir, manifest))


if __name__ == '__main__':
    main()
