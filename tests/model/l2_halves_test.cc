// l2_halves_test.cc: the L2 of two halves (models/sm100/l2_cache.h, L2)
// against the single cache it replaces. An SM of the other side finds a box
// without HBM (the lines homed beside it, and the others across); the lines
// a half keeps for readers on the other side go before those its own side
// reads again, yet outlive a stream's lag between the sides (one wave of a
// matmul reads its operands from HBM once); a cyclic footprint of 3/4 of the
// capacity that stays with its SMs stays in L2, and the same footprint moving
// to the other side on every pass does not (each side then keeps a copy of
// what it reads), where one cache holds both.
#include <doctest/doctest.h>

#include <vector>

#include "models/sm100/l2_cache.h"

namespace {
using sk::models::sm100::BoxKey;
using sk::models::sm100::L2;
using sk::models::sm100::L2Reads;

constexpr uint64_t kBox = 16384;

// Reads box b for `sm` and lands it at once; returns the bytes from HBM.
uint64_t read(L2& l2, int sm, int b) {
  L2Reads r;
  l2.read(sm, BoxKey{0x1000, 0, b * 128, 64, 128}, kBox, r);
  l2.land(r, 1);
  return r.hbm_bytes;
}

// The age the SM90 parameter files give (Params::l2_far_line_age).
constexpr double kAge = 1.0;

// HBM bytes of a stream that side 0 reads, box after box, and side 1 reads
// every other box of, `lag` boxes behind: each box is used within lag boxes'
// worth of traffic and never again, and half of them by one side only, as
// one wave of a matmul uses its operands' k-blocks (B's panels by SMs of
// both sides, many of A's blocks by SMs of one).
uint64_t stream(L2& l2, int boxes, int lag) {
  uint64_t hbm = 0;
  for (int i = 0; i < boxes + lag; ++i) {
    if (i < boxes) hbm += read(l2, 0, i);
    if (i >= lag && (i - lag) % 2 == 0) hbm += read(l2, 2, i - lag);
  }
  return hbm;
}

// HBM bytes of the last of `passes` passes over `boxes` boxes, box i read on
// pass p by SM (i + p * shift) % 4, with SMs 0-1 on side 0 and 2-3 on side 1.
uint64_t last_pass(L2& l2, int boxes, int passes, int shift) {
  uint64_t hbm = 0;
  for (int p = 0; p < passes; ++p) {
    hbm = 0;
    for (int i = 0; i < boxes; ++i) hbm += read(l2, (i + p * shift) % 4, i);
  }
  return hbm;
}

}  // namespace

TEST_CASE("two halves: a box read from the other side needs no HBM") {
  L2 l2(64 * kBox, {0, 0, 1, 1}, kAge);
  CHECK(l2.halves());
  CHECK(read(l2, 0, 7) == kBox);  // cold: all of it from HBM
  CHECK(read(l2, 1, 7) == 0);     // the same side: homed there, or its copy
  CHECK(read(l2, 2, 7) == 0);     // the other side: homed beside it, or across
  CHECK(read(l2, 3, 7) == 0);
  CHECK(l2.lookups() == 4);
}

TEST_CASE("two halves: a line kept for the other side goes first") {
  // Side 0 reads boxes 0-27 and side 1 boxes 100-127, 28 boxes' worth of
  // hot lines in each 32-box half; each half also keeps, aged, the 14 boxes'
  // worth of lines the other side fetched from HBM. Those go first, so the
  // next passes need nothing from HBM (a plain LRU of them would thrash).
  L2 l2(64 * kBox, {0, 0, 1, 1}, kAge);
  for (int pass = 0; pass < 3; ++pass) {
    uint64_t hbm = 0;
    for (int i = 0; i < 28; ++i) hbm += read(l2, 0, i) + read(l2, 2, 100 + i);
    if (pass > 0) CHECK(hbm == 0);
  }
}

TEST_CASE("two halves: a line kept for the other side outlives a stream's lag") {
  // 640 boxes, ten times the capacity, the second side 8 boxes behind (an
  // eighth of the capacity): every box from HBM once. Taken in at the cold
  // end instead (an age past everything resident), the lines homed on the
  // second side go at its next misses, before its readers come, and a
  // quarter of the bytes come from HBM again.
  L2 aged(64 * kBox, {0, 0, 1, 1}, kAge);
  CHECK(stream(aged, 640, 8) == 640 * kBox);
  L2 cold(64 * kBox, {0, 0, 1, 1}, 64.0);
  CHECK(stream(cold, 640, 8) > 640 * kBox * 6 / 5);
}

TEST_CASE("two halves: a footprint that changes sides takes capacity in both") {
  const int boxes = 48;  // 3/4 of the capacity
  {
    L2 one(64 * kBox, {}, kAge);
    CHECK(last_pass(one, boxes, 6, 2) == 0);  // one cache holds it whoever reads
  }
  {
    L2 halves(64 * kBox, {0, 0, 1, 1}, kAge);
    CHECK(last_pass(halves, boxes, 6, 0) == 0);  // each SM its own boxes
  }
  {
    L2 halves(64 * kBox, {0, 0, 1, 1}, kAge);
    // Every box changes sides each pass: each side wants all 48 boxes' home
    // lines and copies in 32 boxes' worth.
    CHECK(last_pass(halves, boxes, 6, 2) > 0);
  }
  {
    L2 halves(64 * kBox, {0, 0, 1, 1}, kAge);
    CHECK(last_pass(halves, 16, 6, 2) == 0);  // small enough for both sides
  }
}
