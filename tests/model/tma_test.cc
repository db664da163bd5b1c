// TMA loads in the model: bytes land at the swizzled positions, boxes that
// cross the tensor's edge are zero-filled and still count their full bytes,
// and alignment rules are findings.
#include <doctest/doctest.h>

#include <cstring>
#include <map>

#include "kernels/arch/sm100.h"
#include "models/sm100/gpu.h"
#include "kernels/core/lanes.h"
#include "kernels/core/swizzle.h"
#include "tests/model/scenario.h"

namespace {
using sk::models::sm100::Swizzle;
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;

// A 100 x 70 BF16 matrix (rows padded to 72) whose element (r, c) is r*256+c.
sk::arch::TensorMap g_map;
void setup(Swizzle sw) {
  auto& gpu = sk::models::sm100::Gpu::current();
  uint64_t addr = gpu.gmem().allocate(100 * 72 * 2, "M");
  auto* p = reinterpret_cast<uint16_t*>(gpu.gmem().host(addr));
  for (int r = 0; r < 100; ++r)
    for (int c = 0; c < 72; ++c) p[r * 72 + c] = static_cast<uint16_t>(c < 70 ? r * 256 + c : 0xffff);
  REQUIRE(sk::models::sm100::encode_tiled_2d(g_map, addr, 2, 70, 100, 144, 64, 8, sw).empty());
}

// Loads the box at (c0, c1) and notes the number of wrong elements.
void load_and_check(int32_t c0, int32_t c1) {
  uint64_t* bar = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem());
  uint8_t* dst = sk::arch::dynamic_smem() + 1024;
  if (auto l = sk::elect_one()) {
    sk::arch::mbarrier_init(bar, 1);
    sk::arch::mbarrier_arrive_expect_tx(bar, 64 * 8 * 2);
    sk::arch::tma_load_2d(dst, &g_map, bar, c0, c1);
  }
  while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
  }
  int wrong = 0;
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 64; ++c) {
      uint16_t got;
      memcpy(&got, dst + sk::swizzle_offset<128>(r * 128 + c * 2), 2);
      int gr = c1 + r, gc = c0 + c;
      uint16_t want = (gr < 100 && gc < 70) ? static_cast<uint16_t>(gr * 256 + gc) : 0;
      wrong += got != want;
    }
  note(std::to_string(wrong));
}
}  // namespace

TEST_CASE("a 128B-swizzled box lands where the swizzle pattern puts it") {
  ScenarioOptions o{.warps = 1};
  o.setup = [] { setup(Swizzle::k128B); };
  auto r = run_scenario(o, [] { load_and_check(0, 16); });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"0"});
}

TEST_CASE("a box crossing the tensor's edge is zero-filled and counts its full bytes") {
  ScenarioOptions o{.warps = 1};
  o.setup = [] { setup(Swizzle::k128B); };
  auto r = run_scenario(o, [] { load_and_check(32, 96); });  // cols 70.., rows 100.. outside
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes == std::vector<std::string>{"0"});
}

TEST_CASE("a swizzled destination that is not 1024-byte aligned is a finding") {
  ScenarioOptions o{.warps = 1};
  o.setup = [] { setup(Swizzle::k128B); };
  auto r = run_scenario(o, [] {
    uint64_t* bar = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem());
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar, 1);
      sk::arch::tma_load_2d(sk::arch::dynamic_smem() + 1024 + 128, &g_map, bar, 0, 0);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.has_rule("tma.smem_misaligned"));
}

