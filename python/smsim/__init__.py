"""smsim for Python: run the smsim simulator, get pandas DataFrames.

Every function runs one smsim subcommand with ``--format json`` and turns
the document (docs/json.md) into a DataFrame; the document's provenance
(which smsim, configuration, overrides, seed and trace made it) is in
``df.attrs["provenance"]`` and the members that are not rows in
``df.attrs["summary"]``.

SPDX-License-Identifier: GPL-3.0-or-later
"""
import json
import os
import shutil
import subprocess

__all__ = ["SmsimError", "binary", "run", "sweep", "saturate", "validate", "occupancy"]
__version__ = "0.1.0"


class SmsimError(RuntimeError):
    """smsim exited with an error; the message is its line on stderr."""


def binary():
    """The smsim executable: $SMSIM, else smsim on PATH, else the
    repository's build/smsim (this package inside the source tree)."""
    env = os.environ.get("SMSIM")
    if env:
        return env
    found = shutil.which("smsim")
    if found:
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.join(here, "..", "..", "build", "smsim")
    if os.path.exists(built):
        return os.path.normpath(built)
    raise SmsimError("smsim: no binary (set $SMSIM, put smsim on PATH, or build the repository)")


def _options(sets=None, **opts):
    """Command-line words: sets as --set k=v (a dict or a list of "k=v"),
    then each keyword as --key-with-dashes value (True: a flag; None or
    False: left out; a list: the option repeated)."""
    words = []
    if isinstance(sets, dict):
        sets = ["%s=%s" % kv for kv in sets.items()]
    for s in sets or []:
        words += ["--set", s]
    for key, val in opts.items():
        if val is None or val is False:
            continue
        name = "--" + key.replace("_", "-")
        if val is True:
            words.append(name)
        elif isinstance(val, (list, tuple)):
            for v in val:
                words += [name, str(v)]
        else:
            words += [name, str(val)]
    return words


def _json(args):
    proc = subprocess.run([binary()] + args + ["--format", "json"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True)
    if proc.returncode != 0:
        raise SmsimError(proc.stderr.strip() or "smsim exited with status %d" % proc.returncode)
    return json.loads(proc.stdout)


def _frame(rows, doc, skip):
    import pandas
    df = pandas.DataFrame(rows)
    df.attrs["provenance"] = doc.get("provenance", {})
    df.attrs["summary"] = {k: v for k, v in doc.items() if k not in skip}
    return df


def run(trace, config, sets=None, **opts):
    """``smsim run``: one row per kernel (index, name, grid, block, then
    every metric of docs/metrics.md).  opts: seed, kernel, threads,
    blocks_per_sm, carveout, max_cycles, max_insts, metrics (a regex)."""
    doc = _json(["run", "--config", config, trace] + _options(sets, **opts))
    rows = []
    for k in doc["kernels"]:
        row = {"index": k["index"], "name": k["name"], "grid": tuple(k["grid"]),
               "block": tuple(k["block"])}
        row.update(k["metrics"])
        rows.append(row)
    return _frame(rows, doc, ("provenance", "kernels"))


def sweep(trace, config, vary, sets=None, **opts):
    """``smsim sweep``: one row per point, the varied keys then the metrics.
    vary: a "key=a:b:step" or "key=v1,v2" string or a list of them."""
    if isinstance(vary, str):
        vary = [vary]
    doc = _json(["sweep", "--config", config, trace] + _options(sets, vary=list(vary), **opts))
    rows = []
    for p in doc["points"]:
        row = dict(p["vary"])
        row.update(p["metrics"])
        rows.append(row)
    return _frame(rows, doc, ("provenance", "points"))


def saturate(trace, config, sets=None, **opts):
    """``smsim saturate``: one row per resident-block count (blocks_per_sm,
    warps_per_sm, occupancy_pct, achieved_warps_per_sm, value); the
    saturation point, fits and Little's law in attrs["summary"]."""
    doc = _json(["saturate", "--config", config, trace] + _options(sets, **opts))
    return _frame(doc["points"], doc, ("provenance", "points"))


def validate(data_dir, config=None, sets=None, **opts):
    """``smsim validate``: one row per case, its measured, predicted and
    err_pct metrics flattened to "measured.METRIC" ... columns; the
    statistics in attrs["summary"].  opts: manifest, case, jobs, max_insts."""
    args = ["validate", data_dir] + (["--config", config] if config else [])
    doc = _json(args + _options(sets, **opts))
    rows = []
    for c in doc["cases"]:
        row = {}
        for k, v in c.items():
            if isinstance(v, dict):
                for m, x in v.items():
                    row["%s.%s" % (k, m)] = x
            else:
                row[k] = v
        rows.append(row)
    return _frame(rows, doc, ("provenance", "cases"))


def occupancy(config, threads, regs, sets=None, **opts):
    """``smsim occupancy``: one row for the launch, or with vary="threads",
    "regs" or "smem" one row per point of the curve (the same column names).
    opts: smem_static, smem_dynamic, max_dynamic, carveout, barriers, vary."""
    doc = _json(["occupancy", "--config", config, "--block-size", str(threads), "--regs", str(regs)]
                + _options(sets, **opts))
    if "points" in doc:
        return _frame(doc["points"], doc, ("provenance", "points"))
    return _frame([{k: v for k, v in doc.items() if k != "provenance"}], doc,
                  tuple(doc))
