// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17, item 7): loaded latency -- DRAM load-to-use latency
// while the rest of the GPU streams at a chosen intensity.
//
// One persistent launch of SMs * 4 blocks of 256 threads (all resident: 32
// warps per SM; dynamic shared memory padding makes 4 the most an SM takes).
// On every SM the first block to arrive (atomicCAS on a per-SM
// flag) turns its last warp into the *chaser*: `lanes` lanes (1 or 32) chase
// 8-byte pointers on one random cycle over a 1 GiB buffer (128-byte stride,
// ld.global.cg = L2/DRAM, as calib_chase mode cg), `warm` untimed loads, then
// `iters` timed with clock64().  Every other warp (31 per SM) *streams*: each
// trip issues 4 independent float4 loads per thread (2 KiB per warp, 62 KiB in
// flight per SM) over a separate 2 GiB buffer, then spins `delay` SM cycles;
// streamers stop when every chaser is done (or after --cap-ms).  delay sets
// the intensity: 0 = as fast as the memory system takes them; large delays ->
// low bandwidth; --delays -1 = no streaming at all (unloaded latency, same
// launch shape).  Achieved bandwidth = bytes the streamers loaded / kernel time
// (CUDA events); reported with the median and spread over SMs of the chasers'
// cycles per load.  Chasers start n/(SMs*lanes) slots apart, so they never
// share lines.
// Output: LOADED lines (one per delay x lanes, median of --reps launches).
//
// --op store | copy (default load): the streamers write instead (each trip
// stores 4 float4 per thread, 2 KiB per warp, to the 2 GiB buffer: L2 is
// write-back, so DRAM sees the dirty lines it evicts), or load 4 float4 from
// the buffer's first half and store them to its second half (half reads,
// half writes).  Achieved bandwidth counts the bytes loaded plus stored.
// --hist 1: the chaser's lane 0 also stamps clock64() after each timed load
// (the next instruction depends on the loaded value: in-order issue waits
// for it) into a per-SM array, so each load's latency is kept; a HIST line
// per point gives the quantiles and a 50-cycle histogram over all SMs and
// the timed launches.  The stamps cost some cycles per load (the quantiles
// include them; cyc_per_load_* on the LOADED line come from the same loop).
#include "common.cuh"

constexpr int BLOCK = 256;
constexpr int SLOTS = 64;  // per-SM record slots

