// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17): what a DRAM or L2 access of one, two or four
// sectors of a line costs when the lines are scattered (gathers).
//
// memory.dram_access_sectors was fitted on warp loads of whole lines and of
// 1+3 sectors (calib_misalign.cu); it makes a one-sector access cost 2.5
// sectors' bank time on the H200 config, which nothing measured yet.  This
// program measures scattered accesses of s = 1, 2, 4 sectors per line, and
// the divergent gather (every lane its own line, one sector each).
//
// gather<S>: every thread keeps exactly L = 4 independent loads in flight:
// one trip issues 4 loads (LDG.E, 4 bytes, L1-allocating), then sums them;
// the trip loop is not unrolled.  Warp load number x (x = (gw*L + k) +
// trip*(Wg*L), gw the warp's global index, Wg the warps of the grid) goes to
// line h(x) of the footprint, h a bijection on NB bits that mixes:
//   a = (x * 0x9E3779B1) & M;  h = ((a ^ (a >> (NB/2))) * 0x85EBCA6B) & M,  M = 2^NB - 1
// (32-bit arithmetic; only the low NB bits are kept, so 64-bit arithmetic
// gives the same h: smsim's annotation is the same formula).
//   S = 1, 2, 4: lane i reads float (i >> (2 - log2 S)) of line h(x): the warp
//                touches the line's first S sectors (32*S bytes).
//   S = 0 (div): lane i reads float 0 of line h(x) + i*STRIDE_LINES: 32 lines,
//                one sector each (the buffer has 32*STRIDE_LINES lines of slack,
//                no wrap).
// Footprints: dram NB = 23 (1 GiB, each line read about once per launch for
// S > 0: far beyond the 60 MiB L2), l2 NB = 17 (16 MiB, re-read many times).
// Residency b blocks of 128 threads per SM (dynamic shared memory padding,
// carveout 100, one persistent wave).
//   S in {1, 2, 4, 0}; foot in {dram, l2}; b in {1, 2, 4, 8, 16}.
//   --ncu: one launch per point; default: CUDA-event timing, median of --reps.
// Output: GATHER lines (GB/s of sectors touched: accesses * 32 * S bytes).
// Check: thread 0's and the last thread's sums against a host recomputation.
// SASS expected: 4 x LDG.E (no .CONSTANT needed) in the trip loop, IMADs of the hash.
#include "common.cuh"

constexpr int BLOCK = 128;
constexpr int L = 4;
constexpr unsigned STRIDE_LINES = 4099;  // odd: the 32 lanes' lines land on different channels

__host__ __device__ inline unsigned gather_line(unsigned x, unsigned nb) {
  const unsigned m = (1u << nb) - 1u;
  unsigned a = (x * 0x9E3779B1u) & m;
  return ((a ^ (a >> (nb / 2))) * 0x85EBCA6Bu) & m;
}

template <int S>
__host__ __device__ inline unsigned gather_index(unsigned x, unsigned lane, unsigned nb) {
  if (S == 0) return (gather_line(x, nb) + lane * STRIDE_LINES) * 32u;
  constexpr unsigned sh = S == 1 ? 2 : S == 2 ? 1 : 0;  // lanes sharing a float: 4, 2, 1
  return gather_line(x, nb) * 32u + (lane >> sh);
}

template <int S>
__global__ void __launch_bounds__(BLOCK, 16)
    gather(const float *__restrict__ src, unsigned nb, unsigned trips, float *__restrict__ out) {
  const unsigned wg = gridDim.x * (BLOCK / 32);
  const unsigned gw = blockIdx.x * (BLOCK / 32) + threadIdx.x / 32;
  const unsigned lane = threadIdx.x & 31;
  float s = 0.0f;
  unsigned x = gw * L;
#pragma unroll 1
  for (unsigned t = 0; t < trips; t++, x += wg * L) {
    float v[L];
#pragma unroll
    for (int k = 0; k < L; k++) v[k] = src[gather_index<S>(x + k, lane, nb)];
#pragma unroll
    for (int k = 0; k < L; k++) s += v[k];
  }
  out[blockIdx.x * BLOCK + threadIdx.x] = s;
}

__global__ void init_f(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i);
}

template <int S>
static float host_sum(unsigned g, unsigned wg, unsigned trips, unsigned nb) {
  unsigned gw = g / 32, lane = g % 32;
  float s = 0.0f;
  unsigned x = gw * L;
  for (unsigned t = 0; t < trips; t++, x += wg * L) {
    float v[L];
    for (int k = 0; k < L; k++) v[k] = kit::hash_float(gather_index<S>(x + k, lane, nb));
    for (int k = 0; k < L; k++) s += v[k];
  }
  return s;
}

