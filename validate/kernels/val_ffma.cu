// SPDX-License-Identifier: GPL-3.0-or-later
// VALIDATION 1: FFMA with 1, 2 or 4 independent accumulator chains (ILP).
//
// Each thread runs ILP chains acc_j = fma(acc_j, a, b) for FFMAS/ILP steps
// each (the same FFMA count per thread at every ILP), then writes the sum.
// a, b are kernel arguments so nothing folds; without fast-math the compiler
// may not re-associate, so each chain stays one dependent FFMA after another.
// Block 128 threads, residency swept by shared-memory padding (common.cuh).
// Check: every thread's result is recomputed on the host with fmaf (exact).
#include "common.cuh"

constexpr int BLOCK = 128;
constexpr int FFMAS = 8192;  // FFMAs per thread

template <int ILP>
__device__ __forceinline__ void ffma_body(float *out, float a, float b) {
  int gid = blockIdx.x * BLOCK + threadIdx.x;
  float acc[ILP];
#pragma unroll
  for (int j = 0; j < ILP; j++) acc[j] = (float)(gid & 63) * 0.015625f + (float)j;
#pragma unroll 16
  for (int i = 0; i < FFMAS / ILP; i++) {
#pragma unroll
    for (int j = 0; j < ILP; j++) acc[j] = fmaf(acc[j], a, b);
  }
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < ILP; j++) s += acc[j];
  out[gid] = s;
}

__global__ void __launch_bounds__(BLOCK, 16) val_ffma_ilp1(float *out, float a, float b) {
  ffma_body<1>(out, a, b);
}
__global__ void __launch_bounds__(BLOCK, 16) val_ffma_ilp2(float *out, float a, float b) {
  ffma_body<2>(out, a, b);
}
__global__ void __launch_bounds__(BLOCK, 16) val_ffma_ilp4(float *out, float a, float b) {
  ffma_body<4>(out, a, b);
}

static float host_expect(int gid, int ilp, float a, float b) {
  float s = 0.0f;
  for (int j = 0; j < ilp; j++) {
    float acc = (float)(gid & 63) * 0.015625f + (float)j;
    for (int i = 0; i < FFMAS / ilp; i++) acc = std::fmaf(acc, a, b);
    s += acc;
  }
  return s;
}

int main(int argc, char **argv) {
  auto known = kit::sweep_known();
  kit::Args args(argc, argv, known);
  kit::Device d = kit::open_device("ffma");
  kit::SweepOpts o = kit::sweep_opts(args);
  auto variants = args.words("variant", "ilp1,ilp2,ilp4");
  const float a = 0.9990234375f, b = 0.0009765625f;

  long long maxb = *std::max_element(o.res.begin(), o.res.end());
  size_t maxthreads = (size_t)d.prop.multiProcessorCount * maxb * o.waves * BLOCK;
  float *out;
  CK(cudaMalloc(&out, maxthreads * sizeof(float)));
  std::vector<float> host(maxthreads);
  int failures = 0;

  for (const std::string &v : variants) {
    int ilp;
    const void *fn;
    const char *name;
    if (v == "ilp1") { ilp = 1; fn = (const void *)val_ffma_ilp1; name = "val_ffma_ilp1"; }
    else if (v == "ilp2") { ilp = 2; fn = (const void *)val_ffma_ilp2; name = "val_ffma_ilp2"; }
    else if (v == "ilp4") { ilp = 4; fn = (const void *)val_ffma_ilp4; name = "val_ffma_ilp4"; }
    else kit::Args::die("unknown variant " + v);
    // Results depend on gid & 63 only: 64 distinct expected values.
    float expect[64];
    for (int g = 0; g < 64; g++) expect[g] = host_expect(g, ilp, a, b);
    char extra[64];
    std::snprintf(extra, sizeof extra, "ilp=%d ffma_per_thread=%d", ilp, FFMAS);
    failures += kit::sweep(
        "ffma", d, o, name, fn, BLOCK,
        [&](const kit::Point &p) { CK(cudaMemset(out, 0xff, (size_t)p.grid * BLOCK * sizeof(float))); },
        [&](const kit::Point &p) {
          if (ilp == 1) val_ffma_ilp1<<<p.grid, BLOCK, p.dyn>>>(out, a, b);
          if (ilp == 2) val_ffma_ilp2<<<p.grid, BLOCK, p.dyn>>>(out, a, b);
          if (ilp == 4) val_ffma_ilp4<<<p.grid, BLOCK, p.dyn>>>(out, a, b);
        },
        [&](const kit::Point &p, std::string &detail) {
          size_t n = (size_t)p.grid * BLOCK;
          CK(cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
          size_t bad = 0;
          for (size_t i = 0; i < n; i++)
            if (host[i] != expect[i & 63]) bad++;
          detail = "bad=" + std::to_string(bad);
          return bad == 0;
        },
        extra);
  }
  return failures ? 1 : 0;
}
