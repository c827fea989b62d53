// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (scheduler order): which warps an SMSP serves first when more
// than one could issue every cycle.
//
// One wave: b blocks per SM (dynamic shared memory pads the block so that
// exactly b fit; grid = SMs x b), W warps per block.  Every warp runs C
// independent FFMA chains for `iters` trips of 256 FFMAs (--chains, default
// 8).  With C = 8 (order_ffma) one warp alone could issue every cycle and the
// SMSP's scheduler alone decides who goes first (kit15); with C = 1, 2, 4
// (order_dep<C>) a warp waits on its own FFMA's latency between issues, as
// the validation's ffma-ilp kernels do, and the scheduler decides among the
// warps that are ready (kit16).  Each warp stamps clock64() before and after
// its chains and records %smid, its block and warp.  kit14's pipes (one
// block) showed the warps of a block progressing together; this asks the
// same across blocks: on an SM holding several blocks, does the block that
// started first finish first (oldest first), last (youngest first), or
// together with the others?
//
// Output, per (C, b, W) point:
//   ORDER chains=.. b=.. warps=.. sms=.. first_done_oldest=<SMs whose
//     earliest-started block finished (median warp end) before its
//     latest-started block> first_done_youngest=<the reverse>
//     life_frac_med=<median over warps of (t1 - t0) / the SM's span (max t1 -
//     min t0)> start_spread_med=<median over SMs of the latest block start -
//     the earliest, cycles> span_med=<median SM span> check=ok|FAIL
//   WARP chains=.. b=.. warps=.. sm=.. block=.. warp=.. t0=.. t1=..
//     (SM-relative: cycles after the SM's first t0), for every warp of SMs 0..3
// (kit15 ran the C = 8 kernel before the chains= field existed.)
#include "common.cuh"

constexpr int CHAINS = 8;
constexpr int PER_TRIP = 256;  // FFMAs per trip, all chains

template <int CH>
__device__ __forceinline__ void order_body(int iters, float a, float b, long long *out, float *sink) {
  extern __shared__ float pad[];
  float x[CH];
#pragma unroll
  for (int k = 0; k < CH; k++) x[k] = 0.5f + 0.01f * k + 0.0001f * (threadIdx.x & 31);
  if (threadIdx.x == 0) pad[0] = 0.0f;  // the padding is there to limit residency
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int s = 0; s < PER_TRIP / CH; s++) {
#pragma unroll
      for (int k = 0; k < CH; k++) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[k]) : "f"(a), "f"(b));
    }
  }
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < CH; k++) acc += x[k];
  const int gw = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if ((threadIdx.x & 31) == 0) sink[gw] = acc;  // waits for every chain
  long long t1 = clock64();
  unsigned smid;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  if ((threadIdx.x & 31) == 0) {
    out[4 * gw + 0] = t0;
    out[4 * gw + 1] = t1;
    out[4 * gw + 2] = smid;
    out[4 * gw + 3] = blockIdx.x;
  }
}
// 8 independent chains: each warp could issue about every cycle (kit15)
__global__ void order_ffma(int iters, float a, float b, long long *out, float *sink) {
  order_body<CHAINS>(iters, a, b, out, sink);
}
// CH = 1, 2, 4 chains: a warp waits on its own FFMA latency between issues,
// as the validation's ffma-ilp kernels do (kit16)
template <int CH>
__global__ void order_dep(int iters, float a, float b, long long *out, float *sink) {
  order_body<CH>(iters, a, b, out, sink);
}

