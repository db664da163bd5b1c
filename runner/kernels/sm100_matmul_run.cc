// sm100_matmul_run.cc: see sm100_matmul_run.h.
#include "runner/kernels/sm100_matmul_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "kernels/matmul/sm100_matmul.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/sm100_launch.h"
#include "runner/kernels/sm100_matmul_config_run.h"

namespace sk::sim {
namespace {
using models::sm100::Gpu;
using models::sm100::Params;
using models::sm100::Swizzle;

// The plain matmul is always the batched kernel (rank-3 maps); a single GEMM
// is a batch of one.
template <int BN, int S, class OutT, class Sched = StaticPersistentScheduler, bool F16 = false>
using Cfg = std::conditional_t<
    F16, Sm100MatmulConfig<128, BN, 64, S, OutT, Sched, TmaTileLoader, false, F16Mainloop, true>,
    Sm100MatmulConfig<128, BN, 64, S, OutT, Sched, TmaTileLoader, false, Bf16Mainloop, true>>;

// Launches with more CTAs than this are refused (the model keeps a slot per
// CTA id of the grid).
constexpr uint64_t kMaxClcGrid = 1u << 20;

Params params_of(const MatmulRequest& q) {
  Params p = Params::builtin();
  if (q.num_sms > 0) p.num_sms = q.num_sms;
  return p;
}

uint64_t tile_count(const MatmulRequest& q) {
  return uint64_t{(q.m + 127) / 128} * ((q.n + q.tile_n - 1) / q.tile_n) * q.batch;
}

using Entry = Sm100ConfigEntry;

// The configuration of q's tile, stages, output type and scheduler, and
// whether it fits.
Entry lookup(const MatmulRequest& q) {
  if (q.cluster_m * q.cluster_n > 1) return sm100_pair_matmul_entry(q);
  return pick<64, 128, 256>(q.tile_n, [&](auto bn) {
    return pick<2, 3, 4, 5, 6, 7, 8>(q.stages, [&](auto s) {
      return pick_out(q.out_f32, [&](auto out) {
        return pick_bool(q.clc, [&](auto clc) {
          return pick_bool(q.in_f16, [&](auto f16) {
            using Sched = std::conditional_t<clc(), ClcScheduler, StaticPersistentScheduler>;
            using C = Cfg<bn(), s(), typename decltype(out)::type, Sched, f16()>;
            if constexpr (C::kFits)
              return Entry{&run_sm100_matmul_config<C>, C::kSmemBytes};
            else
              return Entry{nullptr, C::kSmemBytes};
          });
        });
      });
    });
  });
}
}  // namespace

std::string sm100_matmul_configs_help() {
  return "tile 128x{64,128,256}x64, stages 2-8 (as many as fit in 227 KB of shared memory)";
}

std::string timeline_cta_text(int entry) {
  return entry == MatmulRequest::kTimelineBusiest   ? "busiest"
         : entry == MatmulRequest::kTimelineSlowest ? "slowest"
                                                    : std::to_string(entry);
}

std::string validate_sm100_matmul(const MatmulRequest& q) {
  if (q.m == 0 || q.n == 0 || q.k == 0) return "--m, --n and --k must be at least 1";
  if (q.m > (1u << 20) || q.n > (1u << 20) || q.k > (1u << 20))
    return "--m, --n and --k must be at most 1048576";
  if (q.tile_n != 64 && q.tile_n != 128 && q.tile_n != 256)
    return fmt::format("tile N {} is not supported ({})", q.tile_n, sm100_matmul_configs_help());
  if (q.stages < 2 || q.stages > 8)
    return fmt::format("--stages {} is outside 2-8", q.stages);
  const bool pair = q.cluster_m * q.cluster_n > 1;
  if (pair) {
    if (q.cluster_m != 2 || q.cluster_n != 1)
      return fmt::format("--cluster {}x{}: the SM100 matmul runs in clusters of 2x1 only (the "
                         "2-SM kernel: a pair of CTAs per 256 x {} tile, tcgen05 cta_group::2)",
                         q.cluster_m, q.cluster_n, q.tile_n);
    if (q.a_mn_major || q.b_mn_major)
      return "--cluster 2x1: the 2-SM kernel takes K-major operands only (--layout-a row, "
             "--layout-b col)";
  }
  Entry e = lookup(q);
  if (e.run == nullptr)
    return fmt::format(
        "--stages {} with a {}x{}x64 tile needs {} bytes of shared memory, more than the {} a "
        "CTA may use",
        q.stages, pair ? "2-SM 256" : "128", q.tile_n, e.smem_bytes, kSm100SmemPerCta);
  if (q.num_sms < 0) return "the SM count must be positive";
  if (q.clc && tile_count(q) > kMaxClcGrid)
    return fmt::format("--scheduler clc launches one CTA per tile: {} tiles exceed the {} the "
                       "model launches; use larger tiles or --scheduler static",
                       tile_count(q), kMaxClcGrid);
  // The CTAs that start at launch, CTA c on SM c (with CLC the others are
  // cancelled, or start later on whichever SM frees up).
  // A pair launch: as many pairs as fit, or one per 2 x 1 block of tiles.
  const uint64_t pair_blocks =
      cluster_blocks((q.m + 127) / 128, (q.n + q.tile_n - 1) / q.tile_n, q.batch, ClusterShape{2, 1});
  const uint64_t grid =
      pair ? 2 * std::min<uint64_t>(pair_blocks, static_cast<uint64_t>(Gpu::max_active_clusters(
                                                     params_of(q), 2)))
           : std::min<uint64_t>(tile_count(q), static_cast<uint64_t>(params_of(q).num_sms));
  if (q.clc && pair && 2 * pair_blocks > kMaxClcGrid)
    return fmt::format("--scheduler clc launches a CTA pair per 256-row block: {} CTAs exceed "
                       "the {} the model launches; use larger tiles or --scheduler static",
                       2 * pair_blocks, kMaxClcGrid);
  for (const int cta : q.timeline_path.empty() ? std::vector<int>{} : q.timeline_ctas)
    if (cta >= 0 && static_cast<uint64_t>(cta) >= grid)
      return q.clc ? fmt::format("--timeline-cta {} is not one of the CTAs that start at launch "
                                 "(0-{}); later CTAs of a CLC grid are cancelled or start on "
                                 "whichever SM frees up",
                                 cta, grid - 1)
                   : fmt::format("--timeline-cta {} does not exist: this launch has {} CTAs (0-{})",
                                 cta, grid, grid - 1);
  if (q.timeline_to != 0 && q.timeline_to <= q.timeline_from)
    return "--timeline-window FROM:TO needs FROM < TO";
  if (q.functional && uint64_t{q.m} * q.n * q.k * q.batch > (1ull << 33))
    return "--functional is limited to M*N*K*batch <= 2^33 (it computes real products); use "
           "timing mode for larger shapes";
  return "";
}

RunResult run_sm100_matmul(const MatmulRequest& q) {
  std::string err = validate_sm100_matmul(q);
  if (!err.empty()) throw std::invalid_argument(err);
  return lookup(q).run(q);
}

}  // namespace sk::sim
