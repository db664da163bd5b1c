// mbarrier_ops.h: one mbarrier's state machine (PTX ISA 9.0 9.7.13.15).
//
// State: current phase, pending arrivals, expected arrivals and tx-count. A
// phase completes when pending == 0 and tx == 0; then, atomically, the phase
// advances and pending is reset to expected. try_wait.parity(P) succeeds when
// the phase with parity P has completed, i.e. when the current phase's parity
// differs from P. Each operation here acts for one thread (one lane).
#pragma once

#include <cstdint>
#include <source_location>
#include <span>

#include "models/sm100/gpu.h"

namespace sk::models::sm100::mbar {

using Loc = std::source_location;

// The barrier at `bar` in the current CTA's SMEM, or nullptr when the address
// is not a valid mbarrier location (a finding is reported).
Mbarrier* lookup(Gpu& gpu, uint64_t* bar);
// The SMEM offset of `bar` in the current CTA, or -1 (reported as
// mbarrier.bad_address, naming `op`) when it is not an 8-byte aligned
// location inside the CTA's shared memory. The same offset names the
// barrier in every CTA of a cluster.
int64_t barrier_offset(Gpu& gpu, uint64_t* bar, const char* op, const Loc& loc);
Mbarrier* checked(Gpu& gpu, uint64_t* bar, const char* op, const Loc& loc);

void init(Gpu& gpu, uint64_t* bar, uint32_t count, const Loc& loc);
void inval(Gpu& gpu, uint64_t* bar, const Loc& loc);
void expect_tx(Gpu& gpu, uint64_t* bar, uint32_t tx, const Loc& loc);
// `flow` is a trace flow id of the async operation that arrives (0 if none).
void arrive(Gpu& gpu, uint64_t* bar, uint32_t count, uint64_t flow, const Loc& loc);
// An arrival of `count` threads of the current warp at its own time `at`
// (ahead of the engine's), without a context switch to get there: taken when
// no observer records the run and the arrivals leave the phase incomplete,
// so nothing another warp can see changes before the warp's time. The phase
// then completes no earlier than `at` (Mbarrier::horizon). Returns false,
// doing nothing, when the arrival must be made at the engine's time instead.
// With tx > 0 (mbarrier.arrive.expect_tx) each thread first announces tx
// bytes, and the phase may also stay incomplete for those bytes (a producer
// announcing its stage's loads before it issues them).
bool arrive_ahead(Gpu& gpu, uint64_t* bar, uint32_t count, Cycle at, const Loc& loc,
                  uint32_t tx = 0);
// Async-agent side (tcgen05.commit): one arrival on barrier `b` of `cta` by
// observer operation `id`, publishing the operations in `covered`.
void arrive_async(Gpu& gpu, Cta& cta, Mbarrier& b, uint64_t flow, const char* op, sim::OpId id,
                  std::span<const sim::OpId> covered);
// A remote arrive (mbarrier.arrive.shared::cluster) issued by warp `from`
// of a cluster peer, landing now on barrier `b` of `cta`.
// The initialised barrier at SMEM offset `off` of `target`, a CTA of the
// issuer's cluster that an async operation `op` of `issuer` signals (a
// multicast load, a 2-SM load or commit), with its use reported to the
// observer; null after a finding when `target` has exited
// (cluster.peer_exited) or holds no initialised barrier there
// (mbarrier.use_before_init). `verb` says what op does to it ("multicasts
// into").
Mbarrier* peer_barrier(Gpu& gpu, const Cta& issuer, Cta& target, int64_t off, const char* op,
                       const char* verb, const Loc& loc);
// `flow` (0: none) is the trace flow from the issuer's arrive slice.
void arrive_remote(Gpu& gpu, Cta& cta, Mbarrier& b, const sim::Warp* from, uint64_t flow = 0);
// A TMA load that will complete_tx on `b` was issued.
void load_issued(Mbarrier& b, const Loc& loc, int issuing_cta);
// Async-agent side (TMA): decrements tx-count on barrier `b` of `cta`.
void complete_tx(Gpu& gpu, Cta& cta, Mbarrier& b, uint32_t bytes, uint64_t flow, sim::OpId id);
// The current warp's next wait on `bar` is for phase `phase` (its pipeline
// lap; -1: the state before the first completion), so that wait_parity can
// tell a stale parity exactly instead of from the phases the warp observed.
void expect_phase(Gpu& gpu, uint64_t* bar, int64_t phase);
// Blocks the current warp until the phase of parity `parity` has completed.
bool wait_parity(Gpu& gpu, uint64_t* bar, uint32_t parity, const Loc& loc,
                 sim::Scope scope = sim::Scope::kCta);

// A write of SMEM bytes [off, off + bytes) of `cta` by anything other than
// the mbarrier ops (a generic store, a TMA load's box, a CLC response, a
// TMEM address): over a valid barrier it repurposes the barrier's memory
// before mbarrier.inval (PTX 9.7.13.15.3), reported once per barrier.
// check_overwrite rejects a write outside every barrier's span inline.
void report_overwrite(Gpu& gpu, Cta& cta, uint64_t off, uint64_t bytes, const char* op,
                      const Loc& loc);
inline void check_overwrite(Gpu& gpu, Cta& cta, uint64_t off, uint64_t bytes, const char* op,
                            const Loc& loc) {
  if (off + bytes <= cta.barriers_lo || off >= cta.barriers_hi) return;
  report_overwrite(gpu, cta, off, bytes, op, loc);
}

// "full[2]: phase 3, 1/1 arrivals pending, tx 16384" for reports.
std::string describe(const Mbarrier& b);
// The most likely reason a waiter on `b` never wakes, in words.
std::string likely_cause(const Mbarrier& b);
// Who arrived on b last: a warp, or the async operation.
std::string last_arrival(const Mbarrier& b);

}  // namespace sk::models::sm100::mbar
