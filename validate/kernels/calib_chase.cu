// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION: global-memory load-to-use latency by pointer chasing.
//
// A buffer of `footprint` bytes holds one 8-byte pointer every `stride` bytes;
// the pointers form one random cycle over all slots (cycle_order), so each
// load's address is the previous load's value (`p = *p`): the loads cannot
// overlap, and the time per load is the load-to-use latency of whichever
// level holds the footprint.  Timing is clock64() inside the kernel (SM
// cycles), around `iters` dependent loads, minus the cost of an empty timed
// region (measured in the same kernel: `ovh`).
//
//   mode ca: plain ld.global (sm_90 caches global loads in L1 by default;
//            SASS LDG.E.64) -> L1 hit latency when the footprint fits L1,
//            L1-miss/L2-hit latency when it fits L2 only.  (An explicit
//            ld.global.ca becomes LDG.E.64.STRONG.SM, so the plain form is
//            used: it is what ordinary code runs.)
//   mode cg: ld.global.cg (L2 only, L1 bypassed; SASS LDG.E.64.STRONG.GPU)
//            -> L2 hit latency, DRAM latency for footprints far above L2.
//   lanes 1: one thread; lanes 32: one warp whose lanes chase 32 disjoint
//            parts of the same cycle (32 distinct lines per warp load).
//
// Footprints up to the L2 size get a full untimed pass first (warm = n), so
// every timed load hits.  Larger footprints get a short warm-up only, and each
// repetition continues the cycle where the last stopped: every timed load
// touches a line not touched before in this process (cold in L1/L2; TLB state
// depends on `window`, see common.cuh).
#include "common.cuh"

template <int MODE>
__device__ __forceinline__ unsigned long long ld_chain(unsigned long long p) {
  unsigned long long v;
  if (MODE == 0)
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(v) : "l"(p));
  else
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

// order[i] is the slot visited i-th; slot s lives at base + s*stride and holds
// the address of the next slot of the cycle.
__global__ void init_chain(char *base, const uint32_t *order, uint64_t n, uint64_t stride) {
  uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t here = order[i], next = order[(i + 1) % n];
  *(unsigned long long *)(base + here * stride) = (unsigned long long)(base + next * stride);
}

constexpr int UNROLL = 16;

