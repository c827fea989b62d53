// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17, item 7): memory-level parallelism -> DRAM bandwidth.
//
// mlp_read<L>: every thread keeps exactly L independent 16-byte loads
// (LDG.E.128) in flight: one loop trip issues L loads at addresses T apart
// (T = threads in the grid, so each warp load is 512 contiguous bytes and no
// two loads of a trip can merge), then sums them; the trip loop is not
// unrolled, so the next trip's loads wait for this trip's sums.  Residency is
// b blocks of 128 threads per SM (dynamic shared memory padding, as the
// validation kit does, carveout 100), the grid is exactly one wave (SMs * b
// blocks, persistent), and every thread makes the same number of trips over a
// 1 GiB buffer (no tail).  So bytes in flight per SM = b * 128 * 16 * L, and
// the achieved DRAM bandwidth and the stall split (long scoreboard vs
// lg_throttle) show where the memory system stops accepting more.
//   L in {1, 2, 4, 8}; b in {1,2,3,4,6,8,12,16}.
//   --ncu: one launch per (L, b) point (LAUNCH lines), for ncu.
//   default: CUDA-event timing, median of --reps: MLP lines with GB/s.
// Check: the per-thread sums are compared with a host recomputation of a few
// threads (the buffer holds hash_float(i) in every float).
#include "common.cuh"

constexpr int BLOCK = 128;

template <int L>
__global__ void __launch_bounds__(BLOCK, 16)
    mlp_read(const float4 *__restrict__ src, unsigned trips, float *__restrict__ out) {
  // 32-bit element offsets (the buffer holds < 2^32 float4): keeps the L = 8
  // kernel at 32 registers with no spill, so 16 blocks/SM fit.
  const unsigned T = gridDim.x * BLOCK;
  const unsigned g = blockIdx.x * BLOCK + threadIdx.x;
  float s = 0.0f;
  unsigned base = g;
#pragma unroll 1
  for (unsigned t = 0; t < trips; t++, base += L * T) {
    float4 v[L];
#pragma unroll
    for (int k = 0; k < L; k++) v[k] = src[base + k * T];
#pragma unroll
    for (int k = 0; k < L; k++) s += (v[k].x + v[k].y) + (v[k].z + v[k].w);
  }
  out[g] = s;
}

__global__ void init_f4(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i);
}

typedef void (*KFn)(const float4 *, unsigned, float *);
static KFn kfn(int L) {
  if (L == 1) return mlp_read<1>;
  if (L == 2) return mlp_read<2>;
  if (L == 4) return mlp_read<4>;
  if (L == 8) return mlp_read<8>;
  kit::Args::die("L must be 1, 2, 4 or 8");
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "res", "ls", "bytes", "reps", "warm"});
  kit::Device d = kit::open_device("mlp");
  const int nsm = d.prop.multiProcessorCount;
  auto res = a.list("res", "1,2,3,4,6,8,12,16");
  auto ls = a.list("ls", "1,2,4,8");
  size_t bytes = (size_t)a.num("bytes", 1LL << 30);
  int reps = (int)a.num("reps", 5), warm = (int)a.num("warm", 1);
  bool ncu = a.has("ncu");
  size_t n4 = bytes / 16;
  float4 *src;
  float *out;
  CK(cudaMalloc(&src, n4 * 16));
  CK(cudaMalloc(&out, (size_t)nsm * 16 * BLOCK * sizeof(float)));
  init_f4<<<1024, 256>>>((float *)src, n4 * 4);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int seq = 0, failures = 0;
  for (long long L : ls) {
    KFn fn = kfn((int)L);
    char kname[32];
    std::snprintf(kname, sizeof kname, "mlp_read<%lld>", L);
    kit::KernelInfo ki = kit::kernel_info(kname, (const void *)fn, BLOCK);
    for (long long bl : res) {
      int b = (int)bl;
      kit::Point p;
      std::string why;
      if (!kit::plan_point(d, (const void *)fn, ki, BLOCK, b, 1, p, why)) {
        std::printf("SKIP prog=mlp L=%lld b=%d why=%s\n", L, b, why.c_str());
        continue;
      }
      size_t T = (size_t)p.grid * BLOCK;
      size_t trips = n4 / (T * (size_t)L);
      double moved = (double)trips * L * T * 16;
      CK(cudaMemset(out, 0, T * sizeof(float)));
      kit::Timing t;
      if (ncu) {
        std::printf("LAUNCH seq=%d prog=mlp kernel=%s L=%lld b=%d dyn=%d grid=%d block=%d trips=%zu "
                    "bytes=%.0f\n", seq++, kname, L, b, p.dyn, p.grid, BLOCK, trips, moved);
        std::fflush(stdout);
        fn<<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)trips, out);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
      } else {
        t = kit::time_launches([&] { fn<<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)trips, out); }, warm, reps);
      }
      // Check thread 0 and the last thread on the host (float sums in the same order).
      bool ok = true;
      for (size_t g : {(size_t)0, T - 1}) {
        float s = 0.0f;
        for (size_t tr = 0; tr < trips; tr++)
          for (int k = 0; k < L; k++) {
            size_t e = (tr * L * T + g + (size_t)k * T) * 4;
            float x = kit::hash_float((uint32_t)e), y = kit::hash_float((uint32_t)(e + 1)),
                  z = kit::hash_float((uint32_t)(e + 2)), w = kit::hash_float((uint32_t)(e + 3));
            s += (x + y) + (z + w);
          }
        float h = 0;
        CK(cudaMemcpy(&h, out + g, 4, cudaMemcpyDeviceToHost));
        if (h != s) ok = false;
      }
      if (!ok) failures++;
      std::printf("MLP prog=mlp kernel=%s L=%lld b=%d warps_per_sm=%d bytes_in_flight_per_sm=%d grid=%d "
                  "dyn=%d trips=%zu bytes=%.0f mode=%s ms_med=%.4f ms_min=%.4f GBps_med=%.1f GBps_max=%.1f "
                  "reps=%d check=%s\n",
                  kname, L, b, b * BLOCK / 32, b * BLOCK * 16 * (int)L, p.grid, p.dyn, trips, moved,
                  ncu ? "ncu" : "time", t.med_ms, t.min_ms, ncu ? 0.0 : moved / (t.med_ms * 1e6),
                  ncu ? 0.0 : moved / (t.min_ms * 1e6), t.reps, ok ? "ok" : "FAIL");
      std::fflush(stdout);
    }
  }
  return failures ? 1 : 0;
}
