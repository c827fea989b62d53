// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #19, item 2): block launch (dispatch) rate.
//
// Near-empty kernels over many waves, so that the rate at which the GPU starts
// blocks, not the SM's issue logic, sets the time:
//   launch_w<N>: each thread runs N dependent IMADs (x = x*x + k, inline PTX,
//               one register chain) and stores x only if it equals a value it
//               never reaches (keeps the chain alive).  N = 0: the body is a
//               bare EXIT.  N in {0, 8, 300}.
//   block sizes 32..1024 threads, dynamic shared memory 0 or 16 KiB (16 KiB +
//   1 KiB reserve -> 13 blocks/SM by shared memory: limits 32..128-thread
//   blocks, not the larger ones), grid = waves * SMs * (max resident blocks
//   from cudaOccupancyMaxActiveBlocksPerMultiprocessor), default 20 waves.
//   The kernel never touches its shared memory; it is a launch parameter only.
//
// Modes:
//   --ncu      one launch per configuration, in the order of LAUNCH lines
//              (plus one 1-wave launch per block size and one 1-block launch,
//              for the start/drain overhead); ncu profiles them.
//   (default)  CUDA-event timings of the same configurations at several grid
//              sizes (--waves-list, default 1,5,20,40 waves), median of --reps
//              after --warm launches: the slope between 20 and 40 waves is the
//              steady per-block cost without start/drain.  TIME lines.
//   --stamp    launch_stamp: thread 0 of every block writes %smid, clock64()
//              and %globaltimer at its start (then exits).  Per block size
//              (dyn 0) one launch of 20 waves: STAMP summary lines (blocks per
//              SM, per-SM start-to-start interval in SM cycles, first/last
//              start in ns) and the raw stamps of the first --stamp-raw-waves
//              waves to --stamp-csv (dispatch order to SMs).
#include "common.cuh"

template <int N>
__global__ void __launch_bounds__(1024) launch_w(unsigned *out, unsigned key) {
  if (N == 0) return;
  unsigned x = threadIdx.x ^ key;
#pragma unroll
  for (int i = 0; i < N; i++) asm volatile("mad.lo.u32 %0, %0, %0, %1;" : "+r"(x) : "r"(key));
  if (x == key + 1u) out[0] = x;  // never true for the keys used (checked on host: out stays 0)
}

__global__ void __launch_bounds__(1024) launch_stamp(unsigned long long *st) {
  if (threadIdx.x != 0) return;
  unsigned smid;
  unsigned long long gt;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(gt));
  long long c = clock64();
  st[3 * (size_t)blockIdx.x + 0] = smid;
  st[3 * (size_t)blockIdx.x + 1] = (unsigned long long)c;
  st[3 * (size_t)blockIdx.x + 2] = gt;
}

