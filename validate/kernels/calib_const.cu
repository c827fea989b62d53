// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #18): constant-cache misses of fixed-latency instructions
// (ncu `imc_miss`) right after a kernel starts.
// 256 FFMAs whose multiplier is an __constant__ value at a compile-time
// offset, on 8 independent accumulators, straight-line code run twice by a
// loop in the same kernel (pass 1 starts with cold constant caches, pass 2
// finds them warm; clock64 around each).  ptxas (CUDA 13, sm_90) never gives
// an FFMA a c[bank][offset] operand: it reads each constant with a ULDC (fixed
// latency, no dependence counter; c[0x3][...] for __constant__) into a uniform
// register and the FFMA takes the UR (the kit's SASS check counts both).  So
// this measures the constant-cache miss cost of ULDC, which is where ncu puts
// `imc_miss` on Hopper.  Variants by the spacing of the 256 constants: stride
// 0 (one address), 4 B (1 KiB), 16 B (4 KiB), 64 B (16 KiB), 256 B (64 KiB,
// the whole bank).  One block per SM (dynamic shared memory padding), 32*w
// threads (w = 1 or 16 warps).
// Output: CONST lines: per-warp cycles of pass 1 and pass 2 (median over warps
// and SMs) per 256 FFMAs.  --ncu: one launch per point, LAUNCH lines.
// Check: every thread's accumulators against the host (fmaf, bit-equal).
#include "common.cuh"

constexpr int NC = 16384, NOPS = 256;
__constant__ float cst[NC];

template <int STRIDE>
__device__ __forceinline__ void pass(float (&acc)[8], float q) {
#pragma unroll
  for (int i = 0; i < NOPS; i++) acc[i & 7] = fmaf(acc[i & 7], cst[(i * STRIDE) % NC], q);
}

template <int STRIDE>
__global__ void __launch_bounds__(1024, 1) const_ffma(float *out, long long *cyc) {
  float acc[8];
#pragma unroll
  for (int j = 0; j < 8; j++) acc[j] = (float)((threadIdx.x + j) & 7) * 0.125f;
  const float q = 0.25f + (float)(threadIdx.x >> 12);  // 0.25 in a register (FFMA takes one constant operand)
  long long t[3];
  t[0] = clock64();
#pragma unroll 1
  for (int p = 0; p < 2; p++) {  // the same code twice: cold, then warm constant caches
    pass<STRIDE>(acc, q);
    t[p + 1] = clock64();
  }
  const long long t0 = t[0], t1 = t[1], t2 = t[2];
#pragma unroll
  for (int j = 0; j < 8; j++) out[((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 8 + j] = acc[j];
  if ((threadIdx.x & 31) == 0) {
    cyc[(blockIdx.x * 32 + threadIdx.x / 32) * 2] = t1 - t0;
    cyc[(blockIdx.x * 32 + threadIdx.x / 32) * 2 + 1] = t2 - t1;
  }
}

template <int STRIDE>
void host_ref(float (&acc)[8], const std::vector<float> &c) {
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < NOPS; i++) acc[i & 7] = fmaf(acc[i & 7], c[(i * STRIDE) % NC], 0.25f);
}

struct Var { int stride_bytes; const void *fn; void (*ref)(float (&)[8], const std::vector<float> &); };
#define V(S) {S * 4, (const void *)const_ffma<S>, host_ref<S>}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"strides", "warps", "reps", "ncu"});
  kit::Device d = kit::open_device("const");
  const int nsm = d.prop.multiProcessorCount;
  auto strides = a.list("strides", "0,4,16,64,256");
  auto warps = a.list("warps", "1,16");
  const int reps = (int)a.num("reps", 5);
  const bool ncu = a.has("ncu");
  std::vector<Var> vars = {V(0), V(1), V(4), V(16), V(64)};
  std::vector<float> hc(NC);
  for (int i = 0; i < NC; i++) hc[i] = 0.5f + (float)(kit::hash32(i) & 255) / 1024.0f;
  CK(cudaMemcpyToSymbol(cst, hc.data(), NC * 4));
  float *dout;
  long long *dcyc;
  CK(cudaMalloc(&dout, (size_t)nsm * 1024 * 8 * 4));
  CK(cudaMalloc(&dcyc, (size_t)nsm * 32 * 2 * 8));
  const int dyn = (int)d.prop.sharedMemPerBlockOptin;
  int failures = 0, seq = 0;
  for (long long sb : strides)
    for (auto &vr : vars) {
      if (vr.stride_bytes != sb) continue;
      CK(cudaFuncSetAttribute(vr.fn, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
      CK(cudaFuncSetAttribute(vr.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
      for (long long w : warps) {
        const int block = 32 * (int)w;
        void *args[] = {(void *)&dout, (void *)&dcyc};
        if (ncu) {
          std::printf("LAUNCH seq=%d prog=const kernel=const_ffma stride_bytes=%d warps_per_sm=%lld block=%d grid=%d\n",
                      seq++, vr.stride_bytes, w, block, nsm);
          std::fflush(stdout);
        }
        std::vector<double> p1, p2;
        for (int r = 0; r < (ncu ? 1 : reps); r++) {  // every launch counts: the first pass is the cold one
          CK(cudaLaunchKernel(vr.fn, dim3(nsm), dim3(block), args, dyn, 0));
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<long long> h((size_t)nsm * 64);
          CK(cudaMemcpy(h.data(), dcyc, h.size() * 8, cudaMemcpyDeviceToHost));
          std::vector<double> a1, a2;
          for (int s = 0; s < nsm; s++)
            for (int wi = 0; wi < w; wi++) {
              a1.push_back((double)h[((size_t)s * 32 + wi) * 2]);
              a2.push_back((double)h[((size_t)s * 32 + wi) * 2 + 1]);
            }
          p1.push_back(kit::median(a1));
          p2.push_back(kit::median(a2));
        }
        std::vector<float> ho((size_t)nsm * block * 8);
        CK(cudaMemcpy(ho.data(), dout, ho.size() * 4, cudaMemcpyDeviceToHost));
        bool ok = true;
        for (int t = 0; t < block; t++) {
          float acc[8];
          for (int j = 0; j < 8; j++) acc[j] = (float)((t + j) & 7) * 0.125f;
          vr.ref(acc, hc);
          for (int s = 0; s < nsm; s += 11)
            for (int j = 0; j < 8; j++)
              if (ho[((size_t)s * block + t) * 8 + j] != acc[j]) ok = false;
        }
        if (!ok) failures++;
        std::printf("CONST prog=const stride_bytes=%d span_bytes=%d warps_per_sm=%lld ffma_per_pass=%d mode=%s "
                    "pass1_cyc_first_launch=%.0f pass1_cyc_med=%.0f pass2_cyc_med=%.0f check=%s\n",
                    vr.stride_bytes, vr.stride_bytes == 0 ? 4 : std::min(NC * 4, NOPS * vr.stride_bytes), w, NOPS,
                    ncu ? "ncu" : "time", p1[0], kit::median(p1), kit::median(p2), ok ? "ok" : "FAIL");
        std::fflush(stdout);
      }
    }
  std::printf("DONE prog=const failures=%d\n", failures);
  return failures ? 1 : 0;
}
