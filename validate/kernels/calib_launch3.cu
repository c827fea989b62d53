// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issue #19): is the block launch rate a GPU-wide or a per-SM limit?
//
// Near-empty 32-thread blocks over many waves start at ~160-175 SM cycles per
// block per SM on the H200 (~0.84 blocks per cycle for all 132 SMs; see
// calib_launch.cu --stamp, calib_launch2.cu).  Either one dispatcher feeds the
// whole GPU (fewer free SMs -> the same blocks per microsecond, so each free SM
// starts blocks faster) or each SM accepts one block per ~160 cycles (fewer
// free SMs -> proportionally fewer blocks per microsecond).  This program takes
// K SMs away and measures the probe's rate on the NSM - K others.
//
// hold: K blocks of 1024 threads, dynamic shared memory = sharedMemPerBlockOptin
//   (227 KiB + 1 KiB reserve = the SM's whole 228 KiB), so exactly one per SM
//   and no probe block (8 KiB + 1 KiB reserve) fits beside it.  Thread 0 writes
//   smid + 1 to a zero-copy (cudaHostAllocMapped) array, then polls a zero-copy
//   flag with ld.relaxed.sys until the host sets it, or until --hold-timeout-cyc
//   clock64 cycles (default 100e6, ~50 ms: never hangs; a timeout marks the
//   point FAIL).  The other 31 warps wait at __syncthreads (issue nothing).
//   Zero-copy memory, not cudaMemcpyAsync, for both the counter and the flag:
//   the host reads and writes them with plain loads/stores, so no CUDA call can
//   queue behind the running hold kernel (legacy-stream or copy-engine
//   ordering) and the release cannot be delayed by the probe's own stream.
// probe: N blocks (default 64 x SMs) of T threads (32, 128), dynamic shared
//   memory --probe-smem (default 8 KiB, a launch parameter only).  Thread 0
//   reads clock64, %globaltimer and %smid and stores one 16-byte record
//   {smid, g0 lo, g0 hi, c0 lo}; the other threads exit at once.
// Per point: hold<<<K, 1024, optin, s1>>>; host polls until K smids are in
//   (1 s timeout -> SKIP); probe<<<N, T, smem, s2>>>; sync s2; flag = 1; sync s1.
//   s1, s2 are cudaStreamNonBlocking.  Both kernels use the maximum carveout,
//   so no SM has to reconfigure its L1/shared split between them.  Host checks:
//   no probe block on a held SM (on_held=0), no hold timeout, every record set.
//
// SASS expected: probe: S2R SR_TID.X, ISETP/EXIT, CS2R SR_CLOCKLO.., S2UR or
//   S2R SR_GLOBALTIMERLO/HI, S2R SR_SMID, S2R SR_CTAID.X, IMAD.WIDE, STG.E.128,
//   EXIT.  hold: a loop of LD.E.STRONG.SYS + CS2R clock, BAR.SYNC.
//
// Output: one line per point and repetition:
//   L3 K=k rep=r free=F probe_threads=T probe_blocks=N span_us blocks_per_us
//   blocks_per_us_per_free_sm med_gap_cyc p10_gap_cyc p90_gap_cyc (gaps between
//   consecutive block starts on one SM, SM cycles, all SMs pooled)
//   cyc_per_block_sm_med (per SM (last c0 - first c0) / (blocks - 1), median
//   over SMs) bps_min/bps_med/bps_max (blocks per used SM) sms_used on_held
//   (probe blocks on held SMs) timeouts (hold blocks that timed out) check
//   (FAIL also when a stamp is missing or a smid out of range)
// --csv FILE: one row per probe block:
//   K,probe_threads,rep,block,smid,g0_ns_from_first,c0_cycles_from_sm_first
#include "common.cuh"

#include <atomic>
#include <chrono>

__global__ void __launch_bounds__(1024, 1)
    hold(unsigned *held, const unsigned *flag, long long timeout) {
  if (threadIdx.x == 0) {
    unsigned smid, v;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("st.relaxed.sys.u32 [%0], %1;" ::"l"(held + blockIdx.x), "r"(smid + 1) : "memory");
    long long t0 = clock64();
    unsigned to = 0;
    for (;;) {
      asm volatile("ld.relaxed.sys.u32 %0, [%1];" : "=r"(v) : "l"(flag) : "memory");
      if (v != 0) break;
      if (clock64() - t0 > timeout) { to = 1u << 16; break; }
    }
    asm volatile("st.relaxed.sys.u32 [%0], %1;" ::"l"(held + blockIdx.x), "r"((smid + 1) | to) : "memory");
  }
  __syncthreads();
}

__global__ void __launch_bounds__(1024) probe(uint4 *rec) {
  if (threadIdx.x != 0) return;
  unsigned long long c0, g0;
  unsigned smid;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  rec[blockIdx.x] = make_uint4(smid, (unsigned)g0, (unsigned)(g0 >> 32), (unsigned)c0);
}