typedef void (*KFn)(unsigned *, unsigned);
static KFn kfn(int work) {
  if (work == 0) return launch_w<0>;
  if (work == 8) return launch_w<8>;
  if (work == 300) return launch_w<300>;
  kit::Args::die("work must be 0, 8 or 300");
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "stamp", "blocks", "dyns", "works", "waves", "waves-list", "reps",
                           "warm", "stamp-csv", "stamp-raw-waves"});
  kit::Device d = kit::open_device("launch");
  const int nsm = d.prop.multiProcessorCount;
  auto blocks = a.list("blocks", "32,64,128,256,512,1024");
  auto dyns = a.list("dyns", "0,16K");
  auto works = a.list("works", "0,8,300");
  int waves = (int)a.num("waves", 20);
  auto waves_list = a.list("waves-list", "1,5,20,40");
  int reps = (int)a.num("reps", 7), warm = (int)a.num("warm", 3);
  bool ncu = a.has("ncu"), stamp = a.has("stamp");
  unsigned *out;
  CK(cudaMalloc(&out, 64));
  CK(cudaMemset(out, 0, 64));
  const unsigned key = 0x9E3779B9u;
  int seq = 0, failures = 0;

  if (stamp) {
    std::string csv = a.str("stamp-csv", "launch_stamps.csv");
    int raw_waves = (int)a.num("stamp-raw-waves", 2);
    FILE *f = std::fopen(csv.c_str(), "w");
    if (!f) kit::Args::die("cannot open " + csv);
    std::fprintf(f, "block_threads,block_id,smid,clock64_cyc,globaltimer_ns_rel\n");
    for (long long bt : blocks) {
      int occ = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, launch_stamp, (int)bt, 0));
      int grid = waves * nsm * occ;
      unsigned long long *st;
      CK(cudaMalloc(&st, (size_t)grid * 3 * 8));
      launch_stamp<<<grid, (unsigned)bt>>>(st);  // warm-up (module load)
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      launch_stamp<<<grid, (unsigned)bt>>>(st);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<unsigned long long> h((size_t)grid * 3);
      CK(cudaMemcpy(h.data(), st, h.size() * 8, cudaMemcpyDeviceToHost));
      CK(cudaFree(st));
      unsigned long long g0 = ~0ull, g1 = 0;
      std::vector<std::vector<long long>> per(nsm);
      for (int b = 0; b < grid; b++) {
        unsigned sm = (unsigned)h[3 * b];
        if (sm < (unsigned)nsm) per[sm].push_back((long long)h[3 * b + 1]);
        g0 = std::min(g0, h[3 * b + 2]);
        g1 = std::max(g1, h[3 * b + 2]);
      }
      for (int b = 0; b < grid && b < raw_waves * nsm * occ; b++)
        std::fprintf(f, "%lld,%d,%llu,%llu,%llu\n", bt, b, h[3 * b], h[3 * b + 1], h[3 * b + 2] - g0);
      // Per SM: blocks started, and the median interval between consecutive
      // starts after the first `occ` (the first wave starts all at once).
      std::vector<double> ivs, counts, spans;
      for (int s = 0; s < nsm; s++) {
        auto &v = per[s];
        counts.push_back((double)v.size());
        std::sort(v.begin(), v.end());
        if ((int)v.size() > occ + 2) {
          spans.push_back((double)(v.back() - v[occ]) / (double)(v.size() - 1 - occ));
          std::vector<double> iv;
          for (size_t i = occ + 1; i < v.size(); i++) iv.push_back((double)(v[i] - v[i - 1]));
          ivs.push_back(kit::median(iv));
        }
      }
      std::printf(
          "STAMP prog=launch block=%lld occ_api=%d grid=%d waves=%d blocks_per_sm_min=%.0f "
          "blocks_per_sm_med=%.0f blocks_per_sm_max=%.0f cyc_between_starts_per_sm_med=%.1f "
          "cyc_per_block_after_wave1_per_sm_med=%.1f first_to_last_start_ns=%llu "
          "blocks_per_us_gpu=%.2f\n",
          bt, occ, grid, waves, *std::min_element(counts.begin(), counts.end()),
          kit::median(counts), *std::max_element(counts.begin(), counts.end()),
          ivs.empty() ? -1.0 : kit::median(ivs), spans.empty() ? -1.0 : kit::median(spans),
          g1 - g0, g1 > g0 ? grid / ((g1 - g0) / 1000.0) : -1.0);
      std::fflush(stdout);
    }
    std::fclose(f);
    return 0;
  }

  for (long long bt : blocks) {
    for (long long dyn : dyns) {
      for (long long w : works) {
        KFn fn = kfn((int)w);
        if (dyn > 48 * 1024)
          CK(cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dyn));
        int occ = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, fn, (int)bt, (size_t)dyn));
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, (const void *)fn));
        if (occ < 1) {
          std::printf("SKIP prog=launch block=%lld dyn=%lld work=%lld why=occupancy_0\n", bt, dyn, w);
          continue;
        }
        if (ncu) {
          int grid = waves * nsm * occ;
          std::printf("LAUNCH seq=%d prog=launch kernel=launch_w<%lld> block=%lld dyn=%lld work=%lld "
                      "occ_api=%d waves=%d grid=%d regs=%d\n",
                      seq++, w, bt, dyn, w, occ, waves, grid, fa.numRegs);
          std::fflush(stdout);
          fn<<<grid, (unsigned)bt, (size_t)dyn>>>(out, key);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
        } else {
          for (long long wv : waves_list) {
            int grid = (int)wv * nsm * occ;
            kit::Timing t = kit::time_launches([&] { fn<<<grid, (unsigned)bt, (size_t)dyn>>>(out, key); },
                                               warm, reps);
            std::printf("TIME prog=launch kernel=launch_w<%lld> block=%lld dyn=%lld work=%lld occ_api=%d "
                        "waves=%lld grid=%d regs=%d us_med=%.3f us_min=%.3f us_max=%.3f reps=%d "
                        "ns_per_block_gpu=%.3f\n",
                        w, bt, dyn, w, occ, wv, grid, fa.numRegs, t.med_ms * 1e3, t.min_ms * 1e3,
                        t.max_ms * 1e3, t.reps, t.med_ms * 1e6 / grid);
            std::fflush(stdout);
          }
        }
      }
    }
  }
  if (ncu) {
    // Start/drain overhead: one wave of each block size (dyn 0, work 0), and one block.
    for (long long bt : blocks) {
      int occ = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, launch_w<0>, (int)bt, 0));
      int grid = nsm * occ;
      std::printf("LAUNCH seq=%d prog=launch kernel=launch_w<0> block=%lld dyn=0 work=0 occ_api=%d "
                  "waves=1 grid=%d\n", seq++, bt, occ, grid);
      std::fflush(stdout);
      launch_w<0><<<grid, (unsigned)bt>>>(out, key);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    }
    std::printf("LAUNCH seq=%d prog=launch kernel=launch_w<0> block=32 dyn=0 work=0 occ_api=32 "
                "waves=0 grid=1\n", seq++);
    std::fflush(stdout);
    launch_w<0><<<1, 32>>>(out, key);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
  }
  unsigned h = 1;
  CK(cudaMemcpy(&h, out, 4, cudaMemcpyDeviceToHost));
  std::printf("INFO prog=launch check=%s out0=%u\n", h == 0 ? "ok" : "FAIL", h);
  if (h != 0) failures++;
  return failures ? 1 : 0;
}
