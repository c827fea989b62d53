#!/usr/bin/env python3
# validate/peak.py — "peak then decline" (issue #17): throughput against
# residency, measured on the H200 and simulated by smsim, for the cases of the
# validation manifest whose throughput peaks at a moderate residency and then
# falls (default: stencil-reuse-t4k, stencil-reuse-t8k; validate/kernels/
# val_stencil_reuse.cu, kit3-2026-12-01).
#
#   python3 validate/peak.py [--smsim build/smsim] [--config configs/h200.yaml]
#       [--manifest validate/traces/manifest.tsv] [--case NAME ...]
#       [--jobs N] [--results DIR]
#
# For every manifest row of a case it runs `smsim --config CFG TRACE --format
# json --carveout 100` (the carveout `smsim validate` uses) and prints, per
# blocks/SM:
#   blocks/ms      measured, CUDA events (ms_med of the kit's *-time.txt VALID
#                  line of that variant and b), blocks per ms
#   blk/kcyc       measured, grid / ncu sm__cycles_elapsed.avg x 1000 (the
#                  row ncu_id of the manifest's CSV), and simulated, grid /
#                  smsim's sm__cycles_elapsed.avg x 1000
#   L1 hit         l1tex__t_sector_hit_rate.pct, ncu and smsim
# then, for each curve, the PEAK: the first residency whose throughput is
# higher than at the next residency (the first local maximum), whether the
# curve DECLINES after it (the next point is more than 2 % lower: the events'
# min..max spread is 1-3 %), and the global maximum.  The case passes when the
# simulated peak is within +-1 block/SM of the measured one (CUDA events) and
# the simulated curve declines after it.  Exit 0 when every case passes, 1 when
# one does not, 2 on errors.
#
# --results DIR keeps smsim's JSON (DIR/CASE/bB.json) and reuses what is
# there, so a second run only prints; --no-run prints only the points already
# there (a partial table: the peak is then that of the residencies simulated).
# Runtime: the 16 points execute 8.9 G warp-instructions; smsim runs them at
# ~4-10 M/s per core (slower at high residency), so ~20-40 CPU-minutes.  python3 standard library only.
#
# SPDX-License-Identifier: GPL-3.0-or-later
import argparse
import concurrent.futures
import csv
import json
import os
import re
import subprocess
import sys

DECLINE = 0.02  # a drop of more than 2 % counts as a decline


def die(msg):
    sys.stderr.write('peak.py: %s\n' % msg)
    sys.exit(2)


def manifest_rows(path, cases):
    rows = []
    with open(path, newline='') as f:
        lines = [l for l in f if not l.startswith('#')]
    head = lines[0].rstrip('\n').split('\t')
    for l in lines[1:]:
        r = dict(zip(head, l.rstrip('\n').split('\t')))
        if r['case'] in cases:
            rows.append(r)
    for c in cases:
        if not any(r['case'] == c for r in rows):
            die('%s: no rows for case %s' % (path, c))
    return rows


def ncu_row(path, ncu_id, cache={}):
    if path not in cache:
        with open(path, newline='') as f:
            rs = list(csv.reader(f))
        head = rs[0]
        cache[path] = {r[head.index('ID')]: dict(zip(head, r)) for r in rs[2:]}
    try:
        return cache[path][ncu_id]
    except KeyError:
        die('%s: no row with ID %s' % (path, ncu_id))


def num(s):
    return float(s.replace(',', ''))


def event_ms(csv_path, variant, b, cache={}):
    """ms_med of the VALID line of this variant and b in the kit's -time.txt
    (the file next to the ncu CSV: NAME-ncu.raw.csv -> NAME-time.txt)."""
    t = re.sub(r'-ncu\.raw\.csv$', '-time.txt', csv_path)
    if t not in cache:
        cache[t] = {}
        if os.path.exists(t):
            for l in open(t):
                if l.startswith('VALID '):
                    kv = dict(w.split('=', 1) for w in l.split()[1:] if '=' in w)
                    cache[t][(kv.get('variant', ''), kv['b'])] = (float(kv['ms_med']), int(kv['grid']))
    return cache[t].get((variant, b))


def simulate(args, row):
    out = None
    if args.results:
        out = os.path.join(args.results, row['case'], 'b%s.json' % row['blocks_per_sm'])
        if os.path.exists(out):
            with open(out) as f:
                return json.load(f)
    p = subprocess.run([args.smsim, '--config', args.config, row['trace'], '--format', 'json',
                        '--carveout', '100'], capture_output=True, text=True)
    if p.returncode != 0:
        die('smsim on %s: exit %d: %s' % (row['trace'], p.returncode, p.stderr.strip()))
    if out:
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out + '.tmp', 'w') as f:
            f.write(p.stdout)
        os.replace(out + '.tmp', out)
    return json.loads(p.stdout)


def peak(bs, ys):
    """(b of the first local maximum, declines after it?, b of the global max)."""
    k = next((i for i in range(len(ys) - 1) if ys[i] > ys[i + 1]), len(ys) - 1)
    declines = k + 1 < len(ys) and ys[k + 1] < ys[k] * (1 - DECLINE)
    g = max(range(len(ys)), key=lambda i: ys[i])
    return bs[k], declines, bs[g]