int main(int argc, char **argv) {
  kit::Args args(argc, argv, {"res", "warps", "iters", "chains"});
  kit::Device d = kit::open_device("order");
  auto res = args.list("res", "2,4");
  auto warps_list = args.list("warps", "4,8");
  int iters = (int)args.num("iters", 64);
  auto chains_list = args.list("chains", "8");
  const int sms = d.prop.multiProcessorCount;
  int failures = 0;
  for (long long C : chains_list) {
  const void *fn = C == 8 ? (const void *)order_ffma
                 : C == 4 ? (const void *)order_dep<4>
                 : C == 2 ? (const void *)order_dep<2>
                 : C == 1 ? (const void *)order_dep<1> : nullptr;
  if (!fn) {
    std::printf("SKIP prog=order chains=%lld why=chains must be 1, 2, 4 or 8\n", C);
    failures++;
    continue;
  }
  for (long long W : warps_list) {
    int block = (int)(32 * W);
    kit::KernelInfo ki = kit::kernel_info(C == 8 ? "order_ffma" : "order_dep", fn, block);
    for (long long b : res) {
      kit::Point p;
      std::string why;
      if (!kit::plan_point(d, fn, ki, block, (int)b, 1, p, why)) {
        std::printf("SKIP prog=order chains=%lld b=%lld warps=%lld why=%s\n", C, b, W, why.c_str());
        continue;
      }
      int nw = p.grid * (int)W;
      long long *d_out;
      float *d_sink;
      CK(cudaMalloc(&d_out, 4 * (size_t)nw * sizeof(long long)));
      CK(cudaMalloc(&d_sink, (size_t)nw * sizeof(float)));
      float fa = 0.999f, fb = 0.001f;
      for (int r = 0; r < 2; r++) {  // launch 0 warms the instruction cache
        void *argv_[] = {&iters, &fa, &fb, &d_out, &d_sink};
        CK(cudaLaunchKernel(fn, dim3(p.grid), dim3(block), argv_, (size_t)p.dyn, 0));
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      }
      std::vector<long long> h(4 * (size_t)nw);
      CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
      CK(cudaFree(d_out));
      CK(cudaFree(d_sink));
      // per SM: its blocks, each with its warps' (t0, t1)
      struct Blk { long long blk, t0min, t1med; };
      std::vector<std::vector<int>> of_sm(sms);
      bool ok = true;
      for (int w = 0; w < nw; w++) {
        long long sm = h[4 * w + 2];
        if (sm < 0 || sm >= sms || h[4 * w + 1] <= h[4 * w]) { ok = false; continue; }
        of_sm[sm].push_back(w);
      }
      int used = 0, oldest = 0, youngest = 0;
      std::vector<double> frac, spread, spans;
      for (int sm = 0; sm < sms; sm++) {
        auto &ws = of_sm[sm];
        if (ws.empty()) continue;
        long long lo = h[4 * ws[0]], hi = h[4 * ws[0] + 1];
        for (int w : ws) { lo = std::min(lo, h[4 * w]); hi = std::max(hi, h[4 * w + 1]); }
        std::vector<long long> blks;
        for (int w : ws) blks.push_back(h[4 * w + 3]);
        std::sort(blks.begin(), blks.end());
        blks.erase(std::unique(blks.begin(), blks.end()), blks.end());
        std::vector<Blk> bs;
        for (long long bk : blks) {
          std::vector<long long> t1s;
          long long t0m = -1;
          for (int w : ws)
            if (h[4 * w + 3] == bk) {
              t1s.push_back(h[4 * w + 1]);
              t0m = t0m < 0 ? h[4 * w] : std::min(t0m, h[4 * w]);
            }
          bs.push_back({bk, t0m, kit::median(t1s)});
        }
        for (int w : ws) frac.push_back((double)(h[4 * w + 1] - h[4 * w]) / (double)(hi - lo));
        spans.push_back((double)(hi - lo));
        if (bs.size() < 2) continue;
        used++;
        std::sort(bs.begin(), bs.end(), [](const Blk &x, const Blk &y) { return x.t0min < y.t0min; });
        spread.push_back((double)(bs.back().t0min - bs.front().t0min));
        if (bs.front().t1med < bs.back().t1med) oldest++;
        else if (bs.front().t1med > bs.back().t1med) youngest++;
        if (sm < 4)
          for (int w : ws)
            std::printf("WARP chains=%lld b=%lld warps=%lld sm=%d block=%lld warp=%d t0=%lld t1=%lld\n", C, b, W, sm,
                        h[4 * w + 3], (w % (int)W), h[4 * w] - lo, h[4 * w + 1] - lo);
      }
      if (!ok) failures++;
      std::printf("ORDER chains=%lld b=%lld warps=%lld iters=%d dyn=%d sms=%d first_done_oldest=%d "
                  "first_done_youngest=%d life_frac_med=%.3f start_spread_med=%.0f span_med=%.0f check=%s\n",
                  C, b, W, iters, p.dyn, used, oldest, youngest, frac.empty() ? 0.0 : kit::median(frac),
                  spread.empty() ? 0.0 : kit::median(spread), spans.empty() ? 0.0 : kit::median(spans),
                  ok ? "ok" : "FAIL");
      std::fflush(stdout);
    }
  }
  }
  return failures ? 1 : 0;
}
