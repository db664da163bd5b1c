// The L2 a launch finds when the measurement rotates over input sets
// (runner/kernels/input_sets.h), on the L2 model alone: what survives the
// other sets' traffic is what LRU leaves, with the L2's halves and copies.
#include <doctest/doctest.h>

#include <cstdlib>
#include <vector>

#include "models/sm100/l2_cache.h"
#include "models/sm100/tensor_map.h"
#include "runner/kernels/input_sets.h"

namespace {
using sk::models::sm100::BoxKey;
using sk::models::sm100::L2;
using sk::models::sm100::L2Reads;
using sk::models::sm100::TensorMapModel;

// A K-major BF16 operand of `rows` x 256 elements at `addr`, 128 x 64 boxes.
TensorMapModel operand(uint64_t addr, uint64_t rows) {
  TensorMapModel m;
  REQUIRE(sk::models::sm100::encode_tiled_2d(m, addr, 2, 256, rows, 512, 64, 128,
                                             sk::models::sm100::Swizzle::k128B)
              .empty());
  return m;
}

// How many of m's boxes a launch's reads from SM `sm` find in L2.
int hits(L2& l2, const TensorMapModel& m, int sm) {
  int n = 0;
  for (uint64_t c1 = 0; c1 < m.dims[1]; c1 += m.box[1])
    for (uint64_t c0 = 0; c0 < m.dims[0]; c0 += m.box[0]) {
      L2Reads r;
      l2.read(sm, BoxKey{m.global_address, static_cast<int32_t>(c0), static_cast<int32_t>(c1), m.box[0], m.box[1]},
              m.box_bytes(), r);
      n += r.hbm_bytes == 0 ? 1 : 0;
    }
  return n;
}
}  // namespace

TEST_CASE("a set that fits with the others is all in L2; one they push out is not") {
  const std::vector<uint32_t> side = {0, 1, 0, 1};  // two halves, SMs alternating
  // A 1024 x 256 and B 512 x 256 operand: 32 + 16 boxes of 16 KiB (768 KiB).
  const TensorMapModel a = operand(1 << 20, 1024), b = operand(64 << 20, 512);
  const TensorMapModel* maps[] = {&a, &b};
  {
    L2 l2(64ull << 20, side, 1.0);  // 64 MiB: eight sets and their D's fit
    sk::runner::preload_input_sets(l2, side, 64ull << 20, maps, 1 << 20, 8);
    CHECK(hits(l2, a, 0) == 32);
    CHECK(hits(l2, b, 1) == 16);
    CHECK(l2.lookups() == 48);  // the walk counts as none of the launch's
  }
  {
    L2 l2(4ull << 20, side, 1.0);  // 4 MiB: the seven other sets and D's push it out
    sk::runner::preload_input_sets(l2, side, 4ull << 20, maps, 1 << 20, 8);
    CHECK(hits(l2, a, 0) == 0);
    CHECK(hits(l2, b, 1) == 0);
  }
  {
    // 8 MiB: the walk runs (seven sets' boxes, 5.25 MiB, are under the
    // capacity) but with the copies in both halves and the D's LRU evicts
    // this set, the oldest.
    L2 l2(8ull << 20, side, 1.0);
    sk::runner::preload_input_sets(l2, side, 8ull << 20, maps, 1 << 20, 8);
    CHECK(hits(l2, a, 0) == 0);
    // Two sets: this one survives.
    L2 two(8ull << 20, side, 1.0);
    sk::runner::preload_input_sets(two, side, 8ull << 20, maps, 1 << 20, 2);
    CHECK(hits(two, a, 0) == 32);
  }
  {
    L2 l2(64ull << 20, side, 1.0);  // no rotation given: a lone launch, L2 empty
    sk::runner::preload_input_sets(l2, side, 64ull << 20, maps, 1 << 20, 0);
    CHECK(hits(l2, a, 0) == 0);
  }
  {
    L2 l2(64ull << 20, {}, 1.0);  // one cache, the same set every launch
    sk::runner::preload_input_sets(l2, {}, 64ull << 20, maps, 1 << 20, 1);
    CHECK(hits(l2, a, 0) == 32);
  }
}

// libsystemc (linked through //models/sm100) provides main() and calls
// sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
