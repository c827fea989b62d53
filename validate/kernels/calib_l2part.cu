// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17): is the H200's L2 two partitions, a near and a far one?
//
// Hypothesis: each SM is near one of two L2 partitions; each line has a home
// partition (address hash); a load that misses the near partition is looked up
// at the home partition (a slower "far" hit) and the line is then also kept in
// the near partition.  Wanted: the SM -> partition map, near/far hit latency
// (SM cycles), and whether a far hit turns into a near hit on a re-read.
//
// Buffer: NSM regions of --region bytes (default 64 KiB = 512 lines of 128 B;
// ~8.25 MiB in all, under half the L2).  Word 0 of each line holds the index
// (in lines, absolute in the buffer) of the next line of one random cycle over
// its region's lines.  Per mode K (--modes, default -1,-2,0,1,NSM/2):
//   flush: a grid reads a 256 MiB buffer (--flush): the chase buffer leaves L2.
//   warm:  NSM blocks x 32 threads, all opt-in shared memory each, so one block
//          per SM.  K >= 0: only the block on SM (%smid) K reads every line of
//          the buffer (ld.global.cg, one coalesced warp load per line); K = -1:
//          nobody (cold, the chase sees DRAM); K = -2: every block reads all.
//   chase: same shape; lane 0 of the block on SM s chases region r(s) (r = rank
//          of s among the SM ids seen, = s when they are 0..NSM-1) for --passes
//          passes (default 2) over its cycle.  Every load is timed alone:
//          t0 = clock64; v = ld.global.cg [line]; st.shared v (waits for v);
//          t1 = clock64; lat = t1 - t0 (raw: includes `ovh`, a timed region
//          holding only a shared store, printed per SM).  Pass 0 sees the state
//          the warm left; pass 1 whether lines read once are now near hits.
// SASS of chase's loop (nvcc 13.0, sm_90; seen): S2UR UR8, SR_CLOCKLO; NOP;
// LDG.E.STRONG.GPU (the .cg load); STS (waits for it); CS2R.32 R2, SR_CLOCKLO;
// then LEA/LEA.HI.X (next address) and the latency's STS; not unrolled.
// (ptxas keeps only the low 32 clock bits: only the difference's are used.)
// Reading: after warm K, SMs in K's partition should be mostly near; SMs in the
// other partition about half far (lines homed there are near anyway).  In the
// cold mode (-1) pass 0 splits DRAM loads by home partition, not near/far hits.
// The first load of each chase also pays a TLB/instruction fetch miss.
// Output, per mode, pass and SM (mode=warm:K, -1 = cold, -2 = all warm):
//   L2P mode= sm= pass= n= med= p10= p90= min= max= frac_gt= thr= ovh= check=
//       hist0= hist=a:b:.. over=   (20-cycle bins from hist0, >= 1000 in over)
//   L2PSUM mode= pass= thr= sms_mostly_near= (frac_gt<0.15) sms_half_far=
//       (0.3..0.7) other= near_med= far_med= (all loads below/above thr)
//   L2PMAP mode= pass= far_sms=a,b,..  (frac_gt >= 0.3)
// thr splits near from far: the deepest valley between the two largest peaks
// of the mode's pass-0 histogram of all SMs, else median+40 (INFO says which);
// --thr overrides.  --csv FILE: every load as mode,sm,pass,n,line,lat
// (--csv-modes limits the modes).  --ncu: LAUNCH lines before each warm and
// chase launch (profile with -k 'regex:^(warm|chase)$').
// Checks: the NSM blocks of each launch ran on NSM distinct SMs, and every
// loaded index follows the host's cycle (so each pass returns to its start).
#include "common.cuh"

constexpr int WL = 32;        // 4-byte words per 128-byte line
constexpr int MAXSM = 4096;   // size of the %smid -> region table

__device__ __forceinline__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ long long clk() {
  long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t) : : "memory");
  return t;
}
__device__ __forceinline__ unsigned ld_cg(const unsigned *p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// buf + 128*idx bytes, as asm volatile: it stays after the clock read before it.
__device__ __forceinline__ const unsigned *line_ptr(const unsigned *buf, unsigned idx) {
  const unsigned *p;
  asm volatile("mad.wide.u32 %0, %1, 128, %2;" : "=l"(p) : "r"(idx), "l"(buf));
  return p;
}

__global__ void probe(unsigned *smids) {
  if (threadIdx.x == 0) smids[blockIdx.x] = smid();
}

__global__ void flush(const uint4 *x, size_t n, unsigned *out) {
  unsigned s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = __ldcg(x + i);
    s += v.x ^ v.y ^ v.z ^ v.w;
  }
  atomicAdd(out, s);
}