TEST_CASE("tensor map encoding enforces the driver's rules") {
  sk::models::sm100::TensorMapModel m;
  CHECK(!sk::models::sm100::encode_tiled_2d(m, 0x1008, 2, 64, 64, 128, 64, 8, Swizzle::k128B).empty());
  CHECK(!sk::models::sm100::encode_tiled_2d(m, 0x1000, 2, 65, 64, 130, 64, 8, Swizzle::k128B).empty());
  CHECK(!sk::models::sm100::encode_tiled_2d(m, 0x1000, 2, 64, 64, 128, 64, 300, Swizzle::kNone).empty());
  CHECK(!sk::models::sm100::encode_tiled_2d(m, 0x1000, 2, 128, 64, 256, 128, 8, Swizzle::k128B).empty());
  CHECK(sk::models::sm100::encode_tiled_2d(m, 0x1000, 2, 65, 64, 144, 64, 8, Swizzle::k128B).empty());
}

namespace {
// Cycles from a load's issue to its barrier's flip, with the map's descriptor
// fetched on first use (fetch cycles) and, with prefetch, asked for by
// prefetch.tensormap `lead` cycles before the load.
int64_t first_load_cycles(uint32_t fetch, bool prefetch, sk::sim::Cycle lead) {
  ScenarioOptions o{.warps = 1};
  o.tensormap_fetch_latency = fetch;
  o.setup = [] { setup(Swizzle::k128B); };
  auto r = run_scenario(o, [prefetch, lead] {
    auto& gpu = sk::models::sm100::Gpu::current();
    uint64_t* bar = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem());
    uint8_t* dst = sk::arch::dynamic_smem() + 1024;
    if (prefetch) sk::arch::prefetch_tensormap(&g_map);
    gpu.warp().spend(lead);
    gpu.warp().sync();
    const sk::sim::Cycle issued = gpu.engine().now();
    if (auto l = sk::elect_one()) {
      sk::arch::mbarrier_init(bar, 1);
      sk::arch::mbarrier_arrive_expect_tx(bar, 64 * 8 * 2);
      sk::arch::tma_load_2d(dst, &g_map, bar, 0, 0);
    }
    while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
    }
    note(std::to_string(gpu.engine().now() - issued));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.notes.size() == 1);
  return std::stoll(r.notes[0]);
}
}  // namespace

TEST_CASE("a tensor map's first load waits for its descriptor; prefetch.tensormap hides the wait") {
  const int64_t plain = first_load_cycles(0, false, 2000);
  const int64_t cold = first_load_cycles(700, false, 2000);
  const int64_t early = first_load_cycles(700, true, 2000);  // prefetched long before
  const int64_t late = first_load_cycles(700, true, 300);    // prefetched 300 cycles before
  CHECK(cold - plain == 700);
  CHECK(early == plain);
  // The rest of the fetch shows: 700 less the lead (and the prefetch's own issue).
  CHECK(late - plain > 380);
  CHECK(late - plain <= 400);
}

