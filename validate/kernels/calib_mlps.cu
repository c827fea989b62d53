// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #17, item 4): does a warp wait for the slowest of its
// independent DRAM loads as if each were an independent draw, whatever the
// distance between them?
//
// calib_mlp and calib_mlpw place a thread's L loads T elements apart (T =
// threads in the grid: 270 KiB and more), and smsim, one latency draw per
// 512-byte chunk of each load, matches them.  A kernel whose loads of a trip
// are close together (a block summing a contiguous slice, as reductions do)
// may see correlated latencies: lines of one DRAM page or channel served
// together.  mlps_read<L> keeps the access of calib_mlpw<4, L> (LDG.E, one
// 128-byte line per warp load, L loads per trip, trip loop not unrolled) and
// varies only the distance between a warp's loads: groups of G consecutive
// warps (grid order) share a region of L * G lines; load k of member m of a
// group reads line k * G + m of it.  So a warp's L loads are G * 128 bytes
// apart, every line of the buffer is read once, and G = all warps of the grid
// is calib_mlpw's layout (loads T elements apart).
//   --gs list of G (0 = all warps of the grid), --ls L in {1, 2, 4, 8},
//   --res b blocks of 128 threads per SM (dynamic shared memory padding,
//   carveout 100, one persistent wave), 1 GiB buffer read once per launch.
//   --mix 1 / 2: mlps_mix<L, M> instead (L = 4, 8): half the loads from a
//   second array at the same offsets / every load's value stored to a third.
//   --ncu: one launch per point (LAUNCH lines); default: CUDA-event timing,
//   median of --reps: MLPS lines with GB/s.
// Check: the sums of the first and the last thread against the host.
#include "common.cuh"

constexpr int BLOCK = 128;

template <int L>
__global__ void __launch_bounds__(BLOCK, 16)
    mlps_read(const float *__restrict__ src, unsigned trips, unsigned G, unsigned trip_floats,
              float *__restrict__ out) {
  const unsigned g = blockIdx.x * BLOCK + threadIdx.x;
  const unsigned w = g >> 5, lane = g & 31;
  // region of the warp's group, then its own line in it
  unsigned base = (w / G) * (L * G * 32) + (w % G) * 32 + lane;
  const unsigned step = G * 32;
  float s = 0.0f;
#pragma unroll 1
  for (unsigned t = 0; t < trips; t++, base += trip_floats) {
    float v[L];
#pragma unroll
    for (int k = 0; k < L; k++) v[k] = src[base + k * step];
#pragma unroll
    for (int k = 0; k < L; k++) s += v[k];
  }
  out[g] = s;
}

// mlps_mix<L, M>: mlps_read<L>'s loads and layout with a second stream.
//   M = 1 (two arrays, as vecadd reads a[] and b[]): the odd-numbered loads
//         of a trip read src2 at the same offsets instead of src;
//   M = 2 (reads and writes, as copy and vecadd store): after its loads each
//         trip stores its L values to dst at the same offsets (stores do not
//         hold the next trip: the sums still need only the loads).
// Bytes counted are the loads' (the stores' are on top for M = 2).
template <int L, int M>
__global__ void __launch_bounds__(BLOCK, 16)
    mlps_mix(const float *__restrict__ src, const float *__restrict__ src2, float *__restrict__ dst,
             unsigned trips, unsigned G, unsigned trip_floats, float *__restrict__ out) {
  const unsigned g = blockIdx.x * BLOCK + threadIdx.x;
  const unsigned w = g >> 5, lane = g & 31;
  unsigned base = (w / G) * (L * G * 32) + (w % G) * 32 + lane;
  const unsigned step = G * 32;
  float s = 0.0f;
#pragma unroll 1
  for (unsigned t = 0; t < trips; t++, base += trip_floats) {
    float v[L];
#pragma unroll
    for (int k = 0; k < L; k++) v[k] = (M == 1 && (k & 1) ? src2 : src)[base + k * step];
#pragma unroll
    for (int k = 0; k < L; k++) s += v[k];
    if (M == 2) {
#pragma unroll
      for (int k = 0; k < L; k++) dst[base + k * step] = v[k];
    }
  }
  out[g] = s;
}

__global__ void init_f(float *x, size_t n) {
  size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
    x[i] = kit::hash_float((uint32_t)i);
}

