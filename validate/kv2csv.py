#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Turn the kit's `RECORD key=value ...` lines into CSV (standard library only).

    python3 validate/kv2csv.py RECORD IN.txt [IN2.txt ...] > OUT.csv

Keeps every line that starts with RECORD (e.g. TIME, MLP, LOADED, CAP, STAMP,
CALIB, VALID, LAUNCH); columns are the union of keys in first-seen order,
plus `source` (input file name).  Values are copied verbatim (quoted values
lose their quotes); units are in the key names (us_, ms_, cyc_, GBps, bytes).
"""
import csv
import os
import shlex
import sys


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    rec = argv[1]
    rows, keys = [], []
    for path in argv[2:]:
        with open(path, errors="replace") as f:
            for line in f:
                if not line.startswith(rec + " "):
                    continue
                row = {"source": os.path.basename(path)}
                try:
                    parts = shlex.split(line[len(rec) + 1:])
                except ValueError:
                    parts = line[len(rec) + 1:].split()
                for p in parts:
                    k, _, v = p.partition("=")
                    row[k] = v
                for k in row:
                    if k not in keys:
                        keys.append(k)
                rows.append(row)
    w = csv.DictWriter(sys.stdout, fieldnames=keys, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
