// sm100_pair_matmul_run.cc: the 2-SM configurations of the SM100 structured
// matmul (Bf16PairMainloop / F16PairMainloop: clusters of two CTAs, a
// 256 x BN tile per pair), instantiated apart from the 1-SM table so the two
// compile in parallel. The request's other fields mean what they mean for
// the 1-SM kernel (sm100_matmul_run.h).
#include "runner/kernels/sm100_matmul_config_run.h"

namespace sk::sim {
namespace {

template <int BN, int S, class OutT, bool F16, class Sched>
using PairCfg = std::conditional_t<
    F16, Sm100MatmulConfig<128, BN, 64, S, OutT, Sched, TmaTileLoader, false, F16PairMainloop, true>,
    Sm100MatmulConfig<128, BN, 64, S, OutT, Sched, TmaTileLoader, false, Bf16PairMainloop, true>>;

}  // namespace

Sm100ConfigEntry sm100_pair_matmul_entry(const MatmulRequest& q) {
  return pick<64, 128, 256>(q.tile_n, [&](auto bn) {
    return pick<2, 3, 4, 5, 6, 7, 8>(q.stages, [&](auto s) {
      return pick_out(q.out_f32, [&](auto out) {
        return pick_bool(q.in_f16, [&](auto f16) {
          return pick_bool(q.clc, [&](auto clc) {
            using Sched = std::conditional_t<clc(), ClcScheduler, StaticPersistentScheduler>;
            using C = PairCfg<bn(), s(), typename decltype(out)::type, f16(), Sched>;
            if constexpr (C::kFits)
              return Sm100ConfigEntry{&run_sm100_matmul_config<C>, C::kSmemBytes};
            else
              return Sm100ConfigEntry{nullptr, C::kSmemBytes};
          });
        });
      });
    });
  });
}

}  // namespace sk::sim
