// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17, item 4): DRAM bandwidth of mixed read and write
// streams.
//
// rw_mix<R,W>: every thread, per loop trip, loads R float4 (LDG.E.128,
// addresses T = threads-in-grid apart: each warp load is 512 contiguous
// bytes) from src, sums them, and stores W float4 (STG.E.128, same layout)
// that depend on the sum to dst.  src and dst are read/written once, together
// 2 GiB (34x the L2), so the DRAM sees R : W read : write bytes.  Residency
// is b blocks of 128 threads per SM (dynamic shared memory padding, carveout
// 100, one persistent wave, as calib_mlp).
//   (R,W) in {1:0, 0:1, 7:1, 3:1, 1:3, 1:7}.  1:1 and 2:1 are left out on
//   purpose: they are the validation kernels copy and vecadd (val_stream.cu).
//   --ncu: one launch per point (LAUNCH lines); default: CUDA-event timing,
//   median of --reps (RW lines with GB/s of read + written bytes).
// Check: thread 0's and the last thread's sums, and one stored float4 of
// each, against a host recomputation (src holds hash_float(i)).
#include "common.cuh"

constexpr int BLOCK = 128;

template <int R, int W>
__global__ void __launch_bounds__(BLOCK, 16)
    rw_mix(const float4 *__restrict__ src, float4 *__restrict__ dst, unsigned trips,
           float *__restrict__ out) {
  const unsigned T = gridDim.x * BLOCK;
  const unsigned g = blockIdx.x * BLOCK + threadIdx.x;
  float s = 0.0f;
  unsigned rb = g, wb = g;
#pragma unroll 1
  for (unsigned t = 0; t < trips; t++, rb += R * T, wb += W * T) {
    float4 v[R > 0 ? R : 1];
#pragma unroll
    for (int k = 0; k < R; k++) v[k] = src[rb + k * T];
#pragma unroll
    for (int k = 0; k < R; k++) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
#pragma unroll
    for (int k = 0; k < W; k++) dst[wb + k * T] = make_float4(s, (float)t, (float)k, 1.0f);
  }
  out[g] = s;
}

__global__ void init_f4(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i);
}

typedef void (*KFn)(const float4 *, float4 *, unsigned, float *);
struct Mix { int r, w; KFn fn; const char *name; };
static const Mix MIXES[] = {
    {1, 0, rw_mix<1, 0>, "rw_mix<1,0>"}, {0, 1, rw_mix<0, 1>, "rw_mix<0,1>"},
    {7, 1, rw_mix<7, 1>, "rw_mix<7,1>"}, {3, 1, rw_mix<3, 1>, "rw_mix<3,1>"},
    {1, 3, rw_mix<1, 3>, "rw_mix<1,3>"}, {1, 7, rw_mix<1, 7>, "rw_mix<1,7>"},
};

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "res", "mixes", "bytes", "reps", "warm"});
  kit::Device d = kit::open_device("rw");
  const int nsm = d.prop.multiProcessorCount;
  auto res = a.list("res", "4,8,16");
  auto want = a.words("mixes", "1:0,0:1,7:1,3:1,1:3,1:7");
  size_t bytes = (size_t)a.num("bytes", 2LL << 30);
  int reps = (int)a.num("reps", 5), warm = (int)a.num("warm", 1);
  bool ncu = a.has("ncu");
  size_t n4 = bytes / 16;
  float4 *src, *dst;
  float *out;
  CK(cudaMalloc(&src, n4 * 16));
  CK(cudaMalloc(&dst, n4 * 16));
  CK(cudaMalloc(&out, (size_t)nsm * 16 * BLOCK * sizeof(float)));
  init_f4<<<1024, 256>>>((float *)src, n4 * 4);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int seq = 0, failures = 0;
  for (const std::string &m : want) {
    const Mix *x = nullptr;
    for (const Mix &c : MIXES)
      if (m == std::to_string(c.r) + ":" + std::to_string(c.w)) x = &c;
    if (!x) kit::Args::die("unknown mix " + m + " (expected one of 1:0,0:1,7:1,3:1,1:3,1:7)");
    kit::KernelInfo ki = kit::kernel_info(x->name, (const void *)x->fn, BLOCK);
    for (long long bl : res) {
      int b = (int)bl;
      kit::Point p;
      std::string why;
      if (!kit::plan_point(d, (const void *)x->fn, ki, BLOCK, b, 1, p, why)) {
        std::printf("SKIP prog=rw mix=%d:%d b=%d why=%s\n", x->r, x->w, b, why.c_str());
        continue;
      }
      size_t T = (size_t)p.grid * BLOCK;
      size_t trips = n4 / (T * (size_t)(x->r + x->w));
      double rd = (double)trips * x->r * T * 16, wr = (double)trips * x->w * T * 16;
      CK(cudaMemset(out, 0, T * sizeof(float)));
      kit::Timing t;
      auto launch = [&] { x->fn<<<p.grid, BLOCK, p.dyn>>>(src, dst, (unsigned)trips, out); };
      if (ncu) {
        std::printf("LAUNCH seq=%d prog=rw kernel=%s R=%d W=%d b=%d dyn=%d grid=%d block=%d trips=%zu "
                    "read_bytes=%.0f write_bytes=%.0f\n", seq++, x->name, x->r, x->w, b, p.dyn, p.grid,
                    BLOCK, trips, rd, wr);
        std::fflush(stdout);
        launch();
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      } else {
        t = kit::time_launches(launch, warm, reps);
      }
      bool ok = true;
      for (size_t g : {(size_t)0, T - 1}) {
        float s = 0.0f;
        for (size_t tr = 0; tr < trips; tr++)
          for (int k = 0; k < x->r; k++) {
            size_t e = (tr * x->r * T + g + (size_t)k * T) * 4;
            s += (kit::hash_float((uint32_t)e) + kit::hash_float((uint32_t)(e + 1))) +
                 (kit::hash_float((uint32_t)(e + 2)) + kit::hash_float((uint32_t)(e + 3)));
          }
        float h = 0;
        CK(cudaMemcpy(&h, out + g, 4, cudaMemcpyDeviceToHost));
        if (h != s) ok = false;
        if (x->w > 0) {  // the last trip's last store of thread g
          float4 v;
          size_t e = (trips - 1) * x->w * T + g + (size_t)(x->w - 1) * T;
          CK(cudaMemcpy(&v, dst + e, 16, cudaMemcpyDeviceToHost));
          if (v.x != s || v.y != (float)(trips - 1) || v.z != (float)(x->w - 1) || v.w != 1.0f) ok = false;
        }
      }
      if (!ok) failures++;
      std::printf("RW prog=rw kernel=%s R=%d W=%d b=%d warps_per_sm=%d grid=%d dyn=%d trips=%zu "
                  "read_bytes=%.0f write_bytes=%.0f mode=%s ms_med=%.4f ms_min=%.4f GBps_med=%.1f "
                  "GBps_max=%.1f reps=%d check=%s\n",
                  x->name, x->r, x->w, b, b * BLOCK / 32, p.grid, p.dyn, trips, rd, wr, ncu ? "ncu" : "time",
                  t.med_ms, t.min_ms, ncu ? 0.0 : (rd + wr) / (t.med_ms * 1e6),
                  ncu ? 0.0 : (rd + wr) / (t.min_ms * 1e6), t.reps, ok ? "ok" : "FAIL");
      std::fflush(stdout);
    }
  }
  return failures ? 1 : 0;
}
