// dsmem_cases.cc: small thread-block-cluster kernels that move data through
// distributed shared memory (ld/st/atom/red.shared::cluster, the scoped
// remote arrives), as verify cases on the H200 parameters: each seeded bug
// "corpus_dsmem.<bug>" has its fixed twin "corpus_dsmem.<kernel>_fixed".
//
//   exchange   each CTA stores 32 words into the next rank's inbox, the
//              cluster barrier publishes them, each reads its inbox. Bug
//              store_after_arrive: the stores come after barrier.cluster.
//              arrive (between arrive and wait), so the barrier orders
//              nothing of them: race.read_after_write. Bug
//              store_before_start: no cluster barrier after launch, so a CTA
//              stores into a peer that may not be running yet:
//              cluster.peer_not_started. Bug wait_without_arrive: the
//              barrier.cluster.arrive is missing before the wait:
//              cluster_barrier.wait_without_arrive.
//   push       rank 0 streams 6 messages of 32 words into a 2-slot ring in
//              rank 1's shared memory (st.shared::cluster) and signals each
//              on rank 1's full barrier; rank 1 sums them and hands each slot
//              back with the default (CTA-scope) remote arrive, which is
//              right for a slot it only read. Bug cta_scope_arrive: the full
//              signal is the CTA-scope arrive too, which does not publish the
//              stores (cutlass#3324; D8): scope.cta_release_cross_cta. The
//              twin arrives with .release.cluster and rank 1 waits with
//              .acquire.cluster. Bug cta_scope_wait: rank 1 waits with the
//              default try_wait (CTA scope), which does not synchronize with
//              rank 0's release: scope.cta_acquire_cross_cta. Bug
//              release_before_read: rank 1 hands each slot back before it
//              reads it, so the next message's stores race its loads:
//              race.write_after_read. Bug no_empty_wait: rank 0 refills a
//              slot without waiting for it: race.write_after_read. Bug
//              handback_to_self: rank 1 hands the slot back on its own empty
//              barrier, not rank 0's: cluster.signal_one_cta (a deadlock
//              whose report names both CTAs). Bug read_first_unwaited: rank
//              1 reads the first message without waiting for it:
//              uninitialized.smem_read. Bug handback_every_lane: all 32 lanes
//              arrive on the count-1 empty barrier: mbarrier.arrive_before_wait.
//              Bug no_sync_before_signal: rank 0's elected lane signals a
//              message with no __syncwarp after the other lanes' stores:
//              syncwarp.missing_before_release. Bug elected_wait: rank 1 waits
//              for each message with one elected lane and no __syncwarp
//              before all lanes read it: syncwarp.missing_after_acquire.
//   clear      push, with rank 1 clearing each slot after reading it, so its
//              hand-back publishes a write: with .release.cluster, and rank 0
//              waiting with .acquire.cluster, rank 0's next stores are
//              ordered after the clearing (the variant clear_fenced_fixed
//              arrives and waits at CTA scope, each side issuing
//              fence.acq_rel.cluster: before its arrives, after its waits).
//              Bug clear_cta_scope: the CTA-scope hand-back, which publishes
//              rank 1's reads but not its write: scope.cta_release_cross_cta
//              (the two writes, nobody reading the first, are not ordered).
//   gather     rank 0 publishes a table in its shared memory; rank 1 loads it
//              with ld.shared::cluster after the cluster barrier. Bug
//              exit_while_read: rank 0 exits without the closing cluster
//              barrier while rank 1 still loads: cluster.exit_not_ordered.
//              Bug cta_sync_before_read: a CTA barrier (__syncthreads) where
//              the cluster barrier after the table's stores belongs, which
//              orders nothing for the peer: race.read_after_write. Bug
//              no_barrier_before_read: no barrier at all between them:
//              race.read_after_write. Bug own_sum_unsynced: rank 0's elected
//              lane sums the table its lanes just wrote, before the barrier
//              and with no __syncwarp: syncwarp.missing_within_warp.
//   tickets    every CTA of the cluster adds into rank 0's counter with
//              DSMEM atomics (clean among themselves); rank 0 then reads the
//              total. Bug read_before_peers: rank 0 reads it after its own
//              atomic but before the cluster barrier that orders its peers':
//              race.read_after_write against a peer's red.add. Bug
//              store_not_red: the CTAs store their addend with
//              st.shared::cluster instead of red.add: race.write_after_write
//              (and the total is wrong).
//
// Invariants: each kernel's output (32 words per CTA, or the first of them) is
// checked against a host reference; each bug's first finding on schedule 0
// is its expected class and rule (verify/corpus/BUILD), with a margin in
// time (a barrier's or a DSMEM round trip's latency) so that it does not
// hang on a tie. Config keys: ctas (the grid, default 4: two clusters), and
// for exchange and tickets cluster (2 or 4, default 2).
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "kernels/arch/sm90.h"
#include "kernels/core/lane_array.h"
#include "kernels/core/lanes.h"
#include "verify/harness/sm100_case.h"

