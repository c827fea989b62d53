#!/usr/bin/env python3
"""seeds.py — regenerate docs/seeds.md and its pictures from the current tree.

docs/seeds.md checks four quantitative claims of the lecture notes the
project started from against smsim and the committed H200 measurements.
Every smsim number on that page comes from a command this script runs; the
prose around the numbers is the template scripts/seeds.md.in, whose
@NAME@ fields are filled here.  The H200 numbers are read from the
committed ncu CSVs (validate/data/h200/).  The pictures are written to
docs/img/seeds-*.svg (gnuplot).

Usage (repository root):  python3 scripts/seeds.py [SMSIM] [--jobs N]
SMSIM defaults to build/smsim.  Takes a few minutes on 2 cores (the six
H200 SGEMM launches are the slowest part).  Run it after any change to the
model or the configurations, and commit the regenerated page and pictures
together; then reread the template's prose against the new numbers.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import csv
import io
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KIT = "validate/data/h200/kit-2026-11-29/valid"


def die(msg):
    sys.exit("seeds.py: " + msg)


args = [a for a in sys.argv[1:]]
JOBS = "2"
if "--jobs" in args:
    i = args.index("--jobs")
    JOBS = args[i + 1]
    del args[i:i + 2]
SMSIM = os.path.abspath(args[0]) if args else os.path.join(ROOT, "build", "smsim")
if not os.access(SMSIM, os.X_OK):
    die("no smsim binary at %s (build it, or pass its path)" % SMSIM)
os.chdir(ROOT)


def run(*argv):
    r = subprocess.run([SMSIM, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if r.returncode != 0:
        die("smsim %s failed:\n%s" % (" ".join(argv), r.stderr))
    return r.stdout


def csv_rows(text, *names):
    """Named columns of an smsim CSV report, one tuple of floats per kernel."""
    rows = list(csv.reader(l for l in io.StringIO(text) if not l.startswith("# ")))
    idx = [rows[0].index(n) for n in names]
    return [tuple(float(r[i].replace(",", "")) for i in idx) for r in rows[1:] if r and r[0]]


def h200(path):
    """The doc's h200 helper: per launch (grid, achieved warps/SM, DRAM GB/s,
    warp-instructions per active cycle per SM, duration ns); data rows start
    at line 3 (after ncu's units row)."""
    rows = list(csv.reader(open(path)))
    h = rows[0]

    def g(x, c):
        return float(x[h.index(c)].replace(",", ""))
    out = []
    for x in rows[2:]:
        out.append((int(g(x, "launch__grid_size")), g(x, "sm__warps_active.avg.per_cycle_active"),
                    g(x, "dram__bytes.sum.per_second") / 1e9,
                    g(x, "smsp__inst_executed.sum") / 132 / g(x, "sm__cycles_active.avg"),
                    g(x, "gpu__time_duration.sum")))
    return out


def saturate(*argv):
    return json.loads(run("saturate", *argv, "--jobs", JOBS, "--format", "json"))


def sig(x, n=4):
    """x with n significant digits (trailing zeros kept: 0.2950)."""
    if x == 0:
        return "0"
    d = n - 1 - int(f"{abs(x):e}".split("e")[1])
    return f"{x:.{max(d, 0)}f}"


def pct(x, d=2):
    s = f"{x:.{d}f}".rstrip("0").rstrip(".")
    return s + " %"


def num(x, d=1):
    return f"{x:.{d}f}"


def thin(n):
    """12 345 678 (the page's thousands separator)."""
    return f"{int(round(n)):,}".replace(",", " ")


def table(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


V = {}  # template fields

# ---- (a) streaming copy --------------------------------------------------
cols_a = ("launch__grid_size", "sm__warps_active.avg.pct_of_peak_sustained_active",
          "dram__bytes.sum.per_second")
f4 = csv_rows(run("--config", "configs/rtx3060ti.yaml", "traces/seeds/copy4_3060ti_grid.trace",
                  "--format", "csv"), *cols_a)[:6]
f1 = csv_rows(run("--config", "configs/rtx3060ti.yaml", "traces/seeds/copy1_3060ti_grid.trace",
                  "--format", "csv"), *cols_a)[:6]
seed_gbs = ["363", "399", "—", '"flat"', "—", "—"]
V["A_GRID"] = table(
    ["blocks/SM", "warps/SM", "achieved occupancy, float4", "DRAM GB/s, float4",
     "achieved occupancy, float", "DRAM GB/s, float", "seed (GB/s)"],
    [(b + 1, 8 * (b + 1), pct(f4[b][1]), num(f4[b][2] / 1e9), pct(f1[b][1]),
      num(f1[b][2] / 1e9), seed_gbs[b]) for b in range(6)])
peak_3060 = 448.0
V["A_F4_OVER"] = num(100 * (max(r[2] for r in f4) / 1e9 / peak_3060 - 1), 2)
V["A_F1_17"] = num(f1[0][2] / 1e9, 0)
V["A_F1_33"] = num(f1[1][2] / 1e9, 0)
V["A_F1_50"] = num(f1[2][2] / 1e9, 0)

s4 = saturate("--config", "configs/rtx3060ti.yaml", "traces/copy_float4.trace",
              "--metric", "dram__bytes.sum.per_second", "--plot", "docs/img/seeds-copy4-3060ti.svg")
s1 = saturate("--config", "configs/rtx3060ti.yaml", "traces/seeds/copy1_3060ti_grid.trace",
              "--kernel", "6", "--metric", "dram__bytes.sum.per_second",
              "--plot", "docs/img/seeds-copy1-3060ti.svg")


def little(s):
    L = s["littles_law"]
    return "%d × %s / %s = %s per scheduler (%s per SM)" % (
        L["latency_cycles"], sig(L["issue_rate_per_scheduler"], 3),
        sig(L["independent_insts"], 3), sig(s["littles_law_warps_per_scheduler"], 3),
        sig(s["littles_law_warps_per_sm"], 3))


def sat(s):
    return "%d warps (%s)" % (s["saturation_warps_per_sm"], pct(s["saturation_occupancy_pct"]))


def knee(s):
    return "%s warps" % sig(s["fit"]["roofline"]["knee_warps_per_sm"], 3)


rows = []
for p4, p1 in zip(s4["points"], s1["points"]):
    rows.append((p4["warps_per_sm"], pct(p4["occupancy_pct"]), num(p4["value"] / 1e9),
                 num(p1["value"] / 1e9)))
rows.append(("saturation (first ≥ 95 % of plateau)", "", sat(s4), sat(s1)))
rows.append(("roofline knee", "", knee(s4), knee(s1)))
rows.append(("Little's law", "", little(s4), little(s1)))
V["A_SAT"] = table(["warps/SM", "occupancy", "float4, GB/s", "float, GB/s"], rows)

blocks = [1, 2, 3, 4, 6, 8, 12, 16]
meas = h200(KIT + "/copy.raw.csv")
plateau = max(m[2] for m in meas)
sim = []
for b in blocks:
    sim.append(csv_rows(run("--config", "configs/h200.yaml", "--carveout", "100", "--format", "csv",
                            "validate/traces/copy/b%d.trace" % b),
                        "sm__warps_active.avg.per_cycle_active", "dram__bytes.sum.per_second")[0])
V["A_H200"] = table(
    ["blocks/SM", "warps/SM (theoretical)", "occupancy", "measured warps", "measured DRAM GB/s",
     "% of measured plateau", "smsim DRAM GB/s (configs/h200.yaml)"],
    [(b, 4 * b, pct(100 * 4 * b / 64), num(m[1], 2), num(m[2]), num(100 * m[2] / plateau),
      num(s[1] / 1e9, 0)) for b, m, s in zip(blocks, meas, sim)])
sim_plateau = max(s[1] for s in sim) / 1e9
V["A_H200_SIM_B1_PCT"] = num(100 * sim[0][1] / 1e9 / sim_plateau, 0)
V["A_H200_SIM_PLATEAU"] = num(sim_plateau, 0)
V["A_H200_PLATEAU"] = num(plateau, 0)
V["A_H200_SIM_HIGH"] = num(100 * (sim_plateau / plateau - 1), 0)

# ---- (b) load chains -----------------------------------------------------
chains = {}
for n in (4, 32, 128):
    chains[n] = saturate("--config", "configs/h100.yaml", "traces/seeds/chain416_n%d.trace" % n,
                         "--set", "memory.dram_latency=416",
                         "--plot", "docs/img/seeds-chain416-n%d.svg" % n)
want = [4, 8, 12, 16, 24, 32, 48, 64]
rows = []
for w in want:
    v = []
    for n in (4, 32, 128):
        p = [q for q in chains[n]["points"] if q["warps_per_sm"] == w]
        v.append(sig(p[0]["value"]) if p else "—")
    rows.append((w, w // 4, pct(100 * w / 64), *v))
V["B_IPC"] = table(["warps/SM", "warps/scheduler", "occupancy", "n = 4", "n = 32", "n = 128"], rows)


def rising(s):
    """The peak is the last point: the curve has not levelled off."""
    return s["peak_warps_per_sm"] == s["points"][-1]["warps_per_sm"]


def plateau_b(s):
    return "%s at %d warps%s" % (sig(s["plateau"]), s["peak_warps_per_sm"],
                                 " (still rising)" if rising(s) else "")


def sat_b(s):
    return "%d warps per SM, %d per scheduler (%s%s)" % (
        s["saturation_warps_per_sm"], s["saturation_warps_per_sm"] // 4,
        pct(s["saturation_occupancy_pct"]), "; no real plateau" if rising(s) else "")


V["B_SUMMARY"] = table(
    ["", "n = 4", "n = 32", "n = 128"],
    [("plateau",) + tuple(plateau_b(chains[n]) for n in (4, 32, 128)),
     ("saturation (≥ 95 % of plateau)",) + tuple(sat_b(chains[n]) for n in (4, 32, 128)),
     ("roofline knee",) + tuple(knee(chains[n]) for n in (4, 32, 128)),
     ("Little's law (saturate)",) + tuple(little(chains[n]) for n in (4, 32, 128))])
for n in (4, 32, 128):
    c = chains[n]
    V["B_SAT_%d" % n] = str(c["saturation_warps_per_sm"])
    V["B_SATS_%d" % n] = str(c["saturation_warps_per_sm"] // 4)
    V["B_SATOCC_%d" % n] = pct(c["saturation_occupancy_pct"])
    V["B_KNEE_%d" % n] = sig(c["fit"]["roofline"]["knee_warps_per_sm"], 3)
    V["B_LL_%d" % n] = sig(c["littles_law_warps_per_scheduler"], 3)
    V["B_LLSM_%d" % n] = sig(c["littles_law_warps_per_sm"], 3)
    V["B_RATE_%d" % n] = sig(c["littles_law"]["issue_rate_per_scheduler"], 3)

dch = {}
dsim = {}
for k in (0, 4, 16):
    dch[k] = h200(KIT + "/dchain-k%d.raw.csv" % k)
    dsim[k] = [csv_rows(run("--config", "configs/h200.yaml", "--carveout", "100", "--format", "csv",
                            "validate/traces/dchain-k%d/b%d.trace" % (k, b)),
                        "sm__inst_executed.avg.per_cycle_active",
                        "dram__bytes.sum.per_second")[0] for b in blocks]
rows = []
for i, b in enumerate(blocks):
    rows.append((4 * b, pct(100 * 4 * b / 64),
                 *["%s (%s)" % (sig(dch[k][i][3]), sig(dsim[k][i][0])) for k in (0, 4, 16)],
                 "%s (%s)" % (num(dch[0][i][2]), sig(dsim[0][i][1] / 1e9))))
V["B_H200"] = table(["warps/SM", "occupancy", "k = 0", "k = 4", "k = 16", "DRAM GB/s, k = 0"], rows)
V["B_H200_W16"] = ", ".join(num(dch[k][-1][1], 1) for k in (0, 4, 16))
hi = [100 * (dsim[k][i][0] / dch[k][i][3] - 1) for k in (0, 4, 16) for i in range(len(blocks))]
V["B_H200_IPC_HIGH"] = "%d–%d" % (round(min(hi)), round(max(hi)))
hd = [100 * (dsim[0][i][1] / 1e9 / dch[0][i][2] - 1) for i in range(len(blocks))]
V["B_H200_DRAM_HIGH"] = "%d–%d" % (round(min(hd)), round(max(hd)))

# ---- (c) GEMM ------------------------------------------------------------
cols_c = ("sm__maximum_warps_per_active_cycle_pct",
          "sm__warps_active.avg.pct_of_peak_sustained_active",
          "smsp__inst_executed.sum", "sm__inst_executed.avg.per_cycle_active",
          "sm__cycles_elapsed.avg",
          "smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio")
gt = csv_rows(run("--config", "configs/h100.yaml", "traces/gemm_tile.trace", "--format", "csv"),
              *cols_c)[0]
gs = csv_rows(run("--config", "configs/h100.yaml", "traces/seeds/gemm_small.trace", "--format",
                  "csv"), *cols_c)[0]
FFMA = 16777216


def gemm_row(name, r):
    return (name, pct(r[0]), pct(r[1]), thin(r[2]), sig(r[3]), thin(r[4]),
            num(FFMA / 132 / r[4], 2))


V["C_GEMM"] = table(["kernel", "theoretical occupancy", "achieved occupancy", "warp-instructions",
                     "IPC per SM", "cycles", "FFMA per cycle per SM"],
                    [gemm_row("gemm_tile (8×8 per thread)", gt),
                     gemm_row("gemm_small (4×4 per thread)", gs)])
V["C_SPEEDUP"] = num(gs[4] / gt[4], 2)
V["C_TILE_CYC"] = thin(gt[4])
V["C_SMALL_CYC"] = thin(gs[4])
V["C_SMALL_ACH"] = pct(gs[1], 0)
V["C_SB_SMALL"] = sig(gs[5], 3)
V["C_SB_TILE"] = sig(gt[5], 2)
sg = saturate("--config", "configs/h100.yaml", "traces/seeds/gemm_small.trace",
              "--plot", "docs/img/seeds-gemm-small.svg")
V["C_SAT"] = table(["warps/SM (gemm_small)"] + [str(p["warps_per_sm"]) for p in sg["points"]],
                   [["IPC per SM"] + [sig(p["value"]) for p in sg["points"]]])
V["C_SAT_LINE"] = "saturation at %d warps (%s), roofline knee %s warps" % (
    sg["saturation_warps_per_sm"], pct(sg["saturation_occupancy_pct"]),
    sig(sg["fit"]["roofline"]["knee_warps_per_sm"], 2))

sgb = [1, 2, 3, 4, 6, 8]
sm_ = h200(KIT + "/sgemm.raw.csv")
ss = [csv_rows(run("--config", "configs/h200.yaml", "--carveout", "100", "--format", "csv",
                   "validate/traces/sgemm/b%d.trace" % b),
               "sm__inst_executed.avg.per_cycle_active")[0][0] for b in sgb]
best = max(m[3] for m in sm_)
sbest = max(ss)
V["C_H200"] = table(
    ["blocks/SM", "occupancy", "measured warps", "measured IPC per SM", "% of best",
     "TFLOP/s (2 097 152 × grid / time)", "smsim IPC", "smsim % of best"],
    [(b, pct(100 * 2 * b / 64, 3), num(m[1], 2), sig(m[3]), num(100 * m[3] / best),
      num(2097152 * m[0] / m[4] / 1e3, 2), sig(s), num(100 * s / sbest))
     for b, m, s in zip(sgb, sm_, ss)])
hi = [100 * (s / m[3] - 1) for m, s in zip(sm_, ss)]
V["C_H200_HIGH"] = "%d–%d" % (round(min(hi)), round(max(hi)))

# ---- (d) occupancy -------------------------------------------------------


def occ(*extra):
    t = run("occupancy", "--config", "configs/h100.yaml", "--block-size", "32", "--regs", "8",
            "--smem-static", "12288", *extra)

    def f(name):
        m = re.search(r"^\s*%s\s+\S+\s+(\S+)\s*$" % re.escape(name), t, re.M)
        if not m:
            die("occupancy output has no '%s' line" % name)
        return m.group(1)
    return (f("Block Limit Shared Mem"), f("Theoretical Occupancy") + " %",
            thin(float(f("Shared Memory per Block (incl. reserve)"))) + " B")


V["D_OCC"] = table(["", "Block Limit Shared Mem", "Theoretical Occupancy",
                    "shared memory per block incl. reserve"],
                   [("configs/h100.yaml",) + occ(),
                    ("without the 1 KB reserve (not the hardware)",)
                    + occ("--set", "shared_memory.reserved_per_block=0")])
V["D_BLOCKS"] = occ()[0]
V["D_LINE"] = open("validate/data/h200/occupancy.csv").read().split("\n")[2026]

V["VERSION"] = run("--version").strip()

# ---- the page ------------------------------------------------------------
if os.environ.get("SEEDS_DUMP"):  # debugging the template: the fields as JSON
    json.dump(V, open(os.environ["SEEDS_DUMP"], "w"), indent=1, ensure_ascii=False)
tpl = open("scripts/seeds.md.in").read()
missing = sorted(set(re.findall(r"@([A-Z0-9_]+)@", tpl)) - set(V))
if missing:
    die("template fields without a value: " + ", ".join(missing))
page = re.sub(r"@([A-Z0-9_]+)@", lambda m: V[m.group(1)], tpl)
open("docs/seeds.md", "w").write(page)
print("seeds.py: wrote docs/seeds.md and docs/img/seeds-*.svg")
