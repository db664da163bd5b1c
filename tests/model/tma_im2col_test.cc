// TMA im2col loads in the model, checked against convolution itself.
//
// The reference here never walks the pixel bounding box the way the model
// does: it takes GEMM row m of conv2d fprop as an output pixel (n, p, q) and
// filter tap (r, s) as the column block, and reads
// input[n][p*stride - pad + r*dil][q*stride - pad + s*dil][c] straight from
// the definition (zero outside the input, beyond the last image, or past the
// last channel). Inputs are random BF16 values that are never zero, and the
// padding between pixels and rows holds NaNs, so a misplaced, missing or
// wrongly zero-filled element cannot go unnoticed. Also covered: the barrier
// counts the full column bytes, the encode rules, maps used in the wrong mode,
// and a column that overruns shared memory.
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "kernels/core/swizzle.h"
#include "models/sm100/gpu.h"
#include "tests/model/scenario.h"

namespace {
using sk::models::sm100::Swizzle;
using sk::models::sm100::TensorMapModel;
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

constexpr uint16_t kPad = 0xffff;  // NaN in the padding: must never be read

// One conv2d fprop problem and the im2col map its activation loads use.
struct Conv {
  int n, h, w, c;                // input NHWC
  int r, s;                      // filter
  int stride_h, stride_w;
  int pad_h, pad_w;
  int dil_h, dil_w;
  uint32_t cpp;                  // channelsPerPixel
  uint32_t pixels;               // pixelsPerColumn
  Swizzle swizzle;
  int c0 = 0;                    // first channel of the columns loaded
  uint32_t extra_row_bytes = 0;  // padding after each W row (stride of H)

  int p() const { return (h + 2 * pad_h - (r - 1) * dil_h - 1) / stride_h + 1; }
  int q() const { return (w + 2 * pad_w - (s - 1) * dil_w - 1) / stride_w + 1; }
  int rows() const { return n * p() * q(); }  // GEMM M
  uint64_t pixel_bytes() const { return (static_cast<uint64_t>(c) * 2 + 15) / 16 * 16; }
  uint64_t row_bytes() const { return w * pixel_bytes() + extra_row_bytes; }
  uint64_t image_bytes() const { return h * row_bytes(); }
};

Conv g_conv;
TensorMapModel g_map;
std::vector<uint16_t> g_input;  // [n][h][w][c], dense, the values in global memory

// Random BF16 with a normal exponent: never zero, never NaN.
uint16_t random_bf16(std::mt19937& rng) {
  const uint32_t bits = rng();
  return static_cast<uint16_t>((bits & 0x807f) | ((0x70 + (bits >> 8) % 32) << 7));
}

// Fills global memory with the input (padding NaN) and encodes the map.
void setup_conv(const Conv& cv, uint32_t seed) {
  g_conv = cv;
  auto& gpu = sk::models::sm100::Gpu::current();
  const uint64_t bytes = cv.n * cv.image_bytes();
  const uint64_t addr = gpu.gmem().allocate(bytes, "x");
  // Timing mode has no bytes in global memory: only the map is made.
  uint8_t* base = gpu.functional() ? gpu.gmem().host(addr) : nullptr;
  if (base != nullptr)
    for (uint64_t i = 0; i < bytes; i += 2) std::memcpy(base + i, &kPad, 2);
  std::mt19937 rng(seed);
  g_input.assign(static_cast<size_t>(cv.n) * cv.h * cv.w * cv.c, 0);
  for (int n = 0; n < cv.n; ++n)
    for (int y = 0; y < cv.h; ++y)
      for (int x = 0; x < cv.w; ++x)
        for (int ch = 0; ch < cv.c; ++ch) {
          const uint16_t v = random_bf16(rng);
          g_input[((static_cast<size_t>(n) * cv.h + y) * cv.w + x) * cv.c + ch] = v;
          if (base != nullptr)
            std::memcpy(base + n * cv.image_bytes() + y * cv.row_bytes() + x * cv.pixel_bytes() +
                          ch * 2,
                      &v, 2);
        }
  const uint64_t dims[4] = {static_cast<uint64_t>(cv.c), static_cast<uint64_t>(cv.w),
                            static_cast<uint64_t>(cv.h), static_cast<uint64_t>(cv.n)};
  const uint64_t strides[3] = {cv.pixel_bytes(), cv.row_bytes(), cv.image_bytes()};
  const int32_t lower[2] = {-cv.pad_w, -cv.pad_h};
  const int32_t upper[2] = {cv.pad_w - (cv.s - 1) * cv.dil_w, cv.pad_h - (cv.r - 1) * cv.dil_h};
  const uint32_t es[4] = {1, static_cast<uint32_t>(cv.stride_w),
                          static_cast<uint32_t>(cv.stride_h), 1};
  const std::string err = sk::models::sm100::encode_im2col_4d(
      g_map, addr, 2, dims, strides, lower, upper, cv.cpp, cv.pixels, es, cv.swizzle);
  REQUIRE_MESSAGE(err.empty(), err);
}

// Element (m, channel) of the im2col matrix block of filter tap (r, s), from
// the definition of convolution.
uint16_t reference(const Conv& cv, int m, int r, int s, int ch) {
  if (m >= cv.rows() || ch >= cv.c) return 0;
  const int n = m / (cv.p() * cv.q());
  const int p = m / cv.q() % cv.p();
  const int q = m % cv.q();
  const int y = p * cv.stride_h - cv.pad_h + r * cv.dil_h;
  const int x = q * cv.stride_w - cv.pad_w + s * cv.dil_w;
  if (y < 0 || y >= cv.h || x < 0 || x >= cv.w) return 0;
  return g_input[((static_cast<size_t>(n) * cv.h + y) * cv.w + x) * cv.c + ch];
}

uint32_t swizzle(uint32_t off, Swizzle sw) {
  switch (sw) {
    case Swizzle::k32B: return sk::swizzle_offset<32>(off);
    case Swizzle::k64B: return sk::swizzle_offset<64>(off);
    case Swizzle::k128B: return sk::swizzle_offset<128>(off);
    default: return off;
  }
}

uint64_t* bar() { return reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem()); }
uint8_t* tile() { return sk::arch::dynamic_smem() + 1024; }

