// SPDX-License-Identifier: GPL-3.0-or-later
// Shared host-side harness for the H200 measurement kit (validate/kernels/*.cu).
//
// Every program prints one machine-readable line per measurement:
//   <RECORD> key=value key=value ...
// RECORD is CALIB (calibration numbers), VALID (a validation point), LAUNCH (a
// launch meant to be profiled by ncu, printed before it runs, in launch order),
// SKIP (a point that was not run, with why=...), INFO and ERROR.  Values hold no
// spaces, so `awk`/`grep` parse them.  Every CUDA call is checked.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// Abort the program on a failed CUDA call: a sticky error poisons the context,
// so later points of the same process could not be trusted anyway.  The
// script runs each program separately, so one failure loses one program only.
#define CK(call)                                                               \
  do {                                                                         \
    cudaError_t ck_err_ = (call);                                              \
    if (ck_err_ != cudaSuccess) {                                              \
      std::printf("ERROR file=%s line=%d call=%s err=%s\n", __FILE__,          \
                  __LINE__, #call, cudaGetErrorName(ck_err_));                 \
      std::fflush(stdout);                                                     \
      std::exit(2);                                                            \
    }                                                                          \
  } while (0)

namespace kit {

// ---------------------------------------------------------------- arguments
// Accepts --name=value and --name value; unknown names are an error so a typo
// in run-device.sh fails loudly instead of silently using a default.
class Args {
 public:
  Args(int argc, char **argv, std::vector<std::string> known) : known_(known) {
    for (int i = 1; i < argc; i++) {
      std::string a = argv[i];
      if (a.rfind("--", 0) != 0) die("unexpected argument " + a);
      a = a.substr(2);
      std::string v;
      size_t eq = a.find('=');
      if (eq != std::string::npos) {
        v = a.substr(eq + 1);
        a = a.substr(0, eq);
      } else if (i + 1 < argc && std::strncmp(argv[i + 1], "--", 2) != 0) {
        v = argv[++i];
      } else {
        v = "1";  // bare flag
      }
      if (std::find(known_.begin(), known_.end(), a) == known_.end())
        die("unknown option --" + a);
      names_.push_back(a);
      vals_.push_back(v);
    }
  }
  bool has(const std::string &n) const { return find(n) >= 0; }
  std::string str(const std::string &n, const std::string &def) const {
    int i = find(n);
    return i < 0 ? def : vals_[i];
  }
  long long num(const std::string &n, long long def) const {
    int i = find(n);
    return i < 0 ? def : parse_size(vals_[i]);
  }
  // Comma-separated list of sizes ("16K,1M,2G" or "1,2,3").
  std::vector<long long> list(const std::string &n, const std::string &def) const {
    std::vector<long long> out;
    std::string s = str(n, def) + ",";
    size_t start = 0, c;
    while ((c = s.find(',', start)) != std::string::npos) {
      if (c > start) out.push_back(parse_size(s.substr(start, c - start)));
      start = c + 1;
    }
    return out;
  }
  std::vector<std::string> words(const std::string &n, const std::string &def) const {
    std::vector<std::string> out;
    std::string s = str(n, def) + ",";
    size_t start = 0, c;
    while ((c = s.find(',', start)) != std::string::npos) {
      if (c > start) out.push_back(s.substr(start, c - start));
      start = c + 1;
    }
    return out;
  }
  static long long parse_size(const std::string &s) {
    char *end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 10);
    if (end == s.c_str()) die("not a number: " + s);
    std::string suf = end;
    if (suf == "K" || suf == "k") v <<= 10;
    else if (suf == "M" || suf == "m") v <<= 20;
    else if (suf == "G" || suf == "g") v <<= 30;
    else if (!suf.empty()) die("bad size suffix: " + s);
    return v;
  }
  [[noreturn]] static void die(const std::string &m) {
    std::printf("ERROR args msg=\"%s\"\n", m.c_str());
    std::fflush(stdout);
    std::exit(64);
  }

 private:
  int find(const std::string &n) const {
    for (size_t i = names_.size(); i-- > 0;)
      if (names_[i] == n) return (int)i;
    return -1;
  }
  std::vector<std::string> known_, names_, vals_;
};

// ---------------------------------------------------------------- device
struct Device {
  cudaDeviceProp prop;
  int id = 0;
};

inline Device open_device(const char *prog) {
  Device d;
  CK(cudaGetDevice(&d.id));
  CK(cudaGetDeviceProperties(&d.prop, d.id));
  CK(cudaFree(0));  // create the context now, outside every timed region
  int clk_khz = 0, memclk_khz = 0;
  // clockRate left cudaDeviceProp in CUDA 13; ask the attribute API instead.
  if (cudaDeviceGetAttribute(&clk_khz, cudaDevAttrClockRate, d.id) != cudaSuccess) clk_khz = -1;
  if (cudaDeviceGetAttribute(&memclk_khz, cudaDevAttrMemoryClockRate, d.id) != cudaSuccess) memclk_khz = -1;
  cudaGetLastError();
  std::printf(
      "INFO prog=%s device=\"%s\" cc=%d.%d sms=%d smem_per_sm=%zu smem_optin=%zu "
      "smem_reserved=%zu regs_per_sm=%d max_threads_sm=%d max_blocks_sm=%d "
      "l2_bytes=%d clock_khz=%d memclock_khz=%d mem_bus_bits=%d\n",
      prog, d.prop.name, d.prop.major, d.prop.minor, d.prop.multiProcessorCount,
      d.prop.sharedMemPerMultiprocessor, d.prop.sharedMemPerBlockOptin,
      d.prop.reservedSharedMemPerBlock, d.prop.regsPerMultiprocessor,
      d.prop.maxThreadsPerMultiProcessor, d.prop.maxBlocksPerMultiProcessor,
      d.prop.l2CacheSize, clk_khz, memclk_khz, d.prop.memoryBusWidth);
  return d;
}

// ---------------------------------------------------------------- timing
struct Timing {
  double med_ms = 0, min_ms = 0, max_ms = 0;
  int reps = 0;
};

// Times `launch` with CUDA events: `warm` untimed launches, then `reps` timed
// ones, each bracketed by its own event pair; reports median/min/max.
template <class F>
Timing time_launches(F launch, int warm, int reps) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < warm; i++) launch();
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < reps; i++) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    CK(cudaGetLastError());
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  Timing r;
  r.reps = reps;
  if (ms.empty()) return r;
  std::sort(ms.begin(), ms.end());
  r.med_ms = ms[ms.size() / 2];
  r.min_ms = ms.front();
  r.max_ms = ms.back();
  return r;
}

