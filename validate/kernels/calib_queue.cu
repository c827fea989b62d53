// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION (issues #17/#18): the depths of the SMSP's in-SM memory queues,
// memory.lg_queue_depth (global/local, LG) and memory.mio_queue_depth
// (shared/constant, MIO) of configs/h200.yaml (16 each, a model assumption).
// In smsim an instruction waits with lg_throttle / mio_throttle while that
// many LG / MIO instructions of its SMSP have not been sent on (docs/model.md).
//
// q_burst<F, K, S>: one block per SM (dynamic shared memory > half the SM's,
// so the occupancy API must say 1), 4 W warps per block = W warps per SMSP
// (W = 1, 2, 4, 8; the SMSP is %warpid % 4, recorded).  Each warp runs two
// rounds of the same straight-line burst (round 0 warms the instruction cache,
// L1 and TLB; round 1 is measured), each after a __syncthreads():
//     t0 = clock64; K independent loads (inline PTX, one immediate offset
//     each, distinct destination registers, no use in between); t1 = clock64;
//     sum the K results (waits for every load); t2 = clock64.
// With S = 1 a 32-bit %clock is also read after every 4th load (CS2R between
// the loads: the stamp issues as soon as the load before it has issued); the
// following loads' base address takes (stamp - t0) >> 30 (0 in practice), so
// ptxas cannot sink the stamp below the next load (it did, without).  S = 1
// thus adds ~3 ALU instructions and a short dependence per 4 loads: S = 0 is
// the clean burst, S = 1 the shape of one warp's issue inside it.
// Flavours F (every warp of the block reads the same words, so one SM's L1 /
// shared memory holds them):
//   lg128   LDG.E.128 (ld.global.ca.v4.u32), 512 B per warp instruction, L1 hit
//   lg32    LDG.E     (ld.global.ca.u32),    128 B, L1 hit
//   lds128  LDS.128, conflict-free (4 wavefronts, the minimum for 512 B)
//   lds32   LDS,     conflict-free (1 wavefront)
//   lds32c4 LDS,     4-way bank conflict (lane l reads bank l%8, row l/8: 4
//           wavefronts, as many as lds128 with a quarter of the bytes)
// K = 4, 8, 16, 32, 64 (128-bit flavours: K <= 32; K = 64 would need 256
// result registers).  A point whose registers do not fit 128 W threads is a
// SKIP line (why=occupancy_0).
//
// SASS expected per instance: exactly K LDG (lg*) or K LDS (lds*) in the
// function (the loop body appears once: `#pragma unroll 1` over the rounds),
// consecutive, with nothing between them for S = 0 and K/4 CS2R for S = 1;
// shared-memory fill uses STS and LDG.E (lds* only: not the same LDG count,
// see run-calib5.sh's check, which counts LDS for lds*, LDG for lg*).
//
// Reading the result: per SMSP (block, %warpid % 4) the span max(t1) -
// min(t0) over its W warps, divided by W K, is the SMSP's cycles per burst
// instruction (QUEUE smsp_cpi_med, median over the 528 SMSPs).  While the
// SMSP's queue takes instructions the burst issues at the LSU's accept rate
// (about one per 1-2 cycles); once W K exceeds the queue depth plus what the
// unit drained meanwhile, issue falls to the unit's service rate (L1 / shared
// memory wavefronts shared by 4 SMSPs: ~4 x wavefronts cycles per
// instruction).  The knee in W K is the depth; the S = 1 stamps (st_med: the
// median over warps of stamp j - t0) show where one warp's issue slows.
// burst_cyc_* is one warp's t1 - t0, lat_cyc_med its t2 - t0 (burst plus the
// last load's latency), cold_cyc_med round 0's burst (cold).
// ncu (--ncu: S = 0 only, one launch per point) gives lg_throttle /
// mio_throttle for the whole kernel (both rounds and the fill), the
// instruction count and elapsed cycles: the stall onset against W K.
//
// Modes: default: one warm-up launch and one measured launch per point, QUEUE
// lines, per-warp rows of the first --raw-blocks blocks (16) to --raw-csv; --ncu: LAUNCH lines, one launch each.
// Check: every warp's sum of its loaded words (reduced over the warp) against
// the host's recomputation.
#include "common.cuh"