namespace sk::corpus {
namespace {

constexpr uint32_t kLanes = 32;
constexpr uint32_t kDataOffset = 1024;  // past the barriers

uint64_t* bar(uint32_t i) { return reinterpret_cast<uint64_t*>(arch::dynamic_smem()) + i; }
uint32_t* data(uint32_t word = 0) {
  return reinterpret_cast<uint32_t*>(arch::dynamic_smem() + kDataOffset) + word;
}

// Warp 0 initialises `n` barriers of one arrival each; the cluster barrier
// then publishes them (and anything written before) to every peer.
void init_barriers(uint32_t n) {
  if (arch::warp_idx() == 0)
    if (auto lane = elect_one()) {
      for (uint32_t i = 0; i < n; ++i) arch::mbarrier_init(bar(i), 1);
      arch::fence_mbarrier_init();
    }
  arch::cluster_sync();
}

// --- exchange --------------------------------------------------------------

uint32_t exchange_value(uint32_t cta, uint32_t lane) { return cta * 1000 + lane * 7 + 1; }

// exchange's bugs.
constexpr int kStoreAfterArrive = 1, kStoreBeforeStart = 2, kWaitWithoutArrive = 3;

template <int Bug>
void exchange(uint32_t* out) {
  const uint32_t rank = arch::cluster_ctarank(), n = arch::cluster_num_ctas();
  const uint32_t cta = arch::cta_idx();
  const uint32_t next = (rank + 1) % n;
  auto send = [&] {
    for_each_lane(
        [&](uint32_t l) { arch::st_shared_cluster(data(l), next, exchange_value(cta, l)); });
  };
  // Every CTA is running before anyone writes into it.
  if constexpr (Bug != kStoreBeforeStart) arch::cluster_sync();
  if constexpr (Bug != kStoreAfterArrive) send();
  if constexpr (Bug != kWaitWithoutArrive) arch::cluster_arrive();
  if constexpr (Bug == kStoreAfterArrive) send();
  arch::cluster_wait();
  for_each_lane(
      [&](uint32_t l) { arch::st_global_b32(out + cta * kLanes + l, arch::ld_shared(data(l))); });
  arch::cluster_sync();  // nobody exits while a peer may still write into it
}

// --- push -------------------------------------------------------------------

constexpr uint32_t kMessages = 6, kSlots = 2;
uint32_t push_value(uint32_t cluster, uint32_t k, uint32_t lane) {
  return (cluster + 1) * 100000 + k * 100 + lane;
}

// push's bugs (and the clear kernel's: kClear* and the fixed variants).
constexpr int kCtaScopeArrive = 1, kReleaseBeforeRead = 2, kCtaScopeWait = 3, kNoEmptyWait = 4,
              kHandbackToSelf = 5, kReadFirstUnwaited = 6, kHandbackEveryLane = 7,
              kClearFixed = 8, kClearFencedFixed = 9, kClearCtaScope = 10, kNoSyncBeforeSignal = 11,
              kElectedWait = 12;
constexpr bool clears(int bug) { return bug >= kClearFixed && bug <= kClearCtaScope; }

// Barriers 0, 1: full[slot] (rank 1's, counted); 2, 3: empty[slot] (rank 0's).
template <int Bug>
void push(uint32_t* out) {
  init_barriers(2 * kSlots);
  const uint32_t rank = arch::cluster_ctarank(), cluster = arch::cta_idx() / 2;
  uint32_t* ring = data();  // [slot][lane] in rank 1
  if (rank == 0) {
    for (uint32_t k = 0; k < kMessages; ++k) {
      const uint32_t slot = k % kSlots, lap = k / kSlots;
      // A slot the consumer wrote (clears) comes back with its write
      // published: acquire at cluster scope, or at CTA scope and then fence.
      if constexpr (Bug == kClearFixed || Bug == kClearCtaScope) {
        while (!arch::mbarrier_try_wait_parity_cluster(bar(kSlots + slot), (lap & 1) ^ 1)) {
        }
      } else if constexpr (Bug != kNoEmptyWait) {
        while (!arch::mbarrier_try_wait_parity(bar(kSlots + slot), (lap & 1) ^ 1)) {
        }
        if constexpr (Bug == kClearFencedFixed) arch::fence_acq_rel_cluster();
      }
      for_each_lane([&](uint32_t l) {
        arch::st_shared_cluster(ring + slot * kLanes + l, 1, push_value(cluster, k, l));
      });
      // Every lane's stores before the elected lane's release.
      if constexpr (Bug != kNoSyncBeforeSignal) arch::sync_warp();
      if (auto lane = elect_one()) {
        if constexpr (Bug == kCtaScopeArrive) {
          arch::mbarrier_arrive_cluster(bar(slot), 1);
        } else if constexpr (Bug == kClearFencedFixed) {
          arch::fence_acq_rel_cluster();  // what the CTA-scope arrive then publishes
          arch::mbarrier_arrive_cluster(bar(slot), 1);
        } else {
          arch::mbarrier_arrive_cluster_release(bar(slot), 1);
        }
      }
    }
  } else if (rank == 1) {
    LaneArray<uint32_t, 1> sum;
    for_each_lane([&](uint32_t l) { sum.lane(l)[0] = 0; });
    for (uint32_t k = 0; k < kMessages; ++k) {
      const uint32_t slot = k % kSlots, lap = k / kSlots;
      // The stores came from rank 0: acquire at cluster scope (kCtaScopeWait
      // waits with the default try_wait, .acquire.cta; kClearFencedFixed
      // too, and then takes the stores with fence.acq_rel.cluster).
      if constexpr (Bug == kCtaScopeWait || Bug == kClearFencedFixed) {
        while (!arch::mbarrier_try_wait_parity(bar(slot), lap & 1)) {
        }
        if constexpr (Bug == kClearFencedFixed) arch::fence_acq_rel_cluster();
      } else if constexpr (Bug == kElectedWait) {
        if (auto lane = elect_one())
          while (!arch::mbarrier_try_wait_parity_cluster(bar(slot), lap & 1)) {
          }
      } else if (Bug != kReadFirstUnwaited || k > 0) {
        while (!arch::mbarrier_try_wait_parity_cluster(bar(slot), lap & 1)) {
        }
      }
      if constexpr (Bug == kReleaseBeforeRead)
        if (auto lane = elect_one()) arch::mbarrier_arrive_cluster(bar(kSlots + slot), 0);
      for_each_lane(
          [&](uint32_t l) { sum.lane(l)[0] += arch::ld_shared(ring + slot * kLanes + l); });
      if constexpr (clears(Bug))
        for_each_lane([&](uint32_t l) { arch::st_shared(ring + slot * kLanes + l, 0u); });
      arch::sync_warp();
      if constexpr (Bug == kHandbackEveryLane) {
        for_each_lane([&](uint32_t) { arch::mbarrier_arrive_cluster(bar(kSlots + slot), 0); });
      } else if constexpr (Bug == kHandbackToSelf) {
        if (auto lane = elect_one()) arch::mbarrier_arrive_cluster(bar(kSlots + slot), 1);
      } else if constexpr (Bug == kClearFixed) {
        // The slot was written: the hand-back releases at cluster scope.
        if (auto lane = elect_one()) arch::mbarrier_arrive_cluster_release(bar(kSlots + slot), 0);
      } else if constexpr (Bug == kClearFencedFixed) {
        arch::fence_acq_rel_cluster();
        if (auto lane = elect_one()) arch::mbarrier_arrive_cluster(bar(kSlots + slot), 0);
      } else if constexpr (Bug != kReleaseBeforeRead) {
        // The slot was only read: the CTA-scope arrive hands it back.
        if (auto lane = elect_one()) arch::mbarrier_arrive_cluster(bar(kSlots + slot), 0);
      }
    }
    for_each_lane(
        [&](uint32_t l) { arch::st_global_b32(out + cluster * kLanes + l, sum.lane(l)[0]); });
  }
  arch::cluster_sync();
}

// --- gather -----------------------------------------------------------------

uint32_t table_value(uint32_t cta, uint32_t i) { return (cta + 3) * (i + 11); }

// gather's bugs.
constexpr int kExitWhileRead = 1, kCtaSyncBeforeRead = 2, kNoBarrierBeforeRead = 3,
              kOwnSumUnsynced = 4;

// One lane's sum of this CTA's table.
uint32_t own_sum() {
  uint32_t sum = 0;
  if (auto lane = elect_one())
    for (uint32_t i = 0; i < kLanes; ++i) sum += arch::ld_shared(data(i));
  return sum;
}

template <int Bug>
void gather(uint32_t* out) {
  const uint32_t rank = arch::cluster_ctarank(), cta = arch::cta_idx();
  if (rank == 0)
    for_each_lane([&](uint32_t l) { arch::st_shared(data(l), table_value(cta, l)); });
  // kOwnSumUnsynced: rank 0's elected lane sums the table its lanes just
  // wrote before the cluster barrier, with no __syncwarp.
  uint32_t sum0 = 0;
  if constexpr (Bug == kOwnSumUnsynced)
    if (rank == 0) sum0 = own_sum();
  // kCtaSyncBeforeRead: a CTA barrier where the cluster's belongs (it orders
  // nothing in the peer).
  if constexpr (Bug == kCtaSyncBeforeRead)
    arch::cta_sync();
  else if constexpr (Bug != kNoBarrierBeforeRead)
    arch::cluster_sync();
  if (rank == 1) {
    // One lane walks the peer's table, a DSMEM round trip per word.
    uint32_t sum = 0;
    if (auto lane = elect_one())
      for (uint32_t i = 0; i < kLanes; ++i) sum += arch::ld_shared_cluster(data(i), 0);
    if (auto lane = elect_one()) arch::st_global_b32(out + cta * kLanes, sum);
  } else {
    // Rank 0 reduces its own table meanwhile.
    if constexpr (Bug != kOwnSumUnsynced) sum0 = own_sum();
    if (auto lane = elect_one()) arch::st_global_b32(out + cta * kLanes, sum0);
  }
  if constexpr (Bug != kExitWhileRead) arch::cluster_sync();  // rank 0 stays until rank 1 is done
}

// --- tickets ----------------------------------------------------------------

// tickets' bugs.
constexpr int kReadBeforePeers = 1, kStoreNotRed = 2;

template <int Bug>
void tickets(uint32_t* out) {
  const uint32_t rank = arch::cluster_ctarank();
  uint32_t* counter = data();
  if (rank == 0)
    if (auto lane = elect_one()) arch::st_shared(counter, 0u);
  arch::cluster_sync();
  // Each CTA adds rank + 1 (posted); rank 0 then fetches the counter with an
  // atomic (a DSMEM round trip) and reads the total.
  if (auto lane = elect_one()) {
    if constexpr (Bug == kStoreNotRed)
      arch::st_shared_cluster(counter, 0, rank + 1);
    else
      arch::red_add_shared_cluster(counter, 0, rank + 1);
  }
  if (rank == 0) {
    if (auto lane = elect_one()) (void)arch::atom_add_shared_cluster(counter, 0, 0);
    if constexpr (Bug != kReadBeforePeers) arch::cluster_sync();
    if (auto lane = elect_one())
      arch::st_global_b32(out + arch::cta_idx() * kLanes, arch::ld_shared(counter));
    if constexpr (Bug == kReadBeforePeers) arch::cluster_sync();
  } else {
    arch::cluster_sync();
  }
  arch::cluster_sync();
}

// --- cases -------------------------------------------------------------------

enum class Kernel { kExchange, kPush, kGather, kTickets };

// Bug: 0 the kernel, else one of its kernel's bug constants above.
template <Kernel K, int Bug>
class DsmemCase : public verify::Sm90Case {
 public:
  verify::Sm100Launch setup(verify::Gpu& gpu, const verify::CaseConfig& cfg,
                            verify::Rng& /*rng*/) override {
    const bool any_size = K == Kernel::kExchange || K == Kernel::kTickets;
    cluster_ = any_size ? static_cast<uint32_t>(cfg.get_in("cluster", 2, 2, 4)) : 2;
    if (cluster_ != 2 && cluster_ != 4) throw std::invalid_argument("cluster must be 2 or 4");
    ctas_ = static_cast<uint32_t>(cfg.get_in("ctas", 2 * cluster_, cluster_, 64));
    if (ctas_ % cluster_ != 0) throw std::invalid_argument("ctas must be a multiple of cluster");
    out_ = gpu.gmem().allocate(uint64_t{ctas_} * kLanes * 4, "out");
    verify::Sm100Launch l;
    l.grid = static_cast<int>(ctas_);
    l.cluster = static_cast<int>(cluster_);
    l.warps = 1;
    l.smem_bytes = 8 * 1024;
    return l;
  }
  void kernel() override {
    auto* out = reinterpret_cast<uint32_t*>(out_);
    if constexpr (K == Kernel::kExchange) exchange<Bug>(out);
    if constexpr (K == Kernel::kPush) push<Bug>(out);
    if constexpr (K == Kernel::kGather) gather<Bug>(out);
    if constexpr (K == Kernel::kTickets) tickets<Bug>(out);
  }
  std::string check(verify::Gpu& gpu) override {
    const auto* out = reinterpret_cast<const uint32_t*>(gpu.gmem().host(out_));
    auto expect = [&](uint32_t i, uint32_t want) -> std::string {
      if (out[i] == want) return "";
      return fmt::format("out[{}] = {}, expected {}", i, out[i], want);
    };
    for (uint32_t c = 0; c < ctas_; ++c) {
      const uint32_t rank = c % cluster_, first = c - rank;
      for (uint32_t l = 0; l < kLanes; ++l) {
        std::string e;
        if constexpr (K == Kernel::kExchange)
          e = expect(c * kLanes + l, exchange_value(first + (rank + cluster_ - 1) % cluster_, l));
        if constexpr (K == Kernel::kPush) {
          if (c < ctas_ / 2) {
            uint32_t sum = 0;
            for (uint32_t k = 0; k < kMessages; ++k) sum += push_value(c, k, l);
            e = expect(c * kLanes + l, sum);
          }
        }
        if constexpr (K == Kernel::kGather) {
          if (l == 0) {
            uint32_t sum = 0;
            for (uint32_t i = 0; i < kLanes; ++i) sum += table_value(first, i);
            e = expect(c * kLanes, sum);
          }
        }
        if constexpr (K == Kernel::kTickets) {
          if (l == 0 && rank == 0) e = expect(c * kLanes, cluster_ * (cluster_ + 1) / 2);
        }
        if (!e.empty()) return e;
      }
    }
    return "";
  }

