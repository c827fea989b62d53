#!/usr/bin/env python3
"""ctl_agree.py -- the control-bit assignment pass (sim/trace/trace_ctl.c)
against ptxas, on the model's outputs.

For every launch of validate/traces/manifest.tsv (or those with the given
blocks per SM), the SASS-derived trace is simulated three ways with
`smsim compare` against its ncu measurement:

  ptxas     the trace as committed: ptxas's control bits (stall=, wait=, ...)
  assigned  the bits stripped, scheduler.assign_ctl=1: the pass derives them
  scoreb    the bits stripped, scheduler.assign_ctl=0: the register scoreboard

and the script prints, per launch and as mean absolute percentage errors
against ncu: issue active per cycle, warp cycles per issued instruction,
elapsed cycles, and the stall reasons (the mean absolute error in cycles per
issue over ncu's three largest reasons, and whether the top reason agrees).
The field-by-field agreement with ptxas (stall counts, wait placement,
counters) is held by tests/test_trace_ctl.c (ptxas_agreement), which prints
its table when the test binary is run from the source root.  A full run (all
cases at 1, 4 and 16 blocks per SM) takes about 32 minutes on two cores.

Usage: python3 validate/ctl_agree.py SMSIM [--config configs/h200.yaml]
           [--blocks 1,4,16] [--jobs 2] [--case REGEX]
"""
import argparse
import concurrent.futures as cf
import csv
import io
import os
import re
import subprocess
import sys
import tempfile

ATTR = re.compile(r"\s+(stall|yield|wbar|rbar|wait|reuse)=\S+")
STALLS = ["not_selected", "wait", "long_scoreboard", "short_scoreboard", "math_pipe_throttle",
          "mio_throttle", "lg_throttle", "barrier", "membar", "branch_resolving",
          "no_instruction", "dispatch_stall", "drain", "imc_miss"]
M_ISSUE = "smsp__issue_active.avg.per_cycle_active"
M_WCPI = "smsp__average_warp_latency_per_inst_issued.ratio"
M_CYC = "sm__cycles_elapsed.avg"


def strip(src, dst):
    """Copy a native trace without its control-bit attributes."""
    with open(src) as f, open(dst, "w") as g:
        for line in f:
            if ";" in line and not line.lstrip().startswith("#"):
                head, _, tail = line.partition(";")
                body, hash_, comment = tail.partition("#")
                body = ATTR.sub("", body)
                line = head.rstrip() + (" ;" + body.rstrip() if body.strip() else "")
                line += (" #" + comment if hash_ else "\n")
            g.write(line)


def compare(smsim, cfg, trace, ncu, ncu_id, assign):
    cmd = [smsim, "compare", "--ncu", ncu, "--ncu-id", ncu_id, "--config", cfg, trace,
           "--format", "csv", "--set", "scheduler.assign_ctl=%d" % assign]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rows = csv.reader(io.StringIO("".join(l for l in out.splitlines(True)
                                          if not l.startswith("#"))))
    pred, meas = {}, {}
    for r in rows:
        if len(r) >= 4 and r[0] != "Metric Name":
            try:
                pred[r[0]] = float(r[2])
                meas[r[0]] = float(r[3]) if r[3] != "" else None
            except ValueError:
                pass
    return pred, meas


def stall(d, s):
    return d.get("smsp__average_warps_issue_stalled_%s_per_issue_active.ratio" % s) or 0.0


def summary(pred, meas):
    top = sorted(STALLS, key=lambda s: -stall(meas, s))[:3]
    top_p = max(STALLS, key=lambda s: stall(pred, s))
    return {
        "issue": pred[M_ISSUE], "m_issue": meas[M_ISSUE],
        "wcpi": pred[M_WCPI], "m_wcpi": meas[M_WCPI],
        "cyc": pred[M_CYC], "m_cyc": meas[M_CYC],
        "stall3": sum(abs(stall(pred, s) - stall(meas, s)) for s in top) / 3,
        "top_ok": top_p == top[0],
    }


