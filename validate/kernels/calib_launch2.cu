// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #19): per-warp life stamps of block dispatch.
//
// The calibration set's achieved occupancy (calib_launch.cu's near-empty
// blocks) is off by -38..-85 % on 32/64-thread blocks at N = 0/8 while the
// elapsed cycles are right (docs/calibration.md "Block launch"): how long is
// each warp resident on its SM, from which cycle to which, and how do blocks
// turn over in a slot?
//
// life_w<N>: calib_launch.cu's launch_w<N> (N = 0 or 8 dependent IMADs per
// thread, inline PTX, one register chain) with stamps: every warp reads
// clock64 and %globaltimer as its first instructions and again just before
// EXIT (after the chain), then %smid and %warpid (the SM's hardware warp
// slot, 0..63; SMSP = %warpid % 4), and lane 0 stores them with two STG.E.128
// (32 bytes per warp, indexed by the global warp number).  The stamps CHANGE
// the kernel (about 15 more instructions per warp, more registers, two
// stores): kit-2026-12-01's ncu runs of launch_w stay the reference for the
// counts; this kit gives the timing, and its own ncu run of exactly these
// kernels (--ncu) says how far occupancy and cycles moved with the stamps.
//   block sizes 32, 64, 128, 1024 threads; dynamic shared memory 0;
//   grid = waves * SMs * (occupancy API blocks per SM), 20 waves and 1 wave;
//   plus one 1-block launch (32 threads, N = 0).
//
// SASS expected: CS2R (clock) at or near the top, then the N IMADs, CS2R
// again, S2R SR_SMID / SR_VIRTID-like %warpid, two STG.E.128 under a lane-0
// predicate, EXIT.
//
// Output (default mode): one LIFE line per launch (median over warps of the
// life c1 - c0 in SM cycles; median gap between a warp's end stamp and the
// next warp's start stamp in the same SM warp slot (smid, %warpid); median
// over SMs of the stamp occupancy sum(life) / (64 x (last c1 - first c0)));
// and --csv FILE, one row per warp:
//   L (launch number, as in the LIFE line), block, warp (in block), smid,
//   hwwarp (%warpid), c0 (SM cycles from the first c0 on that SM in this
//   launch), life (c1 - c0), g0 (ns from the launch's first %globaltimer),
//   glife (g1 - g0, ns; %globaltimer ticks coarsely), flag (chain result
//   test, always 0).
// --ncu: LAUNCH lines and one launch each, no CSV.
#include "common.cuh"

template <int N>
__global__ void __launch_bounds__(1024) life_w(uint4 *rec, unsigned key) {
  unsigned long long c0, g0, c1, g1;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  unsigned x = threadIdx.x ^ key;
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("mad.lo.u32 %0, %0, %0, %1;" : "+r"(x) : "r"(key));
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  if ((threadIdx.x & 31) == 0) {
    unsigned smid, wid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(wid));
    uint4 *o = rec + 2 * ((size_t)blockIdx.x * ((blockDim.x + 31) / 32) + threadIdx.x / 32);
    o[0] = make_uint4((unsigned)c0, (unsigned)(c0 >> 32), (unsigned)c1, (unsigned)(c1 >> 32));
    o[1] = make_uint4((unsigned)g0, (unsigned)(g0 >> 32), (unsigned)(g1 - g0),
                      smid | (wid << 8) | ((x == key + 1u ? 1u : 0u) << 16));
  }
}

