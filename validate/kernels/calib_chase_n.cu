// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17): a warp's effective load latency versus the number of
// distinct lines it has in flight.
//
// One block per SM (dynamic shared memory padding, carveout 100), W warps per
// block (1, 4 = one per SMSP, 16).  Each warp walks pointer chains on one random
// cycle of 128-byte lines (ld.global.cg: L2, or DRAM when the buffer is 1 GiB).
// Per step a warp issues n independent loads to n distinct lines and waits for
// all of them (their values are stored to shared memory before the next
// clock64), in one of two shapes:
//   mode=lanes: n active lanes, one LDG per step (n lines under one instruction)
//   mode=ilp:   lane 0 only, n independent LDGs per step (n instructions)
// Every chain starts at its own point of the cycle, spaced n_lines/chains
// apart, and the steps are clipped so no chain walks into another one's lines
// (DRAM buffer; the 16 MiB L2 buffer is warmed by a full .cg pass first and the
// chains may share lines there: they all hit L2 anyway).  n = 0 times the
// empty step (clock64 + shared store): the timing overhead.
// Output: CHASEN lines, per-step cycles (median, p10, p90 over all steps x warps
// x SMs; the first `warm` steps are untimed) and the mean over the whole walk.
// Check: every chain ends exactly warm+steps positions further along the cycle,
// and every SM ran exactly one block.
#include "common.cuh"

constexpr int MAXW = 16, MAXSTEPS = 128;

__device__ __forceinline__ unsigned long long ld_cg(unsigned long long p) {
  unsigned long long v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

template <int K>
__global__ void __launch_bounds__(MAXW * 32, 1)
    chase_n(unsigned long long *ptrs, int lanes, int warm, int steps, int *claim, int *stamps,
            long long *total) {
  __shared__ int st[MAXW][MAXSTEPS];
  __shared__ unsigned sink[MAXW * 32];
  volatile unsigned *vsink = sink;
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, W = blockDim.x / 32;
  if (threadIdx.x == 0) atomicAdd(&claim[smid], 1);
  const bool on = lane < lanes;
  const size_t base = (((size_t)smid * W + warp) * 32 + lane) * K;
  unsigned long long p[K];
#pragma unroll
  for (int k = 0; k < K; k++) p[k] = on ? ptrs[base + k] : 0ull;
  for (int s = 0; s < warm; s++) {
    if (on) {
#pragma unroll
      for (int k = 0; k < K; k++) p[k] = ld_cg(p[k]);
    }
  }
  unsigned long long x = 0;
#pragma unroll
  for (int k = 0; k < K; k++) x ^= p[k];
  vsink[threadIdx.x] = (unsigned)x;
  __syncwarp();
  long long c0 = clock64();
  const long long cstart = c0;
#pragma unroll 1
  for (int s = 0; s < steps; s++) {
    if (on) {
#pragma unroll
      for (int k = 0; k < K; k++) p[k] = ld_cg(p[k]);
    }
    unsigned long long y = 0;
#pragma unroll
    for (int k = 0; k < K; k++) y ^= p[k];
    vsink[threadIdx.x] = (unsigned)y;  // waits for every load of the step (volatile: never dropped or moved)
    long long c1 = clock64();
    if (lane == 0) st[warp][s] = (int)(c1 - c0);
    c0 = c1;
  }
  const long long cend = c0;
  __syncwarp();
  if (on) {
#pragma unroll
    for (int k = 0; k < K; k++) ptrs[base + k] = p[k];
  }
  if (lane == 0) total[smid * MAXW + warp] = cend - cstart;
  for (int s = lane; s < steps; s += 32) stamps[((size_t)smid * MAXW + warp) * MAXSTEPS + s] = st[warp][s];
}

__global__ void init_chain(char *base, const uint32_t *order, uint64_t n, uint64_t stride) {
  uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint64_t here = order[i], next = order[(i + 1) % n];
  *(unsigned long long *)(base + here * stride) = (unsigned long long)(base + next * stride);
}

__global__ void warm_l2(const char *base, size_t bytes, unsigned long long *sink) {
  unsigned long long acc = 0;
  for (size_t o = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) * 32; o < bytes;
       o += (size_t)gridDim.x * blockDim.x * 32) {
    unsigned long long v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(base + o));
    acc += v;
  }
  if (acc == 1) *sink = acc;
}

