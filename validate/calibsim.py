"""calibsim.py — what the calibration scripts that simulate a kit's SASS share:
their smsim options and one smsim run read back as ncu-named metrics.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import csv
import json
import os
import re
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def add_args(ap):
    """--smsim, --config, --set (repeatable), --jobs."""
    ap.add_argument("--smsim", default=os.path.join(ROOT, "build/smsim"))
    ap.add_argument("--config", default=os.path.join(ROOT, "configs/h200.yaml"))
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--jobs", type=int, default=2)


def metrics(a, path, extra=(), sets=()):
    """The first kernel's metrics of `smsim --format json` on trace `path`,
    with the options `extra` and a.set's overrides, then `sets`."""
    cmd = [a.smsim, "--config", a.config, *extra, "--format", "json", path]
    for s in list(a.set) + list(sets):
        cmd += ["--set", s]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(p.stdout)["kernels"][0]["metrics"]


def kv(line):
    """The key=value fields of one kit record line (after its record name)."""
    return dict(x.split("=", 1) for x in line.split()[1:] if "=" in x)


def loop_branches(ins):
    """(guard, back) of one function's (pc, text) instructions (sassctl.functions):
    the forward branch that skips its loop and the loop's backward branch."""
    back = guard = None
    for pc, t in ins:
        m = re.match(r"@!?U?P\d\s+BRA\s+(0x[0-9a-f]+)", t)
        if not m:
            continue
        if int(m.group(1), 16) <= pc:
            back = pc
        elif back is None:
            guard = pc
    return guard, back


def loop_trace(a, base, sass, kernel, grid, regs, dyn, back, guard, trips, annot, block=128):
    """A native trace `base`.trace of a kit kernel whose one loop closes at
    PC `back` and runs `trips` times (its guard at PC `guard` not taken),
    with the annotation lines `annot` (written to `base`.annot)."""
    with open(base + ".annot", "w") as f:
        f.write("\n".join(annot) + "\n")
    subprocess.run([a.smsim, "sass2trace", "--sass", sass, "--kernel", "^" + kernel,
                    "--grid", str(grid), "--block", str(block), "--regs", str(regs),
                    "--smem-static", "0", "--smem-dynamic", str(dyn),
                    "--trip", f"0x{back:04x}={trips}", "--take", f"0x{guard:04x}=0",
                    "--annot", base + ".annot", "-o", base + ".trace"],
                   check=True, capture_output=True, text=True)
    return base + ".trace"


def ncu_points(stdout, raw_csv, key, names):
    """ncu's values per launch: {key(LAUNCH fields): {short: value}} for the
    raw CSV `raw_csv` whose rows follow the LAUNCH lines of `stdout`;
    names maps a short name to an ncu metric."""
    with open(stdout) as f:
        order = [key(kv(x)) for x in f if x.startswith("LAUNCH ")]
    with open(raw_csv) as f:
        rows = list(csv.reader(f))
    h, data = rows[0], rows[2:]
    if len(data) != len(order):
        raise SystemExit(f"{raw_csv}: {len(data)} ncu rows, {len(order)} launches")
    return {k: {s: float(r[h.index(n)].replace(",", "")) for s, n in names.items()}
            for k, r in zip(order, data)}
