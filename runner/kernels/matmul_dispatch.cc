// matmul_dispatch.cc: see matmul_dispatch.h.
#include "runner/kernels/matmul_dispatch.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "kernels/core/math.h"
#include "models/sm100/params.h"
#include "models/mi300x/params.h"
#include "models/sm90/params.h"
#include "runner/kernels/mi300x_matmul_run.h"
#include "runner/kernels/sm90_matmul_run.h"

namespace sk::sim {
namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The launch's output tiles (tile M rows by the tile's N, every matrix).
uint64_t output_tiles(const MatmulRequest& q) {
  return ceil_div(q.m, q.tile_m) * ceil_div(q.n, q.tile_n) * q.batch;
}

// Trace bytes per (tile, 64-deep k-block) and per tile, from `sim run --trace`
// on 2048^3 and 4096^3 (docs/reliability.md), rounded up; MI300X from its
// 128x128 tiles on 1024x1024 with K = 512 and 4096, per kernel (its waves'
// issue, MFMA and LDS slices).
constexpr uint64_t kSm100TraceBytesPerKBlock = 760, kSm100TraceBytesPerTile = 7000;
constexpr uint64_t kSm90TraceBytesPerKBlock = 2800, kSm90TraceBytesPerTile = 8000;
constexpr uint64_t kMi300xPingpongTraceBytesPerKBlock = 15000;
constexpr uint64_t kMi300xWaveSpecializedTraceBytesPerKBlock = 6500;
// With an MN-major operand, whose MFMA operands are four ds_read_u16 each
// (measured at 1024x1024x512: up to 24.8k and 11.4k bytes per k-block).
constexpr uint64_t kMi300xPingpongMnTraceBytesPerKBlock = 28000;
constexpr uint64_t kMi300xWaveSpecializedMnTraceBytesPerKBlock = 13000;
constexpr uint64_t kMi300xTraceBytesPerTile = 4000;

std::string gib(uint64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ull << 30)); }

}  // namespace

