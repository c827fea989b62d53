// SPDX-License-Identifier: GPL-3.0-or-later
// CALIBRATION: dependent-issue latency and issue interval per execution pipe.
//
// One block on one SM; W warps; each warp runs C independent chains; each
// chain is a run of instructions where every instruction needs the result of
// the one before it (a "step" is two such instructions).  Timing is clock64()
// per warp around the chains (all warps start after one __syncthreads), minus
// an empty timed region.
//   C = 1, W = 1      -> cycles per instruction = dependent-issue latency.
//   C = 8, W = 1..32  -> issue interval per scheduler (SMSP) for the pipe,
//                        once enough chains are in flight.
//   C = 1, W = 1..32  -> how many warps hide the latency.
// Ops (SASS checked with cuobjdump on sm_90, see README):
//   ffma : fma.rn.f32 x = x*a + b                      -> FFMA
//   imad : mad.lo.u32 x = x*a + y ; y = y*a + x         -> IMAD
//   iadd3: x = x + y + c ; y = y + x + c                -> IADD3
//   mufu : x = ex2.approx.ftz(-x)                       -> MUFU.EX2 (fixed point ~0.64)
//   dfma : fma.rn.f64 x = x*a + b                      -> DFMA
//   imadw: mad.wide.u32 w = lo(w)*a + w (64-bit w)     -> IMAD.WIDE.U32
//   iaddu: add.u32 x = x + c, c a kernel argument: ptxas folds the chain into
//          IMADs (kit8 build/sass-checks.txt), so it times nothing; kept so kit8's
//          op numbers (templates 6..12) stay those of its SASS
//   mixai: IMAD chain and IADD3 chain interleaved     -> IMAD, IADD3 (ALU vs FMA-heavy)
//   mixfa: FFMA chain and IADD3 chain interleaved     -> FFMA, IADD3
//   mixfi: FFMA chain and IMAD chain interleaved      -> FFMA, IMAD
//          (mix ops: a step is four instructions, two of each chain)
//   lds  : a = ld.shared.u32 [a], a random cycle of shared addresses,
//          all lanes on the same address (broadcast)   -> LDS
//   shfl : x = shfl.sync.bfly(x, 1)                    -> SHFL.BFLY (immediate lane mask)
//   shfli: x = shfl.sync.idx(x, v), v a lane in a register -> SHFL.IDX
//   mixsl: SHFL.BFLY chain and LDS chain interleaved   (a step is four
//          instructions, two of each chain: do SHFL and LDS share a pipe?)
// The two-register forms of imad/iadd3 make every intermediate result used
// twice, so neither NVVM nor ptxas can re-associate the chain into fewer
// instructions.  Each loop iteration holds INSTS_PER_ITER chain instructions
// plus about 3 loop-control instructions (independent of the chains).
#include "common.cuh"

struct PipeParams {
  float fa, fb;
  unsigned ia, ic;
  double da, db;
};

enum { OP_FFMA, OP_IMAD, OP_IADD3, OP_MUFU, OP_DFMA, OP_LDS, OP_IMADW, OP_IADDU, OP_MIXAI, OP_MIXFA, OP_MIXFI,
       OP_SHFL, OP_SHFLI, OP_MIXSL, OP_COUNT };
static const char *op_names[OP_COUNT] = {"ffma", "imad", "iadd3", "mufu", "dfma", "lds", "imadw", "iaddu", "mixai", "mixfa", "mixfi",
                                          "shfl", "shfli", "mixsl"};

constexpr int INSTS_PER_ITER = 256;  // chain instructions per loop iteration, all chains
constexpr int LDS_SLOTS = 4096;      // 16 KB of shared memory for the lds chain

// State of one chain: two 64-bit slots, used as the op needs.
struct Chain {
  float f;
  unsigned u, v;
  double d;
  unsigned long long w;
  unsigned p, q;
};

template <int OP>
__device__ __forceinline__ void init_chain_state(Chain &c, int chain, int warp, const PipeParams &p,
                                                 const uint32_t *lds_start) {
  c.f = 0.5f + 0.01f * chain + 0.001f * warp;
  c.u = 12345u + 977u * chain + 31u * warp + (p.ia & 1u);
  c.v = 777u + 13u * chain;
  c.d = 0.5 + 0.01 * chain + 0.001 * warp;
  c.w = 0x100000001ull * (3u + chain) + warp;
  c.p = 4321u + 7u * chain + warp;
  c.q = 99u + 5u * chain;
  if (OP == OP_LDS || OP == OP_MIXSL) c.u = lds_start[(chain * 131 + warp * 17) % LDS_SLOTS];
  if (OP == OP_SHFLI) c.v = (threadIdx.x + 1u + chain) & 31u;  // a lane index, per lane
}

