// sample_trace.cc: writes a small GPU-shaped Perfetto trace, or a deliberately
// broken one, for the protoc/checker test (traces/tools/perfetto_protoc_test.sh).
//
//   sample_trace <out.pftrace>           valid trace via PerfettoWriter
//   sample_trace <out.pftrace> <defect>  a trace with one known defect (see kDefects)
//
// The valid trace follows the layout the simulator will use: GPU process track
// -> SM -> CTA -> warp-role tracks, SM-level TMA stage tracks (one per SMEM stage
// so in-flight loads never overlap on a track), an mbarrier track and counters.
// Each k-block's TMA load starts a flow that ends on the mbarrier phase flip,
// and the flip starts a second flow that ends on the MMA k-block BEGIN, i.e. on
// a slice that starts after the flip, so the arrows point forward.
//
// Defective traces bypass the writer's checks on purpose: the valid prefix is
// written with PerfettoWriter, the defect is appended as raw packet bytes (the
// stream is append-only, so raw records can follow the writer's). They exist
// only to prove that check_trace.py rejects each kind of defect.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "traces/perfetto_writer.h"
#include "traces/proto_wire.h"

namespace {

using sk::traces::Arg;
using sk::traces::PerfettoWriter;
using sk::traces::TrackId;
using sk::traces::TrackOptions;
namespace wire = sk::traces::wire;

constexpr int kKBlocks = 4;
constexpr int kStages = 2;

void write_valid(PerfettoWriter& w) {
  TrackId gpu = w.add_process_track("GPU 0", 1);
  TrackId sm = w.add_track(gpu, "SM 0", {.description = "one streaming multiprocessor"});
  TrackId cta = w.add_track(sm, "CTA 0", {.description = "ts = simulated cycles (1 cycle shown as 1 ns)"});
  TrackId load = w.add_track(cta, "load", {.sibling_rank = 0});
  TrackId mma = w.add_track(cta, "mma", {.sibling_rank = 1});
  TrackId epi0 = w.add_track(cta, "epilogue0", {.sibling_rank = 2});
  TrackId epi1 = w.add_track(cta, "epilogue1", {.sibling_rank = 3});
  TrackId tma = w.add_track(sm, "TMA engine", {.sibling_rank = 1});
  std::vector<TrackId> stage;
  for (int s = 0; s < kStages; ++s) {
    stage.push_back(w.add_track(tma, "TMA stage " + std::to_string(s), {.sibling_rank = s}));
  }
  TrackId mbar = w.add_track(sm, "mbarriers", {.sibling_rank = 2});
  TrackId full = w.add_counter_track(sm, "SMEM stages full", "stages", 3);
  TrackId bytes = w.add_counter_track(sm, "TMA bytes in flight", "bytes", 4);

  constexpr uint64_t kTileBytes = 32768;
  uint64_t next_flow = 1;
  std::vector<std::pair<uint64_t, int>> stage_deltas, byte_deltas;  // (ts, delta)
  uint64_t mma_free = 100;
  w.begin_slice(cta, 0, "tile (0,0)", {{"m", int64_t{0}}, {"n", int64_t{0}}});
  for (int kb = 0; kb < kKBlocks; ++kb) {
    const int s = kb % kStages;
    const uint64_t issue = 100 * kb + 10, done = issue + 150;
    const uint64_t to_flip = next_flow++, to_mma = next_flow++;
    w.begin_slice(load, issue, "issue TMA", {{"stage", int64_t{s}}, {"k_block", int64_t{kb}}});
    w.end_slice(load, issue + 5);
    w.begin_slice(stage[s], issue, "TMA load", {{"k_block", int64_t{kb}}, {"tensor", std::string("A+B")}},
                  {to_flip});
    w.end_slice(stage[s], done);  // complete_tx: the arrow leaves here
    w.instant(mbar, done, "full phase flip", {{"stage", int64_t{s}}, {"phase", int64_t{(kb / kStages) % 2}}},
              {to_mma}, {to_flip});
    w.begin_slice(mma, mma_free, "wait full", {{"stage", int64_t{s}}});
    w.end_slice(mma, done);
    w.begin_slice(mma, done, "k-block", {{"k_block", int64_t{kb}}, {"util", 0.875}}, {}, {to_mma});
    w.end_slice(mma, done + 60);
    mma_free = done + 60;
    stage_deltas.push_back({done, +1});
    stage_deltas.push_back({done + 60, -1});
    byte_deltas.push_back({issue, +1});
    byte_deltas.push_back({done, -1});
  }
  // Counter samples must be non-decreasing in ts per track, so sort first.
  for (auto [deltas, track, scale] : {std::tuple{&stage_deltas, full, uint64_t{1}},
                                      std::tuple{&byte_deltas, bytes, kTileBytes}}) {
    std::stable_sort(deltas->begin(), deltas->end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    int64_t level = 0;
    w.counter(track, 0, 0.0);
    for (auto [ts, delta] : *deltas) {
      level += delta;
      w.counter(track, ts, static_cast<double>(level * static_cast<int64_t>(scale)));
    }
  }
  const uint64_t acc = mma_free, to_epi = next_flow++;
  w.instant(mma, acc, "acc_full arrive", {}, {to_epi});
  w.begin_slice(epi0, 0, "wait acc_full");
  w.end_slice(epi0, acc);
  w.begin_slice(epi0, acc, "epilogue tile", {}, {}, {to_epi});
  w.begin_slice(epi0, acc, "TMEM->RF");
  w.end_slice(epi0, acc + 30);
  w.begin_slice(epi0, acc + 30, "store C", {{"bytes", int64_t{16384}}});
  w.end_slice(epi0, acc + 80);
  w.end_slice(epi0, acc + 80);
  w.begin_slice(epi1, acc, "idle");
  w.end_slice(epi1, acc + 80);
  w.end_slice(cta, acc + 80);
  w.finish();
}

// Raw TracePacket bytes for one TrackEvent, bypassing every writer check.
std::string raw_event(uint32_t seq, uint64_t ts, TrackId track, uint32_t type, const std::string& name,
                      std::vector<uint64_t> flows = {}, std::vector<uint64_t> terms = {}) {
  std::string event, packet;
  wire::append_varint_field(event, 9, type);
  wire::append_varint_field(event, 11, track);
  if (!name.empty()) wire::append_bytes_field(event, 23, name);
  for (uint64_t f : flows) wire::append_fixed64_field(event, 47, f);
  for (uint64_t f : terms) wire::append_fixed64_field(event, 48, f);
  wire::append_varint_field(packet, 8, ts);
  if (seq != 0) wire::append_varint_field(packet, 10, seq);
  wire::append_bytes_field(packet, 11, event);
  return packet;
}

std::string raw_descriptor(uint32_t seq, TrackId uuid, TrackId parent, const std::string& name) {
  std::string desc, packet;
  wire::append_varint_field(desc, 1, uuid);
  wire::append_varint_field(desc, 5, parent);
  wire::append_bytes_field(desc, 2, name);
  wire::append_varint_field(packet, 10, seq);
  wire::append_bytes_field(packet, 60, desc);
  return packet;
}

constexpr uint32_t kBegin = 1, kEnd = 2, kInstant = 3, kCounter = 4;
constexpr const char* kDefects[] = {
    "unbalanced", "end-without-begin", "backward-flow", "flow-on-wait-end", "duplicate-flow",
    "unknown-field", "varint-flow-id", "bad-parent", "duplicate-sibling", "counter-on-slice-track",
    "missing-sequence-id", "garbled"};

// Returns false for an unknown defect name.
bool write_defect(std::ofstream& out, const std::string& defect) {
  PerfettoWriter w(out);
  const uint32_t seq = w.sequence_id();
  TrackId gpu = w.add_process_track("GPU 0", 1);
  TrackId a = w.add_track(gpu, "a");
  TrackId b = w.add_track(gpu, "b");
  TrackId c = w.add_counter_track(gpu, "c", "units");
  w.begin_slice(a, 10, "ok");
  w.end_slice(a, 20);
  std::string tail;  // raw records appended after the writer's valid prefix
  auto add = [&](const std::string& packet) { wire::append_trace_packet_record(tail, packet); };
  if (defect == "unbalanced") {
    add(raw_event(seq, 30, a, kBegin, "never closed"));
  } else if (defect == "end-without-begin") {
    add(raw_event(seq, 30, b, kEnd, ""));
  } else if (defect == "backward-flow") {  // the terminator starts before the origin
    add(raw_event(seq, 50, a, kInstant, "origin", {7}));
    add(raw_event(seq, 30, b, kInstant, "term", {}, {7}));
  } else if (defect == "flow-on-wait-end") {  // ends on the END of a slice begun earlier
    add(raw_event(seq, 30, b, kBegin, "wait"));
    add(raw_event(seq, 40, a, kInstant, "flip", {9}));
    add(raw_event(seq, 50, b, kEnd, "", {}, {9}));
  } else if (defect == "duplicate-flow") {
    add(raw_event(seq, 30, a, kInstant, "x", {5}));
    add(raw_event(seq, 31, a, kInstant, "y", {5}));
    add(raw_event(seq, 40, b, kInstant, "z", {}, {5}));
  } else if (defect == "unknown-field") {
    std::string p = raw_event(seq, 30, a, kInstant, "x");
    wire::append_varint_field(p, 999, 5);
    add(p);
  } else if (defect == "varint-flow-id") {  // field 47 with wire type 0 instead of 1
    std::string event, p;
    wire::append_varint_field(event, 9, kInstant);
    wire::append_varint_field(event, 11, a);
    wire::append_varint_field(event, 47, 3);
    wire::append_varint_field(p, 8, 30);
    wire::append_varint_field(p, 10, seq);
    wire::append_bytes_field(p, 11, event);
    add(p);
  } else if (defect == "bad-parent") {
    add(raw_descriptor(seq, 100, 77, "orphan"));
  } else if (defect == "duplicate-sibling") {
    add(raw_descriptor(seq, 100, gpu, "a"));
  } else if (defect == "counter-on-slice-track") {
    add(raw_event(seq, 30, a, kCounter, ""));
    add(raw_event(seq, 30, c, kBegin, "slice on counter"));
  } else if (defect == "missing-sequence-id") {
    add(raw_event(0, 30, a, kInstant, "no sequence"));
  } else if (defect == "garbled") {
    tail = std::string("\x0a\x7f\x01", 3);  // a record that claims 127 bytes, truncated
  } else {
    return false;
  }
  out.flush();
  out.write(tail.data(), static_cast<std::streamsize>(tail.size()));
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s <out.pftrace> [defect]\ndefects:", argv[0]);
    for (const char* d : kDefects) std::fprintf(stderr, " %s", d);
    std::fprintf(stderr, "\n");
    return 2;
  }
  std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
  if (!out) {
    std::fprintf(stderr, "cannot open %s\n", argv[1]);
    return 1;
  }
  if (argc == 2) {
    PerfettoWriter w(out);
    write_valid(w);
  } else if (!write_defect(out, argv[2])) {
    std::fprintf(stderr, "unknown defect '%s'\n", argv[2]);
    return 2;
  }
  out.close();
  return out ? 0 : 1;
}