template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? T() : v[v.size() / 2];
}

// ---------------------------------------------------------------- RNG
// splitmix64: deterministic, seedable, good enough for permutations.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }  // bias is irrelevant here
};

// A random order of 0..n-1 read as one cycle (order[i] -> order[i+1] ->
// ... -> order[0]).  With window > 0 the cycle visits the windows (groups of
// `window` consecutive slots) one after another, in random order, and is
// random inside each window: same DRAM misses, far fewer TLB misses.
inline std::vector<uint32_t> cycle_order(uint64_t n, uint64_t window, uint64_t seed) {
  Rng r(seed);
  std::vector<uint32_t> ord(n);
  for (uint64_t i = 0; i < n; i++) ord[i] = (uint32_t)i;
  if (window == 0 || window >= n) {
    for (uint64_t i = n - 1; i > 0; i--) std::swap(ord[i], ord[r.below(i + 1)]);
    return ord;
  }
  uint64_t nw = (n + window - 1) / window;
  std::vector<uint32_t> wins(nw);
  for (uint64_t i = 0; i < nw; i++) wins[i] = (uint32_t)i;
  for (uint64_t i = nw - 1; i > 0; i--) std::swap(wins[i], wins[r.below(i + 1)]);
  uint64_t k = 0;
  for (uint64_t w : wins) {
    uint64_t lo = w * window, hi = std::min(n, lo + window);
    uint64_t first = k;
    for (uint64_t i = lo; i < hi; i++) ord[k++] = (uint32_t)i;
    for (uint64_t i = k - 1; i > first; i--)
      std::swap(ord[i], ord[first + r.below(i - first + 1)]);
  }
  return ord;
}

// ---------------------------------------------------------------- residency
// Target residency b blocks/SM, reached by padding dynamic shared memory:
// the per-block allocation roundup(static + dyn + reserved, 128) is chosen so
// that floor(smem_per_sm / alloc) == b with the carveout at its maximum
// (cudaFuncAttributePreferredSharedMemoryCarveout = 100).  The result is
// cross-checked with cudaOccupancyMaxActiveBlocksPerMultiprocessor.
struct Point {
  int b = 0;          // target resident blocks per SM
  int dyn = 0;        // dynamic shared memory per block (bytes)
  int alloc = 0;      // shared memory per block incl. static + reserve (bytes)
  int occ = 0;        // blocks/SM the occupancy API reports for (block, dyn)
  int grid = 0;       // blocks launched
  int block = 0;      // threads per block
};

struct KernelInfo {
  int regs = 0, static_smem = 0, local = 0, max_threads = 0, unpadded_occ = 0;
};

inline KernelInfo kernel_info(const char *name, const void *func, int block) {
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, func));
  KernelInfo k;
  k.regs = fa.numRegs;
  k.static_smem = (int)fa.sharedSizeBytes;
  k.local = (int)fa.localSizeBytes;
  k.max_threads = fa.maxThreadsPerBlock;
  CK(cudaFuncSetAttribute(func, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  CK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k.unpadded_occ, func, block, 0));
  std::printf("INFO kernel=%s block=%d regs=%d static_smem=%d local_bytes=%d "
              "max_threads=%d unpadded_blocks_per_sm=%d\n",
              name, block, k.regs, k.static_smem, k.local, k.max_threads, k.unpadded_occ);
  return k;
}

