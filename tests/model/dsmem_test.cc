// Distributed shared memory in the model (models/sm100/api_dsmem.cc) and the
// scope rule of the race detector (verify/hb, D8): DSMEM loads, stores and
// atomics move real values between the CTAs of 2- and 4-CTA clusters, a load
// stalls its warp the DSMEM round trip while a store is posted, bad ranks,
// offsets and exited peers are findings, and data that a CTA writes for a
// peer is published by a release at cluster scope (.release.cluster, or
// fence.acq_rel.cluster before the arrive), not by the default CTA-scope
// remote arrive, which still hands a peer back what this CTA only read (a
// store it did not read back is not handed back so); a peer's shared memory
// and barriers are used only after a cluster barrier says the peer runs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>

#include "kernels/arch/sm100.h"
#include "kernels/core/lanes.h"
#include "models/sm100/gpu.h"
#include "tests/model/cluster_scenario.h"
#include "tests/model/scenario.h"

namespace {
using sk::test::note;
using sk::test::run_scenario;
using sk::test::ScenarioOptions;
using sk::test::ScenarioResult;

using sk::test::bar_at;
using sk::test::init_cluster_barriers;
// Data lives past the barriers.
uint32_t* words(uint32_t byte_offset = 1024) {
  return reinterpret_cast<uint32_t*>(sk::arch::dynamic_smem() + byte_offset);
}
uint64_t* wide() { return reinterpret_cast<uint64_t*>(sk::arch::dynamic_smem() + 2048); }
// Slot s of a per-sender area: 16 bytes apart, because the race detector
// keeps one record per 16-byte granule (two senders' words in one granule
// would be one location to it).
uint32_t* slot(uint32_t s) { return words() + 4 * s; }
uint64_t* wide_slot(uint32_t s) { return wide() + 2 * s; }

sk::models::sm100::Gpu& gpu() { return sk::models::sm100::Gpu::current(); }


void wait(uint32_t i, uint32_t parity = 0) {
  while (!sk::arch::mbarrier_try_wait_parity(bar_at(i), parity)) {
  }
}

bool names(const ScenarioResult& r, const std::string& rule, const std::string& text) {
  for (const auto& f : r.findings) {
    if (f.rule != rule) continue;
    std::string all = f.message;
    for (const auto& d : f.chain) all += "\n" + d;
    if (all.find(text) != std::string::npos) return true;
  }
  return false;
}

uint32_t tag(uint32_t cta, uint32_t to) { return cta << 8 | to; }
}  // namespace

