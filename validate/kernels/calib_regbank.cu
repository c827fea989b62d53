// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #18): register-bank read conflicts of dependent FFMA/FMUL
// chains (bank = register % 2), with and without reuse bits.
//
// ptxas chooses the SASS registers, so each variant is a *source pattern*; the
// banks and reuse bits it produced are read off the SASS by the kit's check
// (validate/sassctl.py banks ..., in build/sass-checks.txt, as "sources per
// bank / distinct registers").  Seen with nvcc V13.0.88, sm_90 (from the cubin):
//   ffma p0 fma(x,u.x,u.z), p1 fma(x,u.x,u.y), p2 alternating (u.x,u.z)/(v.x,v.z):
//     FFMA R6, R0, R6, R3: 2+1/3reg (two distinct registers share a bank; the
//     least any 3-source FFMA can have), no reuse at ILP1, reuse on slots a,c at ILP2/4
//     (the same signature as the validation kernel ffma-ilp1's loop)
//   ffma p4 fma(x,x,x):   FFMA R11, R11, R11, R11: 3/1reg (one register read thrice), never reuse
//   ffma p5 fma(x,u.x,x): FFMA R11, R0, R11, R11: 2+1/2reg, reuse on slot a at ILP2/4
//   fmul p0/p1/p2 x*u:    FMUL R11, R0, R11: 1+1/2reg (no conflict), reuse on slot a at ILP2/4
//   fmul p4 x*x:          FMUL R11, R11, R11: 2/1reg (one register read twice), never reuse
// ptxas avoided two distinct same-bank registers in an FMUL (and three in an FFMA) in every
// pattern tried (chains of x*y/y*x, fma(x,y,z) rotations, alternating quads): it allocates
// around bank conflicts, so no such variant is here.
// ILP chains are interleaved (k-th op of chain 0, of chain 1, ...).  One block
// per SM (dynamic shared memory padding), 4*wps warps (wps = warps per
// scheduler); clock64 around the loop of iters x 32 x ILP operations per warp.
// Output: RB lines: cycles per op per warp (median over warps and SMs) and the
// SMSP issue rate of the ops.  --ncu: one launch per point, LAUNCH lines.
// Check: every thread's result against the same arithmetic on the host
// (fmaf/multiply, exact IEEE: bit-equal).
#include "common.cuh"

constexpr int UNR = 32;

template <int OP, int ILP, int PAT>
__device__ __forceinline__ void step(float (&x)[ILP], const float4 &u, const float4 &v, int k) {
#pragma unroll
  for (int i = 0; i < ILP; i++) {
    if (OP == 0) {
      if (PAT == 0) x[i] = fmaf(x[i], u.x, u.z);
      if (PAT == 1) x[i] = fmaf(x[i], u.x, u.y);
      if (PAT == 2) x[i] = (k & 1) ? fmaf(x[i], v.x, v.z) : fmaf(x[i], u.x, u.z);
      if (PAT == 4) x[i] = fmaf(x[i], x[i], x[i]);
      if (PAT == 5) x[i] = fmaf(x[i], u.x, x[i]);
    } else {
      if (PAT == 0) x[i] = x[i] * u.x;
      if (PAT == 1) x[i] = x[i] * u.y;
      if (PAT == 2) x[i] = (k & 1) ? x[i] * v.x : x[i] * u.x;
      if (PAT == 4) x[i] = x[i] * x[i];
    }
  }
}

