// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issues #17 item 3, #18 item 6): what limits the loads a SM
// keeps in flight -- warp instructions, 128-byte lines or bytes?
//
// mlpw_read<WID, L>: calib_mlp's mlp_read at three access widths.  Every
// thread keeps exactly L independent loads of WID bytes (4: LDG.E, 8:
// LDG.E.64, 16: LDG.E.128) in flight: one loop trip issues L loads at
// addresses T elements apart (T = threads in the grid, so each warp load is
// 32 * WID contiguous bytes, 1, 2 or 4 lines, and no two loads of a trip can
// merge), then sums them; the trip loop is not unrolled, so the next trip's
// loads wait for this trip's sums.  Residency is b blocks of 128 threads per
// SM (dynamic shared memory padding, carveout 100), the grid is one wave
// (SMs * b blocks, persistent), and every thread makes the same number of
// trips over a 1 GiB buffer.  Per SM then: warp instructions in flight =
// 4 b L, lines 4 b L WID / 4, bytes 512 b L WID / 4.  If the SM's limit is
// on lines or bytes, LDG.E (WID 4) reaches it at 4x the warp instructions of
// LDG.E.128; if on warp instructions, at the same 4 b L.  ncu's lg_throttle
// and long_scoreboard per issue and the DRAM bandwidth show where it bites.
//   WID in {4, 8, 16}; L in {1, 2, 4, 8, 16}; b in {1, 2, 4, 6, 8, 12, 16}.
//   --ncu: one launch per point (LAUNCH lines), for ncu.
//   default: CUDA-event timing, median of --reps: MLPW lines with GB/s.
// WID 16 repeats calib_mlp (kit-2026-12-01/mlp) as a reproducibility check.
// Check: thread 0's and the last thread's sums against the host.
#include "common.cuh"

constexpr int BLOCK = 128;

template <int WID> struct Vec;
template <> struct Vec<4> { typedef float T; };
template <> struct Vec<8> { typedef float2 T; };
template <> struct Vec<16> { typedef float4 T; };

__device__ __forceinline__ float vsum(float v) { return v; }
__device__ __forceinline__ float vsum(float2 v) { return v.x + v.y; }
__device__ __forceinline__ float vsum(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// Registers: L * WID / 4 for the values plus ~12; keep 16 blocks of 128
// threads resident (<= 32 registers) where that fits without spilling.
template <int WID, int L> struct MinB {
  static constexpr int v = WID * L <= 64 ? 16 : (WID * L <= 128 ? 8 : 4);
};

template <int WID, int L>
__global__ void __launch_bounds__(BLOCK, MinB<WID, L>::v)
    mlpw_read(const typename Vec<WID>::T *__restrict__ src, unsigned trips, float *__restrict__ out) {
  typedef typename Vec<WID>::T V;
  const unsigned T = gridDim.x * BLOCK;
  const unsigned g = blockIdx.x * BLOCK + threadIdx.x;
  float s = 0.0f;
  unsigned base = g;
#pragma unroll 1
  for (unsigned t = 0; t < trips; t++, base += L * T) {
    V v[L];
#pragma unroll
    for (int k = 0; k < L; k++) v[k] = src[base + k * T];
#pragma unroll
    for (int k = 0; k < L; k++) s += vsum(v[k]);
  }
  out[g] = s;
}

__global__ void init_f(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i);
}