def pct(p, m):
    return abs(p - m) / m * 100 if m else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("smsim")
    ap.add_argument("--config", default="configs/h200.yaml")
    ap.add_argument("--blocks", default="1,4,16")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--case", default="", help="only cases matching this regex")
    a = ap.parse_args()
    want = {int(x) for x in a.blocks.split(",")} if a.blocks else None
    with open("validate/traces/manifest.tsv") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t")
                if (want is None or int(r["blocks_per_sm"]) in want)
                and re.search(a.case, r["case"])]
    tmp = tempfile.mkdtemp(prefix="ctl_agree.")
    jobs = []
    for r in rows:
        stripped = os.path.join(tmp, r["case"] + "-b" + r["blocks_per_sm"] + ".trace")
        strip(r["trace"], stripped)
        for name, trace, assign in (("ptxas", r["trace"], 0), ("assigned", stripped, 1),
                                    ("scoreb", stripped, 0)):
            jobs.append((r, name, trace, assign))
    res = {}
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        futs = {ex.submit(compare, a.smsim, a.config, t, r["ncu_csv"], r["ncu_id"], asg):
                (r["case"], r["blocks_per_sm"], n) for r, n, t, asg in jobs}
        for fu in cf.as_completed(futs):
            res[futs[fu]] = summary(*fu.result())
    names = ("ptxas", "assigned", "scoreb")
    print("%-18s %3s | %-23s | %-23s | %-29s | %-20s" % (
        "case", "b", "issue/cycle ptx asg sb", "warp cyc/inst ptx asg sb",
        "cycles ptx asg sb (k)", "stall3 ptx asg sb"))
    err = {n: {"issue": [], "wcpi": [], "cyc": [], "stall3": [], "top": 0,
               "d_issue": [], "d_cyc": []} for n in names}
    for r in rows:
        key = (r["case"], r["blocks_per_sm"])
        s = [res[key + (n,)] for n in names]
        print("%-18s %3s | %5.3f %5.3f %5.3f %5.3f | %5.2f %5.2f %5.2f %5.2f | %6.0f %6.0f %6.0f %6.0f |"
              " %5.2f %5.2f %5.2f" % (
                  r["case"], r["blocks_per_sm"], s[0]["m_issue"], s[0]["issue"], s[1]["issue"],
                  s[2]["issue"], s[0]["m_wcpi"], s[0]["wcpi"], s[1]["wcpi"], s[2]["wcpi"],
                  s[0]["m_cyc"] / 1e3, s[0]["cyc"] / 1e3, s[1]["cyc"] / 1e3, s[2]["cyc"] / 1e3,
                  s[0]["stall3"], s[1]["stall3"], s[2]["stall3"]))
        for n, x in zip(names, s):
            e = err[n]
            e["issue"].append(pct(x["issue"], x["m_issue"]))
            e["wcpi"].append(pct(x["wcpi"], x["m_wcpi"]))
            e["cyc"].append(pct(x["cyc"], x["m_cyc"]))
            e["stall3"].append(x["stall3"])
            e["top"] += x["top_ok"]
            e["d_issue"].append(pct(x["issue"], s[0]["issue"]))
            e["d_cyc"].append(pct(x["cyc"], s[0]["cyc"]))
    n = len(rows)
    print("\n(columns: measured by ncu, then smsim with ptxas's bits, assigned, scoreboard)")
    print("%d launches; MAPE against ncu (%%), stall3 in cycles per issue, and the mean"
          " |difference| from the ptxas-bit run (%%):" % n)
    for k in names:
        e = err[k]
        mean = lambda v: sum(v) / len(v)
        print("  %-8s issue %5.1f  warp-cyc/inst %5.1f  cycles %5.1f  stall3 %4.2f  top stall"
              " %2d/%d  | vs ptxas run: issue %5.1f cycles %5.1f" % (
                  k, mean(e["issue"]), mean(e["wcpi"]), mean(e["cyc"]), mean(e["stall3"]),
                  e["top"], n, mean(e["d_issue"]), mean(e["d_cyc"])))


if __name__ == "__main__":
    sys.exit(main())