// Kernel body: for columns starting at several GEMM rows (aligned or not to a
// row of output pixels, wrapping across rows and images, running past the last
// image) and every filter tap, loads the column and compares it with the
// reference. Notes "<loads> <wrong elements>".
void load_all_taps() {
  const Conv& cv = g_conv;
  const uint32_t box = cv.cpp * cv.pixels * 2;
  const uint32_t step = cv.pixels > 3 ? cv.pixels - 3 : cv.pixels;
  if (auto l = sk::elect_one()) sk::arch::mbarrier_init(bar(), 1);
  uint32_t phase = 0, wrong = 0;
  for (int m0 = 0; m0 < cv.rows() + static_cast<int>(cv.pixels); m0 += static_cast<int>(step)) {
    // The column's first pixel: output pixel m0's window corner. Beyond the
    // last image it continues in image n (>= N), as a kernel's last tile does.
    const int n0 = m0 / (cv.p() * cv.q());
    const int p0 = m0 / cv.q() % cv.p();
    const int q0 = m0 % cv.q();
    for (int r = 0; r < cv.r; ++r)
      for (int s = 0; s < cv.s; ++s) {
        if (auto l = sk::elect_one()) {
          sk::arch::mbarrier_arrive_expect_tx(bar(), box);
          sk::arch::tma_load_im2col_4d(tile(), &g_map, bar(), cv.c0, q0 * cv.stride_w - cv.pad_w,
                                       p0 * cv.stride_h - cv.pad_h, n0,
                                       static_cast<uint16_t>(s * cv.dil_w),
                                       static_cast<uint16_t>(r * cv.dil_h));
        }
        while (!sk::arch::mbarrier_try_wait_parity(bar(), phase & 1)) {
        }
        ++phase;
        for (uint32_t i = 0; i < cv.pixels; ++i)
          for (uint32_t k = 0; k < cv.cpp; ++k) {
            uint16_t got;
            std::memcpy(&got, tile() + swizzle((i * cv.cpp + k) * 2, cv.swizzle), 2);
            wrong += got != reference(cv, m0 + static_cast<int>(i), r, s, cv.c0 + static_cast<int>(k));
          }
      }
  }
  note(std::to_string(phase) + " " + std::to_string(wrong));
}

