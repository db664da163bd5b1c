// block_scaled_run.cc: see block_scaled_run.h.
#include "runner/kernels/block_scaled_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "kernels/blockscaled/blockwise_fp8.h"
#include "kernels/blockscaled/config.h"
#include "kernels/core/math.h"
#include "models/sm100/gpu.h"
#include "runner/kernels/blockwise_host.h"
#include "runner/kernels/matmul_dispatch.h"
#include "runner/kernels/matmul_host.h"
#include "runner/kernels/sm100_launch.h"

namespace sk::sim {
namespace {
using models::sm100::Gpu;

template <class C>
RunResult run_config(const BlockScaledRequest& req) {
  const MatmulRequest& q = req.run;
  return simulate_sm100<C, Sm100Matmul<C>>(
      q,
      {"block_scaled_matmul", fmt::format("{}: {}", C::name(), format_name(req.format)),
       2.0 * q.m * q.n * q.k * q.batch, is_fp4(req.format) ? 4.0 : 2.0},
      [&](Gpu& gpu, auto& p) {
        const bool fp4 = is_fp4(req.format);
        const LeadingDims ld = scaled_leading_dims(q, fp4);
        BlockScaledBuffers b = allocate_block_scaled<bf16_t>(
            gpu, req.format, q.m, q.n, q.k, q.operand_seed(), q.batch, q.a_mn_major, q.b_mn_major,
            {fp4 ? ld.lda / 2 : ld.lda, fp4 ? ld.ldb / 2 : ld.ldb, ld.ldd});
        encode_block_scaled<C>(p, b);
        return b;
      },
      [](Gpu& gpu, const BlockScaledBuffers& b, RunStatus status) {
        return check_block_scaled<bf16_t>(gpu, b, status);
      });
}

using Runner = RunResult (*)(const BlockScaledRequest&);

template <class Format>
Runner by_tile(uint32_t bn, uint32_t stages) {
  return pick<128, 256>(bn, [&](auto n) {
    return pick<2, 3, 4, 5, 6>(stages, [&](auto s) -> Runner {
      using C = Sm100BlockScaledConfig<Format, n(), s(), bf16_t>;
      if constexpr (C::kFits)
        return &run_config<C>;
      else
        return nullptr;
    });
  });
}

Runner lookup(const BlockScaledRequest& req) {
  switch (req.format) {
    case BlockFormat::kMxfp8E4m3: return by_tile<Mxfp8E4m3>(req.run.tile_n, req.run.stages);
    case BlockFormat::kMxfp8E5m2: return by_tile<Mxfp8E5m2>(req.run.tile_n, req.run.stages);
    default: return by_tile<Nvf4Format>(req.run.tile_n, req.run.stages);
  }
}

template <class C>
RunResult run_blockwise(const MatmulRequest& q) {
  return simulate_sm100<C, Sm100Matmul<C>>(
      q,
      {"blockwise_fp8_matmul",
       fmt::format("{}: E4M3, FP32 scales per 1x128 (A) and 128x128 (B) block", C::name()),
       2.0 * q.m * q.n * q.k * q.batch, 2.0},
      [&](Gpu& gpu, auto& p) {
        const LeadingDims ld = scaled_leading_dims(q, false);
        BlockwiseBuffers b = allocate_blockwise<bf16_t>(gpu, q.m, q.n, q.k, q.operand_seed(), q.batch,
                                                        q.a_mn_major, q.b_mn_major,
                                                        {ld.lda, ld.ldb, ld.ldd});
        encode_blockwise<C>(p, b);
        return b;
      },
      [](Gpu& gpu, const BlockwiseBuffers& b, RunStatus status) {
        return check_blockwise<bf16_t>(gpu, b, status);
      });
}

using BlockwiseRunner = RunResult (*)(const MatmulRequest&);

BlockwiseRunner blockwise_lookup(const MatmulRequest& q) {
  return pick<2, 3, 4, 5, 6>(q.stages, [](auto s) -> BlockwiseRunner {
    using C = Sm100BlockwiseFp8Config<s()>;
    if constexpr (C::kFits)
      return &run_blockwise<C>;
    else
      return nullptr;
  });
}

// The checks every SM100 block-scaled family makes of its request; fp4:
// E2M1 elements (two per byte), else FP8.
std::string validate_common(const char* kernel, const MatmulRequest& q, bool fp4) {
  if (q.arch != "sm100")
    return fmt::format("{} is modelled on sm100 (tcgen05 FP8/FP4 MMAs), not '{}'", kernel, q.arch);
  if (q.m == 0 || q.n == 0 || q.k == 0) return "--m, --n and --k must be at least 1";
  if (q.m > (1u << 20) || q.n > (1u << 20) || q.k > (1u << 20))
    return fmt::format("{}: --m, --n and --k must be at most 2^20", kernel);
  if (q.stages < 2 || q.stages > 6)
    return fmt::format("{}: --stages {} is outside 2-6", kernel, q.stages);
  if (q.out_f32) return fmt::format("{} writes BF16 (--out-dtype f32 is not instantiated)", kernel);
  if (q.clc) return fmt::format("{}: --scheduler clc is not instantiated", kernel);
  if (q.batch == 0) return "--batch must be at least 1";
  if (std::string err = validate_scaled_leading_dims(q, fp4); !err.empty()) return err;
  // Bytes of one matrix of A, B and D as stored.
  const LeadingDims ld = scaled_leading_dims(q, fp4);
  const uint64_t a = uint64_t{a_stored_rows(q)} * (fp4 ? ld.lda / 2 : ld.lda);
  const uint64_t b = uint64_t{b_stored_rows(q)} * (fp4 ? ld.ldb / 2 : ld.ldb);
  const uint64_t d = uint64_t{q.m} * ld.ldd * 2;
  if (q.functional && (a + b + d) * q.batch > kMaxFunctionalHostBytes)
    return fmt::format("{}: --functional needs about {:.1f} GiB of host memory for A, B and D at "
                       "lda {} ldb {} ldd {} (the limit is {} GiB); use timing mode or smaller "
                       "pitches",
                       kernel, static_cast<double>((a + b + d) * q.batch) / (1ull << 30), ld.lda,
                       ld.ldb, ld.ldd, kMaxFunctionalHostBytes >> 30);
  if (q.functional &&
      static_cast<double>(q.m) * q.n * q.k * q.batch > static_cast<double>(1ull << 33))
    return fmt::format("{}: --functional is limited to M*N*K*batch <= 2^33; use timing mode",
                       kernel);
  const uint64_t tiles = uint64_t{(q.m + 127) / 128} * ((q.n + q.tile_n - 1) / q.tile_n) * q.batch;
  if (tiles >= (1ull << 31))
    return fmt::format("{}: --batch {}: {} output tiles in one launch; the kernels number tiles "
                       "in 31 bits",
                       kernel, q.batch, tiles);
  if (q.batch > 1) {
    // The matrices are the third dim of one tensor map per operand, whose
    // strides TMA takes below 2^40 bytes.
    if (std::max({a, b, d}) >= (1ull << 40))
      return fmt::format("{}: --batch {}: a matrix of {} bytes; TMA takes the matrices as the "
                         "third dim of one tensor map, whose strides must be below 2^40 bytes "
                         "(cuTensorMapEncodeTiled globalStrides)",
                         kernel, q.batch, std::max({a, b, d}));
  }
  return "";
}

}  // namespace

std::string validate_blockwise_fp8(const MatmulRequest& q) {
  if (std::string err = validate_common("blockwise_fp8_matmul", q, false); !err.empty()) return err;
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
  if (std::string err = validate_common("block_scaled_matmul", q, is_fp4(req.format));
      !err.empty())
    return err;
  if (is_fp4(req.format) && (q.a_mn_major || q.b_mn_major))
    return "block_scaled_matmul --format nvfp4 takes K-major operands only (--layout-a row, "
           "--layout-b col): kind::mxf4nvf4 does not support transposed A or B (PTX ISA, tcgen05 "
           "transpose and negate operations)";
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

void describe_fp8_operands(RunResult& r, const MatmulRequest& q, bool fp4) {
  r.a_mn_major = q.a_mn_major;
  r.b_mn_major = q.b_mn_major;
  const LeadingDims ld = scaled_leading_dims(q, fp4);
  // The default pitches pad a row whose bytes are not a multiple of 16.
  const uint32_t mult = scaled_pitch_multiple(fp4);
  const bool default_pad = (q.lda == 0 && a_row_length(q) % mult != 0) ||
                           (q.ldb == 0 && b_row_length(q) % mult != 0);
  const bool given = q.lda != 0 || q.ldb != 0 || q.ldd != 0;
  if (!q.a_mn_major && !q.b_mn_major && !given && !default_pad && !q.padded) return;
  r.lda = ld.lda;
  r.ldb = ld.ldb;
  r.ldd = ld.ldd;
  r.padded = q.padded || default_pad;
  r.padded_default = default_pad && !q.padded;
}

uint32_t scaled_pitch_multiple(bool fp4) { return fp4 ? 32 : 16; }

uint32_t pad_scaled_pitch(bool fp4, uint32_t ld) { return round_up(ld, scaled_pitch_multiple(fp4)); }

LeadingDims scaled_leading_dims(const MatmulRequest& q, bool fp4) {
  return {q.lda != 0 ? q.lda : pad_scaled_pitch(fp4, a_row_length(q)),
          q.ldb != 0 ? q.ldb : pad_scaled_pitch(fp4, b_row_length(q)),
          q.ldd != 0 ? q.ldd : (q.n + 7) / 8 * 8};
}

std::string validate_scaled_leading_dims(const MatmulRequest& q, bool fp4) {
  const uint32_t mult = scaled_pitch_multiple(fp4);
  for (const auto& [name, op, ld, dim, dim_name] :
       {std::tuple{"lda", "A", q.lda, a_row_length(q), q.a_mn_major ? "M" : "K"},
        std::tuple{"ldb", "B", q.ldb, b_row_length(q), q.b_mn_major ? "N" : "K"}}) {
    if (ld == 0) continue;
    if (std::string e = pitch_too_short(name, op, ld, dim, dim_name); !e.empty()) return e;
    if (fp4 && ld % 2 != 0)
      return fmt::format("--{} {}: NVFP4 packs two E2M1 elements per byte, so a pitch in elements "
                         "must be even (rows start on a byte): give --{} {} or --pad-rows",
                         name, ld, name, ld + 1);
    if (ld % mult != 0)
      return fmt::format("--arch sm100: {}'s rows are {} bytes apart ({} {} x {}); TMA needs a "
                         "global row pitch that is a multiple of 16 bytes "
                         "(cuTensorMapEncodeTiled globalStrides): give --lda and --ldb a "
                         "multiple of {} ({} here) or --pad-rows",
                         op, fp4 ? ld / 2 : ld, name, ld,
                         fp4 ? "1/2 byte (E2M1)" : "1 byte", mult, pad_scaled_pitch(fp4, ld));
  }
  if (q.ldd != 0) {
    if (std::string e = pitch_too_short("ldd", "D", q.ldd, q.n, "N"); !e.empty()) return e;
    if (q.ldd % 8 != 0)
      return fmt::format("--arch sm100: D's rows are {} bytes apart (ldd {} x 2 bytes); the "
                         "epilogue stores D with TMA, which needs a multiple of 16 bytes "
                         "(cuTensorMapEncodeTiled globalStrides): give --ldd a multiple of 8",
                         uint64_t{q.ldd} * 2, q.ldd);
  }
  return "";
}

RunResult run_block_scaled(const BlockScaledRequest& req) {
  if (std::string err = validate_block_scaled(req); !err.empty()) throw std::invalid_argument(err);
  return lookup(req)(req);
}

}  // namespace sk::sim