// A TMA box that lands on a valid mbarrier (a shared-memory layout whose tile
// buffer runs into the barriers) repurposes the barrier's memory
// (mbarrier.overwritten_while_live, PTX 9.7.13.15.3); the twin puts the
// barrier after the box's 1 KiB.
TEST_CASE("a TMA box written over a second, live mbarrier is a finding; beside it is clean") {
  for (bool overlap : {true, false}) {
    CAPTURE(overlap);
    ScenarioOptions o{.warps = 1};
    o.setup = [] { setup(Swizzle::k128B); };
    auto r = run_scenario(o, [overlap] {
      uint64_t* bar = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem());
      uint64_t* other = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem() + 1024 + (overlap ? 512 : 1024));
      uint8_t* dst = sk::arch::dynamic_smem() + 1024;  // the box: 1024 bytes
      if (auto l = sk::elect_one()) {
        sk::arch::mbarrier_init(bar, 1);
        sk::arch::mbarrier_init(other, 1);
        sk::arch::mbarrier_arrive_expect_tx(bar, 64 * 8 * 2);
        sk::arch::tma_load_2d(dst, &g_map, bar, 0, 0);
      }
      while (!sk::arch::mbarrier_try_wait_parity(bar, 0)) {
      }
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    if (overlap)
      CHECK_MESSAGE(r.count_rule("mbarrier.overwritten_while_live") == 1, r.findings_text());
    else
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}

namespace {
// Cycles from issue to landing of a stream of 32 boxes of 64 x 128 BF16 (16 KiB
// each, six in flight; four distinct boxes, so all but the first four hit in
// L2) from a 4096-row matrix whose rows are `pitch` bytes apart, in timing
// mode; `factor` is Params::tma_unaligned_row_factor.
int64_t stream_cycles(uint64_t pitch, double factor) {
  static sk::arch::TensorMap map;
  constexpr int kBoxes = 32, kInFlight = 6;
  ScenarioOptions o{.warps = 1, .smem_bytes = kInFlight * 16384 + 1024, .functional = false};
  o.tma_unaligned_row_factor = factor;
  o.setup = [pitch] {
    auto& gpu = sk::models::sm100::Gpu::current();
    const uint64_t addr = gpu.gmem().allocate(4096 * pitch, "M");
    REQUIRE(sk::models::sm100::encode_tiled_2d(map, addr, 2, pitch / 2, 4096, pitch, 64, 128,
                                                Swizzle::k128B)
                .empty());
  };
  auto r = run_scenario(o, [kInFlight] {
    auto& gpu = sk::models::sm100::Gpu::current();
    uint64_t* bar = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem());
    uint8_t* dst = sk::arch::dynamic_smem() + 1024;
    auto wait = [bar, kInFlight](int i) {  // the i-th load's barrier flip
      while (!sk::arch::mbarrier_try_wait_parity(&bar[i % kInFlight], (i / kInFlight) & 1)) {
      }
    };
    const sk::sim::Cycle t0 = gpu.engine().now();
    for (int i = 0; i < kBoxes; ++i) {
      if (i >= kInFlight) wait(i - kInFlight);
      if (auto l = sk::elect_one()) {
        if (i < kInFlight) sk::arch::mbarrier_init(&bar[i], 1);
        sk::arch::mbarrier_arrive_expect_tx(&bar[i % kInFlight], 16384);
        sk::arch::tma_load_2d(dst + (i % kInFlight) * 16384, &map, &bar[i % kInFlight], 0, i % 4 * 128);
      }
    }
    for (int i = kBoxes - kInFlight; i < kBoxes; ++i) wait(i);
    note(std::to_string(gpu.engine().now() - t0));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.notes.size() == 1);
  return std::stoll(r.notes[0]);
}
}  // namespace

// A row pitch of 16 mod 32 bytes starts every other row of a box inside a
// 32-byte sector; such rows cost tma_unaligned_row_factor times their bytes
// on the port and in L2 (measured on the H200: 2.0). Aligned pitches, and
// any pitch with the factor at 1, cost their bytes only.
TEST_CASE("boxes whose rows start inside a 32-byte sector stream slower, by the factor") {
  const int64_t aligned = stream_cycles(4992, 2.0), unaligned = stream_cycles(5008, 2.0);
  const int64_t off = stream_cycles(5008, 1.0), pitch32 = stream_cycles(5024, 2.0);
  CHECK(off == aligned);
  CHECK(pitch32 == aligned);  // 32 mod 128: every row starts on a sector
  // Half the rows at twice their bytes: 1.5x the bytes on the port, which
  // sets the pace of a stream of L2 hits with six loads in flight.
  INFO("aligned ", aligned, " unaligned ", unaligned);
  CHECK(unaligned > aligned * 13 / 10);
  CHECK(unaligned <= aligned * 15 / 10 + 50);
}

namespace {
// Cycles until the last of `ctas` CTAs (one per SM) has landed its stream of
// 16 boxes of 64 x 128 BF16 (four in flight, all at row 0) from a tensor of
// `rows` rows, so that 128 - rows rows of every box lie outside it; `rate` is
// Params::tma_oob_rows_per_cycle.
int64_t oob_stream_cycles(int ctas, uint32_t rows, double rate, int in_flight = 4,
                          const sk::models::sm100::OobRates& surface = {}) {
  static sk::arch::TensorMap map;
  constexpr int kBoxes = 16;
  const int kInFlight = in_flight;
  ScenarioOptions o{.ctas = ctas, .warps = 1, .smem_bytes = static_cast<uint32_t>(kInFlight) * 16384 + 1024,
                    .functional = false};
  o.num_sms = ctas;
  o.tma_oob_rows_per_cycle = rate;
  o.tma_oob_rates = surface;
  o.setup = [rows] {
    auto& gpu = sk::models::sm100::Gpu::current();
    const uint64_t addr = gpu.gmem().allocate(uint64_t{rows} * 8192, "M");
    REQUIRE(sk::models::sm100::encode_tiled_2d(map, addr, 2, 4096, rows, 8192, 64, 128, Swizzle::k128B)
                .empty());
  };
  auto r = run_scenario(o, [kInFlight] {
    auto& gpu = sk::models::sm100::Gpu::current();
    uint64_t* bar = reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem());
    uint8_t* dst = sk::arch::dynamic_smem() + 1024;
    auto wait = [bar, kInFlight](int i) {
      while (!sk::arch::mbarrier_try_wait_parity(&bar[i % kInFlight], (i / kInFlight) & 1)) {
      }
    };
    for (int i = 0; i < kBoxes; ++i) {
      if (i >= kInFlight) wait(i - kInFlight);
      if (auto l = sk::elect_one()) {
        if (i < kInFlight) sk::arch::mbarrier_init(&bar[i], 1);
        sk::arch::mbarrier_arrive_expect_tx(&bar[i % kInFlight], 16384);
        sk::arch::tma_load_2d(dst + (i % kInFlight) * 16384, &map, &bar[i % kInFlight], i * 64, 0);
      }
    }
    for (int i = kBoxes - kInFlight; i < kBoxes; ++i) wait(i);
    note(std::to_string(gpu.engine().now()));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.notes.size() == static_cast<size_t>(ctas));
  int64_t last = 0;
  for (const std::string& n : r.notes) last = std::max<int64_t>(last, std::stoll(n));
  return last;
}
}  // namespace

// The rows of a box outside its tensor (zero-filled) pass one path of the
// whole GPU at tma_oob_rows_per_cycle (measured on H100s: 8 rows per cycle
// from 66 or 132 SMs, while one SM streams such boxes as fast as any):
// many SMs loading such boxes are held to that rate, one SM is not, and boxes
// wholly inside their tensor never wait for it.
TEST_CASE("rows of a box outside its tensor pass a path of the whole GPU at its rate") {
  const int64_t inside = oob_stream_cycles(64, 128, 8.0), inside_off = oob_stream_cycles(64, 128, 0);
  CHECK(inside == inside_off);
  const int64_t outside_off = oob_stream_cycles(64, 1, 0);
  CHECK(outside_off <= inside * 11 / 10);  // without the path: the box's bytes only
  const int64_t outside = oob_stream_cycles(64, 1, 8.0), half = oob_stream_cycles(64, 64, 8.0);
  INFO("inside ", inside, " one row inside ", outside, " 64 rows inside ", half);
  // 64 SMs x 16 boxes x 127 rows at 8 rows per cycle: 16,256 cycles at least.
  CHECK(outside >= 64 * 16 * 127 / 8);
  CHECK(outside <= 64 * 16 * 127 / 8 + inside);
  CHECK(half > inside);
  CHECK(half < outside);
  // One SM: 127 rows take 16 cycles of the path, well under the box's time
  // on the SM's port.
  const int64_t one = oob_stream_cycles(1, 1, 8.0), one_inside = oob_stream_cycles(1, 128, 8.0);
  CHECK(one <= one_inside * 11 / 10);
}

// The path's rate read off a measured surface (models/sm100/oob_path.h): SMs
// and rows outside go up to the next grid point, boxes in flight interpolate
// between points that both limit the path and take the nearer one otherwise.
TEST_CASE("the zero-fill surface is read by the load a box meets") {
  sk::models::sm100::OobRates r;
  CHECK(r.check().empty());  // no surface at all is well formed
  r.outside = {64, 127};
  r.sms = {33, 132};
  r.depths = {2, 4, 6};
  r.rows_per_cycle = {0, 0, 0, 9, 9, 12,   // 64 outside: 33 SMs, then 132 SMs
                      0, 0, 0, 8, 12, 20};  // 127 outside
  CHECK(r.check().empty());
  CHECK(r.at(127, 132, 2) == doctest::Approx(8));
  CHECK(r.at(127, 132, 3) == doctest::Approx(10));   // between two limited points
  CHECK(r.at(127, 132, 5) == doctest::Approx(16));
  CHECK(r.at(127, 132, 1) == doctest::Approx(8));    // below the grid: its first point
  CHECK(r.at(127, 132, 9) == doctest::Approx(20));   // above: its last
  CHECK(r.at(127, 200, 2) == doctest::Approx(8));    // more SMs than the grid: the last row
  CHECK(r.at(127, 34, 2) == doctest::Approx(8));     // 34 SMs read the 132-SM row
  CHECK(r.at(127, 33, 4) == 0);                      // the path keeps up there
  CHECK(r.at(32, 132, 6) == doctest::Approx(12));    // fewer rows outside: the first row
  CHECK(r.at(100, 132, 6) == doctest::Approx(20));   // 100 rows: the 127-row point
  r.rows_per_cycle[10] = 0;                          // 127 outside, 132 SMs, 4 deep: not limited
  CHECK(r.at(127, 132, 2.9) == doctest::Approx(8));  // nearer the limited point
  CHECK(r.at(127, 132, 3.1) == 0);                   // nearer the free one
  sk::models::sm100::OobRates bad = r;
  bad.rows_per_cycle.pop_back();
  CHECK(bad.check() == "the zero-fill surface has 11 rates for a grid of 12");
  bad = r;
  bad.depths = {2, 2, 6};
  CHECK(bad.check() == "the zero-fill surface's axes must be strictly increasing");
  bad = r;
  bad.sms.clear();
  CHECK(!bad.check().empty());
}

// With a surface, the path's rate follows its load: 64 SMs keeping four boxes
// in flight (about three deep on average, counted from issue to landing)
// meet a rate between the surface's two- and four-deep points, two in flight
// its two-deep rate; a point where the ports were the limit (0) costs nothing
// beyond the box's bytes, and boxes wholly inside never meet the path.
TEST_CASE("the zero-fill path passes rows at the rate of the load it meets") {
  sk::models::sm100::OobRates s;
  s.outside = {127};
  s.sms = {64};
  s.depths = {2, 4};
  s.rows_per_cycle = {8, 16};
  const int64_t inside = oob_stream_cycles(64, 128, 0, 4);
  CHECK(oob_stream_cycles(64, 128, 0, 4, s) == inside);
  const int64_t fixed8 = oob_stream_cycles(64, 1, 8.0, 4), deep = oob_stream_cycles(64, 1, 0, 4, s);
  const int64_t two_deep = oob_stream_cycles(64, 1, 0, 2, s), fixed8_two = oob_stream_cycles(64, 1, 8.0, 2);
  INFO("inside ", inside, " fixed 8: ", fixed8, " surface 4 deep: ", deep, " 2 deep: ", two_deep,
       " fixed 8, 2 deep: ", fixed8_two);
  // 64 SMs x 16 boxes x 127 rows: 16,256 cycles at 8 rows a cycle, 8,128 at 16.
  CHECK(deep >= 64 * 16 * 127 / 16);
  CHECK(deep < fixed8 * 3 / 4);
  CHECK(two_deep >= 64 * 16 * 127 / 8);
  CHECK(two_deep <= fixed8_two * 11 / 10);
  s.rows_per_cycle = {0, 0};
  CHECK(oob_stream_cycles(64, 1, 0, 4, s) <= inside * 11 / 10);
  s.rows_per_cycle = {8, 0};  // free from about three deep on
  CHECK(oob_stream_cycles(64, 1, 0, 4, s) < deep);
}

namespace {
// SM cycles per box and warp of `warps` warps of one CTA storing 64 boxes of
// 64 x 16 BF16 each by TMA from two staging buffers of their own, as the
// SM90 matmul's TMA-store epilogue does (kernels/io/wgmma_tile_writer.h):
// wait until the store two boxes back has read its buffer, fence, store,
// commit; `latency` is Params::tma_store_read_latency.
double store_box_cycles(int warps, uint32_t latency) {
  static sk::arch::TensorMap map;
  constexpr int kBoxes = 64;
  ScenarioOptions o{.warps = warps, .smem_bytes = static_cast<uint32_t>(warps) * 4096 + 1024, .functional = false};
  o.tma_store_read_latency = latency;
  o.setup = [] {
    auto& gpu = sk::models::sm100::Gpu::current();
    const uint64_t addr = gpu.gmem().allocate(uint64_t{4096} * 16384, "D");
    REQUIRE(sk::models::sm100::encode_tiled_2d(map, addr, 2, 8192, 4096, 16384, 64, 16, Swizzle::k128B).empty());
  };
  auto r = run_scenario(o, [] {
    auto& gpu = sk::models::sm100::Gpu::current();
    const uint32_t warp = gpu.warp().index();
    uint8_t* staging = sk::arch::dynamic_smem() + 1024 + warp * 4096;
    const sk::sim::Cycle t0 = gpu.engine().now();
    for (int i = 0; i < kBoxes; ++i) {
      if (auto l = sk::elect_one()) sk::arch::bulk_wait_group_read<1>();
      sk::arch::sync_warp();
      sk::arch::fence_proxy_async_shared();
      sk::arch::sync_warp();
      if (auto l = sk::elect_one()) {
        const int g = static_cast<int>(warp) * kBoxes + i;
        sk::arch::tma_store_2d(&map, staging + (i & 1) * 2048, g % 128 * 64, g / 128 * 16);
        sk::arch::bulk_commit_group();
      }
    }
    if (auto l = sk::elect_one()) sk::arch::bulk_wait_group<0>();
    note(std::to_string(gpu.engine().now() - t0));
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  int64_t last = 0;
  for (const std::string& n : r.notes) last = std::max<int64_t>(last, std::stoll(n));
  return static_cast<double>(last) / kBoxes;
}
}  // namespace

// The TMA-store epilogue's loop on one SM, against its measurement on an
// H100 (hw/h200/l2_stream.cu section tma_stores): one warp stores a 2 KiB box
// per 528 cycles, eight warps each about as fast (29.2 B per SM cycle in all),
// because each store waits for the one two boxes back to have read its
// buffer, which takes tma_store_read_latency (1,046 in the SM90 files).
// Without it the box is read at once and the loop runs several times faster.
TEST_CASE("a TMA store reads its box tma_store_read_latency after issue, as the epilogue's loop measured") {
  const double one = store_box_cycles(1, 1046), eight = store_box_cycles(8, 1046);
  const double unloaded = store_box_cycles(1, 0);
  INFO("one warp ", one, " eight warps ", eight, " without the latency ", unloaded);
  CHECK(one == doctest::Approx(528).epsilon(0.02));
  CHECK(eight == doctest::Approx(2048.0 * 8 / 29.2).epsilon(0.10));  // 561 per warp
  CHECK(unloaded < one / 3);
}

