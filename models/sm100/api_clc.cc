// api_clc.cc: cluster launch control (PTX ISA clusterlaunchcontrol.try_cancel
// and clusterlaunchcontrol.query_cancel). In a cluster launch a request
// cancels a whole pending cluster (its first CTA's id is the response's), and
// the .multicast::cluster::all form writes the response to every CTA of the
// issuer's cluster, completing the barrier at the same offset in each.
//
// try_cancel is an async agent, like a TMA load: at issue it atomically takes
// the lowest pending CTA id of the grid (Gpu::cancel_pending; -1 when none is
// left), and clc_latency cycles later it writes the 16-byte response into SMEM
// and performs complete_tx(16) on the mbarrier. The hardware's response is
// opaque; the model's is word 0 = 1 when a CTA was cancelled (else 0), word 1
// = its ctaid.x, words 2 and 3 = ctaid.y and .z (0: grids are 1-D).
//
// Rules (findings): the response must be a 16-byte aligned location in the
// CTA's SMEM (clc.bad_response); the mbarrier must be initialised
// (mbarrier.use_before_init); a try_cancel after this CTA decoded a failed
// response is undefined (clc.try_cancel_after_failure); get_first_ctaid of a
// failed response is undefined (clc.ctaid_of_failed_response). The response
// write is recorded as an async-proxy SMEM write published by its mbarrier
// phase and each query as a generic read, so the race detector reports a
// query that is not ordered after that phase.
#include <fmt/format.h>

#include <cstring>
#include <utility>
#include <vector>

#include "models/sm100/api.h"
#include "models/sm100/api_common.h"
#include "models/sm100/gpu.h"
#include "models/sm100/mbarrier_ops.h"

