#!/usr/bin/env python3
"""calib_frontend.py — derive the front-end keys of configs/h200.yaml
(scheduler.icache_l0_bytes, icache_l1_bytes, icache_l1_latency,
icache_fill_cycles, icache_l2_latency, icache_dram_latency) from kit3's instruction-cache
measurements and the constant-cache keys (scheduler.const_l0_bytes,
const_l0_latency, const_l1_bytes, const_l2_latency, const_dram_latency)
from its constant-cache measurements (docs/calibration.md, "Front end").  Standard library only;
deterministic.

    python3 validate/calib_frontend.py [KIT]   (default validate/data/h200/kit3-2026-12-01)

Prints one "source:" line per number it reads (file:line), the model's
prediction next to every measured point, and ends with
"h200 <key> <value>" lines.  Reads only calibration data (icache/, const/).

The model (docs/model.md, "Front end"): each warp fetches 128-byte lines of
its own (a warp's L0 holds icache_l0_bytes; warps of one SMSP do not share
fills: the data below show a warp alone and a warp among four paying the
same L2 misses) and asks for the next line when it has one; an L0 miss is
served by the SM's L1 instruction cache in icache_l1_latency through one
fill port per SMSP, busy icache_fill_cycles per line; an L1 miss costs
icache_l2_latency more cycles.  A line the SM never fetched in the kernel
is in its L1 when the whole code fits there (ncu replays each kernel; the
L1 keeps the code, line4k costs the same under ncu as timed after a
warm-up launch), else it comes from DRAM, icache_dram_latency after the L1
miss (ncu flushes L2 before each pass: the first trip of line16k and
line32k is slower).  Constants: an
instruction reading c[bank][offset] looks its 64-byte line up in the SM's
immediate constant cache (const_l0_bytes); a miss costs const_l0_latency
when the second level (256-byte lines, const_l1_bytes) has it, and
const_l2_latency (const_dram_latency for the SM's first read) more when not.
SPDX-License-Identifier: GPL-3.0-or-later
"""
import csv
import statistics
import sys

LINE = 128                    # bytes per instruction-cache line (the fill unit assumed)
INST = 16                     # bytes per SASS instruction (sm_90)
# Loop bodies of icache_line<N> in build/calib_icache.sass.gz: the timed loop
# runs 0x190 .. the backward BRA (0x101b0, 0x201b0, 0x401b0, 0x801b0): the
# FADDs plus 2 loop instructions.
BODY = {'line4k': 0x101c0 - 0x190, 'line8k': 0x201c0 - 0x190,
        'line16k': 0x401c0 - 0x190, 'line32k': 0x801c0 - 0x190, 'loop': 256 * INST + 0x40}
TRIPS = {'line4k': 32, 'line8k': 16, 'line16k': 8, 'line32k': 4, 'loop': 512}


def die(msg):
    sys.stderr.write('calib_frontend: %s\n' % msg)
    sys.exit(1)


def kv_lines(path, tag):
    """(line number, {key: value}) of every line starting with tag."""
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        die('%s: %s' % (e.filename, e.strerror))
    out = []
    for i, ln in enumerate(lines):
        if ln.startswith(tag + ' '):
            out.append((i + 1, dict(f.split('=', 1) for f in ln.split()[1:] if '=' in f)))
    if not out:
        die('%s: no %s lines' % (path, tag))
    return out


def ncu_rows(path):
    try:
        rows = list(csv.reader(open(path, newline='')))
    except OSError as e:
        die('%s: %s' % (e.filename, e.strerror))
    head = rows[0]
    col = {n: i for i, n in enumerate(head)}
    for n in ('smsp__issue_active.avg.pct_of_peak_sustained_active', 'smsp__inst_executed.sum',
              'smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio',
              'smsp__average_warps_issue_stalled_imc_miss_per_issue_active.ratio', 'Block Size'):
        if n not in col:
            die('%s:1: no column %s' % (path, n))

    def get(r, n):
        return r[col[n]]
    return [(k + 3, r) for k, r in enumerate(rows[2:])], get


def num(s):
    return float(s.replace(',', ''))


