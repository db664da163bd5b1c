// amd_cases.cc: the AMD (CDNA3, MI300X model) seeded bugs, each paired with
// the correct kernel, plus the two shipped CDNA3 matmuls as clean cases.
//
//   corpus_amd.fixed               the mutant kernel with no bug (the twin)
//   corpus_amd.every_lane_signals  64 increments per wave on a stage counter
//   corpus_amd.lap_early           consumers wait for the previous lap's count
//   corpus_amd.no_waitcnt          stage released before its LDS DMA retired
//   corpus_amd.last_wait_short     a wave exits with an LDS DMA no wait retired
//   corpus_amd.lds_over_capacity   four 16 KiB stages and the counters > 64 KiB
//   corpus_amd.missing_mma_wave    5 waves launched, the ring counts 6 per lap
//   corpus_amd.init_no_barrier     counters zeroed by wave 0, no s_barrier after
//   corpus_amd.pingpong, corpus_amd.wave_specialized: the shipped kernels
//
// Config keys: m, n, k (default 200 x 130 x 160: partial tiles in M and N,
// five K steps through three stages, so the ring wraps).
#include <string>

#include "kernels/matmul/cdna3_pingpong_matmul.h"
#include "kernels/matmul/cdna3_wave_specialized_matmul.h"
#include "runner/kernels/mi300x_host.h"
#include "verify/corpus/amd_mutant_matmul.h"
#include "verify/harness/registry.h"

namespace sk::corpus {
namespace {

template <int Stages>
using Cfg = Cdna3MatmulConfig<128, 128, 32, Stages>;
template <int Stages>
using Split = SplitCounterBackend<Stages, 2, 4>;

template <class Kernel, class C>
bool register_amd(const char* name, const char* description) {
  return verify::register_kernel(
      name, description, [name](const verify::CaseConfig& cfg, uint64_t seed) {
        sim::MatmulRequest q;
        q.arch = "mi300x";
        q.m = cfg.get_in("m", 200, 1, 2048);
        q.n = cfg.get_in("n", 130, 1, 2048);
        q.k = cfg.get_in("k", 160, 2, 4096) & ~1u;
        q.functional = true;
        q.seed = seed;
        q.max_cycles = static_cast<uint64_t>(cfg.get("max_cycles", 50'000'000));
        sim::RunResult r = sim::run_cdna3_kernel<Kernel, C>(q, name);
        r.kernel = name;
        r.config_name = cfg.text();
        return r;
      });
}

template <AmdBug B, class Backend = Split<3>, int Stages = 3>
using Mutant = AmdMutantMatmul<Cfg<Stages>, B, Backend>;

[[maybe_unused]] const bool kRegistered[] = {
    register_amd<Mutant<AmdBug::kNone>, Cfg<3>>("corpus_amd.fixed",
                                                 "wave-specialized CDNA3 matmul, no bug"),
    register_amd<Mutant<AmdBug::kEveryLaneSignals>, Cfg<3>>(
        "corpus_amd.every_lane_signals", "every lane of a loader wave increments the full counter"),
    register_amd<Mutant<AmdBug::kNone, LapEarlyBackend<3, 2, 4>>, Cfg<3>>(
        "corpus_amd.lap_early", "MMA waves wait for the previous lap's full count"),
    register_amd<Mutant<AmdBug::kNoWaitcnt>, Cfg<3>>(
        "corpus_amd.no_waitcnt", "loader releases a stage before its LDS DMA retires"),
    register_amd<Mutant<AmdBug::kNone, Split<4>, 4>, Cfg<4>>(
        "corpus_amd.lds_over_capacity", "four 16 KiB stages plus counters exceed 64 KiB of LDS"),
    register_amd<Mutant<AmdBug::kLastWaitShort>, Cfg<3>>(
        "corpus_amd.last_wait_short", "loader exits with its last stage's LDS DMA not retired"),
    register_amd<Mutant<AmdBug::kMissingMmaWave>, Cfg<3>>(
        "corpus_amd.missing_mma_wave", "launched with 3 MMA waves; the ring counts 4 per lap"),
    register_amd<Mutant<AmdBug::kInitNoBarrier>, Cfg<3>>(
        "corpus_amd.init_no_barrier", "wave 0 zeroes the counters; no s_barrier before their use"),
    register_amd<Cdna3PingPongMatmul<Cfg<3>>, Cfg<3>>("corpus_amd.pingpong",
                                                      "8-wave ping-pong CDNA3 matmul"),
    register_amd<Cdna3WaveSpecializedMatmul<Cfg<3>>, Cfg<3>>(
        "corpus_amd.wave_specialized", "wave-specialized CDNA3 matmul (single counter ring)"),
};

}  // namespace
}  // namespace sk::corpus