namespace sk::models::sm100::api {
namespace {
constexpr uint32_t kResponseBytes = 16;

// The SMEM offset of a response, or -1 (reported) when it is not a 16-byte
// aligned 16-byte location in the current CTA's shared memory.
int64_t response_offset(const void* p, const char* op, const Loc& loc) {
  Cta& cta = gpu().cta_of_current();
  const auto off = reinterpret_cast<const uint8_t*>(p) - cta.smem;
  if (off < 0 || off + kResponseBytes > cta.smem_size || off % kResponseBytes != 0) {
    gpu().finding("clc", "clc.bad_response",
                  fmt::format("{}: the response at shared offset {} is not a 16-byte aligned "
                              "16-byte location in the CTA's {} B of shared memory",
                              op, static_cast<long>(off), cta.smem_size),
                  loc);
    return -1;
  }
  return off;
}

// Loads the response for a query (a generic-proxy read of the warp).
bool read_response(const void* response, const char* op, const Loc& loc, uint32_t (&words)[4]) {
  sim::Warp& w = issue(loc);
  std::memset(words, 0, sizeof(words));
  const int64_t off = response_offset(response, op, loc);
  if (off < 0) return false;
  if (sim::Observer* obs = gpu().obs()) {
    const sim::Range r{static_cast<uint64_t>(off), static_cast<uint64_t>(off) + kResponseBytes};
    obs->access(w, 0, sim::Space::kSmem, {&r, 1}, false, sim::Proxy::kGeneric, op, loc);
  }
  std::memcpy(words, response, kResponseBytes);
  return true;
}
}  // namespace

namespace {
// try_cancel, its response to the issuer or (multicast) to every CTA of its
// cluster.
void try_cancel(void* response, uint64_t* bar, bool multicast, const Loc& loc) {
  // Takes a CTA from the grid, which every SM sees: acts at the warp's time.
  static constexpr const char* kOp = "clusterlaunchcontrol.try_cancel";
  sim::Warp& w = issue(loc);
  Cta& cta = gpu().cta_of_current();
  const int64_t off = response_offset(response, kOp, loc);
  Mbarrier* b = mbar::checked(gpu(), bar, "clusterlaunchcontrol.try_cancel complete_tx", loc);
  if (off < 0 || b == nullptr) return;
  // Where the response lands: this CTA, or each CTA of the cluster.
  std::vector<std::pair<Cta*, Mbarrier*>> dests{{&cta, b}};
  if (multicast)
    for (uint32_t r = 0; r < static_cast<uint32_t>(gpu().cluster_size()); ++r) {
      Cta* c = gpu().peer(cta, r);
      if (c == &cta) continue;
      Mbarrier* cb = mbar::peer_barrier(gpu(), cta, *c, b->offset, kOp, "sends its response to",
                                        loc);
      if (cb == nullptr) return;
      dests.emplace_back(c, cb);
    }
  for (auto& [c, cb] : dests)
    mbar::check_overwrite(gpu(), *c, static_cast<uint64_t>(off), kResponseBytes,
                          "clusterlaunchcontrol.try_cancel (its response)", loc);
  if (cta.clc_failed == 1) {
    cta.clc_failed = 2;
    gpu().finding("clc", "clc.try_cancel_after_failure",
                  "clusterlaunchcontrol.try_cancel issued after this CTA observed a failed "
                  "response; the PTX ISA leaves this undefined (stop scheduling once a request "
                  "fails)",
                  loc);
  }
  const Params& p = gpu().params();
  auto& tr = gpu().engine().trace();
  for (int lane = 0; lane < w.active_count(); ++lane) {
    const int victim = gpu().cancel_pending();
    sim::OpId op = 0;
    if (sim::Observer* obs = gpu().obs()) {
      op = obs->issue_async(w, "clc.try_cancel");
      const sim::Range r{static_cast<uint64_t>(off), static_cast<uint64_t>(off) + kResponseBytes};
      obs->access(w, op, sim::Space::kSmem, {&r, 1}, true, sim::Proxy::kAsync, "CLC response",
                  loc);
    }
    const Cycle begin = local_now(w);
    const Cycle done = begin + p.clc_latency +
                       gpu().engine().schedule().agent_delay(sim::Agent::kTma, p.clc_latency);
    uint64_t flow = 0;
    if (cta.traced) {
      flow = tr.new_flow();
      tr.slice(sim::TraceSlice{gpu().engine_track(cta, "CLC", 60), begin, done,
                               victim >= 0 ? fmt::format("try_cancel: CTA {}", victim)
                                           : std::string("try_cancel: none pending"),
                               {{"ctaid", victim}},
                               flow,
                               w.take_flow()});
    }
    for (auto& [c, cb] : dests) {
      if (c != &cta)
        if (sim::Observer* obs = gpu().obs()) {
          const sim::Range r{static_cast<uint64_t>(off),
                             static_cast<uint64_t>(off) + kResponseBytes};
          obs->access_at(w, op, c->id, sim::Space::kSmem, {&r, 1}, true, sim::Proxy::kAsync,
                         "CLC response", loc);
        }
      Cta* dc = c;
      Mbarrier* db = cb;
      gpu().engine().at(done, [dc, off, victim, db, flow = dc == &cta ? flow : 0, op] {
        const uint32_t words[4] = {victim >= 0 ? 1u : 0u,
                                   victim >= 0 ? static_cast<uint32_t>(victim) : 0u, 0, 0};
        std::memcpy(dc->smem + off, words, kResponseBytes);
        mbar::complete_tx(gpu(), *dc, *db, kResponseBytes, flow, op);
      });
    }
  }
}
}  // namespace

void clc_try_cancel(void* response, uint64_t* bar, const Loc& loc) {
  try_cancel(response, bar, false, loc);
}

void clc_try_cancel_multicast(void* response, uint64_t* bar, const Loc& loc) {
  try_cancel(response, bar, true, loc);
}

bool clc_is_canceled(const void* response, const Loc& loc) {
  gpu().warp().free_op();
  uint32_t words[4];
  if (!read_response(response, "clusterlaunchcontrol.query_cancel.is_canceled", loc, words))
    return false;
  const bool canceled = words[0] == 1;
  Cta& cta = gpu().cta_of_current();
  if (!canceled && cta.clc_failed == 0) cta.clc_failed = 1;
  return canceled;
}

uint32_t clc_first_ctaid_x(const void* response, const Loc& loc) {
  gpu().warp().free_op();
  uint32_t words[4];
  if (!read_response(response, "clusterlaunchcontrol.query_cancel.get_first_ctaid", loc, words))
    return 0;
  if (words[0] != 1)
    gpu().finding("clc", "clc.ctaid_of_failed_response",
                  "clusterlaunchcontrol.query_cancel.get_first_ctaid on a response that does not "
                  "report a cancelled CTA; the CTA id is undefined (test is_canceled first)",
                  loc);
  return words[1];
}

}  // namespace sk::models::sm100::api
