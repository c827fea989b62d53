// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #18): MUFU.EX2 / MUFU.RSQ latency (one dependent chain)
// and throughput (ILP independent chains x warps) per SMSP.
// Chains: ex2: x = ex2.approx.ftz(-x) (fixed point 0.6412); rsq: x =
// rsqrt.approx.ftz(x) (fixed point 1).  One block per SM (dynamic shared
// memory padding), 4*wps warps; clock64 around iters x 16 x ILP MUFUs per warp.
// Output: MUFU lines (cycles per MUFU per warp, SMSP MUFUs per cycle).  The
// ncu stall split (short_scoreboard vs mio_throttle vs math_pipe_throttle)
// comes from the kit's ncu call (--ncu: one launch per point, LAUNCH lines).
// Check: every chain ends within 1e-3 of its fixed point.
#include "common.cuh"

constexpr int UNR = 16;

template <int OP, int ILP>
__global__ void __launch_bounds__(1024, 1) mufu_chain(float *out, int iters, long long *cyc) {
  float x[ILP];
#pragma unroll
  for (int i = 0; i < ILP; i++) x[i] = 0.5f + 0.01f * (float)((threadIdx.x + i) & 15);
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int k = 0; k < UNR; k++) {
#pragma unroll
      for (int i = 0; i < ILP; i++) {
        if (OP == 0) asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(x[i]) : "f"(-x[i]));
        else asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(x[i]) : "f"(x[i]));
      }
    }
  }
  long long t1 = clock64();
#pragma unroll
  for (int i = 0; i < ILP; i++) out[((size_t)blockIdx.x * blockDim.x + threadIdx.x) * ILP + i] = x[i];
  if ((threadIdx.x & 31) == 0) cyc[blockIdx.x * 32 + threadIdx.x / 32] = t1 - t0;
}

struct Var { const char *op; int ilp; const void *fn; float fixed; };
#define V(OP, ILP) {OP == 0 ? "ex2" : "rsq", ILP, (const void *)mufu_chain<OP, ILP>, OP == 0 ? 0.641186f : 1.0f}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ops", "ilps", "wps", "iters", "reps", "ncu"});
  kit::Device d = kit::open_device("mufu");
  const int nsm = d.prop.multiProcessorCount;
  auto ops = a.words("ops", "ex2,rsq");
  auto ilps = a.list("ilps", "1,2,4,8");
  auto wps = a.list("wps", "1,2,4,8");
  const int iters = (int)a.num("iters", 256), reps = (int)a.num("reps", 3);
  const bool ncu = a.has("ncu");
  std::vector<Var> vars = {V(0, 1), V(0, 2), V(0, 4), V(0, 8), V(1, 1), V(1, 2), V(1, 4), V(1, 8)};
  float *dout;
  long long *dcyc;
  CK(cudaMalloc(&dout, (size_t)nsm * 1024 * 8 * 4));
  CK(cudaMalloc(&dcyc, (size_t)nsm * 32 * 8));
  const int dyn = (int)d.prop.sharedMemPerBlockOptin;
  int failures = 0, seq = 0;
  for (auto &op : ops)
    for (long long ilp : ilps)
      for (auto &vr : vars) {
        if (op != vr.op || ilp != vr.ilp) continue;
        CK(cudaFuncSetAttribute(vr.fn, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
        CK(cudaFuncSetAttribute(vr.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
        for (long long w : wps) {
          const int block = 128 * (int)w;
          int occ = 0;
          CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, vr.fn, block, dyn));
          void *args[] = {(void *)&dout, (void *)&iters, (void *)&dcyc};
          if (ncu) {
            std::printf("LAUNCH seq=%d prog=mufu kernel=mufu_chain op=%s ilp=%d wps=%lld block=%d grid=%d\n", seq++,
                        vr.op, vr.ilp, w, block, nsm);
            std::fflush(stdout);
          }
          std::vector<double> cpo;
          for (int r = 0; r < (ncu ? 1 : reps + 1); r++) {
            CK(cudaLaunchKernel(vr.fn, dim3(nsm), dim3(block), args, dyn, 0));
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            if (!ncu && r == 0) continue;
            std::vector<long long> hc((size_t)nsm * 32);
            CK(cudaMemcpy(hc.data(), dcyc, hc.size() * 8, cudaMemcpyDeviceToHost));
            std::vector<double> per;
            for (int s = 0; s < nsm; s++)
              for (int wi = 0; wi < block / 32; wi++)
                per.push_back((double)hc[(size_t)s * 32 + wi] / ((double)iters * UNR * vr.ilp));
            cpo.push_back(kit::median(per));
          }
          std::vector<float> ho((size_t)nsm * block * vr.ilp);
          CK(cudaMemcpy(ho.data(), dout, ho.size() * 4, cudaMemcpyDeviceToHost));
          bool ok = occ == 1;
          for (float g : ho)
            if (!(std::fabs(g - vr.fixed) < 1e-3f)) ok = false;
          if (!ok) failures++;
          double c = kit::median(cpo);
          std::printf("MUFU prog=mufu op=%s ilp=%d wps=%lld block=%d occ_api=%d iters=%d mufu_per_warp=%d mode=%s "
                      "cyc_per_mufu_per_warp=%.3f smsp_mufu_per_cycle=%.4f check=%s\n",
                      vr.op, vr.ilp, w, block, occ, iters, iters * UNR * vr.ilp, ncu ? "ncu" : "time", c,
                      c > 0 ? (double)w / c : 0.0, ok ? "ok" : "FAIL");
          std::fflush(stdout);
        }
      }
  std::printf("DONE prog=mufu failures=%d\n", failures);
  return failures ? 1 : 0;
}
