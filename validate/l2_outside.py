#!/usr/bin/env python3
"""l2_outside.py — the L2 lookups that no op and no source unit of ncu's
lts__t_sectors breakdown claims, per launch of an ncu raw CSV (kit8 l2src,
kit14 and kit15 tlb: docs/calibration.md "Where the DRAM chains' L2 hits come
from").

For each launch: the SMs' read sectors (srcunit_tex_op_read), all lookups
(lts__t_sectors_lookup_hit + _miss), the lookups outside the ops (all less
read, write, membar, atom, red) and their hits, and those hits per SM read
sector.  A column is '-' when the CSV lacks a metric it needs.

    python3 validate/l2_outside.py RAW.csv [RAW.csv ...]

Standard library only.
SPDX-License-Identifier: GPL-3.0-or-later
"""
import csv
import os
import sys

OPS = ("read", "write", "membar", "atom", "red")


def num(s):
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None


def rows(path):
    """[(line, kernel name, {metric: value})] of one ncu raw CSV."""
    if not os.path.isfile(path):
        raise SystemExit("l2_outside.py: %s: no such file" % path)
    with open(path, newline="") as f:
        r = list(csv.reader(f))
    if len(r) < 3 or "Kernel Name" not in r[0]:
        raise SystemExit("l2_outside.py: %s: not an ncu raw CSV (ncu --csv --page raw)" % path)
    h = r[0]
    return [(i, row[h.index("Kernel Name")], {k: num(v) for k, v in zip(h, row)})
            for i, row in enumerate(r[2:], start=3)]


def main():
    if len(sys.argv) < 2:
        raise SystemExit("usage: l2_outside.py RAW.csv [RAW.csv ...]")
    files = [(path, rows(path)) for path in sys.argv[1:]]  # every file read before printing
    print("%-44s %-14s %10s %10s %10s %10s %8s" % ("launch (file:line)", "kernel", "SM reads",
                                                   "lookups", "outside", "their hits",
                                                   "per read"))
    for path, launches in files:
        for line, name, d in launches:
            g = lambda k: d.get("lts__t_sectors_" + k + ".sum")
            tex, hit, miss = g("srcunit_tex_op_read"), g("lookup_hit"), g("lookup_miss")
            ops = [g("op_" + o) for o in OPS]
            oph = [g("op_" + o + "_lookup_hit") or 0.0 for o in OPS]
            out = outh = per = None
            if hit is not None and miss is not None and None not in ops:
                out = hit + miss - sum(ops)
                outh = hit - sum(oph)
                per = outh / tex if tex else None
            f = lambda x, w=10: ("%*d" % (w, x)) if x is not None else "%*s" % (w, "-")
            print("%-44s %-14s %s %s %s %s %8s" % (
                "%s:%d" % (os.path.relpath(path), line), name[:14], f(tex),
                f(None if hit is None or miss is None else hit + miss), f(out), f(outh),
                "%.3f" % per if per is not None else "-"))


if __name__ == "__main__":
    main()