// One warp (or one thread).  out_cyc[lane] = cycles of the timed chase,
// out_ovh[lane] = cycles of an empty timed region, ptrs[lane] = chain state
// (read at start, written at end so the next launch continues the cycle).
template <int MODE>
__global__ void chase(unsigned long long *ptrs, int warm, int iters, long long *out_cyc,
                      long long *out_ovh) {
  const int lane = threadIdx.x;
  unsigned long long p = ptrs[lane];
  for (int i = 0; i < warm; i++) p = ld_chain<MODE>(p);
  // Storing p waits for the last warm load, so the timed region below does not
  // inherit its latency.
  ptrs[lane] = p;
  long long o0 = clock64();
  long long o1 = clock64();
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; i += UNROLL) {
#pragma unroll
    for (int u = 0; u < UNROLL; u++) p = ld_chain<MODE>(p);
  }
  ptrs[lane] = p;  // waits for the last timed load before the second clock read
  long long t1 = clock64();
  out_cyc[lane] = t1 - t0;
  out_ovh[lane] = o1 - o0;
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"footprints", "stride", "modes", "lanes", "iters", "reps", "window",
                           "seed", "warm-max"});
  kit::Device d = kit::open_device("chase");
  auto footprints = a.list("footprints", "16K,64K,1M,8M,32M,512M,2G");
  long long stride = a.num("stride", 128);
  auto modes = a.words("modes", "ca,cg");
  auto lanes_list = a.list("lanes", "1,32");
  int iters = (int)a.num("iters", 4096);
  int reps = (int)a.num("reps", 5);
  long long window = a.num("window", 0);  // bytes; 0 = one random cycle over everything
  long long warm_max = a.num("warm-max", 1 << 20);
  uint64_t seed = (uint64_t)a.num("seed", 12345);
  iters = (iters + UNROLL - 1) / UNROLL * UNROLL;
  if (stride < 8 || stride % 8) kit::Args::die("stride must be a multiple of 8");

  long long maxfp = *std::max_element(footprints.begin(), footprints.end());
  char *buf = nullptr;
  CK(cudaMalloc(&buf, (size_t)maxfp));
  unsigned long long *d_ptrs;
  long long *d_cyc, *d_ovh;
  CK(cudaMalloc(&d_ptrs, 32 * sizeof(unsigned long long)));
  CK(cudaMalloc(&d_cyc, 32 * sizeof(long long)));
  CK(cudaMalloc(&d_ovh, 32 * sizeof(long long)));
  int failures = 0;

  for (long long fp : footprints) {
    uint64_t n = (uint64_t)(fp / stride);
    if (n < 64) {
      std::printf("SKIP prog=chase footprint=%lld why=too_few_slots\n", fp);
      continue;
    }
    uint64_t win_slots = window > 0 ? (uint64_t)(window / stride) : 0;
    std::vector<uint32_t> order = kit::cycle_order(n, win_slots, seed + (uint64_t)fp);
    uint32_t *d_order;
    CK(cudaMalloc(&d_order, n * sizeof(uint32_t)));
    CK(cudaMemcpy(d_order, order.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
    init_chain<<<(unsigned)((n + 255) / 256), 256>>>(buf, d_order, n, (uint64_t)stride);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d_order));
    bool fits_l2 = fp <= (long long)d.prop.l2CacheSize;
    // Warm-up: a full pass when the footprint should stay cached, else a few
    // hundred loads (instruction cache, first TLB fills).
    int warm = fits_l2 ? (int)std::min<long long>((long long)n, warm_max) : 256;

    for (const std::string &mode : modes) {
      if (mode != "ca" && mode != "cg") kit::Args::die("mode must be ca or cg");
      for (long long lanes : lanes_list) {
        if (lanes != 1 && lanes != 32) kit::Args::die("lanes must be 1 or 32");
        // Lane l starts at position l*n/lanes of the cycle; pos tracks where
        // each lane is so the final pointer can be checked on the host.
        std::vector<uint64_t> pos(lanes);
        std::vector<unsigned long long> h_ptrs(lanes);
        for (int l = 0; l < lanes; l++) {
          pos[l] = (uint64_t)l * n / (uint64_t)lanes;
          h_ptrs[l] = (unsigned long long)(buf + (uint64_t)order[pos[l]] * stride);
        }
        CK(cudaMemcpy(d_ptrs, h_ptrs.data(), lanes * sizeof(unsigned long long),
                      cudaMemcpyHostToDevice));
        std::vector<double> cyc, ovh;
        bool ok = true;
        for (int r = 0; r < reps + 1; r++) {  // launch 0 is an untimed warm-up
          if (mode == "ca")
            chase<0><<<1, (unsigned)lanes>>>(d_ptrs, warm, iters, d_cyc, d_ovh);
          else
            chase<1><<<1, (unsigned)lanes>>>(d_ptrs, warm, iters, d_cyc, d_ovh);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<long long> hc(lanes), ho(lanes);
          CK(cudaMemcpy(hc.data(), d_cyc, lanes * sizeof(long long), cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(ho.data(), d_ovh, lanes * sizeof(long long), cudaMemcpyDeviceToHost));
          CK(cudaMemcpy(h_ptrs.data(), d_ptrs, lanes * sizeof(unsigned long long),
                        cudaMemcpyDeviceToHost));
          for (int l = 0; l < lanes; l++) {
            pos[l] = (pos[l] + (uint64_t)warm + (uint64_t)iters) % n;
            unsigned long long want = (unsigned long long)(buf + (uint64_t)order[pos[l]] * stride);
            if (h_ptrs[l] != want) ok = false;
          }
          if (r == 0) continue;
          // The warp's time is its slowest lane (they run in lockstep anyway).
          cyc.push_back((double)*std::max_element(hc.begin(), hc.end()));
          ovh.push_back((double)*std::min_element(ho.begin(), ho.end()));
        }
        if (!ok) failures++;
        double cm = kit::median(cyc), om = kit::median(ovh);
        double cmin = *std::min_element(cyc.begin(), cyc.end());
        std::printf(
            "CALIB prog=chase mode=%s lanes=%lld footprint=%lld stride=%lld window=%lld "
            "slots=%llu warm=%d iters=%d reps=%d fits_l2=%d cyc_med=%.0f cyc_min=%.0f "
            "ovh=%.0f cyc_per_load=%.2f cyc_per_load_min=%.2f check=%s\n",
            mode.c_str(), lanes, fp, stride, window, (unsigned long long)n, warm, iters, reps,
            fits_l2 ? 1 : 0, cm, cmin, om, (cm - om) / iters, (cmin - om) / iters,
            ok ? "ok" : "FAIL");
        std::fflush(stdout);
      }
    }
  }
  CK(cudaFree(buf));
  return failures ? 1 : 0;
}
