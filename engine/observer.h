// observer.h: the events a hardware model emits for verification.
//
// Models (models/<arch>/) call these hooks at every memory access and every
// synchronization edge; verify/ implements them (the happens-before race
// detector). The engine holds at most one observer; with none installed the
// hooks cost one pointer test.
//
// Vocabulary:
//   * an actor is a warp (program order) or an async operation (OpId) issued by
//     a warp: a TMA load or store, a tcgen05.mma, a tcgen05.ld, a commit;
//   * an operation is ordered after everything its issuing warp did before
//     issuing it, and becomes visible to others only through a sync object it
//     releases on completion (release_op), or to its issuer when the issuer
//     waits for it (complete_local: wait_group, wait::ld);
//   * sync objects (mbarriers, named barriers) are keyed per CTA; their phases
//     complete (phase_complete) and waiters acquire the last completed phase;
//   * a release has a scope (PTX memory model): one at cluster scope, or any
//     release within one CTA, publishes the releasing warp's earlier reads
//     and writes; one at CTA scope into another CTA of the cluster (the
//     default mbarrier.arrive.shared::cluster) orders the warp's earlier
//     reads before what the peer does after its acquire, but publishes none
//     of the writes it made or saw (D8 in research/verify.md);
//   * an atomic (atomic_at) is a read-modify-write that does not race with
//     another atomic, only with plain accesses;
//   * an object that needs initialising (an mbarrier, an MI300X counter) has
//     its init as an event (sync_init), and each use (sync_use) must be
//     ordered after it, whatever the order in time.
// Memory ranges are in bytes for SMEM and global memory, and in TMEM cells
// (lane quarter * kTmemQuarterStride + column) for TMEM.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <string_view>

namespace sk::sim {

class Engine;
class Warp;

enum class Space : uint8_t { kSmem, kTmem, kGlobal };
enum class Proxy : uint8_t { kGeneric, kAsync };
// The state space a fence.proxy.async orders: .shared::cta, .global, or all
// (the plain fence.proxy.async).
enum class FenceScope : uint8_t { kShared, kGlobal, kAll };
// The scope of a release: the CTA's threads, or the cluster's.
enum class Scope : uint8_t { kCta, kCluster };
using OpId = uint32_t;  // 0: no operation (the warp itself)

inline constexpr uint64_t kTmemQuarterStride = 1024;

struct Range {
  uint64_t begin = 0, end = 0;  // [begin, end)
};

class Observer {
 public:
  virtual ~Observer() = default;

  virtual void launch(int ctas, int warps_per_cta, uint64_t smem_bytes, int cluster_size) = 0;
  // An async operation issued now by `issuer`; `kind` names it in reports.
  virtual OpId issue_async(const Warp& issuer, const char* kind) = 0;
  // A memory access by warp `w` itself (op == 0) or by its operation `op`.
  virtual void access(const Warp& w, OpId op, Space space, std::span<const Range> ranges,
                      bool write, Proxy proxy, const char* what,
                      const std::source_location& loc) = 0;
  // The same on the shared memory of CTA `cta` of the warp's cluster (a
  // multicast TMA's box in a peer, a DSMEM access).
  virtual void access_at(const Warp& w, OpId op, int cta, Space space,
                         std::span<const Range> ranges, bool write, Proxy proxy, const char* what,
                         const std::source_location& loc) = 0;
  // An atomic read-modify-write by warp `w` (generic proxy) on the shared
  // memory of CTA `cta` of its cluster (atom/red.shared::cluster): it races
  // with plain reads and writes that happens-before does not order, never
  // with another atomic.
  virtual void atomic_at(const Warp& w, int cta, Space space, std::span<const Range> ranges,
                         const char* what, const std::source_location& loc) = 0;