void check_conv(const Conv& cv, uint32_t seed, bool race_detector = false) {
  ScenarioOptions o{.warps = 1, .smem_bytes = 128 * 1024, .race_detector = race_detector};
  o.setup = [cv, seed] { setup_conv(cv, seed); };
  auto r = run_scenario(o, [] { load_all_taps(); });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  REQUIRE(r.notes.size() == 1);
  const auto space = r.notes[0].find(' ');
  CHECK(std::stoi(r.notes[0].substr(0, space)) > 0);
  CHECK_MESSAGE(r.notes[0].substr(space + 1) == "0", "loads and wrong elements: " << r.notes[0]);
}
}  // namespace

TEST_CASE("im2col columns match the convolution's im2col matrix") {
  // n h w c, r s, stride h w, pad h w, dil h w, cpp, pixels, swizzle, c0, row padding
  SUBCASE("3x3, stride 1, pad 1, odd C padded to 16 B pixels") {
    check_conv(Conv{3, 7, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 8, 32, Swizzle::kNone}, 1);
  }
  SUBCASE("3x3, stride 2, pad 2, dilation 2, two channel blocks, 32B swizzle") {
    Conv cv{3, 9, 11, 24, 3, 3, 2, 2, 2, 2, 2, 2, 16, 16, Swizzle::k32B};
    check_conv(cv, 2);
    cv.c0 = 16;  // channels 16..31 of 24: the last 8 are zero-filled
    check_conv(cv, 3);
  }
  SUBCASE("3x3, stride 2, no padding, 128B swizzle, more pixels than the images hold") {
    check_conv(Conv{5, 5, 3, 64, 3, 3, 2, 2, 0, 0, 1, 1, 64, 8, Swizzle::k128B}, 4);
  }
  SUBCASE("3x3, stride 1, pad 2, dilation 2, padded rows, 128-pixel columns") {
    check_conv(Conv{3, 11, 13, 7, 3, 3, 1, 1, 2, 2, 2, 2, 8, 128, Swizzle::kNone, 0, 32}, 5);
  }
  SUBCASE("2x5 filter, strides 2 and 1, pads 0 and 2, dilations 1 and 2, 64B swizzle") {
    check_conv(Conv{3, 9, 7, 32, 2, 5, 2, 1, 0, 2, 1, 2, 32, 24, Swizzle::k64B}, 6);
  }
  SUBCASE("1x1 filter, stride 2, 128B swizzle, with the race detector on") {
    check_conv(Conv{1, 5, 7, 64, 1, 1, 2, 2, 0, 0, 1, 1, 64, 16, Swizzle::k128B}, 7, true);
  }
}

TEST_CASE("an im2col column runs in timing mode without findings") {
  ScenarioOptions o{.warps = 1, .smem_bytes = 128 * 1024, .functional = false};
  o.setup = [] {
    setup_conv(Conv{3, 11, 13, 7, 3, 3, 1, 1, 2, 2, 2, 2, 8, 128, Swizzle::kNone}, 8);
  };
  auto r = run_scenario(o, [] {
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar(), 1);
      sk::arch::mbarrier_arrive_expect_tx(bar(), 128 * 8 * 2);
      sk::arch::tma_load_im2col_4d(tile(), &g_map, bar(), 0, -2, -2, 0, 4, 2);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar(), 0)) {
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}

namespace {
// One column of 32 pixels x 8 channels (512 B) of a small input; `expect` is
// what the barrier announces. n selects where the column starts.
sk::test::ScenarioResult load_one(uint32_t expect, int32_t n) {
  ScenarioOptions o{.warps = 1};
  o.setup = [] { setup_conv(Conv{2, 5, 5, 8, 3, 3, 1, 1, 1, 1, 1, 1, 8, 32, Swizzle::kNone}, 9); };
  return run_scenario(o, [expect, n] {
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar(), 1);
      sk::arch::mbarrier_arrive_expect_tx(bar(), expect);
      sk::arch::tma_load_im2col_4d(tile(), &g_map, bar(), 0, -1, -1, n, 0, 0);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar(), 0)) {
    }
    note("done");
  });
}
}  // namespace