__device__ __forceinline__ unsigned long long ld_cg(unsigned long long p) {
  unsigned long long v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

struct Rec {
  long long cyc;        // timed chase cycles (max over chasing lanes)
  long long ovh;        // empty timed region
  long long t0_ns, t1_ns;  // globaltimer at chase start/end
};

// OP: 0 load, 1 store, 2 copy (the streamers); HIST: per-load stamps into lat.
template <int OP, int HIST>
__global__ void __launch_bounds__(BLOCK)
    loaded(float4 *__restrict__ stream, size_t n4, unsigned long long *ptrs, int lanes, int warm,
           int iters, int delay, int *claim, unsigned *done, int nchasers, Rec *rec,
           unsigned long long *streamed, long long cap_ns, unsigned *lat) {
  __shared__ int chaser_block;
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if (threadIdx.x == 0) chaser_block = atomicCAS(&claim[smid], 0, 1) == 0;
  __syncthreads();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (chaser_block && warp == BLOCK / 32 - 1) {
    long long cyc = 0, ovh = 0, t0 = 0, t1 = 0;
    if (lane < lanes) {
      unsigned long long p = ptrs[smid * 32 + lane];
      for (int i = 0; i < warm; i++) p = ld_cg(p);
      ptrs[smid * 32 + lane] = p;
      long long o0 = clock64();
      long long o1 = clock64();
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
      long long c0 = clock64();
      if (HIST) {
        // each stamp waits for its load: the add reads p, and issue is in order
        unsigned long long sink = 0;
        long long tp = c0;
#pragma unroll 1
        for (int i = 0; i < iters; i++) {
          p = ld_cg(p);
          asm volatile("add.u64 %0, %0, %1;" : "+l"(sink) : "l"(p));
          long long tn = clock64();
          if (lane == 0) lat[(size_t)smid * iters + i] = (unsigned)(tn - tp);
          tp = tn;
        }
        if (sink == 1) p ^= 1;  // never: sink is a sum of addresses
      } else {
#pragma unroll 1
        for (int i = 0; i < iters; i += 16) {
#pragma unroll
          for (int u = 0; u < 16; u++) p = ld_cg(p);
        }
      }
      ptrs[smid * 32 + lane] = p;
      long long c1 = clock64();
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
      cyc = c1 - c0;
      ovh = o1 - o0;
    }
    // lane 0 keeps the slowest lane
    for (int o = 16; o > 0; o /= 2) cyc = max(cyc, __shfl_xor_sync(0xffffffffu, cyc, o));
    if (lane == 0) {
      Rec r;
      r.cyc = cyc;
      r.ovh = ovh;
      r.t0_ns = t0;
      r.t1_ns = t1;
      rec[smid] = r;
      __threadfence();
      atomicAdd(done, 1u);
    }
    return;
  }
  if (delay < 0) return;
  // streamer
  const size_t nwarps_total = (size_t)gridDim.x * (BLOCK / 32);
  const size_t gw = (size_t)blockIdx.x * (BLOCK / 32) + warp;
  const size_t chunk = 4 * 32;  // float4 per warp trip
  // copy: loads from the first half, stores to the second
  const size_t nchunks = (OP == 2 ? n4 / 2 : n4) / chunk;
  float4 *out = stream + (OP == 2 ? n4 / 2 : 0);
  size_t c = gw;
  unsigned long long got = 0;
  float acc = 0.0f;
  unsigned long long start;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  volatile unsigned *vdone = done;
  for (;;) {
    if (OP == 0) {
      const float4 *q = stream + c * chunk + lane;
      float4 v0 = q[0], v1 = q[32], v2 = q[64], v3 = q[96];
      acc += ((v0.x + v0.y) + (v0.z + v0.w)) + ((v1.x + v1.y) + (v1.z + v1.w)) +
             ((v2.x + v2.y) + (v2.z + v2.w)) + ((v3.x + v3.y) + (v3.z + v3.w));
      got += chunk * 16 / 32;  // this lane's share of the warp's bytes
    } else if (OP == 1) {
      float4 *q = out + c * chunk + lane;
      const float f = (float)(c & 1023);
      q[0] = make_float4(f, f, f, f);
      q[32] = make_float4(f, f, f, f);
      q[64] = make_float4(f, f, f, f);
      q[96] = make_float4(f, f, f, f);
      got += chunk * 16 / 32;
    } else {
      const float4 *q = stream + c * chunk + lane;
      float4 *o = out + c * chunk + lane;
      float4 v0 = q[0], v1 = q[32], v2 = q[64], v3 = q[96];
      o[0] = v0;
      o[32] = v1;
      o[64] = v2;
      o[96] = v3;
      got += 2 * chunk * 16 / 32;  // loaded and stored
    }
    c += nwarps_total;
    if (c >= nchunks) c -= nchunks;
    if (delay > 0) {
      long long s0 = clock64();
      while (clock64() - s0 < delay) {
      }
    }
    if (*vdone >= (unsigned)nchasers) break;
    unsigned long long now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if ((long long)(now - start) > cap_ns) break;
  }
  if (acc == 12345.678f) got++;  // keeps the loads' values live
  for (int o = 16; o > 0; o /= 2) got += __shfl_xor_sync(0xffffffffu, got, o);
  if (lane == 0) atomicAdd(streamed, got);
}

__global__ void init_chain(char *base, const uint32_t *order, uint64_t n, uint64_t stride) {
  uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t here = order[i], next = order[(i + 1) % n];
  *(unsigned long long *)(base + here * stride) = (unsigned long long)(base + next * stride);
}

__global__ void init_f(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride) x[i] = (float)(i & 255);
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"delays", "lanes", "iters", "warm", "reps", "chase-bytes", "stream-bytes",
                           "cap-ms", "seed", "op", "hist"});
  kit::Device d = kit::open_device("loaded");
  const int nsm = d.prop.multiProcessorCount;
  auto delays = a.list("delays", "-1,64000,32000,16000,12000,8000,6000,4000,3000,2000,1000,0");
  auto lanes_list = a.list("lanes", "1,32");
  int iters = (int)a.num("iters", 2048), warm = (int)a.num("warm", 256), reps = (int)a.num("reps", 3);
  size_t chase_bytes = (size_t)a.num("chase-bytes", 1LL << 30);
  size_t stream_bytes = (size_t)a.num("stream-bytes", 2LL << 30);
  long long cap_ns = a.num("cap-ms", 200) * 1000000LL;
  uint64_t seed = (uint64_t)a.num("seed", 777);
  const std::string op = a.str("op", "load");
  const int hist = (int)a.num("hist", 0);
  typedef void (*LFn)(float4 *, size_t, unsigned long long *, int, int, int, int, int *, unsigned *, int, Rec *,
                      unsigned long long *, long long, unsigned *);
  LFn kern = nullptr;
  if (op == "load") kern = hist ? loaded<0, 1> : loaded<0, 0>;
  if (op == "store") kern = hist ? loaded<1, 1> : loaded<1, 0>;
  if (op == "copy") kern = hist ? loaded<2, 1> : loaded<2, 0>;
  if (!kern) kit::Args::die("op must be load, store or copy");
  iters = (iters + 15) / 16 * 16;
  const uint64_t stride = 128, n = chase_bytes / stride;

  // Exactly 4 blocks per SM: pad dynamic shared memory (carveout 100) so no
  // SM can take a fifth and every SM gets four.
  // (128 bytes less than a quarter, for the kernel's 4 bytes of static shared memory)
  const int dyn = (int)((d.prop.sharedMemPerMultiprocessor / 4) / 128 * 128 - d.prop.reservedSharedMemPerBlock - 128);
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  CK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, kern, BLOCK, dyn));
  if (occ != 4) {
    std::printf("ERROR prog=loaded msg=occupancy_%d_not_4\n", occ);
    return 2;
  }
  const int grid = nsm * 4;
  char *cbuf;
  float4 *sbuf;
  unsigned long long *ptrs, *streamed;
  int *claim;
  unsigned *done;
  Rec *rec;
  CK(cudaMalloc(&cbuf, chase_bytes));
  CK(cudaMalloc(&sbuf, stream_bytes));
  CK(cudaMalloc(&streamed, 8));
  CK(cudaMalloc(&claim, SLOTS * 4 * 4));
  CK(cudaMalloc(&done, 4));
  CK(cudaMalloc(&rec, SLOTS * 4 * sizeof(Rec)));
  if (nsm > SLOTS * 4) kit::Args::die("too many SMs");
  CK(cudaMalloc(&ptrs, (size_t)nsm * 32 * 8));
  unsigned *lat = nullptr;
  if (hist) CK(cudaMalloc(&lat, (size_t)nsm * iters * 4));
  std::vector<uint32_t> order = kit::cycle_order(n, 0, seed);
  {
    uint32_t *d_order;
    CK(cudaMalloc(&d_order, n * 4));
    CK(cudaMemcpy(d_order, order.data(), n * 4, cudaMemcpyHostToDevice));
    init_chain<<<(unsigned)((n + 255) / 256), 256>>>(cbuf, d_order, n, stride);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d_order));
  }
  init_f<<<1024, 256>>>((float *)sbuf, stream_bytes / 4);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::printf("INFO prog=loaded grid=%d block=%d dyn=%d occ_api=%d chase_bytes=%zu stream_bytes=%zu slots=%llu "
              "iters=%d warm=%d\n", grid, BLOCK, dyn, occ, chase_bytes, stream_bytes, (unsigned long long)n, iters,
              warm);
  int failures = 0;
  for (long long lanes : lanes_list) {
    if (lanes != 1 && lanes != 32) kit::Args::die("lanes must be 1 or 32");
    // positions along the cycle: chaser of SM s, lane l starts at (s*32+l)*n/(nsm*32)
    std::vector<uint64_t> pos((size_t)nsm * 32);
    std::vector<unsigned long long> hp((size_t)nsm * 32);
    for (int i = 0; i < nsm * 32; i++) {
      pos[i] = (uint64_t)i * n / ((uint64_t)nsm * 32);
      hp[i] = (unsigned long long)(cbuf + (uint64_t)order[pos[i]] * stride);
    }
    CK(cudaMemcpy(ptrs, hp.data(), hp.size() * 8, cudaMemcpyHostToDevice));
    for (long long delay : delays) {
      std::vector<double> cpl_med, cpl_max, gbps, kms, chasers_v;
      std::vector<unsigned> lats;  // --hist: every timed load of every SM, timed launches
      bool ok = true;
      for (int r = 0; r < reps + 1; r++) {  // r = 0: untimed warm-up launch
        CK(cudaMemset(claim, 0, nsm * 4));
        CK(cudaMemset(done, 0, 4));
        CK(cudaMemset(streamed, 0, 8));
        CK(cudaMemset(rec, 0, nsm * sizeof(Rec)));
        cudaEvent_t e0, e1;
        CK(cudaEventCreate(&e0));
        CK(cudaEventCreate(&e1));
        CK(cudaEventRecord(e0));
        kern<<<grid, BLOCK, dyn>>>(sbuf, stream_bytes / 16, ptrs, (int)lanes, warm, iters, (int)delay, claim, done,
                                   nsm, rec, streamed, cap_ns, lat);
        CK(cudaEventRecord(e1));
        CK(cudaGetLastError());
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        CK(cudaEventDestroy(e0));
        CK(cudaEventDestroy(e1));
        std::vector<Rec> hr(nsm);
        CK(cudaMemcpy(hr.data(), rec, nsm * sizeof(Rec), cudaMemcpyDeviceToHost));
        std::vector<unsigned long long> np((size_t)nsm * 32);
        CK(cudaMemcpy(np.data(), ptrs, np.size() * 8, cudaMemcpyDeviceToHost));
        unsigned hd = 0;
        unsigned long long hs = 0;
        CK(cudaMemcpy(&hd, done, 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(&hs, streamed, 8, cudaMemcpyDeviceToHost));
        // every SM's chasing lanes advanced warm+iters along the cycle
        for (int s = 0; s < nsm; s++)
          for (int l = 0; l < lanes; l++) {
            size_t i = (size_t)s * 32 + l;
            pos[i] = (pos[i] + (uint64_t)warm + (uint64_t)iters) % n;
            if (np[i] != (unsigned long long)(cbuf + (uint64_t)order[pos[i]] * stride)) ok = false;
          }
        if (hd != (unsigned)nsm) ok = false;
        if (r == 0) continue;
        if (hist) {
          std::vector<unsigned> hl((size_t)nsm * iters);
          CK(cudaMemcpy(hl.data(), lat, hl.size() * 4, cudaMemcpyDeviceToHost));
          lats.insert(lats.end(), hl.begin(), hl.end());
        }
        std::vector<double> cpl;
        for (int s = 0; s < nsm; s++) cpl.push_back((double)(hr[s].cyc - hr[s].ovh) / iters);
        cpl_med.push_back(kit::median(cpl));
        cpl_max.push_back(*std::max_element(cpl.begin(), cpl.end()));
        gbps.push_back((double)hs / (ms * 1e6));
        kms.push_back(ms);
        chasers_v.push_back(hd);
      }
      if (!ok) failures++;
      std::printf("LOADED prog=loaded op=%s hist=%d lanes=%lld delay_cyc=%lld streaming=%d stream_warps_per_sm=31 "
                  "bytes_in_flight_per_sm_max=%d iters=%d reps=%d kernel_ms_med=%.4f stream_GBps_med=%.1f "
                  "stream_GBps_min=%.1f stream_GBps_max=%.1f cyc_per_load_med_over_sms=%.1f "
                  "cyc_per_load_max_over_sms=%.1f cyc_per_load_med_min_rep=%.1f cyc_per_load_med_max_rep=%.1f "
                  "chasers=%.0f check=%s\n",
                  op.c_str(), hist, lanes, delay, delay >= 0 ? 1 : 0, 31 * 2048, iters, reps, kit::median(kms),
                  kit::median(gbps), *std::min_element(gbps.begin(), gbps.end()),
                  *std::max_element(gbps.begin(), gbps.end()), kit::median(cpl_med), kit::median(cpl_max),
                  *std::min_element(cpl_med.begin(), cpl_med.end()),
                  *std::max_element(cpl_med.begin(), cpl_med.end()), kit::median(chasers_v),
                  ok ? "ok" : "FAIL");
      if (hist && !lats.empty()) {
        std::sort(lats.begin(), lats.end());
        auto q = [&](double f) { return lats[std::min(lats.size() - 1, (size_t)(f * (double)lats.size()))]; };
        double sum = 0;
        for (unsigned v : lats) sum += v;
        const int BIN = 50, NB = 200;  // 50-cycle bins, the last one holds everything from 9950 on
        std::vector<unsigned long long> cnt(NB, 0);
        for (unsigned v : lats) cnt[std::min<size_t>(NB - 1, v / BIN)]++;
        int last = NB - 1;
        while (last > 0 && cnt[last] == 0) last--;
        std::printf("HIST prog=loaded op=%s lanes=%lld delay_cyc=%lld n=%zu mean=%.1f p10=%u p25=%u p50=%u p75=%u "
                    "p90=%u p99=%u max=%u bin=%d counts=",
                    op.c_str(), lanes, delay, lats.size(), sum / (double)lats.size(), q(0.10), q(0.25), q(0.50),
                    q(0.75), q(0.90), q(0.99), lats.back(), BIN);
        for (int b = 0; b <= last; b++) std::printf(b ? ",%llu" : "%llu", cnt[b]);
        std::printf("\n");
      }
      std::fflush(stdout);
    }
  }
  return failures ? 1 : 0;
}