 private:
  uint32_t cluster_ = 2, ctas_ = 4;
  uint64_t out_ = 0;
};

#define SK_DSMEM_CASE(Alias, K, Bug, name, what) \
  using Alias = DsmemCase<Kernel::K, Bug>;          \
  SK_VERIFY_SM100_CASE(Alias, "corpus_dsmem." name, what)

SK_DSMEM_CASE(ExchangeFixed, kExchange, 0, "exchange_fixed",
              "each CTA stores into the next rank's inbox before the cluster barrier");
SK_DSMEM_CASE(StoreAfterArrive, kExchange, kStoreAfterArrive, "store_after_arrive",
              "the DSMEM stores come between barrier.cluster.arrive and wait");
SK_DSMEM_CASE(PushFixed, kPush, 0, "push_fixed",
              "a producer CTA streams into a ring in its peer, signalled with .release.cluster");
SK_DSMEM_CASE(CtaScopeArrive, kPush, kCtaScopeArrive, "cta_scope_arrive",
              "the producer signals its DSMEM stores with a CTA-scope remote arrive");
SK_DSMEM_CASE(GatherFixed, kGather, 0, "gather_fixed",
              "a CTA loads its peer's table through DSMEM; both meet the cluster barrier at exit");
SK_DSMEM_CASE(ExitWhileRead, kGather, kExitWhileRead, "exit_while_read",
              "the table's owner exits while its peer still loads it");
SK_DSMEM_CASE(TicketsFixed, kTickets, 0, "tickets_fixed",
              "every CTA adds into rank 0's counter; rank 0 reads it after the cluster barrier");
SK_DSMEM_CASE(ReadBeforePeers, kTickets, kReadBeforePeers, "read_before_peers",
              "rank 0 reads the counter before the cluster barrier that orders its peers' adds");
SK_DSMEM_CASE(ReleaseBeforeRead, kPush, kReleaseBeforeRead, "release_before_read",
              "the consumer hands each slot back (CTA-scope arrive) before it reads it");
SK_DSMEM_CASE(CtaSyncBeforeRead, kGather, kCtaSyncBeforeRead, "cta_sync_before_read",
              "a CTA barrier, not the cluster's, between the table's stores and the peer's loads");
SK_DSMEM_CASE(CtaScopeWait, kPush, kCtaScopeWait, "cta_scope_wait",
              "the consumer waits for the producer's DSMEM stores with the CTA-scope try_wait");
SK_DSMEM_CASE(StoreBeforeStart, kExchange, kStoreBeforeStart, "store_before_start",
              "the CTAs store into their peers with no cluster barrier after launch");
SK_DSMEM_CASE(WaitWithoutArrive, kExchange, kWaitWithoutArrive, "wait_without_arrive",
              "barrier.cluster.wait without the barrier.cluster.arrive before it");
SK_DSMEM_CASE(NoEmptyWait, kPush, kNoEmptyWait, "no_empty_wait",
              "the producer refills a slot of its peer's ring without waiting for it");
SK_DSMEM_CASE(OwnSumUnsynced, kGather, kOwnSumUnsynced, "own_sum_unsynced",
              "rank 0's elected lane sums the table its lanes wrote with no __syncwarp first");
SK_DSMEM_CASE(HandbackToSelf, kPush, kHandbackToSelf, "handback_to_self",
              "the consumer hands each slot back on its own CTA's empty barrier");
SK_DSMEM_CASE(ReadFirstUnwaited, kPush, kReadFirstUnwaited, "read_first_unwaited",
              "the consumer reads the first message without waiting for it");
SK_DSMEM_CASE(HandbackEveryLane, kPush, kHandbackEveryLane, "handback_every_lane",
              "every lane of the consumer arrives on the one-arrival empty barrier");
SK_DSMEM_CASE(ClearFixed, kPush, kClearFixed, "clear_fixed",
              "the consumer clears each slot and hands it back with .release.cluster");
SK_DSMEM_CASE(ClearFencedFixed, kPush, kClearFencedFixed, "clear_fenced_fixed",
              "the ring with fence.acq_rel.cluster around CTA-scope arrives and waits");
SK_DSMEM_CASE(ClearCtaScope, kPush, kClearCtaScope, "clear_cta_scope",
              "the consumer clears each slot and hands it back with the CTA-scope arrive");
SK_DSMEM_CASE(NoBarrierBeforeRead, kGather, kNoBarrierBeforeRead, "no_barrier_before_read",
              "the peer loads the table with no barrier after its stores");
SK_DSMEM_CASE(NoSyncBeforeSignal, kPush, kNoSyncBeforeSignal, "no_sync_before_signal",
              "the producer's elected lane signals without a __syncwarp after the lanes' stores");
SK_DSMEM_CASE(ElectedWait, kPush, kElectedWait, "elected_wait",
              "the consumer waits with one elected lane and no __syncwarp before its lanes read");
SK_DSMEM_CASE(StoreNotRed, kTickets, kStoreNotRed, "store_not_red",
              "the CTAs store their addends into rank 0's counter instead of adding");

}  // namespace
}  // namespace sk::corpus