#include <utility>

enum { LG128 = 0, LG32 = 1, LDS128 = 2, LDS32 = 3, LDS32C4 = 4, NFL = 5 };
static const char *const FNAME[NFL] = {"lg128", "lg32", "lds128", "lds32", "lds32c4"};
static const int KS[] = {4, 8, 16, 32, 64};
constexpr int NK = 5;
constexpr int REC = 24;  // u64 words per warp record

__host__ __device__ constexpr int fwid(int F) { return (F == LG128 || F == LDS128) ? 4 : 1; }
__host__ __device__ constexpr bool is_lg(int F) { return F == LG128 || F == LG32; }
// Words (u32) between instruction i and i + 1 of one lane.
__host__ __device__ constexpr int fstep(int F) { return F == LDS32C4 ? 128 : 32 * fwid(F); }
// First word lane l reads at instruction 0 (instruction i: + i * fstep).
__host__ __device__ constexpr unsigned lane_word(int F, int l) {
  return F == LDS32C4 ? (unsigned)((l & 7) + (l >> 3) * 32) : (unsigned)(l * fwid(F));
}
__host__ __device__ constexpr unsigned fwords(int F, int K) { return (unsigned)(K * fstep(F)); }

__device__ __forceinline__ unsigned long long clk64() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t));
  return t;
}
__device__ __forceinline__ unsigned clk32() {
  unsigned t;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t));
  return t;
}

// Load I of the burst: immediate offset I * fstep * 4 bytes from the lane's base.
template <int F, int S, int I>
__device__ __forceinline__ void step(unsigned *v, const unsigned *&gp, unsigned &sp, unsigned *st, unsigned t0lo) {
  constexpr int OFF = I * fstep(F) * 4;
  if constexpr (F == LG128) {
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4+%5];"
                 : "=r"(v[4 * I]), "=r"(v[4 * I + 1]), "=r"(v[4 * I + 2]), "=r"(v[4 * I + 3])
                 : "l"(gp), "n"(OFF));
  } else if constexpr (F == LG32) {
    asm volatile("ld.global.ca.u32 %0, [%1+%2];" : "=r"(v[I]) : "l"(gp), "n"(OFF));
  } else if constexpr (F == LDS128) {
    asm volatile("ld.shared.v4.u32 {%0,%1,%2,%3}, [%4+%5];"
                 : "=r"(v[4 * I]), "=r"(v[4 * I + 1]), "=r"(v[4 * I + 2]), "=r"(v[4 * I + 3])
                 : "r"(sp), "n"(OFF));
  } else {
    asm volatile("ld.shared.u32 %0, [%1+%2];" : "=r"(v[I]) : "r"(sp), "n"(OFF));
  }
  if constexpr (S != 0 && (I & 3) == 3) {
    // The next loads' base moves by (stamp - t0) >> 30 words: 0 in practice
    // (under 2^30 cycles), but it makes the stamp precede load I + 1 in SASS.
    st[I >> 2] = clk32();
    const unsigned d = (st[I >> 2] - t0lo) >> 30;
    if constexpr (is_lg(F)) gp += d; else sp += 4u * d;
  }
}

template <int F, int S, int... I>
__device__ __forceinline__ void burst(std::integer_sequence<int, I...>, unsigned *v, const unsigned *gp,
                                      unsigned sp, unsigned *st, unsigned t0lo) {
  (step<F, S, I>(v, gp, sp, st, t0lo), ...);
}