TEST_CASE("DSMEM stores and loads move 32- and 64-bit values between every pair of a cluster") {
  for (const int size : {2, 4}) {
    ScenarioOptions o{.ctas = 2 * size, .warps = 1, .cluster_size = size, .race_detector = true};
    auto r = run_scenario(o, [] {
      const uint32_t rank = sk::arch::cluster_ctarank(), n = sk::arch::cluster_num_ctas();
      const uint32_t cta = sk::arch::cta_idx(), first = cta - rank;
      sk::arch::cluster_sync();
      // Every CTA writes into slot `rank` of every CTA of its cluster (itself
      // included), one lane; and lane l's word into the next rank's lane area.
      if (auto l = sk::elect_one()) {
        for (uint32_t p = 0; p < n; ++p) {
          sk::arch::st_shared_cluster(slot(rank), p, tag(cta, p));
          sk::arch::st_shared_cluster(wide_slot(rank), p, uint64_t{cta} << 40 | p);
        }
      }
      const uint32_t next = (rank + 1) % n;
      sk::for_each_lane([&](uint32_t l) {
        sk::arch::st_shared_cluster(words(3072) + l, next, cta * 100 + l);
      });
      sk::arch::cluster_sync();
      int wrong = 0;
      if (auto l = sk::elect_one()) {
        for (uint32_t s = 0; s < n; ++s) {
          // What sender s wrote here, read locally and through DSMEM.
          wrong += sk::arch::ld_shared(slot(s)) != tag(first + s, rank);
          wrong += sk::arch::ld_shared_cluster(slot(s), rank) != tag(first + s, rank);
          wrong += sk::arch::ld_shared(wide_slot(s)) != (uint64_t{first + s} << 40 | rank);
          // What this CTA wrote into peer s.
          wrong += sk::arch::ld_shared_cluster(slot(rank), s) != tag(cta, s);
          wrong += sk::arch::ld_shared_cluster(wide_slot(rank), s) != (uint64_t{cta} << 40 | s);
        }
      }
      const uint32_t prev = first + (rank + n - 1) % n;
      sk::for_each_lane([&](uint32_t l) {
        wrong += sk::arch::ld_shared(words(3072) + l) != prev * 100 + l;
        wrong += sk::arch::ld_shared_cluster(words(3072) + l, next) != cta * 100 + l;
      });
      note(std::to_string(cta) + " wrong " + std::to_string(wrong));
      sk::arch::cluster_sync();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("cluster of " << size);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    REQUIRE(r.notes.size() == static_cast<size_t>(2 * size));
    for (const auto& n : r.notes) CHECK(n.substr(n.find(' ')) == " wrong 0");
  }
}

TEST_CASE("DSMEM atomics add every acting lane's value and do not race with each other") {
  ScenarioOptions o{.ctas = 8, .warps = 2, .cluster_size = 4, .race_detector = true};
  auto r = run_scenario(o, [] {
    const uint32_t rank = sk::arch::cluster_ctarank();
    uint32_t* counter = words();
    if (rank == 0 && sk::arch::warp_idx() == 0)
      if (auto l = sk::elect_one()) sk::arch::st_shared(counter, 0u);
    sk::arch::cluster_sync();
    // Per warp: one ticket (atom, one lane), 10 (red, one lane), 32 x 1 (red,
    // the whole warp) and 32 x 2 (atom, each lane of a per-lane loop).
    uint32_t ticket = 0;
    if (auto l = sk::elect_one()) {
      ticket = sk::arch::atom_add_shared_cluster(counter, 0, 1);
      sk::arch::red_add_shared_cluster(counter, 0, 10);
    }
    sk::arch::red_add_shared_cluster(counter, 0, 1);
    sk::for_each_lane([&](uint32_t) { sk::arch::atom_add_shared_cluster(counter, 0, 2); });
    if (auto l = sk::elect_one()) note("ticket " + std::to_string(ticket));
    sk::arch::cluster_sync();
    if (rank == 0 && sk::arch::warp_idx() == 0)
      if (auto l = sk::elect_one()) note("total " + std::to_string(sk::arch::ld_shared(counter)));
    sk::arch::cluster_sync();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  std::multiset<uint32_t> tickets;
  int totals = 0;
  for (const auto& n : r.notes) {
    if (n.rfind("total ", 0) == 0) {
      ++totals;
      CHECK(n == "total " + std::to_string(8 * (1 + 10 + 32 + 64)));  // 8 warps per cluster
    } else {
      tickets.insert(static_cast<uint32_t>(std::stoul(n.substr(7))));
    }
  }
  CHECK(totals == 2);
  REQUIRE(tickets.size() == 16);
  // Tickets of one cluster are distinct (each atomic saw the adds before it).
  CHECK(std::set<uint32_t>(tickets.begin(), tickets.end()).size() >= 8);
}

TEST_CASE("a DSMEM load or atom stalls its warp the round trip; stores and red are posted") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  auto r = run_scenario(o, [] {
    sk::arch::cluster_sync();
    if (sk::arch::cluster_ctarank() != 0) {
      sk::arch::cluster_sync();
      return;
    }
    auto cost = [](auto&& op) {
      gpu().warp().sync();
      const auto t0 = gpu().engine().now();
      op();
      gpu().warp().sync();
      return gpu().engine().now() - t0;
    };
    if (auto l = sk::elect_one()) {
      note("ld " + std::to_string(cost([] { (void)sk::arch::ld_shared_cluster(words(), 1); })));
      note("st " + std::to_string(cost([] { sk::arch::st_shared_cluster(words(), 1, 7u); })));
      note("red " + std::to_string(cost([] { sk::arch::red_add_shared_cluster(words(), 1, 1); })));
      note("atom " +
           std::to_string(cost([] { (void)sk::arch::atom_add_shared_cluster(words(), 1, 1); })));
      note("arrive " + std::to_string(cost([] { sk::arch::fence_acq_rel_cluster(); })));
    }
    sk::arch::cluster_sync();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  const auto& p = sk::models::sm100::Params::builtin();
  REQUIRE(p.dsmem_load_latency > 0);
  REQUIRE(p.cluster_release_latency > 0);
  REQUIRE(r.notes.size() == 5);
  auto value = [&](int i) { return std::stoull(r.notes[i].substr(r.notes[i].find(' ') + 1)); };
  CHECK(value(0) >= p.dsmem_load_latency);  // ld
  CHECK(value(0) < p.dsmem_load_latency + 10);
  CHECK(value(1) < 10);  // st
  CHECK(value(2) < 10);  // red
  CHECK(value(3) >= p.dsmem_load_latency);  // atom
  CHECK(value(4) >= p.cluster_release_latency);  // fence.acq_rel.cluster
}

TEST_CASE("a remote arrive with .release.cluster waits out the memory barrier first") {
  for (const bool release : {false, true}) {
    ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
    auto r = run_scenario(o, [release] {
      if (sk::arch::warp_idx() == 0)
        if (auto l = sk::elect_one()) {
          sk::arch::mbarrier_init(bar_at(0), 1);
          sk::arch::fence_mbarrier_init();
        }
      sk::arch::cluster_sync();
      if (sk::arch::cluster_ctarank() == 0) {
        gpu().warp().sync();
        note("sent " + std::to_string(gpu().engine().now()));
        if (auto l = sk::elect_one()) {
          if (release)
            sk::arch::mbarrier_arrive_cluster_release(bar_at(0), 1);
          else
            sk::arch::mbarrier_arrive_cluster(bar_at(0), 1);
        }
      } else {
        while (!sk::arch::mbarrier_try_wait_parity_cluster(bar_at(0), 0)) {
        }
        note("flip " + std::to_string(gpu().engine().now()));
      }
      sk::arch::cluster_sync();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    uint64_t sent = 0, flip = 0;
    for (const auto& n : r.notes) {
      if (n.rfind("sent ", 0) == 0) sent = std::stoull(n.substr(5));
      if (n.rfind("flip ", 0) == 0) flip = std::stoull(n.substr(5));
    }
    const auto& p = sk::models::sm100::Params::builtin();
    INFO("release.cluster: " << release);
    const uint64_t earliest = sent + p.dsmem_latency + (release ? p.cluster_release_latency : 0);
    CHECK(flip >= earliest);
    CHECK(flip < earliest + 200);
  }
}

TEST_CASE("DSMEM stores pass the sending and the receiving SM's port at the network's rate") {
  // Ranks 1..S-1 each send W warps x `bytes` to rank 0 and release at
  // cluster scope; rank 0's warp 0 waits. The ports serve one warp's stores
  // at a time at R bytes a cycle: rank 0's port takes (S - 1) W transfers,
  // a sender's W; the last release waits for the last transfer.
  constexpr double kRate = 32;
  constexpr uint32_t kBytes = 16384;
  struct Case {
    int size, warps;
  };
  for (const Case c : {Case{2, 1}, Case{2, 4}, Case{4, 1}, Case{4, 2}, Case{8, 1}}) {
    ScenarioOptions o{.ctas = c.size,
                      .warps = c.warps,
                      .functional = false,
                      .cluster_size = c.size,
                      .dsmem_store_bytes_per_cycle = kRate};
    auto r = run_scenario(o, [c] {
      init_cluster_barriers(1, static_cast<uint32_t>((c.size - 1) * c.warps));
      gpu().warp().sync();
      if (sk::arch::cluster_ctarank() != 0) {
        sk::arch::account_dsmem_stores(0, kBytes, kBytes / 512);
        if (auto l = sk::elect_one()) sk::arch::mbarrier_arrive_cluster_release(bar_at(0), 0);
      } else if (sk::arch::warp_idx() == 0) {
        const uint64_t start = gpu().engine().now();
        while (!sk::arch::mbarrier_try_wait_parity_cluster(bar_at(0), 0)) {
        }
        gpu().warp().sync();
        note("took " + std::to_string(gpu().engine().now() - start));
      }
      sk::arch::cluster_sync();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("cluster " << c.size << ", " << c.warps << " sending warps per CTA");
    CHECK(r.status == "completed");
    uint64_t took = 0;
    for (const auto& n : r.notes)
      if (n.rfind("took ", 0) == 0) took = std::stoull(n.substr(5));
    const auto& p = sk::models::sm100::Params::builtin();
    const double network = (c.size - 1) * c.warps * kBytes / kRate;
    CHECK(took >= network + p.cluster_release_latency + p.dsmem_latency);
    CHECK(took < network + p.cluster_release_latency + p.dsmem_latency + 200);
  }
}

TEST_CASE("DSMEM rules: bad rank, bad offset, exited peer; nothing moves, nothing crashes") {
  ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2};
  auto r = run_scenario(o, [] {
    if (sk::arch::cluster_ctarank() == 1) return;  // exits at once
    gpu().warp().stall(2000, "let the peer exit");
    if (auto l = sk::elect_one()) {
      sk::arch::st_shared(words(), 5u);
      note("bad rank " + std::to_string(sk::arch::ld_shared_cluster(words(), 2)));
      sk::arch::st_shared_cluster(words(), 7, 1u);
      sk::arch::red_add_shared_cluster(words(), 3, 1);
      // Misaligned, past the end, and not shared memory at all.
      sk::arch::st_shared_cluster(reinterpret_cast<uint32_t*>(sk::arch::dynamic_smem() + 1026), 0,
                                  1u);
      (void)sk::arch::ld_shared_cluster(
          reinterpret_cast<const uint64_t*>(sk::arch::dynamic_smem() + 64 * 1024 - 4), 0);
      uint32_t on_stack = 0;
      (void)sk::arch::atom_add_shared_cluster(&on_stack, 0, 1);
      note("exited " + std::to_string(sk::arch::ld_shared_cluster(words(), 1)));
      sk::arch::st_shared_cluster(words(), 1, 9u);
      note("own " + std::to_string(sk::arch::ld_shared_cluster(words(), 0)));
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.count_rule("cluster.bad_rank") == 3, r.findings_text());
  CHECK_MESSAGE(r.count_rule("smem.bad_access") == 3, r.findings_text());
  CHECK_MESSAGE(r.count_rule("cluster.peer_exited") == 2, r.findings_text());
  CHECK(std::count(r.notes.begin(), r.notes.end(), "bad rank 0") == 1);
  CHECK(std::count(r.notes.begin(), r.notes.end(), "exited 0") == 1);
  CHECK(std::count(r.notes.begin(), r.notes.end(), "own 5") == 1);
}

namespace {
enum class Publish { kCtaArrive, kReleaseCluster, kFenceThenArrive, kFenceTooEarly };
enum class Acquire { kCluster, kCta, kCtaThenFence };

// Rank 0 stores 32 words into rank 1's buffer (st.shared::cluster, or into
// its own for rank 1 to load with ld.shared::cluster when `own`), then
// signals rank 1's barrier as `how` says; rank 1 waits (as `acq` says) and
// reads them.
void push(Publish how, bool own, Acquire acq = Acquire::kCluster) {
  init_cluster_barriers(1, 1);
  if (sk::arch::cluster_ctarank() == 0) {
    if (auto l = sk::elect_one()) {
      if (how == Publish::kFenceTooEarly) sk::arch::fence_acq_rel_cluster();
      for (uint32_t i = 0; i < 32; ++i) {
        if (own)
          sk::arch::st_shared(words() + i, 100 + i);
        else
          sk::arch::st_shared_cluster(words() + i, 1, 100 + i);
      }
      if (how == Publish::kFenceThenArrive) sk::arch::fence_acq_rel_cluster();
      if (how == Publish::kReleaseCluster)
        sk::arch::mbarrier_arrive_cluster_release(bar_at(0), 1);
      else
        sk::arch::mbarrier_arrive_cluster(bar_at(0), 1);
    }
  } else {
    if (acq == Acquire::kCluster) {
      while (!sk::arch::mbarrier_try_wait_parity_cluster(bar_at(0), 0)) {
      }
    } else {
      wait(0);
      if (acq == Acquire::kCtaThenFence) sk::arch::fence_acq_rel_cluster();
    }
    uint32_t sum = 0;
    if (auto l = sk::elect_one())
      for (uint32_t i = 0; i < 32; ++i)
        sum += own ? sk::arch::ld_shared_cluster(words() + i, 0) : sk::arch::ld_shared(words() + i);
    if (auto l = sk::elect_one()) note("sum " + std::to_string(sum));
  }
  sk::arch::cluster_sync();
}
}  // namespace

TEST_CASE("data a CTA-scope arrive publishes to a peer is a scope finding, cluster scope clean") {
  for (const bool own : {false, true}) {
    for (const Publish how : {Publish::kCtaArrive, Publish::kReleaseCluster,
                              Publish::kFenceThenArrive, Publish::kFenceTooEarly}) {
      ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
      auto r = run_scenario(o, [how, own] { push(how, own); });
      REQUIRE_MESSAGE(r.ok, r.error);
      INFO("own buffer: " << own << ", publish " << static_cast<int>(how));
      CHECK(r.status == "completed");
      // The values arrive either way in the model: the rule is about what the
      // hardware guarantees.
      CHECK(std::count(r.notes.begin(), r.notes.end(), "sum " + std::to_string(32 * 100 + 496)) ==
            1);
      const bool bug = how == Publish::kCtaArrive || how == Publish::kFenceTooEarly;
      if (!bug) {
        CHECK_MESSAGE(r.findings.empty(), r.findings_text());
        continue;
      }
      CHECK_MESSAGE(r.has_rule("scope.cta_release_cross_cta"), r.findings_text());
      CHECK_MESSAGE(r.count_rule("scope.cta_release_cross_cta") == 1, r.findings_text());
      const auto& f = r.findings.front();
      CHECK(f.cls == "scope");
      CHECK(f.rule == "scope.cta_release_cross_cta");
      // Both CTAs, the write, the read, the arrive and the fix.
      CHECK(f.message.find("CTA 0") != std::string::npos);
      CHECK(f.message.find("CTA 1") != std::string::npos);
      CHECK(f.message.find(own ? "st.shared" : "st.shared::cluster") != std::string::npos);
      CHECK(f.message.find(own ? "ld.shared::cluster" : "ld.shared") != std::string::npos);
      CHECK(f.message.find("mbarrier.arrive.shared::cluster (release at CTA scope) by CTA 0") !=
            std::string::npos);
      CHECK(f.message.find(".release.cluster") != std::string::npos);
      CHECK(f.message.find("fence.acq_rel.cluster") != std::string::npos);
    }
  }
}

TEST_CASE("data a peer published is acquired at cluster scope, not by the CTA-scope wait") {
  // The release is right (.release.cluster, or a fence before the CTA-scope
  // arrive); the waiter's try_wait at CTA scope does not synchronize with
  // it, unless a fence.acq_rel.cluster follows the wait.
  for (const bool own : {false, true}) {
    for (const Publish how : {Publish::kReleaseCluster, Publish::kFenceThenArrive}) {
      for (const Acquire acq : {Acquire::kCluster, Acquire::kCta, Acquire::kCtaThenFence}) {
        ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
        auto r = run_scenario(o, [how, own, acq] { push(how, own, acq); });
        REQUIRE_MESSAGE(r.ok, r.error);
        INFO("own buffer: " << own << ", publish " << static_cast<int>(how) << ", acquire "
                            << static_cast<int>(acq));
        CHECK(r.status == "completed");
        if (acq != Acquire::kCta) {
          CHECK_MESSAGE(r.findings.empty(), r.findings_text());
          continue;
        }
        CHECK_MESSAGE(r.count_rule("scope.cta_acquire_cross_cta") == 1, r.findings_text());
        REQUIRE(!r.findings.empty());
        const auto& f = r.findings.front();
        CHECK(f.cls == "scope");
        CHECK(f.rule == "scope.cta_acquire_cross_cta");
        // Both CTAs, the wait and the two fixes.
        CHECK(f.message.find("CTA 0") != std::string::npos);
        CHECK(f.message.find("CTA 1") != std::string::npos);
        CHECK(f.message.find("try_wait at CTA scope") != std::string::npos);
        CHECK(f.message.find("mbarrier_try_wait_parity_cluster") != std::string::npos);
        CHECK(f.message.find("fence.acq_rel.cluster") != std::string::npos);
      }
    }
  }
}

TEST_CASE("a CTA-scope arrive hands a peer back what this CTA only read") {
  // Rank 1 reads rank 0's buffer through DSMEM, then tells rank 0 with the
  // default remote arrive; rank 0 then overwrites the buffer. Without the
  // hand-off the overwrite races with the reads.
  for (const bool handoff : {true, false}) {
    ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
    auto r = run_scenario(o, [handoff] {
      if (sk::arch::cluster_ctarank() == 0)
        if (auto l = sk::elect_one())
          for (uint32_t i = 0; i < 8; ++i) sk::arch::st_shared(words() + i, i);
      init_cluster_barriers(1, 1);
      if (sk::arch::cluster_ctarank() == 1) {
        if (auto l = sk::elect_one()) {
          uint32_t sum = 0;
          for (uint32_t i = 0; i < 8; ++i) sum += sk::arch::ld_shared_cluster(words() + i, 0);
          note("sum " + std::to_string(sum));
          sk::arch::mbarrier_arrive_cluster(bar_at(0), 0);
        }
      } else {
        if (handoff)
          wait(0);
        else
          gpu().warp().stall(3000, "after the reads, unordered");
        if (auto l = sk::elect_one())
          for (uint32_t i = 0; i < 8; ++i) sk::arch::st_shared(words() + i, 0u);
        if (!handoff) wait(0);
      }
      sk::arch::cluster_sync();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("hand-off: " << handoff);
    CHECK(r.status == "completed");
    CHECK(std::count(r.notes.begin(), r.notes.end(), "sum 28") == 1);
    if (handoff)
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    else
      CHECK_MESSAGE(r.has_rule("race.write_after_read"), r.findings_text());
  }
}

TEST_CASE("a peer's store is overwritten after a CTA-scope hand-off only when it was read") {
  // Rank 1 stores into rank 0's buffer and hands it back; rank 0 overwrites
  // it. At CTA scope the hand-off publishes rank 1's reads, not its store:
  // the two stores are ordered when rank 1 read its store back before the
  // arrive (coherence), or when the hand-off is at cluster scope.
  enum Kind { kCtaScope, kReadBack, kClusterScope };
  for (const Kind kind : {kCtaScope, kReadBack, kClusterScope}) {
    ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
    auto r = run_scenario(o, [kind] {
      init_cluster_barriers(1, 1);
      if (sk::arch::cluster_ctarank() == 1) {
        if (auto l = sk::elect_one()) {
          sk::arch::st_shared_cluster(words(), 0, 7u);
          if (kind == kReadBack) note("read " + std::to_string(sk::arch::ld_shared_cluster(words(), 0)));
          if (kind == kClusterScope)
            sk::arch::mbarrier_arrive_cluster_release(bar_at(0), 0);
          else
            sk::arch::mbarrier_arrive_cluster(bar_at(0), 0);
        }
      } else {
        while (!sk::arch::mbarrier_try_wait_parity_cluster(bar_at(0), 0)) {
        }
        if (auto l = sk::elect_one()) sk::arch::st_shared(words(), 9u);
      }
      sk::arch::cluster_sync();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("kind: " << kind);
    CHECK(r.status == "completed");
    if (kind == kCtaScope) {
      CHECK_MESSAGE(r.count_rule("scope.cta_release_cross_cta") == 1, r.findings_text());
      CHECK_MESSAGE(names(r, "scope.cta_release_cross_cta", "st.shared by CTA 0"), r.findings_text());
      CHECK_MESSAGE(names(r, "scope.cta_release_cross_cta", "st.shared::cluster by CTA 1"),
                    r.findings_text());
    } else {
      CHECK_MESSAGE(r.findings.empty(), r.findings_text());
    }
    if (kind == kReadBack) CHECK(std::count(r.notes.begin(), r.notes.end(), "read 7") == 1);
  }
}

TEST_CASE("a peer's shared memory and barriers are used only after a cluster barrier") {
  // Rank 1 arrives on rank 0's barrier (or stores into its shared memory)
  // before or after the cluster barrier that tells it rank 0 runs.
  for (const bool store : {false, true})
    for (const bool synced : {false, true}) {
      ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
      auto r = run_scenario(o, [store, synced] {
        // Rank 0's barrier, published to rank 1 by its init's release
        // before (or after) rank 1's use.
        if (sk::arch::cluster_ctarank() == 0)
          if (auto l = sk::elect_one()) {
            sk::arch::mbarrier_init(bar_at(0), 1);
            sk::arch::fence_mbarrier_init();
          }
        if (synced) sk::arch::cluster_sync();
        if (sk::arch::cluster_ctarank() == 1) {
          gpu().warp().stall(2000, "after rank 0's init in time");
          if (auto l = sk::elect_one()) {
            if (store)
              sk::arch::st_shared_cluster(words(), 0, 5u);
            else
              sk::arch::mbarrier_arrive_cluster_release(bar_at(0), 0);
          }
        }
        sk::arch::cluster_sync();  // the store before rank 0's load
        if (store && sk::arch::cluster_ctarank() == 0)
          if (auto l = sk::elect_one()) note("got " + std::to_string(sk::arch::ld_shared(words())));
        sk::arch::cluster_sync();
      });
      REQUIRE_MESSAGE(r.ok, r.error);
      INFO("store: " << store << ", synced: " << synced);
      CHECK(r.status == "completed");
      if (synced) {
        CHECK_MESSAGE(r.findings.empty(), r.findings_text());
      } else {
        CHECK_MESSAGE(r.has_rule("cluster.peer_not_started"), r.findings_text());
        CHECK_MESSAGE(names(r, "cluster.peer_not_started", "by CTA 1 warp 0"), r.findings_text());
        CHECK_MESSAGE(names(r, "cluster.peer_not_started", "targets CTA 0"), r.findings_text());
      }
    }
}

TEST_CASE("a plain access racing a peer's DSMEM atomic is a race") {
  // Rank 1 adds into rank 0's counter; rank 0 stores over it (or reads it)
  // later in time but with nothing ordering the atomic before.
  for (const bool store : {true, false}) {
    ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
    auto r = run_scenario(o, [store] {
      if (sk::arch::cluster_ctarank() == 0)
        if (auto l = sk::elect_one()) sk::arch::st_shared(words(), 0u);
      sk::arch::cluster_sync();
      if (sk::arch::cluster_ctarank() == 1) {
        if (auto l = sk::elect_one()) sk::arch::red_add_shared_cluster(words(), 0, 1);
      } else {
        gpu().warp().stall(2000, "after the peer's atomic, unordered");
        if (auto l = sk::elect_one()) {
          if (store)
            sk::arch::st_shared(words(), 5u);
          else
            note("read " + std::to_string(sk::arch::ld_shared(words())));
        }
      }
      sk::arch::cluster_sync();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("store: " << store);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.has_rule(store ? "race.write_after_write" : "race.read_after_write"),
                  r.findings_text());
    CHECK_MESSAGE(names(r, store ? "race.write_after_write" : "race.read_after_write",
                        "red.shared::cluster.add.u32"),
                  r.findings_text());
  }
}

TEST_CASE("a CTA must not exit while a peer reads its shared memory") {
  // Rank 1 reads rank 0's buffer after the cluster barrier; rank 0 exits
  // 500 cycles later (a load not ordered before the exit), or rank 1 reads
  // only after it exited, or both meet the cluster barrier again first.
  enum { kLoadFirst, kExitFirst, kBarrier };
  for (const int order : {kLoadFirst, kExitFirst, kBarrier}) {
    ScenarioOptions o{.ctas = 2, .warps = 1, .cluster_size = 2, .race_detector = true};
    auto r = run_scenario(o, [order] {
      if (sk::arch::cluster_ctarank() == 0)
        if (auto l = sk::elect_one()) sk::arch::st_shared(words(), 42u);
      sk::arch::cluster_sync();
      if (sk::arch::cluster_ctarank() == 0) {
        gpu().warp().stall(500, "epilogue");
      } else {
        if (order == kExitFirst) gpu().warp().stall(3000, "late");
        if (auto l = sk::elect_one())
          note("read " + std::to_string(sk::arch::ld_shared_cluster(words(), 0)));
      }
      if (order == kBarrier) sk::arch::cluster_sync();
    });
    REQUIRE_MESSAGE(r.ok, r.error);
    INFO("order: " << order);
    CHECK(r.status == "completed");
    CHECK_MESSAGE(r.has_rule("cluster.exit_not_ordered") == (order == kLoadFirst),
                  r.findings_text());
    CHECK_MESSAGE(r.has_rule("cluster.peer_exited") == (order == kExitFirst), r.findings_text());
    CHECK(std::count(r.notes.begin(), r.notes.end(),
                     order == kExitFirst ? "read 0" : "read 42") == 1);
    if (order == kBarrier) CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  }
}