// One step = two dependent instructions.
template <int OP>
__device__ __forceinline__ void step(Chain &c, const PipeParams &p) {
  if (OP == OP_FFMA) {
    asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(c.f) : "f"(p.fa), "f"(p.fb));
    asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(c.f) : "f"(p.fa), "f"(p.fb));
  } else if (OP == OP_IMAD) {
    asm volatile("mad.lo.u32 %0, %0, %2, %1;" : "+r"(c.u) : "r"(c.v), "r"(p.ia));
    asm volatile("mad.lo.u32 %0, %0, %2, %1;" : "+r"(c.v) : "r"(c.u), "r"(p.ia));
  } else if (OP == OP_IADD3) {
    asm volatile("{ .reg .u32 t; add.u32 t, %0, %1; add.u32 %0, t, %2; }"
                 : "+r"(c.u) : "r"(c.v), "r"(p.ic));
    asm volatile("{ .reg .u32 t; add.u32 t, %0, %1; add.u32 %0, t, %2; }"
                 : "+r"(c.v) : "r"(c.u), "r"(p.ic));
  } else if (OP == OP_MUFU) {
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(c.f) : "f"(-c.f));
    asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(c.f) : "f"(-c.f));
  } else if (OP == OP_DFMA) {
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(c.d) : "d"(p.da), "d"(p.db));
    asm volatile("fma.rn.f64 %0, %0, %1, %2;" : "+d"(c.d) : "d"(p.da), "d"(p.db));
  } else if (OP == OP_IMADW) {
    asm volatile("{ .reg .u32 lo; cvt.u32.u64 lo, %0; mad.wide.u32 %0, lo, %1, %0; }" : "+l"(c.w) : "r"(p.ia));
    asm volatile("{ .reg .u32 lo; cvt.u32.u64 lo, %0; mad.wide.u32 %0, lo, %1, %0; }" : "+l"(c.w) : "r"(p.ia));
  } else if (OP == OP_IADDU) {
    asm volatile("add.u32 %0, %0, %1;" : "+r"(c.u) : "r"(p.ic));
    asm volatile("add.u32 %0, %0, %1;" : "+r"(c.u) : "r"(p.ic));
  } else if (OP == OP_MIXAI || OP == OP_MIXFA || OP == OP_MIXFI) {
    // chain A: IMAD (mixai, mixfi) or FFMA (mixfa); chain B: IADD3 (mixai, mixfa) or FFMA (mixfi)
    for (int h = 0; h < 2; h++) {
      if (OP == OP_MIXAI || OP == OP_MIXFI) {
        if (h == 0) asm volatile("mad.lo.u32 %0, %0, %2, %1;" : "+r"(c.u) : "r"(c.v), "r"(p.ia));
        else asm volatile("mad.lo.u32 %0, %0, %2, %1;" : "+r"(c.v) : "r"(c.u), "r"(p.ia));
      } else {
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(c.f) : "f"(p.fa), "f"(p.fb));
      }
      if (OP == OP_MIXFI) {
        asm volatile("fma.rn.f32 %0, %0, %1, %2;" : "+f"(c.f) : "f"(p.fa), "f"(p.fb));
      } else if (h == 0) {
        asm volatile("{ .reg .u32 t; add.u32 t, %0, %1; add.u32 %0, t, %2; }" : "+r"(c.p) : "r"(c.q), "r"(p.ic));
      } else {
        asm volatile("{ .reg .u32 t; add.u32 t, %0, %1; add.u32 %0, t, %2; }" : "+r"(c.q) : "r"(c.p), "r"(p.ic));
      }
    }
  } else if (OP == OP_SHFL) {
    asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(c.u));
    asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(c.u));
  } else if (OP == OP_SHFLI) {
    asm volatile("shfl.sync.idx.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(c.u) : "r"(c.v));
    asm volatile("shfl.sync.idx.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(c.u) : "r"(c.v));
  } else if (OP == OP_MIXSL) {
    for (int h = 0; h < 2; h++) {
      asm volatile("shfl.sync.bfly.b32 %0, %0, 1, 0x1f, 0xffffffff;" : "+r"(c.p));
      asm volatile("ld.shared.u32 %0, [%0];" : "+r"(c.u));
    }
  } else {  // OP_LDS
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(c.u));
    asm volatile("ld.shared.u32 %0, [%0];" : "+r"(c.u));
  }
}

