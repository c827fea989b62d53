#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""calibrate.py - derive smsim's timing keys from the committed calibration data.

    python3 validate/calibrate.py validate/data/h200/kit-2026-11-29
    python3 validate/calibrate.py KIT --values      # "config key value" lines only
    python3 validate/calibrate.py KIT --config configs/h200.yaml

Reads only KIT/calib/{pipes,chase,chase-window2M,bw}.txt and
KIT/calib/bw-ncu.raw.csv (the calibration microbenchmarks, see
validate/README.md).  Validation data (KIT/valid, timing, source) is never
read: calibration tunes, validation judges.

Every derived number is printed with the measurement(s) it comes from
(file:line), and the arithmetic that turns the measurement into what the
engine's key means (docs/model.md, sim/engine/eng_mem.c):

  * pipes.<p>.latency: issue to dependent issue; the engine makes a result
    ready exactly `latency` cycles after issue, so a chain of dependent
    instructions runs at `latency` cycles per instruction.
  * pipes.<p>.issue_interval: cycles the SMSP's pipe is busy per warp
    instruction.
  * memory.smem_latency: an unloaded conflict-free LDS is ready exactly
    smem_latency cycles after issue (one wavefront).
  * memory.l1/l2/dram_latency: load-to-use, applied after the request has
    passed the byte-rate servers on its way (L1 stage, L2, DRAM).  The engine
    rounds the ready time up to a whole cycle, so a 1-sector dependent load
    costs latency + ceil(32/l1_bytes_per_clk [+ 32/l2_bytes_per_clk
    [+ 32/dram_bytes_per_clk]]) cycles per load in a pointer chase: that
    server time is subtracted from the measured cycles per load.