template <int OP, int ILP, int PAT>
__global__ void __launch_bounds__(1024, 1)
    rb_chain(const float4 *in, float *out, int iters, long long *cyc) {
  float4 u, v;
  asm volatile("ld.global.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(u.x), "=f"(u.y), "=f"(u.z), "=f"(u.w) : "l"(in));
  asm volatile("ld.global.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(in + 1));
  float x[ILP];
#pragma unroll
  for (int i = 0; i < ILP; i++) x[i] = 0.5f + 0.001f * (float)((threadIdx.x + i) & 63);
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; it++) {
#pragma unroll
    for (int k = 0; k < UNR; k++) step<OP, ILP, PAT>(x, u, v, k);
  }
  long long t1 = clock64();
  float s = 0.0f;
#pragma unroll
  for (int i = 0; i < ILP; i++) out[((size_t)blockIdx.x * blockDim.x + threadIdx.x) * ILP + i] = x[i];
  (void)s;
  if ((threadIdx.x & 31) == 0) cyc[blockIdx.x * 32 + threadIdx.x / 32] = t1 - t0;
}

template <int OP, int ILP, int PAT>
void host_ref(float (&x)[ILP], float4 u, float4 v, int iters) {
  for (int it = 0; it < iters; it++)
    for (int k = 0; k < UNR; k++)
      for (int i = 0; i < ILP; i++) {
        if (OP == 0) {
          if (PAT == 0) x[i] = fmaf(x[i], u.x, u.z);
          if (PAT == 1) x[i] = fmaf(x[i], u.x, u.y);
          if (PAT == 2) x[i] = (k & 1) ? fmaf(x[i], v.x, v.z) : fmaf(x[i], u.x, u.z);
          if (PAT == 4) x[i] = fmaf(x[i], x[i], x[i]);
          if (PAT == 5) x[i] = fmaf(x[i], u.x, x[i]);
        } else {
          volatile float t;  // no host FMA contraction / reassociation
          if (PAT == 0) t = x[i] * u.x;
          if (PAT == 1) t = x[i] * u.y;
          if (PAT == 2) t = (k & 1) ? x[i] * v.x : x[i] * u.x;
          if (PAT == 4) t = x[i] * x[i];
          x[i] = t;
        }
      }
}

struct Var {
  const char *op;
  int ilp, pat;
  const void *fn;
  bool (*check)(const float *, int, int, float4, float4, int);
};

template <int OP, int ILP, int PAT>
bool check_t(const float *h, int nthreads, int nblocks, float4 u, float4 v, int iters) {
  for (int b = 0; b < nblocks; b += nblocks - 1 > 0 ? nblocks - 1 : 1)  // first and last block
    for (int t = 0; t < nthreads; t += 97) {
      float x[ILP];
      for (int i = 0; i < ILP; i++) x[i] = 0.5f + 0.001f * (float)((t + i) & 63);
      host_ref<OP, ILP, PAT>(x, u, v, iters);
      for (int i = 0; i < ILP; i++) {
        float g = h[((size_t)b * nthreads + t) * ILP + i];
        if (!(g == x[i]) && !(std::isnan(g) && std::isnan(x[i]))) return false;
      }
    }
  return true;
}

#define V(OP, ILP, PAT) {OP == 0 ? "ffma" : "fmul", ILP, PAT, (const void *)rb_chain<OP, ILP, PAT>, check_t<OP, ILP, PAT>}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ops", "ilps", "pats", "wps", "iters", "reps", "ncu"});
  kit::Device d = kit::open_device("regbank");
  const int nsm = d.prop.multiProcessorCount;
  auto ops = a.words("ops", "ffma,fmul");
  auto ilps = a.list("ilps", "1,2,4");
  auto pats = a.list("pats", "0,1,2,4,5");
  auto wps = a.list("wps", "1,2,4,8");
  const int iters = (int)a.num("iters", 512), reps = (int)a.num("reps", 3);
  const bool ncu = a.has("ncu");
  std::vector<Var> vars = {V(0, 1, 0), V(0, 1, 1), V(0, 1, 2), V(0, 1, 4), V(0, 1, 5),
                           V(0, 2, 0), V(0, 2, 1), V(0, 2, 2), V(0, 2, 4), V(0, 2, 5),
                           V(0, 4, 0), V(0, 4, 1), V(0, 4, 2), V(0, 4, 4), V(0, 4, 5),
                           V(1, 1, 0), V(1, 1, 1), V(1, 1, 2), V(1, 1, 4),
                           V(1, 2, 0), V(1, 2, 1), V(1, 2, 2), V(1, 2, 4),
                           V(1, 4, 0), V(1, 4, 1), V(1, 4, 2), V(1, 4, 4)};
  // u.x < 1 keeps the chains finite: ffma -> fixed point, fmul -> 0
  const float4 hu = make_float4(0.999f, 0.0007f, 0.0011f, 0.25f), hv = make_float4(0.998f, 0.0013f, 0.0009f, 0.5f);
  float4 hin[2] = {hu, hv};
  float4 *din;
  float *dout;
  long long *dcyc;
  CK(cudaMalloc(&din, sizeof(hin)));
  CK(cudaMemcpy(din, hin, sizeof(hin), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&dout, (size_t)nsm * 1024 * 4 * 4));
  CK(cudaMalloc(&dcyc, (size_t)nsm * 32 * 8));
  const int dyn = (int)d.prop.sharedMemPerBlockOptin;  // > half an SM: one block per SM
  int failures = 0, seq = 0;
  for (auto &op : ops)
    for (long long ilp : ilps)
      for (long long pat : pats)
        for (auto &vr : vars) {
          if (op != vr.op || ilp != vr.ilp || pat != vr.pat) continue;
          CK(cudaFuncSetAttribute(vr.fn, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
          CK(cudaFuncSetAttribute(vr.fn, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
          for (long long w : wps) {
            const int block = 128 * (int)w;
            int occ = 0;
            CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, vr.fn, block, dyn));
            void *args[] = {(void *)&din, (void *)&dout, (void *)&iters, (void *)&dcyc};
            std::vector<double> cpo;
            if (ncu) {
              std::printf("LAUNCH seq=%d prog=regbank kernel=rb_chain op=%s ilp=%d pat=%d wps=%lld block=%d grid=%d\n",
                          seq++, vr.op, vr.ilp, vr.pat, w, block, nsm);
              std::fflush(stdout);
            }
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
            bool ok = occ == 1 && vr.check(ho.data(), block, nsm, hu, hv, iters);
            if (!ok) failures++;
            double c = kit::median(cpo);
            std::printf("RB prog=regbank op=%s ilp=%d pat=%d wps=%lld block=%d occ_api=%d iters=%d ops_per_warp=%d "
                        "mode=%s cyc_per_op_per_warp=%.3f smsp_ops_per_cycle=%.4f check=%s\n",
                        vr.op, vr.ilp, vr.pat, w, block, occ, iters, iters * UNR * vr.ilp, ncu ? "ncu" : "time", c,
                        c > 0 ? (double)w / c : 0.0, ok ? "ok" : "FAIL");
            std::fflush(stdout);
          }
        }
  std::printf("DONE prog=regbank failures=%d\n", failures);
  return failures ? 1 : 0;
}
