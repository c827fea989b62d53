#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Unit test of validate/kit5_summary.py on tiny fake CSVs (python3 validate/test_kit5_summary.py)."""
import io
import lzma
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kit5_summary as ks  # noqa: E402

QUEUE = """source,prog,flavour,K,W,S,smsp_cpi_med,burst_cyc_med,st_med,check
q.txt,queue,lg32,4,1,0,1.0,4,-,ok
q.txt,queue,lg32,8,1,0,1.0,8,-,ok
q.txt,queue,lg32,16,1,0,1.1,18,-,ok
q.txt,queue,lg32,32,1,0,2.0,64,-,ok
q.txt,queue,lg32,4,1,1,1.2,5,5,ok
"""
# Two launches; launch 0: one SM, slot 0 holds warps [0,100) and [150,250): gap 50.
LIFE = """L,block,warp,smid,hwwarp,c0,life,g0,glife,flag
0,0,0,0,0,0,100,0,50,0
0,0,1,0,1,4,100,2,50,0
0,1,0,0,0,150,100,80,50,0
1,0,0,3,0,0,40,0,20,0
"""
RECS = """source,prog,L,kernel,work,block,waves,grid,occ_api
l.txt,launch2,0,life_w<0>,0,64,20,2,32
"""


class T(unittest.TestCase):
    def test_queue(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "queue.csv")
            open(p, "w").write(QUEUE)
            out = io.StringIO()
            ks.queue_summary(p, out)
            s = out.getvalue()
            self.assertIn("queue lg32 W=1: 4:1.00(4) 8:1.00(8) 16:1.10(18) 32:2.00(64)", s)
            self.assertIn("first W*K with cpi > 1.5x min: 32 (W=1 K=32", s)
            self.assertIn("queue lg32 W=1 S=1 K=4:", s)

    def test_life_xz(self):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "life.csv.xz")
            with lzma.open(p, "wt") as f:
                f.write(LIFE)
            r = os.path.join(d, "rec.csv")
            open(r, "w").write(RECS)
            out = io.StringIO()
            ks.life_summary(p, r, out)
            s = out.getvalue()
            self.assertIn("life L=0 w0-t64-20w grid=2 occ_api=32: warps=3 life_med=100 life_p90=100 "
                          "slot_gap_med=50 stagger_per_warp_med=4.00", s)
            # SM 0: 300 warp-cycles over a 250-cycle span of 64 slots
            self.assertIn("stamp_occ_pct_med=1.88", s)
            self.assertIn("life L=1", s)


if __name__ == "__main__":
    unittest.main()