template <int OP>
__device__ __forceinline__ float fold(const Chain &c) {
  if (OP == OP_FFMA || OP == OP_MUFU) return c.f;
  if (OP == OP_DFMA) return (float)c.d;
  if (OP == OP_IMADW) return (float)(unsigned)(c.w ^ (c.w >> 32));
  if (OP == OP_MIXAI) return (float)(c.u ^ c.v ^ c.p ^ c.q);
  if (OP == OP_MIXFA) return c.f + (float)(c.p ^ c.q);
  if (OP == OP_MIXFI) return c.f + (float)(c.u ^ c.v);
  if (OP == OP_MIXSL) return (float)(c.u ^ c.p);
  return (float)(c.u ^ c.v);
}

// lds_order: a random cycle over LDS_SLOTS slots (only read for OP_LDS).
// out: per warp {t0, t1, ovh}; sink: per warp, keeps the chains live.
template <int OP, int CHAINS>
__global__ void pipe(int iters, PipeParams p, const uint32_t *lds_order, long long *out,
                     float *sink) {
  extern __shared__ uint32_t lds_table[];
  const int warp = threadIdx.x / 32;
  __shared__ uint32_t lds_start[LDS_SLOTS];
  if (OP == OP_LDS || OP == OP_MIXSL) {
    // lds_table[order[i]] = shared address of lds_table[order[i+1]]
    uint32_t base = (uint32_t)__cvta_generic_to_shared(lds_table);
    for (int i = threadIdx.x; i < LDS_SLOTS; i += blockDim.x) {
      uint32_t here = lds_order[i], next = lds_order[(i + 1) % LDS_SLOTS];
      lds_table[here] = base + 4u * next;
      lds_start[i] = base + 4u * here;
    }
  }
  Chain c[CHAINS];
#pragma unroll
  for (int k = 0; k < CHAINS; k++) init_chain_state<OP>(c[k], k, warp, p, lds_start);
  __syncthreads();
  long long o0 = clock64();
  long long o1 = clock64();
  long long t0 = clock64();
  constexpr int PER_STEP = (OP == OP_MIXAI || OP == OP_MIXFA || OP == OP_MIXFI || OP == OP_MIXSL) ? 4 : 2;
  constexpr int STEPS = INSTS_PER_ITER / (PER_STEP * CHAINS);
#pragma unroll 1
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int s = 0; s < STEPS; s++) {
#pragma unroll
      for (int k = 0; k < CHAINS; k++) step<OP>(c[k], p);
    }
  }
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < CHAINS; k++) acc += fold<OP>(c[k]);
  if ((threadIdx.x & 31) == 0) sink[warp] = acc;  // waits for every chain
  long long t1 = clock64();
  if ((threadIdx.x & 31) == 0) {
    out[3 * warp + 0] = t0;
    out[3 * warp + 1] = t1;
    out[3 * warp + 2] = o1 - o0;
  }
}

typedef void (*PipeFn)(int, PipeParams, const uint32_t *, long long *, float *);

template <int OP>
PipeFn pick(int chains) {
  switch (chains) {
    case 1: return pipe<OP, 1>;
    case 2: return pipe<OP, 2>;
    case 4: return pipe<OP, 4>;
    case 8: return pipe<OP, 8>;
    default: return nullptr;
  }
}

static PipeFn pick_op(int op, int chains) {
  switch (op) {
    case OP_FFMA: return pick<OP_FFMA>(chains);
    case OP_IMAD: return pick<OP_IMAD>(chains);
    case OP_IADD3: return pick<OP_IADD3>(chains);
    case OP_MUFU: return pick<OP_MUFU>(chains);
    case OP_DFMA: return pick<OP_DFMA>(chains);
    case OP_LDS: return pick<OP_LDS>(chains);
    case OP_IMADW: return pick<OP_IMADW>(chains);
    case OP_IADDU: return pick<OP_IADDU>(chains);
    case OP_MIXAI: return pick<OP_MIXAI>(chains);
    case OP_MIXFA: return pick<OP_MIXFA>(chains);
    case OP_MIXFI: return pick<OP_MIXFI>(chains);
    case OP_SHFL: return pick<OP_SHFL>(chains);
    case OP_SHFLI: return pick<OP_SHFLI>(chains);
    case OP_MIXSL: return pick<OP_MIXSL>(chains);
    default: return nullptr;
  }
}