typedef void (*KFn)(unsigned long long *, int, int, int, int *, int *, long long *);

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"mems", "wps", "ns", "modes", "steps", "warm", "reps", "seed"});
  kit::Device d = kit::open_device("chase_n");
  const int nsm = d.prop.multiProcessorCount;
  auto mems = a.words("mems", "dram,l2");
  auto wps = a.list("wps", "1,4,16");
  auto ns = a.list("ns", "0,1,2,4,8,16,32");
  auto modes = a.words("modes", "lanes,ilp");
  int steps_max = (int)a.num("steps", MAXSTEPS), warm = (int)a.num("warm", 4), reps = (int)a.num("reps", 3);
  uint64_t seed = (uint64_t)a.num("seed", 4242);
  if (steps_max > MAXSTEPS) steps_max = MAXSTEPS;
  const uint64_t stride = 128;
  KFn fns[6] = {chase_n<1>, chase_n<2>, chase_n<4>, chase_n<8>, chase_n<16>, chase_n<32>};
  const int dyn = (int)d.prop.sharedMemPerBlockOptin - (int)(sizeof(int) * MAXW * MAXSTEPS + 4 * MAXW * 32);
  for (KFn f : fns) {
    CK(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    CK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
  }
  unsigned long long *ptrs, *sinkp;
  int *claim, *stamps;
  long long *total;
  const size_t maxchains = (size_t)nsm * MAXW * 32 * 32;
  CK(cudaMalloc(&ptrs, maxchains * 8));
  CK(cudaMalloc(&claim, 1024 * 4));
  CK(cudaMalloc(&sinkp, 8));
  CK(cudaMalloc(&stamps, (size_t)1024 * MAXW * MAXSTEPS * 4));
  CK(cudaMalloc(&total, (size_t)1024 * MAXW * 8));
  int failures = 0;
  for (auto &mem : mems) {
    size_t bytes;
    if (mem == "dram") bytes = 1ull << 30;
    else if (mem == "l2") bytes = 16ull << 20;
    else kit::Args::die("mem must be dram or l2");
    const uint64_t n = bytes / stride;
    char *buf;
    CK(cudaMalloc(&buf, bytes));
    std::vector<uint32_t> order = kit::cycle_order(n, 0, seed);
    {
      uint32_t *d_order;
      CK(cudaMalloc(&d_order, n * 4));
      CK(cudaMemcpy(d_order, order.data(), n * 4, cudaMemcpyHostToDevice));
      init_chain<<<(unsigned)((n + 255) / 256), 256>>>(buf, d_order, n, stride);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      CK(cudaFree(d_order));
    }
    for (auto &mode : modes) {
      if (mode != "lanes" && mode != "ilp") kit::Args::die("mode must be lanes or ilp");
      for (long long W : wps) {
        if (W < 1 || W > MAXW) kit::Args::die("wps must be 1..16");
        for (long long nn : ns) {
          if (nn < 0 || nn > 32) kit::Args::die("n must be 0..32");
          if (mode == "ilp" && nn == 0) continue;
          int lanes, K;
          if (mode == "lanes") { lanes = (int)nn; K = 1; }
          else { lanes = 1; K = (int)nn; }
          int ki = 0;
          while ((1 << ki) < K) ki++;
          if ((1 << ki) != K) kit::Args::die("ilp n must be a power of two");
          const uint64_t chains = (uint64_t)nsm * W * 32 * K;  // slots (inactive lanes keep theirs, unused)
          const uint64_t active = (uint64_t)nsm * W * std::max(lanes, 1) * K;
          const uint64_t spacing = n / active;
          int steps = steps_max;
          bool overlap = false;
          if (spacing < (uint64_t)(warm + steps)) {
            if (mem == "dram") steps = (int)std::max<int64_t>(8, (int64_t)spacing - warm);
            overlap = spacing < (uint64_t)(warm + steps);
          }
          std::vector<uint64_t> pos(chains, 0);
          std::vector<unsigned long long> hp(chains, (unsigned long long)buf);
          for (uint64_t i = 0; i < chains; i++) {
            const uint64_t k = i % K, lane = (i / K) % 32, sw = i / K / 32;  // sw = smid * W + warp
            if ((int)lane >= lanes) continue;
            const uint64_t j = (sw * lanes + lane) * K + k;  // index among the active chains
            pos[i] = j * n / active;
            hp[i] = (unsigned long long)(buf + (uint64_t)order[pos[i]] * stride);
          }
          CK(cudaMemcpy(ptrs, hp.data(), chains * 8, cudaMemcpyHostToDevice));
          std::vector<double> med, p10, p90, mean;
          bool ok = true;
          for (int r = 0; r <= reps; r++) {  // r = 0: warm-up launch
            if (mem == "l2") {
              warm_l2<<<nsm * 4, 256>>>(buf, bytes, sinkp);
              CK(cudaGetLastError());
            }
            CK(cudaMemset(claim, 0, 1024 * 4));
            fns[ki]<<<nsm, (unsigned)(W * 32), dyn>>>(ptrs, lanes, warm, steps, claim, stamps, total);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            std::vector<int> hc(nsm);
            CK(cudaMemcpy(hc.data(), claim, nsm * 4, cudaMemcpyDeviceToHost));
            for (int s = 0; s < nsm; s++)
              if (hc[s] != 1) ok = false;
            std::vector<unsigned long long> np(chains);
            CK(cudaMemcpy(np.data(), ptrs, chains * 8, cudaMemcpyDeviceToHost));
            for (uint64_t i = 0; i < chains; i++) {
              uint64_t lane = (i / K) % 32;
              if ((int)lane >= lanes) continue;
              pos[i] = (pos[i] + warm + steps) % n;
              if (np[i] != (unsigned long long)(buf + (uint64_t)order[pos[i]] * stride)) ok = false;
            }
            if (r == 0) continue;
            std::vector<int> hs((size_t)nsm * MAXW * MAXSTEPS);
            std::vector<long long> ht((size_t)nsm * MAXW);
            CK(cudaMemcpy(hs.data(), stamps, hs.size() * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(ht.data(), total, ht.size() * 8, cudaMemcpyDeviceToHost));
            std::vector<int> all;
            std::vector<double> mm;
            for (int s = 0; s < nsm; s++)
              for (int w = 0; w < W; w++) {
                for (int t = 0; t < steps; t++) all.push_back(hs[((size_t)s * MAXW + w) * MAXSTEPS + t]);
                mm.push_back((double)ht[(size_t)s * MAXW + w] / steps);
              }
            std::sort(all.begin(), all.end());
            med.push_back(all[all.size() / 2]);
            p10.push_back(all[all.size() / 10]);
            p90.push_back(all[all.size() * 9 / 10]);
            mean.push_back(kit::median(mm));
          }
          if (!ok) failures++;
          std::printf("CHASEN prog=chase_n mem=%s bytes=%zu mode=%s warps_per_sm=%lld lines_per_warp_step=%lld "
                      "lanes=%d loads_per_lane=%d steps=%d warm=%d chains_overlap=%d reps=%d "
                      "cyc_step_med=%.1f cyc_step_p10=%.1f cyc_step_p90=%.1f cyc_step_mean_med_over_warps=%.1f "
                      "cyc_step_med_min_rep=%.1f cyc_step_med_max_rep=%.1f check=%s\n",
                      mem.c_str(), bytes, mode.c_str(), W, nn, lanes, K, steps, warm, overlap ? 1 : 0, reps,
                      kit::median(med), kit::median(p10), kit::median(p90), kit::median(mean),
                      *std::min_element(med.begin(), med.end()), *std::max_element(med.begin(), med.end()),
                      ok ? "ok" : "FAIL");
          std::fflush(stdout);
        }
      }
    }
    CK(cudaFree(buf));
  }
  std::printf("DONE prog=chase_n failures=%d\n", failures);
  return failures ? 1 : 0;
}