typedef void (*GatherFn)(const float *, unsigned, unsigned, float *);
typedef float (*HostFn)(unsigned, unsigned, unsigned, unsigned);

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "res", "sectors", "foots", "reps", "warm"});
  kit::Device d = kit::open_device("gather");
  const int nsm = d.prop.multiProcessorCount;
  auto res = a.list("res", "1,2,4,8,16");
  auto secs = a.list("sectors", "1,2,4,0");
  auto foots = a.words("foots", "dram,l2");
  int reps = (int)a.num("reps", 5), warm = (int)a.num("warm", 1);
  bool ncu = a.has("ncu");
  // 2^23 lines of 32 floats plus the divergent gather's slack
  const size_t nfl = (((size_t)1 << 23) + 32 * (size_t)STRIDE_LINES) * 32;
  float *src, *out;
  CK(cudaMalloc(&src, nfl * sizeof(float)));
  CK(cudaMalloc(&out, (size_t)nsm * 16 * BLOCK * sizeof(float)));
  init_f<<<1024, 256>>>(src, nfl);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int seq = 0, failures = 0;
  for (const std::string &foot : foots) {
    if (foot != "l2" && foot != "dram") kit::Args::die("unknown footprint " + foot + " (l2 or dram)");
    const unsigned nb = foot == "l2" ? 17 : 23;
    for (long long sl : secs) {
      int S = (int)sl;
      GatherFn fn = S == 1 ? gather<1> : S == 2 ? gather<2> : S == 4 ? gather<4> : S == 0 ? gather<0> : nullptr;
      HostFn hf = S == 1 ? host_sum<1> : S == 2 ? host_sum<2> : S == 4 ? host_sum<4> : host_sum<0>;
      if (!fn) kit::Args::die("sectors must be 1, 2, 4 or 0 (divergent)");
      // warp loads per launch: 2^22 (one line each), 2^18 for the divergent gather (32 lines each)
      const double wl_total = S == 0 ? (double)(1 << 18) : (double)(1 << 22);
      const int lines_per_wl = S == 0 ? 32 : 1, sect_per_line = S == 0 ? 1 : S;
      std::string kname = "gather<" + std::to_string(S) + ">";
      kit::KernelInfo ki = kit::kernel_info(kname.c_str(), (const void *)fn, BLOCK);
      for (long long bl : res) {
        int b = (int)bl;
        kit::Point p;
        std::string why;
        if (!kit::plan_point(d, (const void *)fn, ki, BLOCK, b, 1, p, why)) {
          std::printf("SKIP prog=gather foot=%s S=%d b=%d why=%s\n", foot.c_str(), S, b, why.c_str());
          continue;
        }
        const unsigned wg = (unsigned)p.grid * (BLOCK / 32);
        const unsigned trips = (unsigned)std::max(1.0, wl_total / ((double)wg * L));
        const double accesses = (double)trips * wg * L * lines_per_wl;
        const double bytes = accesses * 32.0 * sect_per_line;
        auto launch = [&] { fn<<<p.grid, BLOCK, p.dyn>>>(src, nb, trips, out); };
        kit::Timing t;
        if (ncu) {
          std::printf("LAUNCH seq=%d prog=gather kernel=gather foot=%s S=%d b=%d dyn=%d grid=%d block=%d "
                      "trips=%u accesses=%.0f sector_bytes=%.0f\n", seq++, foot.c_str(), S, b, p.dyn, p.grid,
                      BLOCK, trips, accesses, bytes);
          std::fflush(stdout);
          launch();
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        } else {
          t = kit::time_launches(launch, warm, reps);
        }
        bool ok = true;
        for (unsigned g : {0u, (unsigned)p.grid * BLOCK - 1}) {
          float h = 0;
          CK(cudaMemcpy(&h, out + g, 4, cudaMemcpyDeviceToHost));
          if (h != hf(g, wg, trips, nb)) ok = false;
        }
        if (!ok) failures++;
        std::printf("GATHER prog=gather kernel=gather foot=%s S=%d b=%d warps_per_sm=%d grid=%d dyn=%d "
                    "trips=%u accesses=%.0f sector_bytes=%.0f mode=%s ms_med=%.4f ms_min=%.4f GBps_med=%.1f "
                    "reps=%d check=%s\n",
                    foot.c_str(), S, b, b * BLOCK / 32, p.grid, p.dyn, trips, accesses, bytes,
                    ncu ? "ncu" : "time", t.med_ms, t.min_ms, ncu ? 0.0 : bytes / (t.med_ms * 1e6), t.reps,
                    ok ? "ok" : "FAIL");
        std::fflush(stdout);
      }
    }
  }
  return failures ? 1 : 0;
}