TEST_CASE("the barrier counts the full column bytes, zero-filled pixels included") {
  SUBCASE("a column inside the tensor") {
    auto r = load_one(32 * 8 * 2, 0);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    CHECK(r.notes == std::vector<std::string>{"done"});
  }
  SUBCASE("a column that runs past the last image") {
    auto r = load_one(32 * 8 * 2, 1);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
  SUBCASE("a column entirely outside the tensor") {
    auto r = load_one(32 * 8 * 2, 7);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
  SUBCASE("announcing 16 bytes more than the column never completes") {
    auto r = load_one(32 * 8 * 2 + 16, 0);
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "deadlock");
    CHECK(r.notes.empty());
  }
}

TEST_CASE("im2col encoding enforces the driver's rules") {
  using sk::models::sm100::encode_im2col_4d;
  TensorMapModel m;
  const uint64_t dims[4] = {24, 11, 9, 3};
  const uint64_t strides[3] = {48, 11 * 48, 9 * 11 * 48};
  const int32_t lower[2] = {-1, -1};
  const int32_t upper[2] = {-1, -1};
  const uint32_t es[4] = {1, 2, 2, 1};
  auto encode = [&](uint64_t addr, const uint64_t* d, const uint64_t* st, const int32_t* lo,
                    const int32_t* up, uint32_t cpp, uint32_t px, const uint32_t* e, Swizzle sw) {
    return encode_im2col_4d(m, addr, 2, d, st, lo, up, cpp, px, e, sw);
  };
  // The valid map these variations start from.
  REQUIRE(encode(0x1000, dims, strides, lower, upper, 16, 64, es, Swizzle::k32B).empty());
  CHECK(m.mode == sk::models::sm100::TensorMapMode::kIm2col);
  CHECK(m.box_bytes() == 16 * 64 * 2);

  SUBCASE("alignment") {
    CHECK(!encode(0x1008, dims, strides, lower, upper, 16, 64, es, Swizzle::k32B).empty());
    const uint64_t unaligned[3] = {56, 11 * 56, 9 * 11 * 56};
    CHECK(!encode(0x1000, dims, unaligned, lower, upper, 16, 64, es, Swizzle::k32B).empty());
    const uint64_t overlapping[3] = {32, 11 * 48, 9 * 11 * 48};  // a pixel is 48 B
    CHECK(!encode(0x1000, dims, overlapping, lower, upper, 16, 64, es, Swizzle::k32B).empty());
    const uint64_t rows_overlap[3] = {48, 10 * 48, 9 * 11 * 48};
    CHECK(!encode(0x1000, dims, rows_overlap, lower, upper, 16, 64, es, Swizzle::k32B).empty());
    const uint64_t huge[3] = {48, 11 * 48, 1ull << 40};
    CHECK(!encode(0x1000, dims, huge, lower, upper, 16, 64, es, Swizzle::k32B).empty());
    const uint64_t zero_dim[4] = {24, 0, 9, 3};
    CHECK(!encode(0x1000, zero_dim, strides, lower, upper, 16, 64, es, Swizzle::k32B).empty());
  }
  SUBCASE("corners") {
    const int32_t low_out[2] = {-129, 0};
    const int32_t high_out[2] = {0, 128};
    const int32_t empty_box[2] = {0, -11};  // H: [0, 9 - 1 - 11] is empty
    CHECK(!encode(0x1000, dims, strides, low_out, upper, 16, 64, es, Swizzle::k32B).empty());
    CHECK(!encode(0x1000, dims, strides, lower, high_out, 16, 64, es, Swizzle::k32B).empty());
    CHECK(!encode(0x1000, dims, strides, lower, empty_box, 16, 64, es, Swizzle::k32B).empty());
    const int32_t widest[2] = {-128, 127};
    CHECK(encode(0x1000, dims, strides, widest, widest, 16, 64, es, Swizzle::k32B).empty());
  }
  SUBCASE("channels per pixel") {
    CHECK(!encode(0x1000, dims, strides, lower, upper, 0, 64, es, Swizzle::kNone).empty());
    CHECK(!encode(0x1000, dims, strides, lower, upper, 264, 64, es, Swizzle::kNone).empty());
    CHECK(!encode(0x1000, dims, strides, lower, upper, 12, 64, es, Swizzle::kNone).empty());  // 24 B
    CHECK(!encode(0x1000, dims, strides, lower, upper, 32, 64, es, Swizzle::k32B).empty());  // > span
    CHECK(encode(0x1000, dims, strides, lower, upper, 256, 64, es, Swizzle::kNone).empty());
    CHECK(m.box_bytes() == 256 * 64 * 2);
  }
  SUBCASE("pixels per column") {
    CHECK(!encode(0x1000, dims, strides, lower, upper, 16, 0, es, Swizzle::k32B).empty());
    CHECK(!encode(0x1000, dims, strides, lower, upper, 16, 1025, es, Swizzle::k32B).empty());
    CHECK(encode(0x1000, dims, strides, lower, upper, 16, 1024, es, Swizzle::k32B).empty());
  }
  SUBCASE("element strides") {
    const uint32_t zero[4] = {1, 0, 1, 1};
    const uint32_t nine[4] = {1, 1, 9, 1};
    const uint32_t channel[4] = {2, 1, 1, 1};
    CHECK(!encode(0x1000, dims, strides, lower, upper, 16, 64, zero, Swizzle::k32B).empty());
    CHECK(!encode(0x1000, dims, strides, lower, upper, 16, 64, nine, Swizzle::k32B).empty());
    CHECK(!encode(0x1000, dims, strides, lower, upper, 16, 64, channel, Swizzle::k32B).empty());
    const uint32_t eight[4] = {1, 8, 8, 1};
    CHECK(encode(0x1000, dims, strides, lower, upper, 16, 64, eight, Swizzle::k32B).empty());
  }
}

namespace {
TensorMapModel g_tiled;

// The conv input of the first functional case plus a tiled map of a matrix.
void setup_both() {
  setup_conv(Conv{3, 7, 9, 5, 3, 3, 1, 1, 1, 1, 1, 1, 8, 32, Swizzle::kNone}, 10);
  auto& gpu = sk::models::sm100::Gpu::current();
  const uint64_t addr = gpu.gmem().allocate(64 * 64 * 2, "M");
  REQUIRE(sk::models::sm100::encode_tiled_2d(g_tiled, addr, 2, 64, 64, 128, 64, 8,
                                             Swizzle::kNone)
              .empty());
}

sk::test::ScenarioResult misuse(void (*op)()) {
  ScenarioOptions o{.warps = 1};
  o.setup = setup_both;
  return run_scenario(o, [op] {
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar(), 1);
      op();
    }
  });
}
}  // namespace

