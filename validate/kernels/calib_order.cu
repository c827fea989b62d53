// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (scheduler order): which warps an SMSP serves first when more
// than one could issue every cycle.
//
// One wave: b blocks per SM (dynamic shared memory pads the block so that
// exactly b fit; grid = SMs x b), W warps per block.  Every warp runs C = 8
// independent FFMA chains for `iters` trips of 256 FFMAs, so one warp alone
// could issue every cycle and the SMSP's scheduler alone decides who goes
// first.  Each warp stamps clock64() before and after its chains and records
// %smid, its block and warp.  kit14's pipes (one block) showed the warps of
// a block progressing together; this asks the same across blocks: on an SM
// holding several blocks, does the block that started first finish first
// (oldest first), last (youngest first), or together with the others?
//
// Output, per (b, W) point:
//   ORDER b=.. warps=.. sms=.. first_done_oldest=<SMs whose earliest-started
//     block finished (median warp end) before its latest-started block>
//     first_done_youngest=<the reverse> life_frac_med=<median over warps of
//     (t1 - t0) / the SM's span (max t1 - min t0)> start_spread_med=<median
//     over SMs of the latest block start - the earliest, cycles>
//     span_med=<median SM span> check=ok|FAIL
//   WARP b=.. warps=.. sm=.. block=.. warp=.. t0=.. t1=.. (SM-relative:
//     cycles after the SM's first t0), for every warp of SMs 0..3
#include "common.cuh"

constexpr int CHAINS = 8;
constexpr int PER_TRIP = 256;  // FFMAs per trip, all chains

__global__ void order_ffma(int iters, float a, float b, long long *out, float *sink) {
  extern __shared__ float pad[];
  float x[CHAINS];
#pragma unroll
  for (int k = 0; k < CHAINS; k++) x[k] = 0.5f + 0.01f * k + 0.0001f * (threadIdx.x & 31);
  if (threadIdx.x == 0) pad[0] = 0.0f;  // the padding is there to limit residency
  long long t0 = clock64();
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int s = 0; s < PER_TRIP / CHAINS; s++) {
#pragma unroll
      for (int k = 0; k < CHAINS; k++) asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(x[k]) : "f"(a), "f"(b));
    }
  }
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < CHAINS; k++) acc += x[k];
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

int main(int argc, char **argv) {
  kit::Args args(argc, argv, {"res", "warps", "iters"});
  kit::Device d = kit::open_device("order");
  auto res = args.list("res", "2,4");
  auto warps_list = args.list("warps", "4,8");
  int iters = (int)args.num("iters", 64);
  const int sms = d.prop.multiProcessorCount;
  int failures = 0;
  for (long long W : warps_list) {
    int block = (int)(32 * W);
    kit::KernelInfo ki = kit::kernel_info("order_ffma", (const void *)order_ffma, block);
    for (long long b : res) {
      kit::Point p;
      std::string why;
      if (!kit::plan_point(d, (const void *)order_ffma, ki, block, (int)b, 1, p, why)) {
        std::printf("SKIP prog=order b=%lld warps=%lld why=%s\n", b, W, why.c_str());
        continue;
      }
      int nw = p.grid * (int)W;
      long long *d_out;
      float *d_sink;
      CK(cudaMalloc(&d_out, 4 * (size_t)nw * sizeof(long long)));
      CK(cudaMalloc(&d_sink, (size_t)nw * sizeof(float)));
      for (int r = 0; r < 2; r++) {  // launch 0 warms the instruction cache
        order_ffma<<<p.grid, block, p.dyn>>>(iters, 0.999f, 0.001f, d_out, d_sink);
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
            std::printf("WARP b=%lld warps=%lld sm=%d block=%lld warp=%d t0=%lld t1=%lld\n", b, W, sm,
                        h[4 * w + 3], (w % (int)W), h[4 * w] - lo, h[4 * w + 1] - lo);
      }
      if (!ok) failures++;
      std::printf("ORDER b=%lld warps=%lld iters=%d dyn=%d sms=%d first_done_oldest=%d "
                  "first_done_youngest=%d life_frac_med=%.3f start_spread_med=%.0f span_med=%.0f check=%s\n",
                  b, W, iters, p.dyn, used, oldest, youngest, frac.empty() ? 0.0 : kit::median(frac),
                  spread.empty() ? 0.0 : kit::median(spread), spans.empty() ? 0.0 : kit::median(spans),
                  ok ? "ok" : "FAIL");
      std::fflush(stdout);
    }
  }
  return failures ? 1 : 0;
}