Standard library only; same input, same output (no clocks, no randomness).
"""
import csv
import math
import os
import re
import sys

KEYS_H100_SHARES = (
    # H100 SXM5 and H200 are the same GH100 die, SM and L2 (the H200 enables
    # 60 of the die's L2 MiB, the H100 SXM5 50): core and cache latencies
    # carry over.  DRAM (HBM3 vs HBM3e) and the clock-derived DRAM figures do
    # not.
    "pipes.fma.latency", "pipes.fma.issue_interval",
    "pipes.alu.latency", "pipes.alu.issue_interval",
    "pipes.fp64.latency", "pipes.fp64.issue_interval",
    "pipes.mufu.latency", "pipes.mufu.issue_interval",
    "pipes.lsu.issue_interval",
    "pipes.fmaheavy.latency", "pipes.fmaheavy.issue_interval",
    "memory.smem_latency", "memory.l1_latency", "memory.l2_latency",
    "memory.l1_cycles_per_line", "memory.l2_cycles_per_line",
)


def die(msg):
    sys.stderr.write("calibrate.py: %s\n" % msg)
    sys.exit(1)


def rnd(x):
    """Round half up (Python's round() rounds half to even)."""
    return int(math.floor(x + 0.5))


class Rec:
    """One CALIB line: its fields, and where it came from."""

    def __init__(self, path, line, fields):
        self.path = path
        self.line = line
        self.f = fields

    def num(self, k):
        if k not in self.f:
            die("%s:%d: no field '%s'" % (self.path, self.line, k))
        return float(self.f[k])

    def where(self):
        return "%s:%d" % (self.path, self.line)


def read_calib(path):
    recs = []
    try:
        with open(path, encoding="utf-8") as fh:
            for i, text in enumerate(fh, 1):
                if not text.startswith("CALIB "):
                    continue
                fields = {}
                for tok in text.split()[1:]:
                    if "=" in tok:
                        k, v = tok.split("=", 1)
                        fields[k] = v
                recs.append(Rec(path, i, fields))
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    return recs


def find(recs, **want):
    """The one record whose fields equal `want` (values compared as text)."""
    hit = [r for r in recs if all(r.f.get(k) == str(v) for k, v in want.items())]
    if len(hit) != 1:
        die("%s: expected one record with %s, found %d" % (
            recs[0].path if recs else "?",
            " ".join("%s=%s" % kv for kv in sorted(want.items())), len(hit)))
    return hit[0]


def read_ncu_csv(path):
    """ncu --csv --page raw: row 1 names, row 2 units, row 3 values."""
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    if len(rows) < 3:
        die("%s: expected header, units and one kernel row" % path)
    return {name: (val, 3) for name, val in zip(rows[0], rows[2])}


def ncu_num(tab, path, name):
    if name not in tab:
        die("%s: no column '%s'" % (path, name))
    val, line = tab[name]
    return float(val.replace(",", "")), "%s:%d (%s)" % (path, line, name)


def exp_max(n):
    """E[max of n draws] of the engine's latency-spread table (sim/mem/mem.c
    exp_bins: the means of 64 equal-probability bins of an exponential of
    mean 1), read from the source so there is one definition."""
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sim", "mem", "mem.c")
    try:
        with open(src, encoding="utf-8") as fh:
            text = fh.read()
    except OSError as e:
        die("%s: %s" % (src, e.strerror))
    m = re.search(r"exp_bins\[64\] = \{([^}]*)\}", text)
    if not m:
        die("%s: no exp_bins table" % src)
    t = [float(x) for x in m.group(1).replace("\n", " ").split(",") if x.strip()]
    if len(t) != 64:
        die("%s: exp_bins has %d entries, not 64" % (src, len(t)))
    return sum(t[k] * (((k + 1) / 64.0) ** n - (k / 64.0) ** n) for k in range(64))


def read_engine_constants(path):
    """The uncalibrated memory keys the engine's load time depends on."""
    want = ("sector_bytes", "line_bytes", "l1_bytes_per_clk", "l2_bytes_per_clk", "dram_gbps")
    got = {}
    try:
        with open(path, encoding="utf-8") as fh:
            for text in fh:
                m = re.match(r"^\s+(\w+):\s*([0-9.eE+-]+)", text)
                if m and m.group(1) in want:
                    got[m.group(1)] = float(m.group(2))
    except OSError as e:
        die("%s: %s" % (path, e.strerror))
    for k in want:
        if k not in got:
            die("%s: no memory.%s" % (path, k))
    return got


class Out:
    def __init__(self):
        self.keys = []  # (key, value, configs)
        self.engine = []  # (check name, cycles per instruction the engine must give)
        self.lines = []

    def p(self, s=""):
        self.lines.append(s)

    def key(self, key, value, measured, derivation, sources, note=None):
        configs = ("h200", "h100") if key in KEYS_H100_SHARES else ("h200",)
        self.keys.append((key, value, configs))
        self.p("%s = %s" % (key, value))
        self.p("    measured:   %s" % measured)
        self.p("    derivation: %s" % derivation)
        for s in sources:
            self.p("    source:     %s" % s)
        self.p("    applies to: %s" % ", ".join("configs/%s.yaml" % c for c in configs))
        if note:
            self.p("    note:       %s" % note)
        self.p()


def main(argv):
    args = [a for a in argv[1:]]
    values_only = False
    cfg = None
    kit = None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--values":
            values_only = True
        elif a == "--config":
            if i + 1 >= len(args):
                die("--config needs a path")
            cfg = args[i + 1]
            i += 1
        elif a.startswith("-"):
            die("unknown option '%s' (usage: calibrate.py KIT_DIR [--values] [--config FILE])" % a)
        elif kit is None:
            kit = a
        else:
            die("one KIT_DIR only")
        i += 1
    if kit is None:
        die("usage: calibrate.py KIT_DIR [--values] [--config FILE]")
    kit = kit.rstrip("/")
    if cfg is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        cfg = os.path.join(root, "configs", "h200.yaml")

    cal = kit + "/calib/"
    pipes = read_calib(cal + "pipes.txt")
    chase = read_calib(cal + "chase.txt")
    win = read_calib(cal + "chase-window2M.txt")
    bw = read_calib(cal + "bw.txt")
    ncu_path = cal + "bw-ncu.raw.csv"
    ncu = read_ncu_csv(ncu_path)
    eng = read_engine_constants(cfg)
    S = eng["sector_bytes"]
    o = Out()

    o.p("smsim calibration from %s (calibration data only)" % kit)
    o.p("engine constants used in the load derivations (uncalibrated keys of %s):"
        % os.path.basename(cfg))
    o.p("    sector_bytes %g, l1_bytes_per_clk %g, l2_bytes_per_clk %g"
        % (S, eng["l1_bytes_per_clk"], eng["l2_bytes_per_clk"]))
    o.p()

    # ---------------------------------------------------------------- clock
    o.p("== SM clock and DRAM bandwidth (calib_bw) ==")
    o.p()
    clk = find(bw, kernel="clock")
    mhz = clk.num("sm_mhz_med")
    ncu_mhz, ncu_mhz_src = ncu_num(ncu, ncu_path, "sm__cycles_elapsed.avg.per_second")
    o.key("gpu.sm_clock_mhz", "%g" % mhz,
          "clock64 vs %%globaltimer on all 132 SMs after the streaming runs: median %.1f MHz "
          "(min %.1f, max %.1f); ncu during the copy: %.1f MHz"
          % (mhz, clk.num("sm_mhz_min"), clk.num("sm_mhz_max"), ncu_mhz / 1e6),
          "the measured median, used as is (cycles <-> seconds, and DRAM bytes per SM cycle)",
          [clk.where(), ncu_mhz_src])

    rd = find(bw, kernel="read")
    cp = find(bw, kernel="copy")
    wr = find(bw, kernel="write")
    ncu_bps, ncu_bps_src = ncu_num(ncu, ncu_path, "dram__bytes.sum.per_second")
    ncu_pct, ncu_pct_src = ncu_num(ncu, ncu_path, "dram__throughput.avg.pct_of_peak_sustained_elapsed")
    gbps = eng["dram_gbps"]
    dram_bpc = gbps * 1e9 / (mhz * 1e6)
    o.p("memory.dram_gbps = %g is not derived here: it is the DRAM banks' raw rate, fitted by "
        "validate/calib_dram.py so that the simulated memory-level-parallelism sweep "
        "(kit-2026-12-01/mlp) reaches the measured plateau.  For comparison, float4 streams "
        "over 1 GiB (CUDA events): read %.1f GB/s, write %.1f, copy %.1f; ncu on the copy "
        "%.1f GB/s = %.1f%% of peak (%s; %s)"
        % (gbps, rd.num("GBps_med"), wr.num("GBps_med"), cp.num("GBps_med"), ncu_bps / 1e9,
           ncu_pct, rd.where(), ncu_bps_src))
    o.p()

    # ---------------------------------------------------------------- pipes
    o.p("== Pipes (calib_pipes: 256 chain instructions + ~3 loop-control per iteration) ==")
    o.p()
    pipe_ops = (("fma", "ffma"), ("alu", "iadd3"), ("fp64", "dfma"), ("mufu", "mufu"))
    for pipe, op in pipe_ops:
        lat = find(pipes, op=op, chains=1, warps=1)
        l4 = find(pipes, op=op, chains=1, warps=4)
        c = lat.num("cyc_per_inst_warp")
        v = rnd(c)
        o.key("pipes.%s.latency" % pipe, "%d" % v,
              "%s, 1 chain, 1 warp: %.3f cycles per dependent instruction (4 warps on 4 SMSPs: %.3f)"
              % (op.upper(), c, l4.num("cyc_per_inst_warp")),
              "round(%.3f) = %d; the remainder %.3f x 256 = %.1f cycles per loop iteration is the "
              "loop control and branch back (not a pipe property)"
              % (c, v, c - v, (c - v) * 256.0),
              [lat.where(), l4.where()])
        o.engine.append(("%s_chain" % op, v))
        thr = find(pipes, op=op, chains=8, warps=32)
        t16 = find(pipes, op=op, chains=8, warps=16)
        c = thr.num("cyc_per_inst_smsp")
        if pipe == "fma":
            # two FP32 datapaths per SMSP (FMA-lite = pipes.fma, FMA-heavy =
            # pipes.fmaheavy); FFMA alternates between them
            v = rnd(2.0 * c)
            o.key("pipes.fma.issue_interval", "%d" % v,
                  "FFMA, 8 chains x 32 warps (8 per SMSP): %.3f cycles per instruction on the "
                  "busiest SMSP (16 warps: %.3f)" % (c, t16.num("cyc_per_inst_smsp")),
                  "the fma pipe is two datapaths (FMA-lite, this key; FMA-heavy, "
                  "pipes.fmaheavy) and FFMA takes whichever is free, so each is busy twice "
                  "the measured interval: round(2 x %.3f) = %d (FFMA: one per cycle per SMSP)"
                  % (c, v), [thr.where(), t16.where()])
            o.engine.append(("ffma_tput_w32", 8 * v // 2))
        else:
            v = rnd(c)
            o.key("pipes.%s.issue_interval" % pipe, "%d" % v,
                  "%s, 8 chains x 32 warps (8 per SMSP): %.3f cycles per instruction on the "
                  "busiest SMSP (16 warps: %.3f)" % (op.upper(), c, t16.num("cyc_per_inst_smsp")),
                  "round(%.3f) = %d; ~3 loop-control instructions per 256 take ~1%% of issue "
                  "slots" % (c, v), [thr.where(), t16.where()])

    # IMAD: the FMA-heavy datapath.
    im_l = find(pipes, op="imad", chains=1, warps=1)
    im_t = find(pipes, op="imad", chains=8, warps=32)
    im_16 = find(pipes, op="imad", chains=8, warps=16)
    ff_t = find(pipes, op="ffma", chains=8, warps=32)
    c = im_l.num("cyc_per_inst_warp")
    v = rnd(c)
    o.key("pipes.fmaheavy.latency", "%d" % v,
          "IMAD, 1 chain, 1 warp: %.3f cycles per dependent instruction" % c,
          "round(%.3f) = %d (as FFMA: the same datapath)" % (c, v), [im_l.where()])
    o.engine.append(("imad_chain", v))
    c = im_t.num("cyc_per_inst_smsp")
    v = rnd(c)
    o.key("pipes.fmaheavy.issue_interval", "%d" % v,
          "IMAD, 8 chains x 32 warps: %.3f cycles per instruction per SMSP (16 warps: %.3f; "
          "FFMA %.3f)" % (c, im_16.num("cyc_per_inst_smsp"), ff_t.num("cyc_per_inst_smsp")),
          "round(%.3f) = %d: IMAD issues only to the FMA-heavy datapath (GH100: FMA-heavy "
          "runs IMAD, IDP and FP32, FMA-lite FP32 only), at half FFMA's rate"
          % (c, v), [im_t.where(), im_16.where(), ff_t.where()])
    o.engine.append(("imad_tput_w32", 8 * v))
    # FFMA with one chain per warp: register-bank limited (not modelled).
    rows_ilp = [find(pipes, op="ffma", chains=ch, warps=w)
                for ch in (1, 2, 4) for w in (8, 16, 32)]
    o.p("FFMA few chains per warp, many warps (not modelled)")
    o.p("    measured:   cycles/inst/SMSP at 8/16/32 warps: 1 chain %s, 2 chains %s, "
        "4 chains %s" % tuple("/".join("%.3f" % r.num("cyc_per_inst_smsp")
                                        for r in rows_ilp[i:i + 3]) for i in (0, 3, 6)))
    o.p("    reading:    the engine predicts 2.0/1.0/1.0 (1 chain, 2 warps per SMSP: latency "
        "bound), then 1.0.  The SASS (build/calib_pipes.sass) fits a register-bank model: "
        "1 chain is FFMA R12, R12, R10, R11 without .reuse (R12 and R10 in one of two banks "
        "if bank = register mod 2: two reads, 2 cycles), 2 chains alternate that with FFMA "
        "R0, R0, R10, R11 whose R10/R11 come from the reuse cache (.reuse on the first: 3 "
        "bank-0 reads per 2 instructions = 1.5), 4+ chains carry .reuse on every "
        "instruction (1 read = 1.0).  It does not explain 1 chain at 8 warps (2 per SMSP: "
        "2.517 measured, 2.0 from the bank model), and IMAD (also a same-bank pair, "
        "R13/R15) shows no such excess; left for a later change (docs/calibration.md).")
    for r in rows_ilp:
        o.p("    source:     %s" % r.where())
    o.p()

    # ---------------------------------------------------------------- LDS
    o.p("== Shared memory (calib_pipes op=lds: LDS R, [R] back to back, nothing between) ==")
    o.p()
    ls = find(pipes, op="lds", chains=1, warps=1)
    c = ls.num("cyc_per_inst_warp")
    v = rnd(c)
    o.key("memory.smem_latency", "%d" % v,
          "LDS chain, 1 warp: %.3f cycles per dependent LDS" % c,
          "the engine makes a 1-wavefront LDS ready smem_latency after issue (eng_mem.c: "
          "start + wf - 1 + smem_latency), nothing to subtract: round(%.3f) = %d" % (c, v),
          [ls.where()])
    o.engine.append(("lds_chain", v))
    l1w = find(pipes, op="lds", chains=8, warps=1)
    l32 = find(pipes, op="lds", chains=8, warps=32)
    c = l1w.num("cyc_per_inst_smsp")
    v = rnd(c)
    o.key("pipes.lsu.issue_interval", "%d" % v,
          "LDS, 8 chains, 1 warp (one SMSP, the SM's shared-memory unit 3/4 idle): %.3f cycles "
          "per LDS; 32 warps: %.3f per SMSP = one LDS per cycle per SM"
          % (c, l32.num("cyc_per_inst_smsp")),
          "round(%.3f) = %d: the per-SMSP (or per-warp: one warp cannot tell) limit; the SM-wide "
          "one wavefront per cycle is the engine's shared-memory unit" % (c, v),
          [l1w.where(), l32.where()])

    # ---------------------------------------------------------------- chase
    o.p("== Global loads (calib_chase: 16 LDG.E.64 per loop trip, each one's address the "
        "previous one's value, no instruction between them; see build/calib_chase.sass) ==")
    o.p()
    l1r = eng["l1_bytes_per_clk"]
    l2r = eng["l2_bytes_per_clk"]

    def extra(nsec, level):
        """Cycles the engine adds to the level's latency for an unloaded
        request of nsec sectors: its byte time in the servers it passes,
        rounded up to a whole cycle with the ready time."""
        t = nsec * S / l1r
        if level >= 2:
            t += nsec * S / l2r
        if level >= 3:
            t += nsec * S / dram_bpc
        return int(math.ceil(t - 1e-9)), t

    # L1
    a = find(chase, mode="ca", lanes=1, footprint=16384)
    b = find(chase, mode="ca", lanes=1, footprint=65536)
    m = (a.num("cyc_per_load") + b.num("cyc_per_load")) / 2.0
    e, et = extra(1, 1)
    l1 = rnd(m - e)
    o.key("memory.l1_latency", "%d" % l1,
          ".ca (LDG.E.64), 1 lane, 16 KiB and 64 KiB footprints (L1-resident): %.2f and %.2f "
          "cycles per load" % (a.num("cyc_per_load"), b.num("cyc_per_load")),
          "mean %.3f - %d engine cycle (L1 stage %.3f cycles for one %g-byte sector, rounded up) "
          "= %.3f -> %d" % (m, e, et, S, m - e, l1),
          [a.where(), b.where()])

    o.engine.append(("l1_chase_1lane", l1 + e))

    # L2
    a = find(chase, mode="cg", lanes=1, footprint=1048576)
    b = find(chase, mode="cg", lanes=1, footprint=8388608)
    s16 = find(chase, mode="cg", lanes=1, footprint=16384)
    s32 = find(chase, mode="cg", lanes=1, footprint=33554432)
    ca1 = find(chase, mode="ca", lanes=1, footprint=1048576)
    m = (a.num("cyc_per_load") + b.num("cyc_per_load")) / 2.0
    e, et = extra(1, 2)
    l2 = rnd(m - e)
    o.key("memory.l2_latency", "%d" % l2,
          ".cg (LDG.E.64.STRONG.GPU, L1 bypassed), 1 lane, 1 MiB and 8 MiB footprints: %.2f and "
          "%.2f cycles per load (.ca at 1 MiB: %.2f, an L1 miss adds nothing measurable)"
          % (a.num("cyc_per_load"), b.num("cyc_per_load"), ca1.num("cyc_per_load")),
          "mean %.3f - %d engine cycle (L1 stage + L2 server, %.3f cycles, rounded up) = %.3f -> %d"
          % (m, e, et, m - e, l2),
          [a.where(), b.where(), ca1.where(), s16.where(), s32.where()],
          "a random walk over an L2-resident footprint averages hits in the near and the far "
          "L2 partition, which is what one engine latency can stand for.  16 KiB (%.2f) is a "
          "little faster.  32 MiB (%.2f), below the 60 MiB capacity, is much slower: part of "
          "that walk misses or goes far (more than half of L2 serves one SM's walk less well; "
          "TLB reach may add to it; one footprint between 8 and 60 MiB cannot tell) - not "
          "modelled, memory.l2_size_kb stays the device query's 60 MiB"
          % (s16.num("cyc_per_load"), s32.num("cyc_per_load")))

    o.engine.append(("l2_chase_1lane", l2 + e))

    # DRAM
    w1 = find(win, mode="cg", lanes=1)
    nw_ca = find(chase, mode="ca", lanes=1, footprint=2147483648)
    nw_ca512 = find(chase, mode="ca", lanes=1, footprint=536870912)
    nw_cg = find(chase, mode="cg", lanes=1, footprint=2147483648)
    nw_cg512 = find(chase, mode="cg", lanes=1, footprint=536870912)
    m = w1.num("cyc_per_load")
    e, et = extra(1, 3)
    dl = rnd(m - e)
    o.key("memory.dram_latency", "%d" % dl,
          ".cg, 1 lane, 2 GiB walked in 2 MiB windows (one large page at a time: few TLB "
          "misses): %.2f cycles per load; without windows .ca 2 GiB %.2f, .ca 512 MiB %.2f"
          % (m, nw_ca.num("cyc_per_load"), nw_ca512.num("cyc_per_load")),
          "%.3f - %d engine cycle (L1 stage + L2 + DRAM server at %.1f B/cycle, %.3f cycles, "
          "rounded up) = %.3f -> %d" % (m, e, dram_bpc, et, m - e, dl),
          [w1.where(), nw_ca.where(), nw_ca512.where(), nw_cg.where(), nw_cg512.where()],
          "the engine has no TLB, and most DRAM traffic (streams, tiles) stays within a page, "
          "so its unloaded DRAM latency is the TLB-warm one; a random walk over 2 GiB pays "
          "%.1f cycles more (512 MiB: %.1f) for translation, not modelled.  The .cg no-window "
          "rows are rejected: median %.2f / min %.2f (2 GiB) and %.2f / %.2f (512 MiB) - lane "
          "0 restarts at the same cycle position for every mode, so the .cg walk revisits lines "
          "the preceding .ca runs left in L2.  Comparing .cg (windowed) with .ca (not) is fair: "
          "at 1 MiB the two modes differ by 0.02 cycles"
          % (nw_ca.num("cyc_per_load") - m, nw_ca512.num("cyc_per_load") - m,
             nw_cg.num("cyc_per_load"), nw_cg.num("cyc_per_load_min"),
             nw_cg512.num("cyc_per_load"), nw_cg512.num("cyc_per_load_min")))

    # ---------------------------------------------------------------- lines
    o.p("== Divergent loads: 32 lanes = 32 sectors in 32 distinct lines per load ==")
    o.p()
    # The engine's 32-lane chase: 32 sectors (8 cycles in the L1 stage, 0.2 at
    # L2, 1024/dram_bpc at DRAM) in 32 lines where 8 would hold them: 24
    # excess lines (memory.line_bytes / sector_bytes sectors per line).  Each level's key is
    # the load-to-use cycles per excess line, a latency (not server time, so
    # coalesced streams keep their byte rates).  The engine rounds the ready
    # time up: the key is the largest 2-decimal value whose engine time,
    # rounded up, is the measured time rounded.
    LINE = eng["line_bytes"]
    excess = 32 - int(math.ceil(32 * S / LINE))

    def per_line(base, target):
        c = math.floor((target - base) / excess * 100.0 + 1e-9) / 100.0
        while math.ceil(base + excess * c - 1e-9) > target:
            c -= 0.01
        return c

    rows = (
        ("l1", "L1 (.ca 16 KiB)", find(chase, mode="ca", lanes=1, footprint=16384),
         find(chase, mode="ca", lanes=32, footprint=16384), l1, 1),
        ("l2", "L2 (.cg 1 MiB)", find(chase, mode="cg", lanes=1, footprint=1048576),
         find(chase, mode="cg", lanes=32, footprint=1048576), l2, 2),
        ("dram", "DRAM (.cg 2 GiB, 2 MiB windows)", w1, find(win, mode="cg", lanes=32), dl, 3),
    )
    for lev_name, name, r1, r32, lat, lev in rows:
        _, t32 = extra(32, lev)
        base = lat + t32
        m32 = r32.num("cyc_per_load")
        target = rnd(m32)
        if lev == 3:
            # DRAM: the 32 lines draw their latencies independently (lines
            # 4 KiB apart: one draw each, memory.dram_spread_bytes) and the
            # load waits for the slowest: E[max of 32 draws] of the engine's
            # own table (sim/mem/mem.c exp_bins) times the spread.
            e32 = exp_max(32)
            sp = (m32 - base) / (e32 - 1.0)
            o.key("memory.dram_latency_spread", "%.1f" % sp,
                  "%s: 1 lane %.2f, 32 lanes (32 lines) %.2f cycles per load"
                  % (name, r1.num("cyc_per_load"), m32),
                  "engine without a spread: %d + %.3f (32 sectors through the servers) = %.3f; "
                  "the slowest of 32 exponential draws averages %.3f means (the engine's "
                  "64-bin table), one draw %.0f: spread = (%.2f - %.3f) / (%.3f - 1) = %.1f"
                  % (lat, t32, base, e32, 1.0, m32, base, e32, sp),
                  [r1.where(), r32.where()],
                  "one warp cannot tell a spread of DRAM latencies from a per-line cost; the "
                  "spread is what makes a warp that waits for many lines (several loads in "
                  "flight) wait longer, as the memory-level-parallelism sweep shows "
                  "(validate/calib_dram.py)")
            o.engine.append(("dram_chase_1lane", dl + extra(1, 3)[0]))
            o.engine.append(("dram_chase_32lanes", target))
            continue
        c = per_line(base, target)
        o.key("memory.%s_cycles_per_line" % lev_name, "%.2f" % c,
              "%s: 1 lane %.2f, 32 lanes (32 lines) %.2f cycles per load: %.2f per extra line"
              % (name, r1.num("cyc_per_load"), m32, (m32 - r1.num("cyc_per_load")) / 31.0),
              "engine without the key: %d + %.3f (32 sectors through the servers) = %.3f; "
              "%d excess lines (32 lines, %d would hold 32 sectors of %g B): largest c with "
              "ceil(%.3f + %d c) <= round(%.2f) = %d -> %.2f"
              % (lat, t32, base, excess, 32 - excess, S, base, excess, m32, target, c),
              [r1.where(), r32.where()],
              "latency per excess line only: one warp cannot tell whether the lines also "
              "occupy the L1/L2/DRAM servers longer, and coalesced streams (no excess "
              "lines) then keep exactly the calibrated byte rates")
        if lev == 1:
            o.engine.append(("l1_chase_32lanes", target))
        else:
            o.engine.append(("l2_chase_32lanes", target))

    # ---------------------------------------------------------------- values
    o.p("== Values (config key value), then what the engine must give per dependent "
        "instruction with them (engine check cycles) ==")
    vals = []
    for key, value, configs in o.keys:
        for c in configs:
            vals.append("%s %s %s" % (c, key, value))
    for name, cyc in o.engine:
        vals.append("engine %s %d" % (name, cyc))
    if values_only:
        sys.stdout.write("\n".join(vals) + "\n")
        return 0
    o.lines.extend(vals)
    sys.stdout.write("\n".join(o.lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