template <int F, int K, int S>
__global__ void q_burst(const unsigned *__restrict__ g, unsigned long long *__restrict__ rec, int rounds) {
  extern __shared__ __align__(16) unsigned smem[];
  constexpr int WD = fwid(F);
  constexpr unsigned NW = fwords(F, K);
  const int lane = threadIdx.x & 31;
  if constexpr (!is_lg(F))
    for (unsigned j = threadIdx.x; j < NW; j += blockDim.x) smem[j] = g[j];
  const unsigned *gp = g + lane_word(F, lane);
  const unsigned sp = (unsigned)__cvta_generic_to_shared(smem) + 4u * lane_word(F, lane);
  unsigned long long t0 = 0, t1 = 0, t2 = 0;
  unsigned cold = 0, sum = 0;
  unsigned st[S ? K / 4 : 1];
#pragma unroll 1
  for (int r = 0; r < rounds; r++) {
    __syncthreads();
    unsigned v[K * WD];
    t0 = clk64();
    burst<F, S>(std::make_integer_sequence<int, K>{}, v, gp, sp, st, (unsigned)t0);
    t1 = clk64();
    // Every result is combined with m, which comes from t1's clock read (0 in
    // practice, unknown to the compiler): no add can be scheduled between the
    // loads (ptxas would otherwise interleave them to save registers).
    const unsigned m = (unsigned)(t1 >> 63);
    unsigned s = 0;
#pragma unroll
    for (int j = 0; j < K * WD; j++) s += v[j] ^ m;
    sum = s;
    // t2 is read under a predicate computed from the sum, so it waits for it.
    t2 = t1;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0xffffffff;\n\t@p mov.u64 %0, %%clock64;\n\t}"
                 : "+l"(t2)
                 : "r"(s));
    if (r == 0) cold = (unsigned)(t1 - t0);
  }
  unsigned tot = __reduce_add_sync(0xffffffffu, sum);
  if (lane == 0) {
    unsigned smid, wid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(wid));
    unsigned long long *o = rec + ((size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32) * REC;
    o[0] = t0;
    o[1] = t1;
    o[2] = t2;
    o[3] = cold;
    o[4] = tot;
    o[5] = ((unsigned long long)wid << 32) | smid;
    if constexpr (S != 0) {
#pragma unroll
      for (int j = 0; j < K / 4; j++) o[8 + j] = (unsigned)(st[j] - (unsigned)t0);
    }
  }
}

typedef void (*QFn)(const unsigned *, unsigned long long *, int);
#define QK(F, K) {q_burst<F, K, 0>, q_burst<F, K, 1>}
#define QROW(F) {QK(F, 4), QK(F, 8), QK(F, 16), QK(F, 32), QK(F, 64)}
#define QROW4(F) {QK(F, 4), QK(F, 8), QK(F, 16), QK(F, 32), {nullptr, nullptr}}
static const QFn QTAB[NFL][NK][2] = {QROW4(LG128), QROW(LG32), QROW4(LDS128), QROW(LDS32), QROW(LDS32C4)};

