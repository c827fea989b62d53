#!/usr/bin/env python3
"""calib_queue.py — the SMSP's LG and MIO queue depths (memory.lg_queue_depth,
memory.mio_queue_depth) from the H200's load bursts (calibration,
kit5-2026-12-03/queue; never validation data).

The measured kernel, q_burst<F,K,S> (validate/kernels/calib_queue.cu), has
every warp of one block per SM (W warps per SMSP, 128 W threads) issue K
independent loads back to back between two clock64 reads (CS2R SR_CLOCKLO),
twice: round 0 warms L1 / shared memory, round 1 is measured.  Flavours:
lg128 LDG.E.128 and lg32 LDG.E (L1 hits), lds128 LDS.128, lds32 LDS, lds32c4
LDS with a 4-way bank conflict.  Measured (queue/queue.csv, S = 0 rows only:
the S = 1 stamps add instructions to the burst): burst_cyc_med, one warp's
t1 - t0 of round 1, median over all warps.

For each point this script converts that q_burst<F,K,0> instance's SASS
(kit5-2026-12-03/build/calib_queue.sass.xz) with `smsim sass2trace` at the
kit's launch shape (grid, 128 W threads, the registers and dynamic shared
memory of queue.csv), with annotations for the loads: the burst's LDGs read
g + imm (lane l at 16 l or 4 l bytes: coalesced; every warp and block the same
words, so round 1 hits L1 as on the GPU), the lds* fill's LDG reads g[j]
(j = 32 warp + 128 W trip), lds32c4's LDS have conflict=4; the rounds loop
runs 2 trips, the fill loop the kernel's per-warp trip count and its guard is
taken by the warps past the fill's end; the record's STG.E.64s (lane 0 only
on the GPU; the trace keeps @P0 EXIT as a no-op with 32 lanes) are one
broadcast address per warp, else their 32-lane traffic fills the LG queue and
holds late warps' bursts behind the early warps' stores.  It runs smsim (configs/h200.yaml,
--carveout 57: the 132 KiB shared-memory configuration ncu reports for every
launch, launch__shared_mem_config_size = 135168) with --timeline on SM 0 and
reads each warp's issue cycles from it: a warp's `selected` cycles, in order,
are its dynamic instructions, and the code from round 1's second clock read
(t1) to the final EXIT is straight-line and the same for every warp, so t1 is
that warp's issue number (issues - 1 - instructions from t1 to EXIT) and t0 is
the instructions of the burst before it; smsim's burst = t1 - t0 between the
two CS2R issues, the median over SM 0's warps (every SM runs the same block).
The SMSP figure, span max t1 - min t0 over an SMSP's warps / (W K), is shown
too (smsp_cpi_med).

  validate/calib_queue.py [--smsim build/smsim] [--set memory.mio_queue_depth=N ...]
  validate/calib_queue.py --sweep 4,8,12,16,24,32,64 [--jobs 1]
      (lg_queue_depth=N on lg*, mio_queue_depth=N on lds*; MAPE per flavour)

The burst is one warp's, so it depends on the scheduling policy (gob, the
config's, and lrr share the queue among the block's warps as the GPU's
burst ~ SMSP span suggests; --set scheduler.policy=gto lets the oldest warp
through first); smsp_cpi_med hardly does.

Some S = 0 bursts hold 1-2 other instructions between the loads (an R2UR of
t0, build/sass-checks.txt 'MISMATCH'): they are in the SASS and so in the
trace; the point is marked '*'.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import argparse
import csv
import gzip
import json
import lzma
import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import calibsim
import sassctl

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.join(HERE, "data/h200/kit5-2026-12-03")
SASS_XZ = os.path.join(KIT, "build/calib_queue.sass.xz")
CHECKS = os.path.join(KIT, "build/sass-checks.txt")
QCSV = os.path.join(KIT, "queue/queue.csv")
FL = {"lg128": 0, "lg32": 1, "lds128": 2, "lds32": 3, "lds32c4": 4}
CARVEOUT = "57"  # 57 % x 233472 B rounds up to the 132 KiB carveout ncu reports


def fwid(f):
    return 4 if f in ("lg128", "lds128") else 1


def fwords(f, K):
    return K * (128 if f == "lds32c4" else 32 * fwid(f))


def points():
    out = []
    for r in csv.DictReader(open(QCSV)):
        if r["S"] == "0":
            out.append(r)
    return out


def mismatches():
    bad = set()
    for line in open(CHECKS):
        m = re.match(r"q_burst F=(\d) K=(\d+) S=0 .*MISMATCH", line)
        if m:
            bad.add((int(m.group(1)), int(m.group(2))))
    return bad


def functions(text):
    """mangled name -> [(pc, instruction text)]"""
    return sassctl.functions(text.splitlines())


def layout(ins):
    bar = next(pc for pc, t in ins if t.startswith("BAR.SYNC"))
    clk = [pc for pc, t in ins if t.startswith("CS2R") and "SR_CLOCKLO" in t and pc > bar]
    t0, t1 = clk[0], clk[1]
    exitpc = [pc for pc, t in ins if t == "EXIT"][-1]
    fill_guard = rounds_guard = main_back = fill_back = None
    for pc, t in ins:
        m = re.match(r"@!?U?P\d\s+BRA\s+(0x[0-9a-f]+)", t)
        if not m:
            continue
        tgt = int(m.group(1), 16)
        if tgt <= pc:
            if tgt <= bar <= pc:
                main_back = pc
            elif pc < bar:
                fill_back = pc
        elif pc < bar:
            if fill_guard is None and tgt < bar:
                fill_guard = pc
            else:
                rounds_guard = pc
    fill_ldg = [pc for pc, t in ins if t.startswith("LDG") and fill_back and pc < fill_back]
    n_t0_t1 = (t1 - t0) // 16          # issues from t0 to t1
    n_t1_exit = (exitpc - t1) // 16    # issues after t1 up to and including the final EXIT
    return dict(bar=bar, t0=t0, t1=t1, exit=exitpc, fill_guard=fill_guard, rounds_guard=rounds_guard,
                main_back=main_back, fill_back=fill_back, fill_ldg=fill_ldg, n01=n_t0_t1, n1e=n_t1_exit)


def build(a, p, fns, tmp):
    f, K, W = p["flavour"], int(p["K"]), int(p["W"])
    B = 128 * W
    name = f"_Z7q_burstILi{FL[f]}ELi{K}ELi0EEvPKjPyi"
    lo = layout(fns[name])
    ann = []
    if f.startswith("lg"):
        ann.append("# q_burst lg*: lane l reads g[l*wid + i*32*wid]: coalesced, the same words for every warp")
        ann.append("LDG pattern=coalesced footprint=32K addr=0x10000000+imm")
    else:
        nw = fwords(f, K)
        ann.append("# fill: smem[j] = g[j], j = threadIdx.x + trip*blockDim.x")
        for pc in lo["fill_ldg"]:
            ann.append(f"0x{pc:04x} pattern=coalesced footprint=32K addr=0x10000000+warp*128+i0*{B * 4}")
        if f == "lds32c4":
            ann.append("# lane l reads bank l%8, row l/8: 4 wavefronts")
            ann.append("LDS conflict=4")
    ann.append("# lane 0 (the others left at @P0 EXIT, which the trace keeps as a no-op with 32 lanes) writes"
               " the warp's record: rec[(block*warps+warp)*24 + j], 8 bytes: one address for the warp")
    ann.append("STG pattern=broadcast footprint=1M addr=0x20000000+(block*warps+warp)*192+imm")
    base = os.path.join(tmp, f"{f}_K{K}_W{W}")
    with open(base + ".annot", "w") as fh:
        fh.write("\n".join(ann) + "\n")
    cmd = [a.smsim, "sass2trace", "--sass", a.sass, "--kernel", "^" + name + "$",
           "--grid", str(a.grid or int(p["grid"])), "--block", str(B), "--regs", p["regs"],
           "--smem-static", "0", "--smem-dynamic", p["dyn"],
           "--trip", f"0x{lo['main_back']:04x}={p['rounds']}",
           "--take", f"0x{lo['rounds_guard']:04x}=0", "--annot", base + ".annot", "-o", base + ".trace"]
    if lo["fill_guard"] is not None:
        nw = fwords(f, K)
        cmd += ["--take", f"0x{lo['fill_guard']:04x}=warp*32>={nw}",
                "--trip", f"0x{lo['fill_back']:04x}=({nw}-warp*32+{B - 1})/{B}"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return base, lo


def one(a, p, fns, tmp, sets):
    base, lo = build(a, p, fns, tmp)
    tag = "_".join(s.split(".")[-1].replace("=", "") for s in sets) or "base"
    tl = f"{base}.{tag}.json.gz"
    met = calibsim.metrics(a, base + ".trace",
                           ["--carveout", CARVEOUT, "--quiet", "--threads", "1", "--timeline", tl,
                            "--timeline-sms", "0-0", "--timeline-cycles", "10000000"], sets)
    ev = json.load(gzip.open(tl, "rt"))
    os.unlink(tl)
    if ev.get("otherData", {}).get("truncated"):
        raise RuntimeError(f"{tl}: timeline truncated")
    sel = {}
    for e in ev["traceEvents"]:
        if e.get("ph") == "X" and e.get("pid") == 0 and e.get("name") == "selected":
            sel.setdefault(e["tid"], []).extend(range(e["ts"], e["ts"] + e["dur"]))
    W = int(p["W"])
    bursts, smsp = [], {}
    for tid, cyc in sel.items():
        cyc.sort()
        i1 = len(cyc) - 1 - lo["n1e"]
        t1, t0 = cyc[i1], cyc[i1 - lo["n01"]]
        bursts.append(t1 - t0)
        g = smsp.setdefault(tid // a.slots, [t0, t1])
        g[0], g[1] = min(g[0], t0), max(g[1], t1)
    bursts.sort()
    cpis = sorted((t1 - t0) / (W * int(p["K"])) for t0, t1 in smsp.values())
    if len(bursts) != 4 * W:
        raise RuntimeError(f"{base}: {len(bursts)} warps on SM 0, expected {4 * W}")
    return p, med(bursts), med(cpis), met


def med(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def run_all(a, pts, fns, tmp, setfn):
    with ThreadPoolExecutor(a.jobs) as ex:
        return list(ex.map(lambda p: one(a, p, fns, tmp, setfn(p)), pts))


def table(res, bad, show=True):
    errs, cerrs = {}, {}
    if show:
        print("flavour  K   W   WK  measured burst  smsim burst  err %   meas cpi  smsim cpi  lg_thr/issue mio_thr/issue")
    for p, b, cpi, met in res:
        meas = float(p["burst_cyc_med"])
        e = 100.0 * (b - meas) / meas
        errs.setdefault(p["flavour"], []).append(abs(e))
        mc = float(p["smsp_cpi_med"])
        cerrs.setdefault(p["flavour"], []).append(abs(100.0 * (cpi - mc) / mc))
        if show:
            mk = "*" if (FL[p["flavour"]], int(p["K"])) in bad else " "
            lg = met.get("smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio", float("nan"))
            mio = met.get("smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", float("nan"))
            print(f"{p['flavour']:8s} {int(p['K']):2d}{mk} {int(p['W']):2d} {int(p['WK']):4d}  {meas:10.0f}  "
                  f"{b:11.0f}  {e:+7.1f}  {float(p['smsp_cpi_med']):8.2f}  {cpi:9.2f}  {lg:10.2f}  {mio:10.2f}")
    return ({f: sum(v) / len(v) for f, v in errs.items()},
            {f: sum(v) / len(v) for f, v in cerrs.items()})


def main():
    ap = argparse.ArgumentParser()
    calibsim.add_args(ap)
    ap.add_argument("--grid", type=int, default=0, help="blocks (default: the kit's, 132; SM 0 is measured)")
    ap.add_argument("--slots", type=int, default=16, help="warp slots per SMSP (timeline tid = SMSP*slots + slot)")
    ap.add_argument("--flavours", default=",".join(FL))
    ap.add_argument("--sweep", default="", help="depths N: lg_queue_depth=N on lg*, mio_queue_depth=N on lds*")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="calib_queue.")
    a.sass = os.path.join(tmp, "calib_queue.sass")
    with open(a.sass, "w") as fh:
        fh.write(lzma.open(SASS_XZ, "rt").read())
    fns = functions(open(a.sass).read())
    keep = set(a.flavours.split(","))
    pts = [p for p in points() if p["flavour"] in keep]
    bad = mismatches()
    res = run_all(a, pts, fns, tmp, lambda p: [])
    mape, cmape = table(res, bad)
    print("(* = S=0 burst with 1-2 other instructions inside, build/sass-checks.txt MISMATCH)")
    for f, v in mape.items():
        print(f"MAPE {f:8s} burst {v:6.1f} %   smsp_cpi {cmape[f]:6.1f} %")
    if a.sweep:
        depths = [int(x) for x in a.sweep.split(",")]
        rows = {}
        for n in depths:
            r = run_all(a, pts, fns, tmp, lambda p: [("memory.lg_queue_depth=" if p["flavour"].startswith("lg")
                                                       else "memory.mio_queue_depth=") + str(n)])
            rows[n] = table(r, bad, show=False)
        fls = list(mape)
        for k, what in ((0, "burst_cyc_med"), (1, "smsp_cpi_med")):
            print(f"MAPE % of {what}: lg* with lg_queue_depth=N, lds* with mio_queue_depth=N")
            print("depth  " + "  ".join(f"{f:>8s}" for f in fls))
            for n in depths:
                print(f"{n:5d}  " + "  ".join(f"{rows[n][k][f]:8.1f}" for f in fls))
            for f in fls:
                best = min(depths, key=lambda n: rows[n][k][f])
                print(f"best {f:8s} depth {best:3d} ({what} MAPE {rows[best][k][f]:.1f} %)")


if __name__ == "__main__":
    sys.exit(main())
