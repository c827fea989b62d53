#!/usr/bin/env python3
"""calib_launch.py — derive the block-launch keys of configs/h200.yaml
(scheduler.dispatch_launch, dispatch_retire, sm_block_cycles,
sm_warp_cycles, block_launch_latency, warp_release, icache_cold,
launch_start, launch_drain) from the
calibration data of kit-2026-12-01/launch/ (docs/calibration.md, "Block
launch").  Standard library only; deterministic.

    python3 validate/calib_launch.py [KIT]     (default validate/data/h200/kit-2026-12-01)

Prints one "source:" line per derived number (file:line) and ends with
"h200 <key> <value>" lines.  Never reads seed/ (validation).
SPDX-License-Identifier: GPL-3.0-or-later
"""
import csv
import statistics
import sys

# smsim's own life of the lone one-warp launch_w<0> block (LDC + EXIT) with
# configs/h200.yaml, no cold fetch and no warp release: build/smsim on
# validate/calib-traces/launch/launch-w0-t32-d0-1bw.trace with --set
# scheduler.icache_cold=0 --set scheduler.launch_start=0 --set
# scheduler.launch_drain=0 --set scheduler.warp_release=0 prints
# sm__cycles_elapsed.avg 39 (held by tests/cli_launch_calib.sh).
ENGINE_LONE_WARP = 39
SMS = 132


def die(msg):
    sys.stderr.write('calib_launch: %s\n' % msg)
    sys.exit(1)


