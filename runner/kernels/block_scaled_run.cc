// block_scaled_run.cc: see block_scaled_run.h.
#include "runner/kernels/block_scaled_run.h"

#include <fmt/format.h>

#include <chrono>
#include <stdexcept>

#include "kernels/blockscaled/blockwise_fp8.h"
#include "kernels/blockscaled/config.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/blockwise_host.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/sm100_summary.h"

namespace sk::sim {
namespace {
using models::sm100::Gpu;

// What every run of this file shares around a family's own buffers, maps
// and check: the modelled GPU, a launch of min(tiles, SMs) CTAs of
// Sm100Matmul<C>, the run and its summary. setup(gpu, params) allocates and
// encodes, returning the buffers that check(gpu, buffers, status) reads.
template <class C, class Setup, class Check>
RunResult simulate(const MatmulRequest& q, const char* kernel, const std::string& what,
                   double peak_factor, Setup&& setup, Check&& check) {
  using Kernel = Sm100Matmul<C>;
  auto t0 = std::chrono::steady_clock::now();
  models::sm100::Params params = models::sm100::Params::builtin();
  if (q.num_sms > 0) params.num_sms = q.num_sms;
  Gpu gpu(params, q.functional);
  configure_run(gpu, q, t0);
  typename Kernel::Params p{};
  const auto buf = setup(gpu, p);

  const auto races = attach_race_detector(gpu, q);
  const uint32_t tiles = Kernel::tiles_m(q.m) * Kernel::tiles_n(q.n);
  const int grid =
      static_cast<int>(std::min<uint32_t>(tiles, static_cast<uint32_t>(gpu.params().num_sms)));
  std::string err =
      gpu.launch(grid, static_cast<int>(C::kWarps), C::kSmemBytes, [&p] { Kernel::run(p); });
  if (!err.empty()) throw std::runtime_error(err);
  const RunStatus status = gpu.run(q.max_cycles);

  RunResult r = describe_sm100_run<C>(q, grid, status);
  r.kernel = kernel;
  r.config_name = fmt::format("{}: {}", C::name(), what);
  summarize_sm100(gpu, 2.0 * q.m * q.n * q.k, r, peak_factor);
  if (q.functional) r.check = check(gpu, buf, status);
  write_run_files(gpu, q);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

template <class Format, int BN, int S>
RunResult run_config(const BlockScaledRequest& req) {
  using C = Sm100BlockScaledConfig<Format, BN, S, bf16_t>;
  const MatmulRequest& q = req.run;
  return simulate<C>(
      q, "block_scaled_matmul", format_name(req.format), is_fp4(req.format) ? 4.0 : 2.0,
      [&](Gpu& gpu, auto& p) {
        BlockScaledBuffers b = allocate_block_scaled<bf16_t>(gpu, req.format, q.m, q.n, q.k, q.seed);
        encode_block_scaled<C>(p, b);
        return b;
      },
      [](Gpu& gpu, const BlockScaledBuffers& b, RunStatus status) {
        return check_block_scaled<bf16_t>(gpu, b, status);
      });
}

using Runner = RunResult (*)(const BlockScaledRequest&);

template <class Format, int BN, int S>
Runner fitting() {
  if constexpr (Sm100BlockScaledConfig<Format, BN, S, bf16_t>::kFits)
    return &run_config<Format, BN, S>;
  else
    return nullptr;
}

template <class Format, int BN>
Runner by_stages(uint32_t stages) {
  switch (stages) {
    case 2: return fitting<Format, BN, 2>();
    case 3: return fitting<Format, BN, 3>();
    case 4: return fitting<Format, BN, 4>();
    case 5: return fitting<Format, BN, 5>();
    case 6: return fitting<Format, BN, 6>();
    default: return nullptr;
  }
}

template <class Format>
Runner by_tile(uint32_t bn, uint32_t stages) {
  switch (bn) {
    case 128: return by_stages<Format, 128>(stages);
    case 256: return by_stages<Format, 256>(stages);
    default: return nullptr;
  }
}

Runner lookup(const BlockScaledRequest& req) {
  switch (req.format) {
    case BlockFormat::kMxfp8E4m3: return by_tile<Mxfp8E4m3>(req.run.tile_n, req.run.stages);
    case BlockFormat::kMxfp8E5m2: return by_tile<Mxfp8E5m2>(req.run.tile_n, req.run.stages);
    default: return by_tile<Nvf4Format>(req.run.tile_n, req.run.stages);
  }
}

template <int S>
RunResult run_blockwise(const MatmulRequest& q) {
  using C = Sm100BlockwiseFp8Config<S>;
  return simulate<C>(
      q, "blockwise_fp8_matmul", "E4M3, FP32 scales per 1x128 (A) and 128x128 (B) block", 2.0,
      [&](Gpu& gpu, auto& p) {
        BlockwiseBuffers b = allocate_blockwise<bf16_t>(gpu, q.m, q.n, q.k, q.seed);
        encode_blockwise<C>(p, b);
        return b;
      },
      [](Gpu& gpu, const BlockwiseBuffers& b, RunStatus status) {
        return check_blockwise<bf16_t>(gpu, b, status);
      });
}

using BlockwiseRunner = RunResult (*)(const MatmulRequest&);

template <int S>
BlockwiseRunner blockwise_fitting() {
  if constexpr (Sm100BlockwiseFp8Config<S>::kFits)
    return &run_blockwise<S>;
  else
    return nullptr;
}

BlockwiseRunner blockwise_lookup(const MatmulRequest& q) {
  switch (q.stages) {
    case 2: return blockwise_fitting<2>();
    case 3: return blockwise_fitting<3>();
    case 4: return blockwise_fitting<4>();
    case 5: return blockwise_fitting<5>();
    case 6: return blockwise_fitting<6>();
    default: return nullptr;
  }
}

// The checks every SM100 block-scaled family makes of its request.
std::string validate_common(const char* kernel, const MatmulRequest& q) {
  if (q.arch != "sm100")
    return fmt::format("{} is modelled on sm100 (tcgen05 FP8/FP4 MMAs), not '{}'", kernel, q.arch);
  if (q.m == 0 || q.n == 0 || q.k == 0) return "--m, --n and --k must be at least 1";
  if (q.m > (1u << 20) || q.n > (1u << 20) || q.k > (1u << 20))
    return fmt::format("{}: --m, --n and --k must be at most 2^20", kernel);
  if (q.stages < 2 || q.stages > 6)
    return fmt::format("{}: --stages {} is outside 2-6", kernel, q.stages);
  if (q.out_f32) return fmt::format("{} writes BF16 (--out-dtype f32 is not instantiated)", kernel);
  if (q.clc) return fmt::format("{}: --scheduler clc is not instantiated", kernel);
  if (q.functional && static_cast<double>(q.m) * q.n * q.k > static_cast<double>(1ull << 33))
    return fmt::format("{}: --functional is limited to M*N*K <= 2^33; use timing mode", kernel);
  return "";
}

}  // namespace

std::string validate_blockwise_fp8(const MatmulRequest& q) {
  if (std::string err = validate_common("blockwise_fp8_matmul", q); !err.empty()) return err;
  if (q.tile_n != 128)
    return fmt::format("blockwise_fp8_matmul: tile N {} is not supported (128: one B scale per "
                       "128 x 128 block)",
                       q.tile_n);
  if (blockwise_lookup(q) == nullptr)
    return fmt::format("blockwise_fp8_matmul: {} stages do not fit in shared memory", q.stages);
  return "";
}

RunResult run_blockwise_fp8(const MatmulRequest& q) {
  if (std::string err = validate_blockwise_fp8(q); !err.empty()) throw std::invalid_argument(err);
  return blockwise_lookup(q)(q);
}

std::string validate_block_scaled(const BlockScaledRequest& req) {
  const MatmulRequest& q = req.run;
  if (std::string err = validate_common("block_scaled_matmul", q); !err.empty()) return err;
  if (q.tile_n != 128 && q.tile_n != 256)
    return fmt::format("block_scaled_matmul: tile N {} is not supported (128 or 256: whole "
                       "128-row scale atoms of B)",
                       q.tile_n);
  if (lookup(req) == nullptr)
    return fmt::format("block_scaled_matmul: tile 128x{} with {} stages does not fit in shared "
                       "memory and TMEM",
                       q.tile_n, q.stages);
  return "";
}

RunResult run_block_scaled(const BlockScaledRequest& req) {
  if (std::string err = validate_block_scaled(req); !err.empty()) throw std::invalid_argument(err);
  return lookup(req)(req);
}

}  // namespace sk::sim