__global__ void warm(const unsigned *buf, unsigned nlines, int K, unsigned *smids, unsigned *out) {
  const unsigned s = smid();
  if (threadIdx.x == 0) smids[blockIdx.x] = s;
  unsigned acc = 0;
  if (K == -2 || (K >= 0 && s == (unsigned)K)) {
#pragma unroll 8
    for (unsigned l = 0; l < nlines; l++) acc += __ldcg(buf + (size_t)l * WL + threadIdx.x);
  }
  out[blockIdx.x * WL + threadIdx.x] = acc;
}

// lat/nxt[r][k], k = pass * L + n: latency of load k and the index it returned.
__global__ void chase(const unsigned *buf, const int *sm2reg, const unsigned *starts, int L, int P,
                      unsigned *lat, unsigned *nxt, unsigned *smids, unsigned *ovh) {
  extern __shared__ unsigned sh[];
  const unsigned s = smid();
  if (threadIdx.x != 0) return;
  smids[blockIdx.x] = s;
  const int r = s < MAXSM ? sm2reg[s] : -1;
  if (r < 0) return;
  const int total = P * L;
  unsigned *s_lat = sh, *s_nxt = sh + total;
  const unsigned *p = line_ptr(buf, starts[r]);
  s_nxt[0] = (unsigned)(size_t)p;  // waits for starts[r] before the first timed region
  long long o0 = clk();
  s_nxt[1] = (unsigned)o0;
  long long o1 = clk();
#pragma unroll 1
  for (int k = 0; k < total; k++) {
    long long t0 = clk();
    unsigned v = ld_cg(p);
    s_nxt[k] = v;  // the store waits for v, so t1 is read after the load completes
    long long t1 = clk();
    s_lat[k] = (unsigned)(t1 - t0);
    p = line_ptr(buf, v);  // after t1: the next address is not part of the timed region
  }
  ovh[r] = (unsigned)(o1 - o0);
  for (int k = 0; k < total; k++) {
    lat[(size_t)r * total + k] = s_lat[k];
    nxt[(size_t)r * total + k] = s_nxt[k];
  }
}