TEST_CASE("a map used in the other mode is a finding") {
  SUBCASE("a tiled map with the im2col load") {
    auto r = misuse([] { sk::arch::tma_load_im2col_4d(tile(), &g_tiled, bar(), 0, 0, 0, 0, 0, 0); });
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK_MESSAGE(r.has_rule("tma.wrong_mode"), r.findings_text());
  }
  SUBCASE("an im2col map with the tiled load") {
    auto r = misuse([] { sk::arch::tma_load_2d(tile(), &g_map, bar(), 0, 0); });
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK_MESSAGE(r.has_rule("tma.wrong_mode"), r.findings_text());
  }
  SUBCASE("an im2col map with the tiled store") {
    auto r = misuse([] { sk::arch::tma_store_2d(&g_map, tile(), 0, 0); });
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK_MESSAGE(r.has_rule("tma.wrong_mode"), r.findings_text());
  }
  SUBCASE("each map in its own mode is clean") {
    auto r = misuse([] {
      sk::arch::mbarrier_arrive_expect_tx(bar(), 32 * 8 * 2 + 64 * 8 * 2);
      sk::arch::tma_load_im2col_4d(tile(), &g_map, bar(), 0, -1, -1, 0, 1, 1);
      sk::arch::tma_load_2d(tile() + 1024, &g_tiled, bar(), 0, 0);
      while (!sk::arch::mbarrier_try_wait_parity(bar(), 0)) {
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

TEST_CASE("an im2col column that overruns shared memory is a finding") {
  ScenarioOptions o{.warps = 1, .smem_bytes = 16 * 1024};
  // 128 pixels x 64 channels = 16 KB, at offset 8 KB of 16 KB.
  o.setup = [] {
    setup_conv(Conv{1, 5, 7, 64, 1, 1, 2, 2, 0, 0, 1, 1, 64, 128, Swizzle::k128B}, 11);
  };
  auto r = run_scenario(o, [] {
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar(), 1);
      sk::arch::tma_load_im2col_4d(sk::arch::dynamic_smem() + 8 * 1024, &g_map, bar(), 0, 0, 0, 0,
                                   0, 0);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.has_rule("tma.smem_out_of_range"), r.findings_text());
}