typedef void (*KFn)(const void *, unsigned, float *);
template <int WID, int L> KFn k() { return (KFn)(void *)mlpw_read<WID, L>; }
static KFn kfn(int wid, int L) {
#define K5(W)                                                                                     \
  if (wid == W) {                                                                               \
    if (L == 1) return k<W, 1>();                                                               \
    if (L == 2) return k<W, 2>();                                                               \
    if (L == 4) return k<W, 4>();                                                               \
    if (L == 8) return k<W, 8>();                                                               \
    if (L == 16) return k<W, 16>();                                                             \
  }
  K5(4) K5(8) K5(16)
#undef K5
  kit::Args::die("WID must be 4, 8 or 16 and L 1, 2, 4, 8 or 16");
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "res", "ls", "wids", "bytes", "reps", "warm"});
  kit::Device d = kit::open_device("mlpw");
  const int nsm = d.prop.multiProcessorCount;
  auto res = a.list("res", "1,2,4,6,8,12,16");
  auto ls = a.list("ls", "1,2,4,8,16");
  auto wids = a.list("wids", "4,8,16");
  size_t bytes = (size_t)a.num("bytes", 1LL << 30);
  int reps = (int)a.num("reps", 5), warm = (int)a.num("warm", 1);
  bool ncu = a.has("ncu");
  size_t nf = bytes / 4;
  float *src, *out;
  CK(cudaMalloc(&src, nf * 4));
  CK(cudaMalloc(&out, (size_t)nsm * 16 * BLOCK * sizeof(float)));
  init_f<<<1024, 256>>>(src, nf);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int seq = 0, failures = 0;
  for (long long wid : wids)
    for (long long L : ls) {
      KFn fn = kfn((int)wid, (int)L);
      const int per = (int)wid / 4;  // floats per element
      char kname[48];
      std::snprintf(kname, sizeof kname, "mlpw_read<%lld,%lld>", wid, L);
      kit::KernelInfo ki = kit::kernel_info(kname, (const void *)fn, BLOCK);
      for (long long bl : res) {
        int b = (int)bl;
        kit::Point p;
        std::string why;
        if (!kit::plan_point(d, (const void *)fn, ki, BLOCK, b, 1, p, why)) {
          std::printf("SKIP prog=mlpw WID=%lld L=%lld b=%d why=%s\n", wid, L, b, why.c_str());
          continue;
        }
        size_t T = (size_t)p.grid * BLOCK;
        size_t ne = nf / per;  // elements of WID bytes
        size_t trips = ne / (T * (size_t)L);
        double moved = (double)trips * L * T * wid;
        CK(cudaMemset(out, 0, T * sizeof(float)));
        kit::Timing t;
        if (ncu) {
          std::printf("LAUNCH seq=%d prog=mlpw kernel=%s WID=%lld L=%lld b=%d dyn=%d grid=%d block=%d "
                      "trips=%zu bytes=%.0f regs=%d\n",
                      seq++, kname, wid, L, b, p.dyn, p.grid, BLOCK, trips, moved, ki.regs);
          std::fflush(stdout);
        }
        auto launch = [&] {
          if (wid == 4) {
            switch (L) {
              case 1: mlpw_read<4, 1><<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)trips, out); break;
              case 2: mlpw_read<4, 2><<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)trips, out); break;
              case 4: mlpw_read<4, 4><<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)trips, out); break;
              case 8: mlpw_read<4, 8><<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)trips, out); break;
              default: mlpw_read<4, 16><<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)trips, out); break;
            }
          } else if (wid == 8) {
            const float2 *s2 = (const float2 *)src;
            switch (L) {
              case 1: mlpw_read<8, 1><<<p.grid, BLOCK, p.dyn>>>(s2, (unsigned)trips, out); break;
              case 2: mlpw_read<8, 2><<<p.grid, BLOCK, p.dyn>>>(s2, (unsigned)trips, out); break;
              case 4: mlpw_read<8, 4><<<p.grid, BLOCK, p.dyn>>>(s2, (unsigned)trips, out); break;
              case 8: mlpw_read<8, 8><<<p.grid, BLOCK, p.dyn>>>(s2, (unsigned)trips, out); break;
              default: mlpw_read<8, 16><<<p.grid, BLOCK, p.dyn>>>(s2, (unsigned)trips, out); break;
            }
          } else {
            const float4 *s4 = (const float4 *)src;
            switch (L) {
              case 1: mlpw_read<16, 1><<<p.grid, BLOCK, p.dyn>>>(s4, (unsigned)trips, out); break;
              case 2: mlpw_read<16, 2><<<p.grid, BLOCK, p.dyn>>>(s4, (unsigned)trips, out); break;
              case 4: mlpw_read<16, 4><<<p.grid, BLOCK, p.dyn>>>(s4, (unsigned)trips, out); break;
              case 8: mlpw_read<16, 8><<<p.grid, BLOCK, p.dyn>>>(s4, (unsigned)trips, out); break;
              default: mlpw_read<16, 16><<<p.grid, BLOCK, p.dyn>>>(s4, (unsigned)trips, out); break;
            }
          }
        };
        if (ncu) {
          launch();
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        } else {
          t = kit::time_launches(launch, warm, reps);
        }
        // thread 0 and the last thread on the host (float sums in the same order)
        bool ok = true;
        for (size_t g : {(size_t)0, T - 1}) {
          float s = 0.0f;
          for (size_t tr = 0; tr < trips; tr++)
            for (int kk = 0; kk < L; kk++) {
              size_t e = (tr * L * T + g + (size_t)kk * T) * per;
              if (per == 1) {
                s += kit::hash_float((uint32_t)e);
              } else if (per == 2) {
                s += kit::hash_float((uint32_t)e) + kit::hash_float((uint32_t)(e + 1));
              } else {
                float x = kit::hash_float((uint32_t)e), y = kit::hash_float((uint32_t)(e + 1)),
                      z = kit::hash_float((uint32_t)(e + 2)), w = kit::hash_float((uint32_t)(e + 3));
                s += (x + y) + (z + w);
              }
            }
          float h = 0;
          CK(cudaMemcpy(&h, out + g, 4, cudaMemcpyDeviceToHost));
          if (h != s) ok = false;
        }
        if (!ok) failures++;
        std::printf("MLPW prog=mlpw kernel=%s WID=%lld L=%lld b=%d warps_per_sm=%d insts_in_flight_per_sm=%d "
                    "lines_in_flight_per_sm=%d bytes_in_flight_per_sm=%d grid=%d dyn=%d regs=%d trips=%zu "
                    "bytes=%.0f mode=%s ms_med=%.4f ms_min=%.4f GBps_med=%.1f GBps_max=%.1f reps=%d check=%s\n",
                    kname, wid, L, b, b * BLOCK / 32, b * (BLOCK / 32) * (int)L,
                    b * (BLOCK / 32) * (int)L * (int)(wid / 4 > 0 ? (32 * wid + 127) / 128 : 1),
                    b * BLOCK * (int)wid * (int)L, p.grid, p.dyn, ki.regs, trips, moved, ncu ? "ncu" : "time",
                    t.med_ms, t.min_ms, ncu ? 0.0 : moved / (t.med_ms * 1e6), ncu ? 0.0 : moved / (t.min_ms * 1e6),
                    t.reps, ok ? "ok" : "FAIL");
        std::fflush(stdout);
      }
    }
  return failures ? 1 : 0;
}