// Near/far threshold from one sample: deepest valley between the largest peak
// and the largest other peak with a real valley, on a 3-bin-smoothed 10-cycle
// histogram; else median + 40.
static unsigned pick_thr(std::vector<unsigned> v, std::string &how) {
  const int B = 10, NB = 300;
  std::vector<double> h(NB, 0), sm(NB, 0);
  for (unsigned x : v) h[std::min<unsigned>(x / B, NB - 1)]++;
  for (int i = 0; i < NB; i++) sm[i] = h[i] + (i ? h[i - 1] : 0) + (i + 1 < NB ? h[i + 1] : 0);
  std::vector<int> pk;
  for (int i = 0; i < NB - 1; i++)
    if (sm[i] > 0 && (i == 0 || sm[i] >= sm[i - 1]) && sm[i] > sm[i + 1]) pk.push_back(i);
  std::sort(pk.begin(), pk.end(), [&](int a, int b) { return sm[a] > sm[b]; });
  const double minpk = std::max(3.0, 0.02 * (double)v.size());
  for (size_t j = 1; !pk.empty() && j < pk.size(); j++) {
    int lo = std::min(pk[0], pk[j]), hi = std::max(pk[0], pk[j]);
    if (sm[pk[j]] < minpk || hi - lo < 3) continue;
    int m = lo;
    for (int i = lo; i <= hi; i++) if (sm[i] < sm[m]) m = i;
    if (sm[m] >= 0.5 * std::min(sm[lo], sm[hi])) continue;
    int a = m, b = m;
    while (b + 1 <= hi && sm[b + 1] == sm[m]) b++;
    unsigned thr = (unsigned)(((a + b) / 2) * B + B / 2);
    how = "valley peak1=" + std::to_string(pk[0] * B + B / 2) + " peak2=" + std::to_string(pk[j] * B + B / 2) +
          " valley_count=" + std::to_string((long long)sm[m]);
    return thr;
  }
  unsigned med = kit::median(v);
  how = "median+40 median=" + std::to_string(med);
  return med + 40;
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"modes", "region", "passes", "csv", "csv-modes", "seed", "ncu", "thr", "flush"});
  kit::Device d = kit::open_device("l2part");
  const int nsm = d.prop.multiProcessorCount;
  auto modes = a.list("modes", "-1,-2,0,1," + std::to_string(nsm / 2));
  const long long region = a.num("region", 64 << 10);
  const int P = (int)a.num("passes", 2);
  const std::string csvf = a.str("csv", "");
  auto csv_modes = a.list("csv-modes", a.str("modes", "-1,-2,0,1," + std::to_string(nsm / 2)));
  const uint64_t seed = (uint64_t)a.num("seed", 12345);
  const bool ncu = a.has("ncu") && a.str("ncu", "1") != "0";
  const long long thr_opt = a.num("thr", 0), flush_bytes = a.num("flush", 256 << 20);
  if (region < 256 || region % 128) kit::Args::die("region must be a multiple of 128, >= 256");
  const int L = (int)(region / 128);
  const size_t nlines = (size_t)nsm * L;
  const int dyn = (int)d.prop.sharedMemPerBlockOptin;
  if (P < 1 || (size_t)P * L * 8 > (size_t)dyn) kit::Args::die("passes*lines*8 must fit the shared memory");
  for (long long K : modes) if (K < -2 || K >= MAXSM) kit::Args::die("mode must be -2, -1 or an SM id");

  // The buffer, built on the host: region j = lines j*L .. j*L+L-1.
  std::vector<unsigned> hb(nlines * WL, 0), starts(nsm), next_of(nlines);
  for (int j = 0; j < nsm; j++) {
    auto ord = kit::cycle_order(L, 0, seed + j);
    for (int i = 0; i < L; i++) next_of[(size_t)j * L + ord[i]] = (unsigned)(j * L + ord[(i + 1) % L]);
    starts[j] = (unsigned)(j * L + ord[0]);
  }
  for (size_t l = 0; l < nlines; l++) hb[l * WL] = next_of[l];
  unsigned *buf, *d_starts, *d_lat, *d_nxt, *d_smw, *d_smc, *d_ovh, *d_out;
  int *d_map;
  uint4 *fl;
  const size_t total = (size_t)P * L, fl_n = (size_t)flush_bytes / 16;
  CK(cudaMalloc(&buf, hb.size() * 4));
  CK(cudaMemcpy(buf, hb.data(), hb.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&d_starts, nsm * 4));
  CK(cudaMemcpy(d_starts, starts.data(), nsm * 4, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&d_lat, nsm * total * 4));
  CK(cudaMalloc(&d_nxt, nsm * total * 4));
  CK(cudaMalloc(&d_smw, nsm * 4));
  CK(cudaMalloc(&d_smc, nsm * 4));
  CK(cudaMalloc(&d_ovh, nsm * 4));
  CK(cudaMalloc(&d_out, (size_t)nsm * WL * 4 + 4));
  CK(cudaMalloc(&d_map, MAXSM * 4));
  CK(cudaMalloc(&fl, fl_n * 16));
  CK(cudaMemset(fl, 1, fl_n * 16));
  for (const void *f : {(const void *)probe, (const void *)warm, (const void *)chase}) {
    CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
    int occ = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, f, WL, dyn));
    if (occ != 1) std::printf("INFO prog=l2part warn=blocks_per_sm_%d\n", occ);
  }
  std::printf("INFO prog=l2part region=%lld lines_per_region=%d buffer_bytes=%zu l2_bytes=%d passes=%d "
              "dyn_smem=%d flush_bytes=%lld\n", region, L, nlines * 128, d.prop.l2CacheSize, P, dyn, flush_bytes);

  // %smid -> region: rank among the SM ids one probe launch sees.
  auto distinct = [&](const unsigned *dv, std::vector<unsigned> &ids) {
    ids.resize(nsm);
    CK(cudaMemcpy(ids.data(), dv, nsm * 4, cudaMemcpyDeviceToHost));
    std::vector<unsigned> s = ids;
    std::sort(s.begin(), s.end());
    return std::unique(s.begin(), s.end()) == s.end();
  };
  probe<<<nsm, WL, dyn>>>(d_smw);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> ids;
  bool map_ok = distinct(d_smw, ids);
  std::vector<int> map(MAXSM, -1);
  std::vector<unsigned> reg2sm(nsm, ~0u);
  std::vector<unsigned> sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  for (int r = 0; r < nsm; r++)
    if (sorted[r] < MAXSM && map[sorted[r]] < 0) { map[sorted[r]] = r; reg2sm[r] = sorted[r]; }
  CK(cudaMemcpy(d_map, map.data(), MAXSM * 4, cudaMemcpyHostToDevice));
  std::printf("INFO prog=l2part probe_distinct_sms=%d smid_min=%u smid_max=%u check=%s\n", map_ok ? nsm : -1,
              sorted.front(), sorted.back(), map_ok ? "ok" : "FAIL");

  FILE *csv = nullptr;
  if (!csvf.empty()) {
    csv = std::fopen(csvf.c_str(), "w");
    if (!csv) kit::Args::die("cannot open " + csvf);
    std::fprintf(csv, "mode,sm,pass,n,line,lat\n");
  }
  int seq = 0, failures = map_ok ? 0 : 1;
  std::vector<unsigned> lat(nsm * total), nxt(nsm * total), ovh(nsm), smw, smc;
  for (long long K : modes) {
    flush<<<nsm * 4, 256>>>(fl, fl_n, d_out + nsm * WL);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (ncu) std::printf("LAUNCH seq=%d prog=l2part kernel=warm mode=warm:%lld grid=%d block=%d dyn=%d\n", seq++, K, nsm, WL, dyn);
    std::fflush(stdout);
    warm<<<nsm, WL, dyn>>>(buf, (unsigned)nlines, (int)K, d_smw, d_out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    if (ncu) std::printf("LAUNCH seq=%d prog=l2part kernel=chase mode=warm:%lld grid=%d block=%d dyn=%d\n", seq++, K, nsm, WL, dyn);
    std::fflush(stdout);
    chase<<<nsm, WL, dyn>>>(buf, d_map, d_starts, L, P, d_lat, d_nxt, d_smc, d_ovh);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(lat.data(), d_lat, lat.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(nxt.data(), d_nxt, nxt.size() * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ovh.data(), d_ovh, nsm * 4, cudaMemcpyDeviceToHost));
    bool sm_ok = distinct(d_smw, smw) && distinct(d_smc, smc) && map_ok;
    bool warm_found = K < 0 || std::find(smw.begin(), smw.end(), (unsigned)K) != smw.end();
    std::vector<unsigned> p0;
    for (int r = 0; r < nsm; r++) p0.insert(p0.end(), lat.begin() + r * total, lat.begin() + r * total + L);
    std::string how = "option";
    unsigned thr = thr_opt > 0 ? (unsigned)thr_opt : pick_thr(p0, how);
    std::printf("INFO prog=l2part mode=warm:%lld thr=%u how=%s smids_distinct=%s warm_sm_found=%d\n", K, thr,
                how.c_str(), sm_ok ? "ok" : "FAIL", warm_found ? 1 : 0);
    if (!sm_ok || !warm_found) failures++;
    bool want_csv = csv && std::find(csv_modes.begin(), csv_modes.end(), K) != csv_modes.end();
    for (int p = 0; p < P; p++) {
      int n_near = 0, n_half = 0, n_other = 0;
      std::vector<unsigned> below, above;
      std::string far_list;
      for (int r = 0; r < nsm; r++) {
        const unsigned *lt = &lat[r * total + (size_t)p * L], *nx = &nxt[r * total + (size_t)p * L];
        bool ok = sm_ok && reg2sm[r] != ~0u;
        unsigned line = p == 0 ? starts[r] : nxt[r * total + (size_t)p * L - 1];
        std::vector<unsigned> v(lt, lt + L), hist(50, 0);
        unsigned over = 0;
        int gt = 0;
        for (int n = 0; n < L; n++) {
          if (nx[n] != next_of[line]) ok = false;
          if (want_csv) std::fprintf(csv, "warm:%lld,%u,%d,%d,%u,%u\n", K, reg2sm[r], p, n, line, lt[n]);
          line = nx[n];
          if (lt[n] > thr) { gt++; above.push_back(lt[n]); } else below.push_back(lt[n]);
          if (lt[n] >= 1000) over++; else hist[lt[n] / 20]++;
        }
        if (line != starts[r]) ok = false;
        if (!ok) failures++;
        std::sort(v.begin(), v.end());
        double frac = (double)gt / L;
        if (frac < 0.15) n_near++;
        else if (frac >= 0.3 && frac <= 0.7) n_half++;
        else n_other++;
        if (frac >= 0.3) far_list += (far_list.empty() ? "" : ",") + std::to_string(reg2sm[r]);
        int h0 = 0, h1 = 49;
        while (h0 < 50 && hist[h0] == 0) h0++;
        while (h1 >= 0 && hist[h1] == 0) h1--;
        std::string hs;
        for (int b = h0; b <= h1; b++) hs += (b > h0 ? ":" : "") + std::to_string(hist[b]);
        std::printf("L2P mode=warm:%lld sm=%u pass=%d n=%d med=%u p10=%u p90=%u min=%u max=%u frac_gt=%.3f thr=%u "
                    "ovh=%u check=%s hist0=%d hist=%s over=%u\n", K, reg2sm[r], p, L, v[L / 2], v[L / 10],
                    v[L * 9 / 10], v.front(), v.back(), frac, thr, ovh[r], ok ? "ok" : "FAIL",
                    h0 < 50 ? h0 * 20 : -1, hs.empty() ? "-" : hs.c_str(), over);
      }
      std::printf("L2PSUM mode=warm:%lld pass=%d thr=%u sms_mostly_near=%d sms_half_far=%d other=%d near_med=%u "
                  "far_med=%u\n", K, p, thr, n_near, n_half, n_other, kit::median(below), kit::median(above));
      std::printf("L2PMAP mode=warm:%lld pass=%d far_sms=%s\n", K, p, far_list.empty() ? "none" : far_list.c_str());
      std::fflush(stdout);
    }
  }
  if (csv) std::fclose(csv);
  return failures ? 1 : 0;
}