  // Warp `w` initialises sync object `key` of its CTA (mbarrier.init; on
  // MI300X the store that zeroes a pipeline counter). Every later use of the
  // object (sync_use) must be ordered after it by happens-before; `init`
  // names the rule and the fix a report gives when one is not.
  struct InitKind {
    const char* what;  // "mbarrier.init"
    const char* rule;  // "mbarrier.init_not_ordered"
    const char* fix;   // what orders the init before the other warps' uses
  };
  virtual void sync_init(const Warp& w, uint64_t key, const InitKind& init,
                         const std::source_location& loc) = 0;
  // Warp `w` uses sync object `key` (an arrive, a wait, expect_tx, or the
  // issue of an async operation that will complete on it), named `name` in
  // reports. Checked against the object's init whatever their order in time:
  // a use before any init is remembered and checked when the init comes.
  virtual void sync_use(const Warp& w, uint64_t key, const char* what, std::string_view name,
                        const std::source_location& loc) = 0;
  // A use of sync object `key` of CTA `cta` of the warp's cluster (a remote
  // arrive, a multicast load completing on a peer's barrier).
  virtual void sync_use_at(const Warp& w, int cta, uint64_t key, const char* what,
                           std::string_view name, const std::source_location& loc) = 0;
  virtual void release(const Warp& w, uint64_t key) = 0;
  // Release on sync object `key` of CTA `cta` of the warp's cluster, at
  // `scope`: at CTA scope into another CTA it publishes the warp's reads
  // only (see Vocabulary), unless the warp's last fence_cluster covers its
  // writes.
  virtual void release_at(const Warp& w, int cta, uint64_t key, Scope scope) = 0;
  // Warp `w` issues fence.acq_rel.cluster: a later release of it at CTA
  // scope into another CTA publishes what the warp wrote or saw up to here
  // as a cluster-scope release would, and what its earlier acquires at CTA
  // scope left of other CTAs' published writes becomes its own.
  virtual void fence_cluster(const Warp& w) = 0;
  // Operation `op` (and the operations in `covered`, for a commit) completed
  // and signals sync object `key` of `cta`.
  virtual void release_op(OpId op, int cta, uint64_t key, std::span<const OpId> covered) = 0;
  virtual void phase_complete(int cta, uint64_t key) = 0;
  virtual void acquire(const Warp& w, uint64_t key) = 0;
  // Acquire the last completed phase of `key` of CTA `cta` of the warp's
  // cluster (a cluster barrier, kept by the cluster's first CTA; an mbarrier
  // of the warp's own CTA waited on with .acquire.cluster) at `scope`: at CTA
  // scope it takes no writes that other CTAs published into the phase (a
  // later fence_cluster of the warp does).
  virtual void acquire_at(const Warp& w, int cta, uint64_t key, Scope scope) = 0;
  // The issuer of `op` waited for its completion.
  virtual void complete_local(const Warp& w, OpId op) = 0;
  // True when `w` is ordered after the completion of `op` (the op can be
  // forgotten by the issuer's bookkeeping).
  virtual bool known_complete(const Warp& w, OpId op) const = 0;
  // Warp `w` issues fence.proxy.async over `scope`: its generic-proxy writes
  // to that space before the fence are visible to async-proxy accesses
  // ordered after it.
  virtual void fence_proxy_async(const Warp& w, FenceScope scope) = 0;
  // Warp `w` issues __syncwarp (bar.warp.sync): the memory accesses of its
  // lanes before it are ordered before those of every lane after it.
  virtual void warp_sync(const Warp& /*w*/) {}
  // CTA `cta` has exited (its last warp): in a cluster, every peer's access
  // to its shared memory or barriers must be ordered before this by
  // happens-before, or it may land after the SM has moved on.
  virtual void cta_exit(int cta) = 0;
  // A digest of the synchronization order of this run: for every sync
  // object, its arrivals, async completions, phase completions and successful
  // waits in time order, with the warp of each. Two schedules with equal
  // digests synchronized in the same order; the explorer counts distinct
  // digests as the interleavings it covered. 0: not kept.
  virtual uint64_t order_digest() const { return 0; }
};

// The observer that functional runs attach: the verifier's happens-before
// race detector. The runners (runner/) sit below verify/, so they cannot name
// it; the program installs it once at startup (verify::install_race_detector()
// in the sim CLI, the sk_verify_test main and the tests), and a functional
// run without one is an error rather than a run that silently checks nothing.
// `name_global` names a global address in reports ("D+0x1c00").
using ObserverFactory = std::unique_ptr<Observer> (*)(
    Engine& engine, std::function<std::string(uint64_t)> name_global);
void install_functional_observer(ObserverFactory factory);
ObserverFactory functional_observer();  // null until installed

}  // namespace sk::sim