int main(int argc, char **argv) {
  kit::Args a(argc, argv, {"ops", "chains", "warps", "iters", "reps"});
  kit::Device d = kit::open_device("pipes");
  (void)d;  // opened for its INFO line and the context
  auto ops = a.words("ops", "ffma,imad,iadd3,mufu,dfma,lds");
  auto chains_list = a.list("chains", "1,2,4,8");
  auto warps_list = a.list("warps", "1,2,4,8,16,32");
  int iters = (int)a.num("iters", 64);
  int reps = (int)a.num("reps", 5);

  PipeParams p;
  p.fa = 0.999f;
  p.fb = 0.001f;
  p.ia = 0x9E3779B1u;
  p.ic = 0x7F4A7C15u;
  p.da = 0.999;
  p.db = 0.001;

  std::vector<uint32_t> order = kit::cycle_order(LDS_SLOTS, 0, 777);
  uint32_t *d_order;
  long long *d_out;
  float *d_sink;
  CK(cudaMalloc(&d_order, LDS_SLOTS * sizeof(uint32_t)));
  CK(cudaMemcpy(d_order, order.data(), LDS_SLOTS * sizeof(uint32_t), cudaMemcpyHostToDevice));
  CK(cudaMalloc(&d_out, 3 * 32 * sizeof(long long)));
  CK(cudaMalloc(&d_sink, 32 * sizeof(float)));

  for (const std::string &opname : ops) {
    int op = -1;
    for (int i = 0; i < OP_COUNT; i++)
      if (opname == op_names[i]) op = i;
    if (op < 0) kit::Args::die("unknown op " + opname);
    for (long long chains : chains_list) {
      PipeFn fn = pick_op(op, (int)chains);
      if (!fn) kit::Args::die("chains must be 1, 2, 4 or 8");
      size_t dyn = (op == OP_LDS || op == OP_MIXSL) ? LDS_SLOTS * sizeof(uint32_t) : 0;
      cudaFuncAttributes fa;
      CK(cudaFuncGetAttributes(&fa, (const void *)fn));
      for (long long warps : warps_list) {
        if (warps < 1 || warps > 32) kit::Args::die("warps must be 1..32");
        std::vector<double> span, wmed, ovh;
        for (int r = 0; r < reps + 1; r++) {  // launch 0 warms the instruction cache
          fn<<<1, (unsigned)(32 * warps), dyn>>>(iters, p, d_order, d_out, d_sink);
          CK(cudaGetLastError());
          CK(cudaDeviceSynchronize());
          std::vector<long long> h(3 * warps);
          CK(cudaMemcpy(h.data(), d_out, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
          if (r == 0) continue;
          long long lo = h[0], hi = h[1], omin = h[2];
          std::vector<double> per;
          for (int w = 0; w < warps; w++) {
            lo = std::min(lo, h[3 * w]);
            hi = std::max(hi, h[3 * w + 1]);
            omin = std::min(omin, h[3 * w + 2]);
            per.push_back((double)(h[3 * w + 1] - h[3 * w]));
          }
          span.push_back((double)(hi - lo));
          wmed.push_back(kit::median(per));
          ovh.push_back((double)omin);
        }
        double sp = kit::median(span), wm = kit::median(wmed), ov = kit::median(ovh);
        double insts_warp = (double)iters * INSTS_PER_ITER;  // chain instructions per warp
        int smsp_used = (int)std::min<long long>(warps, 4);
        double insts_smsp = insts_warp * (double)((warps + 3) / 4);  // busiest SMSP
        std::printf(
            "CALIB prog=pipes op=%s chains=%lld warps=%lld iters=%d insts_per_iter=%d "
            "insts_per_warp=%.0f regs=%d span_cyc=%.0f warp_cyc_med=%.0f ovh=%.0f "
            "cyc_per_inst_warp=%.3f cyc_per_inst_smsp=%.3f smsp_used=%d\n",
            opname.c_str(), chains, warps, iters, INSTS_PER_ITER, insts_warp, fa.numRegs, sp, wm,
            ov, (wm - ov) / insts_warp, (sp - ov) / insts_smsp, smsp_used);
        std::fflush(stdout);
      }
    }
  }
  // The sink values are not checked: each is a chain's end value, kept only
  // so the chains are live.  Print one so it is visibly used.
  float s0 = 0;
  CK(cudaMemcpy(&s0, d_sink, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("INFO prog=pipes sink0=%g\n", (double)s0);
  return 0;
}
