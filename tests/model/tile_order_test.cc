// tile_order_test: the persistent schedulers' tile order (tile_work in
// kernels/sched/static_persistent_scheduler.h). Every group visits each tile
// of the grid exactly once, group 1 is the order along M the kernels always
// had, and a group makes the tiles that run at once a compact block.
#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels/sched/static_persistent_scheduler.h"

using sk::tile_work;
using sk::WorkInfo;

TEST_CASE("every tile group visits each tile exactly once, then stops") {
  for (const auto& grid : std::vector<std::tuple<uint32_t, uint32_t, uint32_t>>{
           {1, 1, 1}, {64, 64, 1}, {7, 13, 1}, {13, 7, 3}, {2, 33, 2}, {5, 1, 1}, {1, 9, 1}}) {
    const uint32_t tm = std::get<0>(grid), tn = std::get<1>(grid), batches = std::get<2>(grid);
    for (uint32_t g : {1u, 2u, 3u, 4u, 8u, 16u, 64u, 256u}) {
      CAPTURE(tm);
      CAPTURE(tn);
      CAPTURE(batches);
      CAPTURE(g);
      const uint64_t tiles = uint64_t{tm} * tn * batches;
      std::set<std::tuple<int, int, int>> seen;
      for (uint64_t t = 0; t < tiles; ++t) {
        const WorkInfo w = tile_work(t, tm, tn, batches, g);
        REQUIRE(w.valid == 1);
        REQUIRE(w.m_tile >= 0);
        REQUIRE(w.m_tile < static_cast<int>(tm));
        REQUIRE(w.n_tile >= 0);
        REQUIRE(w.n_tile < static_cast<int>(tn));
        REQUIRE(w.batch < static_cast<int>(batches));
        seen.insert({w.batch, w.m_tile, w.n_tile});
      }
      CHECK(seen.size() == tiles);
      CHECK(tile_work(tiles, tm, tn, batches, g).valid == 0);
    }
  }
}

TEST_CASE("group 1 walks along M, then N, then the batch") {
  for (uint64_t t = 0; t < 7 * 5 * 2; ++t) {
    const WorkInfo w = tile_work(t, 7, 5, 2, 1);
    CHECK(w.m_tile == static_cast<int>(t % 7));
    CHECK(w.n_tile == static_cast<int>(t / 7 % 5));
    CHECK(w.batch == static_cast<int>(t / 35));
  }
}

TEST_CASE("a group of 8 puts 132 concurrent tiles of a 64 x 64 grid on 25 panels") {
  // 8192^3 with 128 x 128 tiles on 132 SMs: the first wave.
  auto panels = [](uint32_t g) {
    std::set<int> rows, cols;
    for (uint64_t t = 0; t < 132; ++t) {
      const WorkInfo w = tile_work(t, 64, 64, 1, g);
      rows.insert(w.m_tile);
      cols.insert(w.n_tile);
    }
    return std::pair{rows.size(), cols.size()};
  };
  CHECK(panels(1) == std::pair<size_t, size_t>{64, 3});  // all of A, 3 columns of B
  CHECK(panels(8) == std::pair<size_t, size_t>{17, 8});
  // Within a band, consecutive tiles walk its columns, then the next row.
  CHECK(tile_work(0, 64, 64, 1, 8).n_tile == 0);
  CHECK(tile_work(7, 64, 64, 1, 8).n_tile == 7);
  CHECK(tile_work(8, 64, 64, 1, 8).m_tile == 1);
  CHECK(tile_work(8, 64, 64, 1, 8).n_tile == 0);
  // The last band of 13 columns in groups of 8 is 5 wide.
  CHECK(tile_work(7 * 8, 7, 13, 1, 8).n_tile == 8);
  CHECK(tile_work(7 * 8 + 5, 7, 13, 1, 8).m_tile == 1);
}