static long long pct(const std::vector<long long> &v, double q) {
  return v.empty() ? -1LL : v[(size_t)(q * (double)(v.size() - 1))];
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"holds", "probe-blocks", "probe-threads", "probe-smem", "reps", "csv",
                           "hold-timeout-cyc"});
  kit::Device d = kit::open_device("launch3");
  const int nsm = d.prop.multiProcessorCount;
  auto holds = a.list("holds", "0,16,33,66,99,116,124");
  auto threads = a.list("probe-threads", "32,128");
  const int nprobe = (int)a.num("probe-blocks", (long long)nsm * 64);
  const int psmem = (int)a.num("probe-smem", 8 * 1024);
  const int reps = (int)a.num("reps", 3);
  const long long timeout = a.num("hold-timeout-cyc", 100000000LL);
  std::string csv = a.str("csv", "");
  if (nprobe < 2 || reps < 1) kit::Args::die("probe-blocks must be >= 2 and reps >= 1");
  const int hsmem = (int)d.prop.sharedMemPerBlockOptin;
  CK(cudaFuncSetAttribute((const void *)hold, cudaFuncAttributeMaxDynamicSharedMemorySize, hsmem));
  CK(cudaFuncSetAttribute((const void *)hold, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  CK(cudaFuncSetAttribute((const void *)probe, cudaFuncAttributeMaxDynamicSharedMemorySize, psmem));
  CK(cudaFuncSetAttribute((const void *)probe, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  int hocc = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&hocc, hold, 1024, hsmem));
  const int res = (int)d.prop.reservedSharedMemPerBlock, smsm = (int)d.prop.sharedMemPerMultiprocessor;
  const int left = smsm - (hsmem + res), pneed = psmem + res;
  cudaFuncAttributes fh, fp;
  CK(cudaFuncGetAttributes(&fh, (const void *)hold));
  CK(cudaFuncGetAttributes(&fp, (const void *)probe));
  std::printf("INFO prog=launch3 hold_smem=%d hold_regs=%d hold_occ_api=%d smem_left_beside_hold=%d "
              "probe_smem=%d probe_need=%d probe_regs=%d probe_fits_beside_hold=%d hold_timeout_cyc=%lld\n",
              hsmem, fh.numRegs, hocc, left, psmem, pneed, fp.numRegs, pneed <= left ? 1 : 0, timeout);
  if (hocc != 1) std::printf("INFO prog=launch3 warn=hold_occupancy_not_1\n");

  unsigned *held_h, *held_d, *flag_h, *flag_d;
  CK(cudaHostAlloc(&held_h, (size_t)nsm * 4, cudaHostAllocMapped));
  CK(cudaHostAlloc(&flag_h, 64, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer((void **)&held_d, held_h, 0));
  CK(cudaHostGetDevicePointer((void **)&flag_d, flag_h, 0));
  volatile unsigned *held_v = held_h, *flag_v = flag_h;
  uint4 *rec;
  CK(cudaMalloc(&rec, (size_t)nprobe * 16));
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  FILE *f = nullptr;
  if (!csv.empty()) {
    f = std::fopen(csv.c_str(), "w");
    if (!f) kit::Args::die("cannot open " + csv);
    std::fprintf(f, "K,probe_threads,rep,block,smid,g0_ns_from_first,c0_cycles_from_sm_first\n");
  }
  // Module load and first launches outside the measured points.
  *flag_v = 1;
  hold<<<1, 1024, hsmem, s1>>>(held_d, flag_d, timeout);
  probe<<<nsm, 32, psmem, s2>>>(rec);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  std::vector<uint4> h(nprobe);
  int failures = 0;
  for (long long T : threads)
    for (long long Kl : holds)
      for (int rep = 0; rep < reps; rep++) {
        const int K = (int)Kl;
        if (K < 0 || K >= nsm) {
          std::printf("SKIP prog=launch3 K=%d why=no_free_sm\n", K);
          break;
        }
        CK(cudaMemsetAsync(rec, 0xff, (size_t)nprobe * 16, s2));
        CK(cudaStreamSynchronize(s2));
        for (int i = 0; i < nsm; i++) held_v[i] = 0;
        *flag_v = 0;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        int seen = 0;
        if (K > 0) {
          hold<<<K, 1024, hsmem, s1>>>(held_d, flag_d, timeout);
          CK(cudaGetLastError());
          auto t0 = std::chrono::steady_clock::now();
          while (seen < K && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(1)) {
            seen = 0;
            for (int i = 0; i < K; i++) seen += held_v[i] != 0;
          }
        }
        if (seen < K) {
          *flag_v = 1;
          CK(cudaStreamSynchronize(s1));
          std::printf("SKIP prog=launch3 K=%d rep=%d probe_threads=%lld why=holds_not_resident_seen_%d\n", K,
                      rep, T, seen);
          failures++;
          continue;
        }
        probe<<<nprobe, (unsigned)T, psmem, s2>>>(rec);
        CK(cudaGetLastError());
        CK(cudaStreamSynchronize(s2));
        *flag_v = 1;
        CK(cudaStreamSynchronize(s1));
        CK(cudaMemcpy(h.data(), rec, (size_t)nprobe * 16, cudaMemcpyDeviceToHost));
        std::vector<char> isheld(nsm, 0);
        int timeouts = 0, bad = 0, on_held = 0;
        std::string hl;
        for (int i = 0; i < K; i++) {
          unsigned v = held_v[i], s = (v & 0xffff) - 1;
          if (v >> 16) timeouts++;
          if (s < (unsigned)nsm) isheld[s] = 1; else bad++;
          hl += (i ? "-" : "") + std::to_string(s);
        }
        if (rep == 0 && K > 0) std::printf("INFO prog=launch3 K=%d probe_threads=%lld held_smids=%s\n", K, T, hl.c_str());
        // Per SM: clock stamps relative to an arbitrary stamp of that SM (32-bit
        // clock, wraps every ~2 s: signed 32-bit differences are exact here).
        std::vector<std::vector<long long>> per(nsm);
        std::vector<unsigned> ref(nsm, 0);
        std::vector<char> hasref(nsm, 0);
        unsigned long long gmin = ~0ull, gmax = 0;
        for (int b = 0; b < nprobe; b++) {
          unsigned s = h[b].x;
          if (s >= (unsigned)nsm) { bad++; continue; }
          if (isheld[s]) on_held++;
          unsigned long long g = h[b].y | ((unsigned long long)h[b].z << 32);
          gmin = std::min(gmin, g);
          gmax = std::max(gmax, g);
          if (!hasref[s]) { hasref[s] = 1; ref[s] = h[b].w; }
          per[s].push_back((long long)(int)(h[b].w - ref[s]));
        }
        std::vector<long long> gaps, cpb, bps, smin(nsm, 0);
        int used = 0;
        for (int s = 0; s < nsm; s++) {
          auto &v = per[s];
          if (v.empty()) continue;
          used++;
          std::sort(v.begin(), v.end());
          smin[s] = v.front();
          bps.push_back((long long)v.size());
          for (size_t i = 1; i < v.size(); i++) gaps.push_back(v[i] - v[i - 1]);
          if (v.size() > 1) cpb.push_back((v.back() - v.front()) / (long long)(v.size() - 1));
        }
        std::sort(gaps.begin(), gaps.end());
        std::sort(cpb.begin(), cpb.end());
        std::sort(bps.begin(), bps.end());
        const int F = nsm - K;
        const double span_us = gmax > gmin ? (double)(gmax - gmin) / 1000.0 : -1.0;
        const double bpu = span_us > 0 ? nprobe / span_us : -1.0;
        const bool ok = bad == 0 && on_held == 0 && timeouts == 0;
        if (!ok) failures++;
        std::printf("L3 K=%d rep=%d free=%d probe_threads=%lld probe_blocks=%d span_us=%.3f blocks_per_us=%.2f "
                    "blocks_per_us_per_free_sm=%.4f med_gap_cyc=%lld p10_gap_cyc=%lld p90_gap_cyc=%lld "
                    "cyc_per_block_sm_med=%lld bps_min=%lld bps_med=%lld bps_max=%lld sms_used=%d on_held=%d "
                    "timeouts=%d check=%s\n",
                    K, rep, F, T, nprobe, span_us, bpu, bpu > 0 ? bpu / F : -1.0, pct(gaps, 0.5), pct(gaps, 0.1),
                    pct(gaps, 0.9), pct(cpb, 0.5), pct(bps, 0.0), pct(bps, 0.5), pct(bps, 1.0), used, on_held,
                    timeouts, ok ? "ok" : "FAIL");
        std::fflush(stdout);
        if (f)
          for (int b = 0; b < nprobe; b++) {
            unsigned s = h[b].x;
            bool v = s < (unsigned)nsm;
            unsigned long long g = h[b].y | ((unsigned long long)h[b].z << 32);
            std::fprintf(f, "%d,%lld,%d,%d,%d,%lld,%lld\n", K, T, rep, b, v ? (int)s : -1,
                         v ? (long long)(g - gmin) : -1LL,
                         v ? (long long)(int)(h[b].w - ref[s]) - smin[s] : -1LL);
          }
      }
  if (f) std::fclose(f);
  CK(cudaStreamDestroy(s1));
  CK(cudaStreamDestroy(s2));
  CK(cudaFree(rec));
  CK(cudaFreeHost(held_h));
  CK(cudaFreeHost(flag_h));
  std::printf("INFO prog=launch3 done failures=%d\n", failures);
  return failures ? 1 : 0;
}