typedef void (*KFn)(const float *, unsigned, unsigned, unsigned, float *);
static KFn kfn(int L) {
  if (L == 1) return mlps_read<1>;
  if (L == 2) return mlps_read<2>;
  if (L == 4) return mlps_read<4>;
  if (L == 8) return mlps_read<8>;
  kit::Args::die("L must be 1, 2, 4 or 8");
}
typedef void (*MFn)(const float *, const float *, float *, unsigned, unsigned, unsigned, float *);
static MFn mfn(int L, int M) {
  if (L == 4 && M == 1) return mlps_mix<4, 1>;
  if (L == 8 && M == 1) return mlps_mix<8, 1>;
  if (L == 4 && M == 2) return mlps_mix<4, 2>;
  if (L == 8 && M == 2) return mlps_mix<8, 2>;
  kit::Args::die("mix: L must be 4 or 8 and M 1 or 2");
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "res", "ls", "gs", "bytes", "reps", "warm", "mix"});
  kit::Device d = kit::open_device("mlps");
  const int nsm = d.prop.multiProcessorCount;
  auto res = a.list("res", "1,2,4,8");
  auto ls = a.list("ls", "1,8");
  auto gs = a.list("gs", "1,4,16,64,512,0");
  // --mix 0 (mlps_read, default), 1 (two arrays) or 2 (reads and stores)
  const int mix = (int)a.num("mix", 0);
  size_t bytes = (size_t)a.num("bytes", 1LL << 30);
  int reps = (int)a.num("reps", 5), warm = (int)a.num("warm", 1);
  bool ncu = a.has("ncu");
  size_t nf = bytes / 4;
  float *src, *src2 = nullptr, *dst = nullptr, *out;
  CK(cudaMalloc(&src, nf * 4));
  if (mix == 1) CK(cudaMalloc(&src2, nf * 4));
  if (mix == 2) CK(cudaMalloc(&dst, nf * 4));
  CK(cudaMalloc(&out, (size_t)nsm * 16 * BLOCK * sizeof(float)));
  init_f<<<1024, 256>>>(src, nf);
  if (src2) init_f<<<1024, 256>>>(src2, nf);  // the same values: the check is unchanged
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int seq = 0, failures = 0;
  for (long long L : ls) {
    KFn fn = mix ? nullptr : kfn((int)L);
    MFn fm = mix ? mfn((int)L, mix) : nullptr;
    const void *fp = mix ? (const void *)fm : (const void *)fn;
    char kname[32];
    if (mix)
      std::snprintf(kname, sizeof kname, "mlps_mix<%lld,%d>", L, mix);
    else
      std::snprintf(kname, sizeof kname, "mlps_read<%lld>", L);
    kit::KernelInfo ki = kit::kernel_info(kname, fp, BLOCK);
    for (long long gl : gs)
      for (long long bl : res) {
        int b = (int)bl;
        kit::Point p;
        std::string why;
        if (!kit::plan_point(d, fp, ki, BLOCK, b, 1, p, why)) {
          std::printf("SKIP prog=mlps L=%lld G=%lld b=%d why=%s\n", L, gl, b, why.c_str());
          continue;
        }
        const size_t T = (size_t)p.grid * BLOCK, warps = T / 32;
        const size_t G = gl == 0 ? warps : (size_t)gl;
        const size_t groups = (warps + G - 1) / G;
        const size_t trip_floats = groups * G * 32 * (size_t)L;  // a partial last group leaves a gap
        const size_t trips = nf / trip_floats;
        const double moved = (double)trips * (double)T * 4.0 * (double)L;
        CK(cudaMemset(out, 0, T * sizeof(float)));
        kit::Timing t;
        if (ncu) {
          std::printf("LAUNCH seq=%d prog=mlps kernel=%s L=%lld mix=%d G=%zu gap_bytes=%zu b=%d dyn=%d grid=%d "
                      "block=%d trips=%zu bytes=%.0f regs=%d\n",
                      seq++, kname, L, mix, G, G * 128, b, p.dyn, p.grid, BLOCK, trips, moved, ki.regs);
          std::fflush(stdout);
        }
        auto launch = [&] {
          if (mix)
            fm<<<p.grid, BLOCK, p.dyn>>>(src, src2, dst, (unsigned)trips, (unsigned)G, (unsigned)trip_floats, out);
          else
            fn<<<p.grid, BLOCK, p.dyn>>>(src, (unsigned)trips, (unsigned)G, (unsigned)trip_floats, out);
        };
        if (ncu) {
          launch();
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        } else {
          t = kit::time_launches(launch, warm, reps);
        }
        bool ok = true;
        for (size_t gt : {(size_t)0, T - 1}) {
          const size_t w = gt / 32, lane = gt % 32;
          size_t base = (w / G) * (L * G * 32) + (w % G) * 32 + lane;
          float s = 0.0f;
          for (size_t tr = 0; tr < trips; tr++, base += trip_floats) {
            float v[8];
            for (int k = 0; k < L; k++) v[k] = kit::hash_float((uint32_t)(base + k * G * 32));
            for (int k = 0; k < L; k++) s += v[k];
          }
          float h = 0;
          CK(cudaMemcpy(&h, out + gt, 4, cudaMemcpyDeviceToHost));
          if (h != s) ok = false;
        }
        if (!ok) failures++;
        std::printf("MLPS prog=mlps kernel=%s L=%lld mix=%d G=%zu gap_bytes=%zu b=%d grid=%d dyn=%d regs=%d "
                    "trips=%zu bytes=%.0f mode=%s ms_med=%.4f ms_min=%.4f GBps_med=%.1f GBps_max=%.1f "
                    "reps=%d check=%s\n",
                    kname, L, mix, G, G * 128, b, p.grid, p.dyn, ki.regs, trips, moved, ncu ? "ncu" : "time",
                    t.med_ms, t.min_ms, ncu ? 0.0 : moved / (t.med_ms * 1e6),
                    ncu ? 0.0 : moved / (t.min_ms * 1e6), t.reps, ok ? "ok" : "FAIL");
        std::fflush(stdout);
      }
  }
  return failures ? 1 : 0;
}