def main():
    kit = sys.argv[1] if len(sys.argv) > 1 else 'validate/data/h200/kit3-2026-12-01'
    out = []
    # ---- instruction cache --------------------------------------------------
    d = kit + '/icache/'
    tm = kv_lines(d + 'icache-time.txt', 'ICACHE')
    nrows, get = ncu_rows(d + 'icache-ncu.raw.csv')
    if len(nrows) != len(tm):
        die('%sicache-ncu.raw.csv: %d rows, icache-time.txt has %d points' % (d, len(nrows), len(tm)))
    # per point: clock64 cycles per instruction per warp (time mode, L2 warm:
    # the launch before the timed ones fetched the code), ncu cycles per issue
    # of one SMSP and no_instruction per issue (ncu: caches flushed per pass)
    pts = {}
    for (ln, v), (nl, r) in zip(tm, nrows):
        wps = int(v['wps'])
        if get(r, 'Block Size') != '(%d, 1, 1)' % (128 * wps):
            die('%sicache-ncu.raw.csv:%d: block %s, icache-time.txt:%d has wps=%d'
                % (d, nl, get(r, 'Block Size'), ln, wps))
        pts[(v['variant'], wps)] = {
            'tl': ln, 'nl': nl,
            'cpi': float(v['cyc_per_fadd_per_warp']),
            'rate': num(get(r, 'smsp__issue_active.avg.pct_of_peak_sustained_active')) / 100.0,
            'noi': num(get(r, 'smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio'))}
    for k in sorted(pts):
        p = pts[k]
        out.append('source:     %sicache-time.txt:%d, icache-ncu.raw.csv:%d: %s wps=%d body %d B: '
                   'clock64 %.3f cycles per instruction per warp; ncu issue %.4f per SMSP cycle, '
                   'no_instruction %.2f per issue'
                   % (d, p['tl'], p['nl'], k[0], k[1], BODY[k[0]], p['cpi'], p['rate'], p['noi']))
    # L0: the 4.1 KiB loop issues at 0.95 (hits); 64 KiB of straight code
    # does not.  L1: 64 KiB and 128 KiB cost the same per instruction
    # (clock64 2.417, 2.467), 256 and 512 KiB the same more (5.783, 5.758).
    hit = statistics.mean([pts[('line4k', 1)]['cpi'], pts[('line8k', 1)]['cpi']])
    miss = statistics.mean([pts[('line16k', 1)]['cpi'], pts[('line32k', 1)]['cpi']])
    per_line = LINE // INST
    # one warp asks for the next line when it has one (one line of
    # prefetch): a line every max(8, latency) cycles; here the latency wins
    l1 = hit * per_line
    l2 = (miss - hit) * per_line
    out.append('L0 bound: loop body %d B hits (ncu issue %.2f), line4k %d B misses: %d < L0 <= %d bytes'
               % (BODY['loop'], pts[('loop', 1)]['rate'], BODY['line4k'], BODY['loop'], BODY['line4k']))
    out.append('L1 bound: line8k %d B costs as line4k (clock64 %.3f vs %.3f), line16k %d B as line32k '
               '(%.3f vs %.3f): %d <= L1 < %d bytes'
               % (BODY['line8k'], pts[('line8k', 1)]['cpi'], pts[('line4k', 1)]['cpi'], BODY['line16k'],
                  pts[('line16k', 1)]['cpi'], pts[('line32k', 1)]['cpi'], BODY['line8k'], BODY['line16k']))
    out.append('one warp: L1 hit %.3f cycles per instruction -> a line every %.3f x %d = %.2f cycles '
               '(the fill latency, next-line prefetch); L2 %.3f -> %.2f more' % (hit, hit, per_line, l1, miss, l2))
    # DRAM: under ncu every launch starts cold; the per-line excess of ncu
    # over clock64 for the L2-missing variants, times the trips, is the cold
    # first trip's
    cold = []
    for v in ('line16k', 'line32k'):
        p = pts[(v, 1)]
        ncu_line = per_line / p['rate']
        cold.append((ncu_line - l1 - l2) * TRIPS[v])
        out.append('  %s ncu %.2f cycles per line, x %d trips: first trip %.1f cycles per line more than L2'
                   % (v, ncu_line, TRIPS[v], cold[-1]))
    dram = l2 + statistics.mean(cold)
    # fill port: with 4 and 8 warps per SMSP on L1 hits the SMSP issues at
    # most ~0.7 per cycle: one line per 8 / 0.7 cycles
    caps = [pts[(v, w)]['rate'] for v in ('line4k', 'line8k') for w in (4, 8)]
    port = per_line / statistics.median(caps)
    out.append('fill port: L1-hit variants with 4 and 8 warps per SMSP issue %s per cycle '
               '(median %.3f): one line per %.2f cycles'
               % (' '.join('%.3f' % c for c in caps), statistics.median(caps), port))
    L0 = 16384
    L1 = 196608
    keys = [('icache_l0_bytes', L0), ('icache_l1_bytes', L1), ('icache_l1_latency', round(l1)),
            ('icache_fill_cycles', round(port)), ('icache_l2_latency', round(l2)),
            ('icache_dram_latency', round(dram))]
    kv = dict(keys)
    # predictions of the model: one warp a line every max(8, latency), the
    # first trip from DRAM; more warps as many lines in parallel, at most
    # one per icache_fill_cycles through the SMSP's port
    out.append('model vs ncu (cycles per issue of one SMSP = 1 / issue rate):')
    for k in sorted(pts):
        v, w = k
        T = TRIPS[v]
        lat = kv['icache_l1_latency'] + (kv['icache_l2_latency'] if BODY[v] > L1 else 0)
        # code that fits the L1 starts there (ncu replays the kernel, the
        # timed runs follow a warm-up launch); larger code's first trip
        # comes from DRAM
        first = kv['icache_l1_latency'] + (kv['icache_dram_latency'] if BODY[v] > L1 else 0)
        if BODY[v] <= L0:
            lines = -(-BODY[v] // LINE)
            per = 1.0 + lines * max(0, first - per_line) / (T * BODY[v] / INST)
        else:
            line_cost = ((T - 1) * max(per_line, lat) + max(per_line, first)) / T
            per = max(line_cost / per_line / w, kv['icache_fill_cycles'] / per_line, 1.0)
        out.append('  %-8s wps=%d  ncu %.3f  model %.3f  (%+.1f %%)'
                   % (v, w, 1.0 / pts[k]['rate'], per, 100.0 * (per * pts[k]['rate'] - 1.0)))
    # ---- constant cache -----------------------------------------------------
    d = kit + '/const/'
    ct = kv_lines(d + 'const-time.txt', 'CONST')
    one = {}
    for ln, v in ct:
        if v['warps_per_sm'] == '1':
            one[int(v['stride_bytes'])] = (ln, int(v['pass1_cyc_med']), int(v['pass2_cyc_med']),
                                           int(v['pass1_cyc_first_launch']))
    for s in sorted(one):
        ln, p1, p2, pf = one[s]
        out.append('source:     %sconst-time.txt:%d: stride %d B, one warp: pass 1 %d, pass 2 %d cycles '
                   '(first launch pass 1 %d)' % (d, ln, s, p1, p2, pf))
    # pass 2 of 1 KiB (ULDC.64 pairs: 384 instructions) hits: 385 cycles;
    # 512-instruction passes cost 512 + 1 when they hit.
    base = one[4][2]
    insts = 2 * 256
    imc = statistics.mean([(one[s][2] - (insts + 1)) / n for s, n in ((16, 64), (64, 256), (256, 256))])
    # pass 1 (L2 warm: the median launch): 256 B stride misses the second
    # level on every read
    l15_miss = (one[256][1] - (insts + 1)) / 256.0 - imc
    out.append('constant L0 (64 B lines): 1 KiB (16 lines) hits in pass 2 (%d cycles for 384 '
               'instructions), 4 KiB (64 lines) misses every line: 1 KiB <= capacity < 4 KiB' % base)
    out.append('constant L0 miss, second level hit: pass 2 of 4, 16, 64 KiB: %.1f cycles per missing line' % imc)
    out.append('second level (256 B lines, >= 64 KiB): miss %.1f cycles more (pass 1, 256 B stride)' % l15_miss)
    out.append('model vs clock64 (one warp, cycles per pass):')
    for s, span, n0, n1, ni in ((0, 4, 1, 1, 257), (4, 1024, 16, 4, 384), (16, 4096, 64, 16, 512),
                                (64, 16384, 256, 64, 512), (256, 65536, 256, 256, 512)):
        p1 = ni + 1 + n0 * imc + n1 * l15_miss
        p2 = ni + 1 + (n0 * imc if span > 2048 else 0)
        out.append('  stride %3d B: pass 1 %6d model %8.0f (%+.1f %%); pass 2 %6d model %8.0f (%+.1f %%)'
                   % (s, one[s][1], p1, 100 * (p1 / one[s][1] - 1), one[s][2], p2, 100 * (p2 / one[s][2] - 1)))
    # DRAM: pass 1 of each configuration's first launch found the constants
    # in DRAM (they were just copied there; ncu flushes the caches per pass)
    cold = (one[256][3] - (insts + 1)) / 256.0 - imc
    out.append('second level, first launch (cold): pass 1 of 256 B stride %d cycles: miss %.1f more' % (one[256][3], cold))
    keys += [('const_l0_bytes', 2048), ('const_l0_latency', round(imc)), ('const_l1_bytes', 65536),
             ('const_l2_latency', round(l15_miss)), ('const_dram_latency', round(cold))]
    for k, v in keys:
        out.append('h200 scheduler.%s %d' % (k, v))
    print('\n'.join(out))


if __name__ == '__main__':
    main()