// Returns false (with why) when b cannot be reached exactly.
inline bool plan_point(const Device &d, const void *func, const KernelInfo &ki, int block,
                       int b, int waves, Point &p, std::string &why) {
  const int gran = 128;
  const int smem_sm = (int)d.prop.sharedMemPerMultiprocessor;
  const int reserve = (int)d.prop.reservedSharedMemPerBlock;
  const int optin = (int)d.prop.sharedMemPerBlockOptin;
  p = Point();
  p.b = b;
  p.block = block;
  if (b > ki.unpadded_occ) {
    why = "other_limit_below_target(unpadded=" + std::to_string(ki.unpadded_occ) + ")";
    return false;
  }
  int alloc = (smem_sm / b) / gran * gran;
  int dyn = alloc - reserve - ki.static_smem;
  if (dyn < 0) {
    why = "static_smem_too_large";
    return false;
  }
  if (dyn + ki.static_smem > optin) dyn = optin - ki.static_smem;
  int real_alloc = (ki.static_smem + dyn + reserve + gran - 1) / gran * gran;
  if (smem_sm / real_alloc != b) {
    why = "no_exact_padding";
    return false;
  }
  CK(cudaFuncSetAttribute(func, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  CK(cudaFuncSetAttribute(func, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn));
  int occ = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, func, block, dyn));
  p.dyn = dyn;
  p.alloc = real_alloc;
  p.occ = occ;
  p.grid = d.prop.multiProcessorCount * b * waves;
  if (occ != b) {
    why = "occupancy_api_says_" + std::to_string(occ);
    return false;
  }
  return true;
}

// ---------------------------------------------------------------- sweep
// Common options of the validation programs.
struct SweepOpts {
  std::vector<long long> res;  // residencies to try
  int waves = 4;               // grid = SMs * b * waves
  bool ncu = false;            // one launch per point, no warm-up, no timing
  int warm = 2, reps = 7;      // plain timing mode
};

inline std::vector<std::string> sweep_known() {
  return {"res", "waves", "ncu", "warm", "reps", "variant"};
}

inline SweepOpts sweep_opts(const Args &a) {
  SweepOpts o;
  o.res = a.list("res", "1,2,3,4,6,8,12,16");
  o.waves = (int)a.num("waves", 4);
  o.ncu = a.has("ncu") && a.str("ncu", "1") != "0";
  o.warm = (int)a.num("warm", 2);
  o.reps = (int)a.num("reps", 7);
  if (o.waves < 1 || o.reps < 1) Args::die("waves and reps must be >= 1");
  return o;
}

// Order of profiled launches in this process (ncu numbers its results the
// same way), shared by every sweep() instantiation.
inline int next_launch_seq() {
  static int seq = 0;
  return seq++;
}

// Runs every residency of one kernel.  `launch(const Point&)` enqueues one
// launch; `check(const Point&, std::string& detail)` validates the output of
// the last launch and returns true when it is right; `prepare(const Point&)`
// runs before the launches of a point (poison outputs, set up chains).
template <class Prep, class Launch, class Check>
int sweep(const char *prog, const Device &d, const SweepOpts &o, const char *kname,
          const void *func, int block, Prep prepare, Launch launch, Check check,
          const char *extra = "") {
  KernelInfo ki = kernel_info(kname, func, block);
  int failures = 0;
  for (long long bl : o.res) {
    int b = (int)bl;
    Point p;
    std::string why;
    if (!plan_point(d, func, ki, block, b, o.waves, p, why)) {
      std::printf("SKIP prog=%s kernel=%s b=%d why=%s\n", prog, kname, b, why.c_str());
      continue;
    }
    prepare(p);
    CK(cudaDeviceSynchronize());
    Timing t;
    if (o.ncu) {
      std::printf("LAUNCH seq=%d prog=%s kernel=%s b=%d dyn=%d grid=%d block=%d\n",
                  next_launch_seq(), prog, kname, b, p.dyn, p.grid, block);
      std::fflush(stdout);
      launch(p);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
    } else {
      t = time_launches([&] { launch(p); }, o.warm, o.reps);
    }
    std::string detail;
    bool ok = check(p, detail);
    if (!ok) failures++;
    std::printf(
        "VALID prog=%s kernel=%s b=%d block=%d grid=%d waves=%d dyn=%d alloc=%d "
        "occ_api=%d regs=%d static_smem=%d warps_per_sm=%d mode=%s ms_med=%.5f "
        "ms_min=%.5f ms_max=%.5f reps=%d check=%s %s%s%s\n",
        prog, kname, b, block, p.grid, o.waves, p.dyn, p.alloc, p.occ, ki.regs,
        ki.static_smem, b * ((block + 31) / 32), o.ncu ? "ncu" : "time", t.med_ms,
        t.min_ms, t.max_ms, t.reps, ok ? "ok" : "FAIL", detail.c_str(),
        extra[0] ? " " : "", extra);
    std::fflush(stdout);
  }
  return failures;
}

// Small integer hash used to make inputs that a host can recompute cheaply.
__host__ __device__ inline uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Uniform float in [-1, 1) from an index.
__host__ __device__ inline float hash_float(uint32_t i) {
  return (float)(hash32(i) >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

}  // namespace kit