static int kidx(long long k) {
  for (int i = 0; i < NK; i++)
    if (KS[i] == k) return i;
  kit::Args::die("K must be one of 4,8,16,32,64");
}
static int fidx(const std::string &n) {
  for (int i = 0; i < NFL; i++)
    if (n == FNAME[i]) return i;
  kit::Args::die("unknown flavour " + n);
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ncu", "flavours", "ks", "ws", "stamps", "rounds", "raw-csv", "raw-blocks"});
  kit::Device d = kit::open_device("queue");
  const int nsm = d.prop.multiProcessorCount;
  auto fl = a.words("flavours", "lg128,lg32,lds128,lds32,lds32c4");
  auto ks = a.list("ks", "4,8,16,32,64");
  auto ws = a.list("ws", "1,2,4,8");
  bool ncu = a.has("ncu");
  auto ss = a.list("stamps", ncu ? "0" : "0,1");
  int rounds = (int)a.num("rounds", 2);
  if (rounds < 1) kit::Args::die("rounds must be >= 1");
  std::string raw = a.str("raw-csv", "");
  const int raw_blocks = (int)a.num("raw-blocks", 16);  // per-warp rows of the first blocks only
  FILE *rf = nullptr;
  if (!raw.empty() && !ncu) {
    rf = std::fopen(raw.c_str(), "w");
    if (!rf) kit::Args::die("cannot open " + raw);
    std::fprintf(rf, "flavour,K,W,S,block,warp,smid,hwwarp,burst_cyc,lat_cyc,cold_cyc,stamps\n");
  }
  const unsigned maxw = fwords(LDS32C4, 64);  // the largest footprint (32 KiB)
  std::vector<unsigned> hg(maxw);
  for (unsigned j = 0; j < maxw; j++) hg[j] = kit::hash32(j);
  unsigned *g;
  CK(cudaMalloc(&g, maxw * 4));
  CK(cudaMemcpy(g, hg.data(), maxw * 4, cudaMemcpyHostToDevice));
  const int maxwarps = 32;
  unsigned long long *rec;
  CK(cudaMalloc(&rec, (size_t)nsm * maxwarps * REC * 8));
  const int smem_sm = (int)d.prop.sharedMemPerMultiprocessor, reserve = (int)d.prop.reservedSharedMemPerBlock;
  // One block per SM: dyn + reserve more than half the SM's shared memory.
  int dyn = ((smem_sm / 2 - reserve) / 128 + 1) * 128;
  if (dyn + reserve > (int)d.prop.sharedMemPerBlockOptin) dyn = (int)d.prop.sharedMemPerBlockOptin - reserve;
  int seq = 0, failures = 0;
  for (const std::string &fn : fl) {
    int F = fidx(fn);
    for (long long k : ks) {
      int K = KS[kidx(k)];
      // The expected warp sum: every lane, every load, every word of the load.
      unsigned expect = 0;
      for (int l = 0; l < 32; l++)
        for (int i = 0; i < K; i++)
          for (int c = 0; c < fwid(F); c++) expect += hg[lane_word(F, l) + (unsigned)(i * fstep(F)) + c];
      for (long long s : ss) {
        QFn f = QTAB[F][kidx(k)][s ? 1 : 0];
        for (long long w : ws) {
          int W = (int)w, block = 128 * W;
          if (!f) {
            std::printf("SKIP prog=queue flavour=%s K=%d W=%d S=%lld why=registers_256\n", fn.c_str(), K, W, s);
            continue;
          }
          if (W < 1 || W > 8) kit::Args::die("W must be 1..8");
          CK(cudaFuncSetAttribute((const void *)f, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
          int occ = 0;
          CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, f, block, (size_t)dyn));
          cudaFuncAttributes fa;
          CK(cudaFuncGetAttributes(&fa, (const void *)f));
          if (occ != 1) {
            std::printf("SKIP prog=queue flavour=%s K=%d W=%d S=%lld regs=%d why=occupancy_%d\n", fn.c_str(), K,
                        W, s, fa.numRegs, occ);
            continue;
          }
          const int nwarps = nsm * 4 * W;
          CK(cudaMemset(rec, 0, (size_t)nwarps * REC * 8));
          if (ncu) {
            std::printf("LAUNCH seq=%d prog=queue kernel=q_burst flavour=%s K=%d W=%d S=%lld grid=%d block=%d "
                        "dyn=%d regs=%d rounds=%d\n",
                        seq++, fn.c_str(), K, W, s, nsm, block, dyn, fa.numRegs, rounds);
            std::fflush(stdout);
          } else {
            f<<<nsm, block, dyn>>>(g, rec, rounds);  // warm-up launch (module, TLB)
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
          }
          f<<<nsm, block, dyn>>>(g, rec, rounds);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<unsigned long long> h((size_t)nwarps * REC);
          CK(cudaMemcpy(h.data(), rec, h.size() * 8, cudaMemcpyDeviceToHost));
          int bad = 0;
          std::vector<long long> bur, lat, cold;
          std::vector<std::vector<long long>> stv(K / 4);
          std::vector<int> sms(nsm, 0);
          // per SMSP (block, hwwarp % 4): min t0, max t1, warps
          std::vector<long long> g0((size_t)nsm * 4, -1), g1((size_t)nsm * 4, -1);
          std::vector<int> gn((size_t)nsm * 4, 0);
          for (int wi = 0; wi < nwarps; wi++) {
            const unsigned long long *o = &h[(size_t)wi * REC];
            if ((unsigned)o[4] != expect) bad++;
            unsigned smid = (unsigned)o[5], hw = (unsigned)(o[5] >> 32);
            if (smid < (unsigned)nsm) sms[smid]++;
            long long b = (long long)(o[1] - o[0]), l = (long long)(o[2] - o[0]);
            bur.push_back(b);
            lat.push_back(l);
            cold.push_back((long long)o[3]);
            size_t gi = (size_t)(wi / (4 * W)) * 4 + (hw & 3);
            if (g0[gi] < 0 || (long long)o[0] < g0[gi]) g0[gi] = (long long)o[0];
            if ((long long)o[1] > g1[gi]) g1[gi] = (long long)o[1];
            gn[gi]++;
            std::string sts;
            if (s)
              for (int j = 0; j < K / 4; j++) {
                stv[j].push_back((long long)o[8 + j]);
                sts += (j ? "/" : "") + std::to_string(o[8 + j]);
              }
            if (rf && wi / (4 * W) < raw_blocks)
              std::fprintf(rf, "%s,%d,%d,%lld,%d,%d,%u,%u,%lld,%lld,%llu,%s\n", fn.c_str(), K, W, s, wi / (4 * W),
                           wi % (4 * W), smid, hw, b, l, o[3], sts.c_str());
          }
          std::vector<double> cpi;
          std::vector<long long> span;
          int gmin = 1 << 30, gmax = 0;
          for (size_t gi = 0; gi < gn.size(); gi++) {
            if (gn[gi] == 0) continue;
            gmin = std::min(gmin, gn[gi]);
            gmax = std::max(gmax, gn[gi]);
            span.push_back(g1[gi] - g0[gi]);
            cpi.push_back((double)(g1[gi] - g0[gi]) / ((double)gn[gi] * K));
          }
          int distinct = 0;
          for (int c : sms) distinct += c > 0;
          std::string stm;
          for (int j = 0; j < K / 4 && s; j++) stm += (j ? "/" : "") + std::to_string(kit::median(stv[j]));
          std::sort(bur.begin(), bur.end());
          std::printf("QUEUE prog=queue flavour=%s K=%d W=%d S=%lld WK=%d block=%d grid=%d dyn=%d regs=%d "
                      "rounds=%d mode=%s sms_distinct=%d warps_per_smsp_min=%d warps_per_smsp_max=%d "
                      "burst_cyc_min=%lld burst_cyc_med=%lld burst_cyc_max=%lld lat_cyc_med=%lld "
                      "cold_cyc_med=%lld smsp_span_cyc_med=%lld smsp_cpi_med=%.3f smsp_cpi_min=%.3f "
                      "smsp_cpi_max=%.3f st_med=%s check=%s bad_warps=%d\n",
                      fn.c_str(), K, W, s, W * K, block, nsm, dyn, fa.numRegs, rounds, ncu ? "ncu" : "time",
                      distinct, gmin, gmax, bur.front(), kit::median(bur), bur.back(), kit::median(lat),
                      kit::median(cold), kit::median(span), kit::median(cpi),
                      *std::min_element(cpi.begin(), cpi.end()), *std::max_element(cpi.begin(), cpi.end()),
                      s ? stm.c_str() : "-", bad ? "FAIL" : "ok", bad);
          std::fflush(stdout);
          if (bad) failures++;
        }
      }
    }
  }
  if (rf) std::fclose(rf);
  CK(cudaFree(g));
  CK(cudaFree(rec));
  std::printf("INFO prog=queue done failures=%d\n", failures);
  return failures ? 1 : 0;
}