std::string use_params_file(const std::string& arch, const std::string& text) {
  try {
    if (arch == "sm100")
      models::sm100::Params::use(text);
    else if (arch == "sm90")
      models::sm90::use_params(text);
    else if (arch == "mi300x")
      models::mi300x::Params::use(text);
    else
      return fmt::format("no parameters for arch '{}'", arch);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

uint64_t functional_host_bytes(const MatmulRequest& q) {
  const uint64_t out = q.out_f32 ? 4 : 2;
  const LeadingDims ld = leading_dims(q, static_cast<uint32_t>(out));
  const uint64_t m = q.m, n = q.n;
  // A, B and D at their pitches (every matrix of the batch), and the FP64
  // reference of one matrix.
  return q.batch * (2 * (uint64_t{a_stored_rows(q)} * ld.lda + uint64_t{b_stored_rows(q)} * ld.ldb) +
                    m * ld.ldd * out) +
         m * n * 8;
}

uint64_t sms_used(const MatmulRequest& q) {
  if (q.arch == "sm90" && q.num_sms == 0) return sm90_matmul_grid(q);
  const uint64_t tiles = output_tiles(q);
  const int num_sms = q.num_sms > 0          ? q.num_sms
                      : q.arch == "sm90"     ? models::sm90::gpu_params().num_sms
                      : q.arch == "mi300x"   ? models::mi300x::Params::builtin().num_cus
                                             : models::sm100::Params::builtin().num_sms;
  return std::min<uint64_t>(tiles, static_cast<uint64_t>(num_sms));
}

uint64_t estimated_trace_bytes(const MatmulRequest& q) {
  const bool sm90 = q.arch == "sm90";
  const uint64_t tiles = output_tiles(q);
  const uint64_t kblocks = ceil_div(q.k, 64);
  const uint64_t sms = sms_used(q);
  uint64_t traced = sms;
  if (!q.trace_sms.empty())  // and a timeline's numbered CTAs, traced beside them
    traced = static_cast<uint64_t>(std::count_if(q.trace_sms.begin(), q.trace_sms.end(),
                                                 [&](int s) { return static_cast<uint64_t>(s) < sms; })) +
             static_cast<uint64_t>(q.timeline_path.empty() ? 0 : q.timeline_ctas.size());
  uint64_t per_tile = kblocks * kSm100TraceBytesPerKBlock + kSm100TraceBytesPerTile;
  if (sm90) per_tile = kblocks * kSm90TraceBytesPerKBlock + kSm90TraceBytesPerTile;
  if (q.arch == "mi300x") {
    const bool mn = q.a_mn_major || q.b_mn_major;
    const uint64_t per_kblock =
        q.amd_kernel == "wave_specialized"
            ? (mn ? kMi300xWaveSpecializedMnTraceBytesPerKBlock
                  : kMi300xWaveSpecializedTraceBytesPerKBlock)
            : (mn ? kMi300xPingpongMnTraceBytesPerKBlock : kMi300xPingpongTraceBytesPerKBlock);
    per_tile = kblocks * per_kblock + kMi300xTraceBytesPerTile;
  }
  // Tiles are spread evenly over the SMs the launch occupies.
  return ceil_div(tiles * traced, sms) * per_tile;
}

uint32_t pitch_multiple(const std::string& arch) { return arch == "mi300x" ? 2 : 8; }

uint32_t pad_pitch(const std::string& arch, uint32_t ld) { return round_up(ld, pitch_multiple(arch)); }

std::string pitch_too_short(const char* name, const char* op, uint32_t ld, uint32_t row,
                            const char* row_name) {
  return ld != 0 && ld < row ? fmt::format("--{} {} is less than {} = {}: a row of {} holds {} "
                                           "elements",
                                           name, ld, row_name, row, op, row_name)
                             : std::string();
}

std::string validate_leading_dims(const MatmulRequest& q) {
  const char* rule = q.arch == "mi300x"
                         ? "the LDS DMA loads dwords, so rows must start on 4 bytes"
                         : "TMA needs a global row pitch that is a multiple of 16 bytes "
                           "(cuTensorMapEncodeTiled globalStrides)";
  const uint32_t mult = pitch_multiple(q.arch);
  for (const auto& [name, op, ld, dim, dim_name] :
       {std::tuple{"lda", "A", q.lda, a_row_length(q), q.a_mn_major ? "M" : "K"},
        std::tuple{"ldb", "B", q.ldb, b_row_length(q), q.b_mn_major ? "N" : "K"}}) {
    if (ld == 0) continue;
    if (std::string e = pitch_too_short(name, op, ld, dim, dim_name); !e.empty()) return e;
    if (ld % mult != 0)
      return fmt::format("--arch {}: {}'s rows are {} bytes apart ({} {} x 2 bytes); {}{}: give "
                         "--lda and --ldb a multiple of {} ({} here) or --pad-rows",
                         q.arch, op, uint64_t{ld} * 2, name, ld, rule,
                         q.arch == "mi300x" && dim_name[0] != 'K' && dim % 2 != 0
                             ? fmt::format(" (an {}-contiguous {}'s dwords pair elements along "
                                           "{}, so {} = {} needs its pitch padded to even)",
                                           dim_name, op, dim_name, dim_name, dim)
                             : std::string(),
                         mult, pad_pitch(q.arch, ld));
  }
  if (q.ldd != 0) {
    if (std::string e = pitch_too_short("ldd", "D", q.ldd, q.n, "N"); !e.empty()) return e;
    const uint32_t out_bytes = q.out_f32 ? 4 : 2;
    // SM100 stores D with TMA. SM90 and MI300X store elements with plain
    // stores, which any pitch allows, but the race detector keeps 16-byte
    // granules (verify/hb), so tiles whose rows share one would be reported.
    if (uint64_t{q.ldd} * out_bytes % 16 != 0)
      return q.arch == "sm100"
                 ? fmt::format("--arch sm100: D's rows are {} bytes apart (ldd {} x {} bytes); "
                               "the epilogue stores D with TMA, which needs a multiple of 16 "
                               "bytes (cuTensorMapEncodeTiled globalStrides): give --ldd a "
                               "multiple of {}",
                               uint64_t{q.ldd} * out_bytes, q.ldd, out_bytes, 16 / out_bytes)
                 : fmt::format("--arch {}: D's rows are {} bytes apart (ldd {} x {} bytes); the "
                               "model keeps D rows on 16 bytes (its race detector tracks "
                               "16-byte granules, which neighbouring tiles would share): give "
                               "--ldd a multiple of {}",
                               q.arch, uint64_t{q.ldd} * out_bytes, q.ldd, out_bytes,
                               16 / out_bytes);
  }
  return "";
}

std::string validate_matmul(const MatmulRequest& q) {
  std::string err;
  if (q.arch == "sm100") {
    err = validate_sm100_matmul(q);
  } else if (q.arch == "sm90") {
    if (q.clc) return "--scheduler clc needs --arch sm100 (cluster launch control is Blackwell's)";
    err = validate_sm90_matmul(q);
  } else if (q.arch == "mi300x") {
    err = validate_mi300x_matmul(q);
  } else {
    return "unknown architecture '" + q.arch + "'";
  }
  if (!err.empty()) return err;
  if (q.cluster_m * q.cluster_n > 1 && q.arch == "mi300x")
    return fmt::format("--cluster {}x{} needs --arch sm90 or sm100 (CDNA3 has no thread-block "
                       "clusters)",
                       q.cluster_m, q.cluster_n);
  if (q.split_k > 1 && q.arch != "sm90")
    return fmt::format("--split-k {} needs --arch sm90 (the K split over a cluster is the SM90 "
                       "matmul's)",
                       q.split_k);
  if (q.split_tail && q.split_k <= 1)
    return "--split-tail splits the last wave's tiles over the K split's cluster; give --split-k S "
           "(2, 3, 4 or 8)";
  if (q.stamp_tiles && q.arch != "sm90")
    return "--stamp-tiles reads the SM90 matmul's probe points; needs --arch sm90";
  if (q.hold_kblock > 0 && q.arch != "sm90")
    return "--hold-kblock holds the SM90 matmul's stages at its probe point; needs --arch sm90";
  if (q.pingpong && q.arch != "sm90")
    return "--pingpong needs --arch sm90 (the SM100 kernel's epilogue already runs beside "
           "the next tile's MMAs, from TMEM)";
  if (q.tma_epilogue && q.arch != "sm90")
    return "--epilogue tma needs --arch sm90 (the SM100 epilogue always stores D by TMA)";
  if (q.input_sets > 0 && q.arch == "mi300x")
    return fmt::format("--input-sets {} needs --arch sm90 or sm100 (the MI300X model starts every "
                       "launch with an empty cache)",
                       q.input_sets);
  if (q.tile_group > 1 && q.arch != "sm90")
    return fmt::format("--tile-group {} needs --arch sm90 (the SM100 and CDNA3 schedulers walk the "
                       "tiles along M)",
                       q.tile_group);
  if (std::string e = validate_leading_dims(q); !e.empty()) return e;
  // Tile numbers are 32-bit in the kernels (and CTA ids in the models).
  const uint64_t tiles = output_tiles(q);
  if (tiles >= (1ull << 31))
    return fmt::format("--batch {}: {} output tiles in one launch; the kernels number tiles in "
                       "31 bits",
                       q.batch, tiles);
  if (q.batch > 1 && q.arch != "mi300x") {
    // The matrices are the third dim of one tensor map, whose strides TMA
    // takes below 2^40 bytes.
    const LeadingDims ld = leading_dims(q, q.out_f32 ? 4 : 2);
    const uint64_t a = uint64_t{a_stored_rows(q)} * ld.lda * 2;
    const uint64_t b = uint64_t{b_stored_rows(q)} * ld.ldb * 2;
    const uint64_t d = uint64_t{q.m} * ld.ldd * (q.out_f32 ? 4 : 2);
    if (std::max({a, b, d}) >= (1ull << 40))
      return fmt::format("--batch {}: a matrix of {} bytes; TMA takes the matrices as the third "
                         "dim of one tensor map, whose strides must be below 2^40 bytes "
                         "(cuTensorMapEncodeTiled globalStrides)",
                         q.batch, std::max({a, b, d}));
  }
  return validate_resources(q);
}

std::string validate_resources(const MatmulRequest& q) {
  for (int sm : q.trace_sms)
    if (sm < 0 || static_cast<uint64_t>(sm) >= sms_used(q))
      return fmt::format("--trace-sms {}: this launch occupies SMs 0-{} (one CTA per SM)", sm,
                         sms_used(q) - 1);
  if (q.functional && functional_host_bytes(q) > kMaxFunctionalHostBytes)
    return fmt::format("--functional needs about {} of host memory for M={} N={} K={}{} (the "
                       "limit is {}); use timing mode or a smaller shape",
                       gib(functional_host_bytes(q)), q.m, q.n, q.k,
                       q.lda > q.k || q.ldb > q.k || q.ldd > q.n
                           ? fmt::format(" at lda {} ldb {} ldd {}", q.lda, q.ldb, q.ldd)
                           : std::string(),
                       gib(kMaxFunctionalHostBytes));
  if (!q.trace_path.empty() && estimated_trace_bytes(q) > kMaxTraceBytes)
    return fmt::format("--trace would write about {} for this launch (the limit is {}); trace a "
                       "few SMs with --trace-sms 0-3 or a smaller shape",
                       gib(estimated_trace_bytes(q)), gib(kMaxTraceBytes));
  if (q.timeline_path.empty()) return "";
  // A timeline's CTAs must be traced: numbered ones are, wherever the
  // launch places them (beside --trace-sms: traced_ctas, matmul_host.h); one
  // chosen after the run needs every SM traced.
  for (const int cta : q.timeline_ctas) {
    if (cta >= 0) continue;
    if (!q.trace_path.empty() && !q.trace_sms.empty())
      return fmt::format("--timeline-cta {} chooses among every CTA, which --trace-sms leaves "
                         "out of the trace; name CTAs by number",
                         timeline_cta_text(cta));
    if (q.trace_path.empty() && estimated_trace_bytes(q) > kMaxTraceBytes)
      return fmt::format("--timeline-cta {} traces every SM, about {} for this launch (the limit "
                         "is {}); name CTAs by number or use a smaller shape",
                         timeline_cta_text(cta), gib(estimated_trace_bytes(q)),
                         gib(kMaxTraceBytes));
  }
  return "";
}

RunResult run_matmul(const MatmulRequest& q) {
  if (q.arch == "sm90") return run_sm90_matmul(q);
  if (q.arch == "sm100") return run_sm100_matmul(q);
  if (q.arch == "mi300x") return run_mi300x_matmul(q);
  throw std::invalid_argument("unknown architecture '" + q.arch + "'");
}

}  // namespace sk::sim
