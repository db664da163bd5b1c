// wgmma_rs_test.cc: wgmma with A from registers (wgmma ... RS) in the SM90
// model, for N = 64, 128 and 256, against an FP64 host product and against
// the SMEM-A form on the same data (which must agree bit for bit: the same
// products summed in the same order). A's registers follow the accumulator's
// column layout (kernels/arch/sm90/device/wgmma.h): lane l's register r holds
// row l/4 (+8 for r = 1, 3), columns 2(l%4) (+8 for r = 2, 3) and the next.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "kernels/core/numeric.h"
#include "kernels/core/swizzle.h"
#include "models/sm90/api.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
namespace arch = sk::arch;

// Random, never-zero BF16 values in [-2, 2) from (matrix, row, k).
sk::bf16_t value(uint32_t matrix, uint32_t row, uint32_t k) {
  uint32_t x = (matrix * 977u + row) * 131u + k;
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  const float f = static_cast<float>(x & 0xffff) / 16384.0f - 2.0f;
  return sk::to_bf16(f == 0.0f ? 0.5f : f);
}

uint32_t pack(sk::bf16_t lo, sk::bf16_t hi) { return uint32_t{lo.bits} | uint32_t{hi.bits} << 16; }

// One warpgroup: D = A * B^T with A 64 x 16 and B N x 16, once with A from
// registers and once from SMEM. Notes, per warp: elements that differ between
// the two forms, and elements whose error against FP64 exceeds 2^-18 relative
// to the sum of |products|.
template <int N>
void rs_against_ss() {
  constexpr uint32_t kA = 0, kB = 8192;
  uint8_t* smem = arch::dynamic_smem();
  const uint32_t warp = arch::warp_idx();
  if (warp == 0) {
    if (auto l = sk::elect_one()) {
      // Whole 128-byte rows (64 K elements; the op reads the first 16), as
      // the race detector sees a wgmma read its operands' rows.
      for (uint32_t r = 0; r < 64; ++r)
        for (uint32_t k = 0; k < 64; ++k) {
          const sk::bf16_t v = value(0, r, k);
          arch::st_shared(reinterpret_cast<sk::bf16_t*>(smem + kA + sk::swizzle_offset<128>(r * 128 + 2 * k)), v);
        }
      for (uint32_t c = 0; c < N; ++c)
        for (uint32_t k = 0; k < 64; ++k) {
          const sk::bf16_t v = value(1, c, k);
          arch::st_shared(reinterpret_cast<sk::bf16_t*>(smem + kB + sk::swizzle_offset<128>(c * 128 + 2 * k)), v);
        }
    }
    arch::fence_proxy_async_shared();
  }
  arch::cta_sync();
  const uint64_t da = arch::make_smem_desc_sw128(arch::smem_addr(smem + kA));
  const uint64_t db = arch::make_smem_desc_sw128(arch::smem_addr(smem + kB));
  sk::LaneArray<uint32_t, 4> a;
  sk::for_each_lane([&](uint32_t l) {
    for (uint32_t r = 0; r < 4; ++r) {
      const uint32_t row = 16 * warp + l / 4 + 8 * (r & 1), k = 2 * (l % 4) + 8 * (r >> 1);
      a.lane(l)[r] = pack(value(0, row, k), value(0, row, k + 1));
    }
  });
  sk::LaneArray<float, N / 2> rs, ss;
  arch::wgmma_fence();
  if constexpr (N == 64) {
    arch::wgmma_m64n64k16_bf16_rs(rs, a, db, false);
    arch::wgmma_m64n64k16_bf16_ss(ss, da, db, false);
  } else if constexpr (N == 128) {
    arch::wgmma_m64n128k16_bf16_rs(rs, a, db, false);
    arch::wgmma_m64n128k16_bf16_ss(ss, da, db, false);
  } else {
    arch::wgmma_m64n256k16_bf16_rs(rs, a, db, false);
    arch::wgmma_m64n256k16_bf16_ss(ss, da, db, false);
  }
  arch::wgmma_commit_group();
  arch::wgmma_wait_group<0>();
  uint32_t differ = 0, wrong = 0;
  sk::for_each_lane([&](uint32_t l) {
    for (int j = 0; j < N / 8; ++j)
      for (int h = 0; h < 2; ++h)
        for (int e = 0; e < 2; ++e) {
          const uint32_t row = 16 * warp + l / 4 + 8 * h, col = 8 * j + 2 * (l % 4) + e;
          const float got = rs.lane(l)[4 * j + 2 * h + e];
          differ += got != ss.lane(l)[4 * j + 2 * h + e];
          double want = 0, mag = 0;
          for (uint32_t k = 0; k < 16; ++k) {
            const double p = double{sk::to_float(value(0, row, k))} * sk::to_float(value(1, col, k));
            want += p;
            mag += std::fabs(p);
          }
          wrong += std::fabs(got - want) > mag * std::ldexp(1.0, -18);
        }
  });
  note(std::to_string(warp) + ": " + std::to_string(differ) + " " + std::to_string(wrong));
}

template <int N>
void check() {
  ScenarioOptions o;
  o.warps = 4;
  o.race_detector = true;
  o.setup = [] { sk::models::sm90::api::reset(); };
  auto r = run_scenario(o, [] { rs_against_ss<N>(); });
  INFO("N = " << N);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  std::vector<std::string> sorted = r.notes;  // warps finish in any order
  std::sort(sorted.begin(), sorted.end());
  std::string notes;
  for (const auto& n : sorted) notes += n + "; ";
  const std::vector<std::string> clean{"0: 0 0", "1: 0 0", "2: 0 0", "3: 0 0"};
  CHECK_MESSAGE(sorted == clean, notes);
}
}  // namespace

TEST_CASE("wgmma with A from registers equals the SMEM-A form and the FP64 product") {
  check<64>();
  check<128>();
  check<256>();
}
