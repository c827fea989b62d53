"""calibsim.py — what the calibration scripts that simulate a kit's SASS share:
their smsim options and one smsim run read back as ncu-named metrics.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import json
import os
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