def main():
    kit = sys.argv[1] if len(sys.argv) > 1 else 'validate/data/h200/kit-2026-12-01'
    d = kit + '/launch/'
    try:
        tlines = open(d + 'launch-time.csv').read().splitlines()
        slines = open(d + 'launch-stamp.txt').read().splitlines()
        nrows = list(csv.reader(open(d + 'launch-ncu.raw.csv', newline='')))
        meta = list(csv.DictReader(open(d + 'launch-ncu-launches.csv', newline='')))
    except OSError as e:
        die('%s: %s' % (e.filename, e.strerror))
    out = []

    # 1. GPU-wide dispatch interval: event slope between 20 and 40 waves
    # (start and drain cancel), per block, over 32..512-thread blocks.
    t = list(csv.DictReader(tlines))
    by = {}
    for i, r in enumerate(t):
        by[(r['block'], r['dyn'], r['work'], r['waves'])] = (i + 2, r)
    slopes, cites = [], []
    for (b, dyn, work, waves), (ln, r) in sorted(by.items()):
        if waves != '40' or int(b) > 512 or work == '300':
            continue
        ln20, r20 = by[(b, dyn, work, '20')]
        dt_ns = (float(r['us_med']) - float(r20['us_med'])) * 1000.0
        dn = int(r['grid']) - int(r20['grid'])
        slopes.append(dt_ns / dn)
        cites.append('%d/%d' % (ln20, ln))
    clock_ghz = 1.98  # meta/clocks.csv, SUMMARY.md: 1.96-1.98 GHz under load
    ns = statistics.median(slopes)
    interval = round(ns * clock_ghz, 3)
    out.append('source:     %slaunch-time.csv:%s (20 and 40 waves, 32..512 threads, N = 0 and 8): '
               'median %.4f ns per block x 1.98 GHz' % (d, ','.join(cites[:3]) + ',...', ns))
    # 2. The first wave goes out in a burst (in-kernel stamps of the first two
    # waves): 32-thread blocks, the first 16 starts on each SM span a median
    # of S cycles, 15 gaps of S / 15 cycles in which the dispatcher served
    # all 132 SMs: dispatch_launch = S / 15 / 132.  The rest of the steady
    # interval is the dispatcher taking finished blocks back.
    raw = list(csv.reader(open(d + 'launch-stamps-raw.csv', newline='')))
    per = {}
    for r in raw[1:]:
        if r[0] == '32':
            per.setdefault(int(r[2]), []).append(int(r[3]))
    spans = sorted(sorted(v)[15] - sorted(v)[0] for v in per.values() if len(v) >= 16)
    span = statistics.median(spans)
    launch = round(span / 15 / SMS, 3)
    out.append('source:     %slaunch-stamps-raw.csv:2-%d: 32 threads, the first 16 block starts '
               'per SM span a median of %.1f cycles (%d SMs)' % (d, len(raw), span, len(spans)))
    out.append('h200 scheduler.dispatch_launch %.3f' % launch)
    out.append('h200 scheduler.dispatch_retire %.3f' % (interval - launch))
    out.append('(steady interval %.3f cycles per block = dispatch_launch + dispatch_retire)' % interval)

    # 3. ncu rows: the lone block, and 1024-thread N = 0 over 20 waves.
    head, data = nrows[0], nrows[2:]
    col = {n: i for i, n in enumerate(head)}

    def val(r, n):
        return float(r[col[n]].replace(',', ''))
    lone = None
    big = None
    for k, (r, m) in enumerate(zip(data, meta)):
        if m['grid'] == '1':
            lone = (k + 3, r)
        if m['block'] == '1024' and m['dyn'] == '0' and m['work'] == '0' and m['waves'] == '20':
            big = (k + 3, r, m)
    if not lone or not big:
        die('%slaunch-ncu.raw.csv: the 1-block or the 1024-thread N = 0 row is missing' % d)
    # Warp release: the SM counts a warp (sm__warps_active) longer than its
    # sub-partition does (smsp__warps_active): per warp, the SM's warp-cycles
    # (warps per active cycle x active cycles x 132 SMs) less the SMSPs' (x 528
    # SMSPs), over the 20-wave launches of N = 0 and 8 (N = 300 warps live
    # 9,000 cycles: the difference drowns in them); the median, since the
    # launches whose SM may hold 32 blocks keep warps far longer still
    # (docs/calibration.md).
    rel, rlines = [], []
    for k, (r1, m1) in enumerate(zip(data, meta)):
        if m1['waves'] != '20' or m1['work'] == '300':
            continue
        warps = val(r1, 'smsp__warps_launched.sum')
        wsm = val(r1, 'sm__warps_active.avg.per_cycle_active') * val(r1, 'sm__cycles_active.avg') * SMS
        wsp = (val(r1, 'smsp__warps_active.avg.per_cycle_active') * val(r1, 'smsp__cycles_active.avg')
               * SMS * 4)
        rel.append((wsm - wsp) / warps)
        rlines.append(k + 3)
    release = round(statistics.median(rel))
    out.append('source:     %slaunch-ncu.raw.csv:%d-%d (%d launches, N = 0 and 8, 20 waves): SM less '
               'SMSP warp-cycles per warp, median %.2f (range %.1f..%.1f)'
               % (d, min(rlines), max(rlines), len(rel), statistics.median(rel), min(rel), max(rel)))
    out.append('h200 scheduler.warp_release %d' % release)
    ln, r = lone
    life = val(r, 'sm__cycles_active.avg') * SMS  # one SM active, averaged over 132
    el = val(r, 'sm__cycles_elapsed.avg')
    # the SM is active for the warp's engine life, the cold fetch and its release
    cold = round(life - ENGINE_LONE_WARP - release)
    sd = el - life
    out.append('source:     %slaunch-ncu.raw.csv:%d: 1 block, sm__cycles_elapsed.avg %.0f, '
               'sm__cycles_active.avg x 132 = %.1f (its life)' % (d, ln, el, life))
    out.append('h200 scheduler.icache_cold %d' % cold)
    out.append('h200 scheduler.launch_start %d' % round(sd / 2))
    out.append('h200 scheduler.launch_drain %d' % round(sd - round(sd / 2)))
    ln, r, m = big
    per_sm = int(m['grid']) / SMS
    per_block = (val(r, 'sm__cycles_elapsed.avg') - el) / per_sm   # cycles per block per SM
    blk_life = val(r, 'sm__cycles_active.avg') / per_sm              # one block at a time
    # 2 slots of 1024 threads: a slot turns over in the block's active life
    # (to its warps' release), the dispatcher's take-back and the latency
    # from the take-back to the SM (eng_disp.h)
    retire = interval - launch
    lat = round(2 * per_block - blk_life - retire)
    out.append('source:     %slaunch-ncu.raw.csv:%d: 1024 threads, 20 waves: %.1f cycles per '
               'block per SM beyond the lone block, %.1f active cycles per block; 2 slots turn '
               'over every 2 x %.1f = block life + take-back + refill latency' % (d, ln, per_block, blk_life,
                                                                      per_block))
    out.append('h200 scheduler.block_launch_latency %d' % lat)
    # 4. Per-warp start cost: a 32-warp block is active (ncu, 20 waves, N = 0,
    # one block at a time on an SM) longer than a one-warp block by 31 warp
    # starts.
    one = None
    for k, (r1, m1) in enumerate(zip(data, meta)):
        if m1['block'] == '32' and m1['dyn'] == '16384' and m1['work'] == '0' and m1['waves'] == '20':
            one = (k + 3, r1, m1)
    if not one:
        die('%slaunch-ncu.raw.csv: the 32-thread 16 KiB N = 0 row is missing' % d)
    ln1, r1, m1 = one
    one_life = val(r1, 'sm__cycles_active.avg') / (int(m1['grid']) / SMS)
    out.append('source:     %slaunch-ncu.raw.csv:%d: 32 threads, 16 KiB, N = 0, 20 waves: %.1f '
               'active cycles per block' % (d, ln1, one_life))
    out.append('h200 scheduler.sm_warp_cycles %.2f' % ((blk_life - one_life) / 31))
    # No per-block cost shows beyond the dispatcher's: in the first-wave burst
    # one-warp blocks start on an SM every 132 x dispatch_launch cycles.
    out.append('h200 scheduler.sm_block_cycles 0')
    print('\n'.join(out))


if __name__ == '__main__':
    main()