def main():
    ap = argparse.ArgumentParser(description='peak then decline: measured vs simulated throughput per residency')
    ap.add_argument('--smsim', default='build/smsim')
    ap.add_argument('--config', default='configs/h200.yaml')
    ap.add_argument('--manifest', default='validate/traces/manifest.tsv')
    ap.add_argument('--case', action='append', help='manifest case (repeatable); default the stencil-reuse ones')
    ap.add_argument('--jobs', type=int, default=os.cpu_count() or 1)
    ap.add_argument('--results', help='keep/reuse smsim JSON outputs under this folder')
    ap.add_argument('--no-run', action='store_true',
                    help='with --results: only the points simulated already (a partial table)')
    args = ap.parse_args()
    if args.no_run and not args.results:
        die('--no-run needs --results')
    cases = args.case or ['stencil-reuse-t4k', 'stencil-reuse-t8k']
    rows = manifest_rows(args.manifest, cases)
    need = not args.no_run and (not args.results or any(
        not os.path.exists(os.path.join(args.results, r['case'], 'b%s.json' % r['blocks_per_sm'])) for r in rows))
    if need and not os.access(args.smsim, os.X_OK):
        die('no smsim binary at %s (build first)' % args.smsim)
    # smallest first: the low residencies, where the peak is, come first (an
    # interrupted run with --results keeps them)
    order = sorted(rows, key=lambda r: int(r['blocks_per_sm']))
    if args.no_run:
        order = [r for r in order if os.path.exists(
            os.path.join(args.results, r['case'], 'b%s.json' % r['blocks_per_sm']))]
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        sims = dict(zip([id(r) for r in order], ex.map(lambda r: simulate(args, r), order)))
    rows = [r for r in rows if id(r) in sims]
    ok_all = True
    for c in cases:
        crow = sorted((r for r in rows if r['case'] == c), key=lambda r: int(r['blocks_per_sm']))
        if not crow:
            print('%s: no simulated point yet\n' % c)
            ok_all = False
            continue
        nall = sum(1 for r in manifest_rows(args.manifest, [c]))
        variant = c.rsplit('-', 1)[-1]
        print('%s (%s)%s' % (c, crow[0]['ncu_csv'], '' if len(crow) == nall else
                             '  PARTIAL: %d of %d residencies simulated' % (len(crow), nall)))
        print('%9s %7s | %10s | %10s %10s %7s | %7s %7s' % ('blocks/SM', 'grid', 'events', 'ncu', 'smsim', 'sim/ncu',
                                                            'L1 ncu', 'L1 sim'))
        print('%9s %7s | %10s | %10s %10s %7s | %7s %7s' % ('', '', 'blocks/ms', 'blk/kcyc', 'blk/kcyc', '', '%', '%'))
        bs, ev, mc, sc = [], [], [], []
        for r in crow:
            b = r['blocks_per_sm']
            n = ncu_row(r['ncu_csv'], r['ncu_id'])
            grid = num(n['launch__grid_size'])
            k = sims[id(r)]['kernels'][0]['metrics']
            mcyc, scyc = num(n['sm__cycles_elapsed.avg']), float(k['sm__cycles_elapsed.avg'])
            e = event_ms(r['ncu_csv'], variant, b)
            if e and e[1] != grid:
                die('%s b=%s: events grid %d, ncu grid %d' % (c, b, e[1], grid))
            bs.append(int(b))
            ev.append(grid / e[0] if e else None)
            mc.append(grid / mcyc * 1000)
            sc.append(grid / scyc * 1000)
            print('%9s %7d | %10s | %10.3f %10.3f %+6.1f%% | %7.1f %7.1f' % (
                b, grid, '%.0f' % ev[-1] if e else '-', mc[-1], sc[-1], (sc[-1] / mc[-1] - 1) * 100,
                num(n['l1tex__t_sector_hit_rate.pct']), float(k['l1tex__t_sector_hit_rate.pct'])))
        curves = [('measured, CUDA events', ev)] if all(v is not None for v in ev) else []
        curves += [('measured, ncu cycles', mc), ('smsim', sc)]
        res = {}
        for name, ys in curves:
            p, d, g = peak(bs, ys)
            res[name] = (p, d)
            if p == bs[-1]:
                print('  %-22s no peak: rises to the last residency (%d blocks/SM)' % (name, p))
            else:
                print('  %-22s first peak at %2d blocks/SM, %s after it; global maximum at %d' % (
                    name, p, 'declines' if d else 'does NOT decline (< 2 %)', g))
        ref = curves[0][0]
        ok = abs(res['smsim'][0] - res[ref][0]) <= 1 and res['smsim'][1] and res[ref][1]
        ok_all &= ok
        print('  => %s: smsim peak %d vs %s %d (+-1 allowed), smsim %s\n' % (
            'PASS' if ok else 'FAIL', res['smsim'][0], ref, res[ref][0],
            'declines' if res['smsim'][1] else 'does not decline'))
    return 0 if ok_all else 1


if __name__ == '__main__':
    sys.exit(main())
