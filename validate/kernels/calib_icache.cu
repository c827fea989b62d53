// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #18): instruction-fetch misses (ncu `no_instruction`).
// icache_line<N>: N FADDs (8 independent accumulators, asm volatile so none is
// folded or moved) of straight-line code, run `reps` times by an outer loop: 16 B per
// SASS instruction, so N = 4K is 64 KiB of code, 8K 128 KiB, 16K 256 KiB, 32K 512 KiB.
// icache_loop: the same FADDs from a 256-instruction loop body (hits in the
// instruction caches).  One block per SM (dynamic shared memory padding),
// 4*wps warps.  Output: ICACHE lines: cycles per FADD per warp and SMSP FADDs
// per cycle.  --ncu: one launch per point, LAUNCH lines.
// Check: every accumulator equals start + count * 1.0 (exact in float here).
#include "common.cuh"

// One asm statement per 64 FADDs (a string built by literal concatenation):
// thousands of separate asm statements take the front end (cicc) many minutes.
#define A8 "add.f32 %0, %0, %8;\n\tadd.f32 %1, %1, %8;\n\tadd.f32 %2, %2, %8;\n\tadd.f32 %3, %3, %8;\n\t" \
           "add.f32 %4, %4, %8;\n\tadd.f32 %5, %5, %8;\n\tadd.f32 %6, %6, %8;\n\tadd.f32 %7, %7, %8;\n\t"
#define A64 A8 A8 A8 A8 A8 A8 A8 A8
#define F64                                                                                               \
  asm volatile(A64 : "+f"(x[0]), "+f"(x[1]), "+f"(x[2]), "+f"(x[3]), "+f"(x[4]), "+f"(x[5]), "+f"(x[6]), \
               "+f"(x[7])                                                                                 \
               : "f"(one));
#define F256 F64 F64 F64 F64
#define F1K F256 F256 F256 F256
#define F4K F1K F1K F1K F1K

template <int N4K>
__global__ void __launch_bounds__(1024, 1) icache_line(float *out, int reps, float one, long long *cyc) {
  float x[8];
#pragma unroll
  for (int i = 0; i < 8; i++) x[i] = (float)i;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int r = 0; r < reps; r++) {
    F4K
    if (N4K >= 2) { F4K }
    if (N4K >= 4) { F4K F4K }
    if (N4K >= 8) { F4K F4K F4K F4K }
  }
  long long t1 = clock64();
  float s = 0;
#pragma unroll
  for (int i = 0; i < 8; i++) out[((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 8 + i] = x[i];
  (void)s;
  if ((threadIdx.x & 31) == 0) cyc[blockIdx.x * 32 + threadIdx.x / 32] = t1 - t0;
}

__global__ void __launch_bounds__(1024, 1) icache_loop(float *out, int trips, float one, long long *cyc) {
  float x[8];
#pragma unroll
  for (int i = 0; i < 8; i++) x[i] = (float)i;
  __syncthreads();
  long long t0 = clock64();
#pragma unroll 1
  for (int r = 0; r < trips; r++) { F256 }
  long long t1 = clock64();
#pragma unroll
  for (int i = 0; i < 8; i++) out[((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 8 + i] = x[i];
  if ((threadIdx.x & 31) == 0) cyc[blockIdx.x * 32 + threadIdx.x / 32] = t1 - t0;
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"variants", "wps", "reps", "ncu", "total"});
  kit::Device d = kit::open_device("icache");
  const int nsm = d.prop.multiProcessorCount;
  auto variants = a.words("variants", "line4k,line8k,line16k,line32k,loop");
  auto wps = a.list("wps", "1,4,8");
  const int reps = (int)a.num("reps", 3);
  const long long total = a.num("total", 128 * 1024);  // FADDs per warp per launch
  const bool ncu = a.has("ncu");
  float *dout;
  long long *dcyc;
  CK(cudaMalloc(&dout, (size_t)nsm * 1024 * 8 * 4));
  CK(cudaMalloc(&dcyc, (size_t)nsm * 32 * 8));
  const int dyn = (int)d.prop.sharedMemPerBlockOptin;
  const float one = 1.0f;
  int failures = 0, seq = 0;
  for (auto &v : variants) {
    const void *fn;
    long long per;  // FADDs per trip of the outer loop
    if (v == "line4k") { fn = (const void *)icache_line<1>; per = 4096; }
    else if (v == "line8k") { fn = (const void *)icache_line<2>; per = 8192; }
    else if (v == "line16k") { fn = (const void *)icache_line<4>; per = 16384; }
    else if (v == "line32k") { fn = (const void *)icache_line<8>; per = 32768; }
    else if (v == "loop") { fn = (const void *)icache_loop; per = 256; }
    else kit::Args::die("unknown variant " + v);
    int trips = (int)std::max<long long>(1, total / per);
    CK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
    for (long long w : wps) {
      const int block = 128 * (int)w;
      void *args[] = {(void *)&dout, (void *)&trips, (void *)&one, (void *)&dcyc};
      if (ncu) {
        std::printf("LAUNCH seq=%d prog=icache kernel=%s variant=%s wps=%lld block=%d grid=%d\n", seq++,
                    v == "loop" ? "icache_loop" : "icache_line", v.c_str(), w, block, nsm);
        std::fflush(stdout);
      }
      std::vector<double> cpi;
      for (int r = 0; r < (ncu ? 1 : reps + 1); r++) {
        CK(cudaLaunchKernel(fn, dim3(nsm), dim3(block), args, dyn, 0));
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        if (!ncu && r == 0) continue;
        std::vector<long long> hc((size_t)nsm * 32);
        CK(cudaMemcpy(hc.data(), dcyc, hc.size() * 8, cudaMemcpyDeviceToHost));
        std::vector<double> pw;
        for (int s = 0; s < nsm; s++)
          for (int wi = 0; wi < block / 32; wi++) pw.push_back((double)hc[(size_t)s * 32 + wi] / ((double)trips * per));
        cpi.push_back(kit::median(pw));
      }
      std::vector<float> ho((size_t)nsm * block * 8);
      CK(cudaMemcpy(ho.data(), dout, ho.size() * 4, cudaMemcpyDeviceToHost));
      bool ok = true;
      for (size_t i = 0; i < ho.size(); i++)
        if (ho[i] != (float)(i % 8) + (float)((double)trips * per / 8)) ok = false;
      if (!ok) failures++;
      double c = kit::median(cpi);
      std::printf("ICACHE prog=icache variant=%s body_fadds=%lld code_bytes_approx=%lld trips=%d wps=%lld block=%d "
                  "mode=%s cyc_per_fadd_per_warp=%.3f smsp_fadd_per_cycle=%.4f check=%s\n",
                  v.c_str(), per, per * 16, trips, w, block, ncu ? "ncu" : "time", c, c > 0 ? (double)w / c : 0.0,
                  ok ? "ok" : "FAIL");
      std::fflush(stdout);
    }
  }
  std::printf("DONE prog=icache failures=%d\n", failures);
  return failures ? 1 : 0;
}