typedef void (*LFn)(uint4 *, unsigned);
static LFn lfn(int work) {
  if (work == 0) return life_w<0>;
  if (work == 8) return life_w<8>;
  kit::Args::die("work must be 0 or 8");
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "blocks", "works", "waves-list", "csv", "one-block"});
  kit::Device d = kit::open_device("launch2");
  const int nsm = d.prop.multiProcessorCount;
  auto blocks = a.list("blocks", "32,64,128,1024");
  auto works = a.list("works", "0,8");
  auto wl = a.list("waves-list", "20,1");
  bool ncu = a.has("ncu"), one = a.num("one-block", 1) != 0;
  std::string csv = a.str("csv", "");
  FILE *f = nullptr;
  if (!csv.empty() && !ncu) {
    f = std::fopen(csv.c_str(), "w");
    if (!f) kit::Args::die("cannot open " + csv);
    std::fprintf(f, "L,block,warp,smid,hwwarp,c0,life,g0,glife,flag\n");
  }
  const unsigned key = 0x9E3779B9u;
  struct Pt { int work, bt, waves, grid, occ; };
  std::vector<Pt> pts;
  for (long long w : works)
    for (long long bt : blocks)
      for (long long wv : wl) {
        int occ = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, lfn((int)w), (int)bt, 0));
        if (occ < 1) {
          std::printf("SKIP prog=launch2 block=%lld work=%lld why=occupancy_0\n", bt, w);
          continue;
        }
        pts.push_back({(int)w, (int)bt, (int)wv, (int)wv * nsm * occ, occ});
      }
  if (one) pts.push_back({0, 32, 0, 1, 0});
  size_t maxw = 0;
  for (auto &p : pts) maxw = std::max(maxw, (size_t)p.grid * ((p.bt + 31) / 32));
  uint4 *rec;
  CK(cudaMalloc(&rec, maxw * 32));
  // Module load and first-touch outside the measured launches (not under
  // ncu: its results must match the LAUNCH lines one to one).
  for (long long w : works) {
    if (ncu) break;
    lfn((int)w)<<<nsm, 32>>>(rec, key);
    CK(cudaGetLastError());
  }
  CK(cudaDeviceSynchronize());
  int failures = 0;
  for (size_t L = 0; L < pts.size(); L++) {
    const Pt &p = pts[L];
    LFn fn = lfn(p.work);
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, (const void *)fn));
    const int wpb = (p.bt + 31) / 32;
    const size_t nw = (size_t)p.grid * wpb;
    CK(cudaMemset(rec, 0xff, nw * 32));
    if (ncu) {
      std::printf("LAUNCH seq=%zu prog=launch2 kernel=life_w<%d> block=%d dyn=0 work=%d occ_api=%d waves=%d "
                  "grid=%d regs=%d\n", L, p.work, p.bt, p.work, p.occ, p.waves, p.grid, fa.numRegs);
      std::fflush(stdout);
    }
    fn<<<p.grid, (unsigned)p.bt>>>(rec, key);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (ncu) continue;
    std::vector<uint4> h(nw * 2);
    CK(cudaMemcpy(h.data(), rec, h.size() * 16, cudaMemcpyDeviceToHost));
    struct Wr { unsigned long long c0, c1, g0; unsigned glife, smid, hw, flag; };
    std::vector<Wr> ws(nw);
    unsigned long long gmin = ~0ull;
    std::vector<unsigned long long> cmin(nsm, ~0ull), cmax(nsm, 0);
    std::vector<double> lifesum(nsm, 0);
    std::vector<long long> life;
    int bad = 0;
    for (size_t i = 0; i < nw; i++) {
      const uint4 &a0 = h[2 * i], &a1 = h[2 * i + 1];
      Wr r;
      r.c0 = a0.x | ((unsigned long long)a0.y << 32);
      r.c1 = a0.z | ((unsigned long long)a0.w << 32);
      r.g0 = a1.x | ((unsigned long long)a1.y << 32);
      r.glife = a1.z;
      r.smid = a1.w & 0xff;
      r.hw = (a1.w >> 8) & 0xff;
      r.flag = (a1.w >> 16) & 0xffff;
      ws[i] = r;
      if (r.smid >= (unsigned)nsm || r.flag != 0 || r.c1 < r.c0) {
        bad++;
        continue;
      }
      gmin = std::min(gmin, r.g0);
      cmin[r.smid] = std::min(cmin[r.smid], r.c0);
      cmax[r.smid] = std::max(cmax[r.smid], r.c1);
      lifesum[r.smid] += (double)(r.c1 - r.c0);
      life.push_back((long long)(r.c1 - r.c0));
    }
    // Slot turnover: per (smid, hwwarp), warps in start order; gap = next c0 - this c1.
    std::vector<std::vector<std::pair<unsigned long long, unsigned long long>>> slot((size_t)nsm * 64);
    for (auto &r : ws)
      if (r.smid < (unsigned)nsm && r.hw < 64 && r.flag == 0) slot[(size_t)r.smid * 64 + r.hw].push_back({r.c0, r.c1});
    std::vector<long long> gaps;
    for (auto &v : slot) {
      std::sort(v.begin(), v.end());
      for (size_t i = 1; i < v.size(); i++) gaps.push_back((long long)v[i].first - (long long)v[i - 1].second);
    }
    std::vector<double> socc;
    int smsused = 0;
    for (int s = 0; s < nsm; s++)
      if (cmax[s] > cmin[s]) {
        smsused++;
        socc.push_back(lifesum[s] / (64.0 * (double)(cmax[s] - cmin[s])));
      }
    if (f)
      for (size_t i = 0; i < nw; i++) {
        const Wr &r = ws[i];
        bool ok = r.smid < (unsigned)nsm;
        std::fprintf(f, "%zu,%zu,%zu,%u,%u,%lld,%lld,%lld,%u,%u\n", L, i / wpb, i % wpb, r.smid, r.hw,
                     ok ? (long long)(r.c0 - cmin[r.smid]) : -1LL, (long long)(r.c1 - r.c0),
                     ok ? (long long)(r.g0 - gmin) : -1LL, r.glife, r.flag);
      }
    std::sort(life.begin(), life.end());
    auto pct = [&](const std::vector<long long> &v, double q) { return v.empty() ? -1LL : v[(size_t)(q * (v.size() - 1))]; };
    std::sort(gaps.begin(), gaps.end());
    std::printf("LIFE prog=launch2 L=%zu kernel=life_w<%d> work=%d block=%d waves=%d grid=%d occ_api=%d regs=%d "
                "warps=%zu sms_used=%d bad_warps=%d life_cyc_p10=%lld life_cyc_med=%lld life_cyc_p90=%lld "
                "slot_gap_cyc_p10=%lld slot_gap_cyc_med=%lld slot_gap_cyc_p90=%lld gaps=%zu "
                "stamp_occ_pct_med=%.2f check=%s\n",
                L, p.work, p.work, p.bt, p.waves, p.grid, p.occ, fa.numRegs, nw, smsused, bad, pct(life, 0.1),
                pct(life, 0.5), pct(life, 0.9), pct(gaps, 0.1), pct(gaps, 0.5), pct(gaps, 0.9), gaps.size(),
                socc.empty() ? -1.0 : 100.0 * kit::median(socc), bad ? "FAIL" : "ok");
    std::fflush(stdout);
    if (bad) failures++;
  }
  if (f) std::fclose(f);
  CK(cudaFree(rec));
  std::printf("INFO prog=launch2 done failures=%d\n", failures);
  return failures ? 1 : 0;
}
