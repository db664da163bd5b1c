// model_ops_fuzz.cc: random programs of SM100 intrinsics (mbarrier, tiled and
// im2col TMA, bulk groups, TMEM allocation, tcgen05 MMA/commit/ld, fences,
// barriers, shared-memory accesses, CLC, tensor-map updates) run on the model.
//
// Input: byte 0 picks the launch (1-2 CTAs of 1-4 warps; functional or timing
// mode; race detector on or off); then each 6 bytes are one operation
// {warp, opcode, a, b, c, d}. Every warp runs the operations addressed to it,
// in order, so the program is the same kernel on every CTA. Arguments are
// drawn from the bytes: barrier and buffer addresses mostly inside the
// dynamic shared memory, sometimes misaligned or past its end; counts, tx
// bytes, TMEM columns and coordinates sometimes invalid; MMA descriptors
// valid or random bits.
//
// SK_FUZZ_VERBOSE=1 prints each run's outcome and findings.
//
// Contract checked: every run ends as completed, deadlock, livelock (those two
// with their finding) or limit (with no livelock or deadlock finding), every finding has a class, rule and message,
// and nothing else happens: no crash, no exception out of the simulator, no
// hang (libFuzzer's -timeout), no sanitizer report.
//
// SystemC allows one elaboration per simulation context, so each input runs
// in a fresh context (engine/sysc_reset.h) in the fuzzer's own process, where
// libFuzzer sees its coverage and its crashes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#include "engine/sysc_reset.h"
#include "engine/lanes.h"
#include "kernels/core/lane_array.h"
#include "kernels/arch/sm100/umma_desc.h"
#include "models/sm100/api.h"
#include "models/sm100/gpu.h"
#include "models/sm100/tensor_map.h"
#include "verify/hb/race_detector.h"

namespace {

namespace api = sk::models::sm100::api;
namespace m100 = sk::models::sm100;

constexpr uint32_t kSmemBytes = 32 * 1024;
constexpr size_t kMaxOps = 96;
constexpr uint64_t kMaxCycles = 200'000;

struct Op {
  uint8_t warp, code, a, b, c, d;
};

struct Program {
  int ctas = 1, warps = 1;
  bool functional = false, race = false;
  std::vector<Op> ops;
};

// Global state the kernel body reads (set up before launch, per input).
m100::TensorMapModel g_maps[2];
m100::TensorMapModel g_im2col;  // 2x5x7x64 NHWC BF16, 3x3 filter, pad 1, 32 pixels of 64 channels
const Program* g_prog = nullptr;

[[noreturn]] void defect(const std::string& what) {
  std::fprintf(stderr, "model_ops_fuzz: %s\n", what.c_str());
  std::abort();
}

const std::source_location kLoc = std::source_location::current();

uint8_t* smem() { return api::dynamic_smem(); }

// One of 8 barriers at the start of SMEM, or (rarely) a misaligned or
// out-of-window address.
uint64_t* bar(uint8_t x) {
  uint8_t* base = smem();
  if (x >= 0xF8) return reinterpret_cast<uint64_t*>(base + kSmemBytes + (x & 7) * 8);
  if (x >= 0xF0) return reinterpret_cast<uint64_t*>(base + (x & 7) * 8 + 4);
  return reinterpret_cast<uint64_t*>(base + (x % 8) * 8);
}

// A buffer address: 1 KiB-aligned slots above the barriers, sometimes
// misaligned, sometimes past the end of the window.
uint8_t* buf(uint8_t x, uint8_t d) {
  uint32_t off = 1024u * (1 + x % 32);  // may reach kSmemBytes (the end)
  if (d & 0x40) off += (d & 0x3F) * 4;
  return smem() + off;
}

uint32_t tmem_cols(uint8_t x) {
  static constexpr uint32_t kCols[] = {32, 64, 128, 256, 512, 0, 16, 33, 1024};
  return kCols[x % 9];
}

uint32_t* tmem_slot() { return reinterpret_cast<uint32_t*>(smem() + 64); }

uint64_t operand_desc(uint8_t x, uint8_t y) {
  if (x & 0x80) return (uint64_t{x} << 56) ^ (uint64_t{y} * 0x9E3779B97F4A7C15ull);
  const uint32_t span = (x & 3) == 0 ? 128 : (x & 3) == 1 ? 64 : (x & 3) == 2 ? 32 : 48;
  return sk::umma::kmajor_desc(api::smem_addr(buf(y, 0), kLoc), span, 1024);
}

uint32_t instr_desc(uint8_t x) {
  if (x & 0x80) return 0x01000000u * x ^ 0x5a5a5u * x;
  const uint32_t n = 8u << (x % 7);  // 8 .. 512
  return sk::umma::f16_instr_desc((x & 0x40) ? 64 : 128, n, sk::umma::InputType::kBF16);
}

void exec(const Op& op) {
  uint64_t* b = bar(op.a);
  switch (op.code % 31) {
    case 0: api::mbarrier_init(b, op.b % 5, kLoc); break;
    case 1: api::mbarrier_inval(b, kLoc); break;
    case 2: api::fence_mbarrier_init(kLoc); break;
    case 3: api::mbarrier_arrive(b, kLoc); break;
    case 4: api::mbarrier_arrive_expect_tx(b, uint32_t{op.b} << (op.c % 12), kLoc); break;
    case 5: api::mbarrier_expect_tx(b, uint32_t{op.b} << (op.c % 12), kLoc); break;
    case 6:
      while (!api::mbarrier_try_wait_parity(b, op.b & 1, kLoc)) {
      }
      break;
    case 7:
      for (int i = 0; i < op.c % 16; ++i)
        if (api::mbarrier_test_wait_parity(b, op.b & 1, kLoc)) break;
      break;
    case 8:
      api::tma_load_2d(buf(op.c, op.d), &g_maps[op.d & 1], b, static_cast<int8_t>(op.b) * 8,
                       static_cast<int8_t>(op.d) / 4, kLoc);
      break;
    case 9:
      api::tma_store_2d(&g_maps[op.d & 1], buf(op.c, op.d), static_cast<int8_t>(op.b) * 8,
                        static_cast<int8_t>(op.a) / 4, kLoc);
      break;
    case 10: api::bulk_commit_group(kLoc); break;
    case 11: api::bulk_wait_group_read(op.b % 3, kLoc); break;
    case 12: api::bulk_wait_group(op.b % 3, kLoc); break;
    case 13: api::fence_proxy_async_shared(kLoc); break;
    case 14: api::tcgen05_alloc(tmem_slot(), tmem_cols(op.b), kLoc); break;
    case 15: {
      const uint32_t taddr = (op.c & 1) ? *tmem_slot() : (uint32_t{op.c} << 16 | op.d);
      api::tcgen05_dealloc(taddr, tmem_cols(op.b), kLoc);
      break;
    }
    case 16: api::tcgen05_relinquish_alloc_permit(kLoc); break;
    case 17:
      api::tcgen05_mma_f16_ss((op.d & 1) ? *tmem_slot() : uint32_t{op.d} << 3,
                              operand_desc(op.b, op.c), operand_desc(op.c, op.b),
                              instr_desc(op.d), op.a & 1, kLoc);
      break;
    case 18: api::tcgen05_commit(b, kLoc); break;
    case 19: {
      sk::LaneArray<uint32_t, 32> regs;
      api::tcgen05_ld_32x32b_x32((op.c & 1) ? *tmem_slot() : (uint32_t{op.b} << 16 | op.d),
                                 regs.regs, kLoc);
      if (op.c & 2) api::tcgen05_wait_ld(kLoc);
      break;
    }
    case 20: api::tcgen05_fence_before_thread_sync(kLoc); break;
    case 21: api::tcgen05_fence_after_thread_sync(kLoc); break;
    case 22: api::cta_sync(kLoc); break;
    case 23: api::sync_warp(kLoc); break;
    case 24: api::named_barrier_sync(op.b % 17, 32u * (op.c % 5), kLoc); break;
    case 25: api::named_barrier_arrive(op.b % 17, 32u * (op.c % 5), kLoc); break;
    case 26: {
      uint32_t v[4] = {op.a, op.b, op.c, op.d};
      if (op.b & 1)
        api::st_shared_b128(buf(op.c, op.d), v, kLoc);
      else
        api::ld_shared_b128(buf(op.c, op.d), v, kLoc);
      break;
    }
    case 27: {
      uint32_t v = op.a;
      if (op.b & 1)
        api::st_shared(buf(op.c, op.d), &v, 4, kLoc);
      else
        api::ld_shared(buf(op.c, op.d), &v, 4, kLoc);
      break;
    }
    case 28:
      api::clc_try_cancel(buf(op.c, op.d), b, kLoc);
      if (op.b & 1) {
        if (api::clc_is_canceled(buf(op.c, op.d), kLoc))
          (void)api::clc_first_ctaid_x(buf(op.c, op.d), kLoc);
      }
      break;
    case 30:
      api::tma_load_im2col_4d(buf(op.c, op.d), (op.d & 0x80) ? &g_maps[0] : &g_im2col, b,
                              static_cast<int8_t>(op.b) % 80, static_cast<int8_t>(op.a) % 8,
                              static_cast<int8_t>(op.d) % 9, op.b % 3, op.c % 4, op.a % 4, kLoc);
      break;
    case 29:
      if (op.b & 1) {
        api::tensormap_replace_global_dim(&g_maps[op.d & 1], op.c % 3, uint32_t{op.d} + 1, kLoc);
        api::fence_proxy_tensormap_release(kLoc);
      } else {
        api::fence_proxy_tensormap_acquire(&g_maps[op.d & 1], kLoc);
        api::prefetch_tensormap(&g_maps[op.d & 1], kLoc);
      }
      break;
  }
}

void body() {
  const uint32_t w = api::warp_idx();
  for (const Op& op : g_prog->ops) {
    if (op.warp % g_prog->warps != static_cast<int>(w)) continue;
    if (op.warp & 0x80) {
      // Issued by one elected lane, as kernels issue TMA and arrivals.
      const bool elected = sk::sim::lanes::elect_one_begin();
      if (elected) exec(op);
      sk::sim::lanes::scope_end();
    } else {
      exec(op);
    }
  }
}

Program decode(const uint8_t* data, size_t size) {
  Program p;
  const uint8_t h = data[0];
  p.ctas = 1 + (h & 1);
  p.warps = 1 + (h >> 1) % 4;
  p.functional = (h & 0x10) != 0;
  p.race = p.functional && (h & 0x20) != 0;
  for (size_t i = 1; i + 6 <= size && p.ops.size() < kMaxOps; i += 6)
    p.ops.push_back(Op{data[i], data[i + 1], data[i + 2], data[i + 3], data[i + 4], data[i + 5]});
  return p;
}

void run(const Program& prog) {
  m100::Params params = m100::Params::builtin();
  params.num_sms = 2;
  m100::Gpu gpu(params, prog.functional);
  std::unique_ptr<sk::verify::RaceDetector> races;
  if (prog.race) {
    races = std::make_unique<sk::verify::RaceDetector>(gpu.engine());
    gpu.engine().set_observer(races.get());
  }
  // A 64 x 64 BF16 tensor; map 0 has 64 x 8 boxes with the 128-byte swizzle,
  // map 1 32 x 4 boxes unswizzled.
  const uint64_t addr = gpu.gmem().allocate(64 * 64 * 2, "t");
  if (prog.functional) {
    auto* t = reinterpret_cast<uint16_t*>(gpu.gmem().host(addr));
    for (int i = 0; i < 64 * 64; ++i) t[i] = static_cast<uint16_t>(0x3c00 + i % 977);
  }
  g_maps[0] = m100::TensorMapModel{};
  g_maps[1] = m100::TensorMapModel{};
  if (!m100::encode_tiled_2d(g_maps[0], addr, 2, 64, 64, 128, 64, 8, m100::Swizzle::k128B).empty() ||
      !m100::encode_tiled_2d(g_maps[1], addr, 2, 64, 64, 128, 32, 4, m100::Swizzle::kNone).empty())
    defect("the harness's own tensor maps do not encode");
  {
    const uint64_t x = gpu.gmem().allocate(2 * 7 * 5 * 64 * 2, "x");
    const uint64_t dims[4] = {64, 5, 7, 2};
    const uint64_t strides[3] = {128, 128 * 5, 128 * 5 * 7};
    const int32_t lower[2] = {-1, -1}, upper[2] = {-1, -1};
    const uint32_t estrides[4] = {1, 1, 1, 1};
    g_im2col = m100::TensorMapModel{};
    if (!m100::encode_im2col_4d(g_im2col, x, 2, dims, strides, lower, upper, 64, 32, estrides,
                                m100::Swizzle::k128B)
             .empty())
      defect("the harness's own im2col map does not encode");
  }
  g_prog = &prog;
  const std::string err = gpu.launch(prog.ctas, prog.warps, kSmemBytes, body);
  if (!err.empty()) defect("launch refused: " + err);
  const sk::sim::RunStatus st = gpu.run(kMaxCycles);
  const auto& fs = gpu.engine().findings();
  // The deadlock finding may be classified into the class of its likely
  // cause (expect_tx, arrival_count); its message always says deadlock.
  auto has = [&](const char* cls, const char* message_start) {
    for (const auto& f : fs)
      if ((cls != nullptr && f.cls == cls) || f.message.rfind(message_start, 0) == 0) return true;
    return false;
  };
  if (st == sk::sim::RunStatus::kDeadlock && !has("deadlock", "deadlock:"))
    defect("a deadlock without a deadlock finding");
  if (st == sk::sim::RunStatus::kLivelock && !has("livelock", "livelock:"))
    defect("a livelock without a livelock finding");
  if (st == sk::sim::RunStatus::kLimit && (has("livelock", "livelock:") || has("deadlock", "deadlock:")))
    defect("a stop at the limit reported as a livelock or deadlock");
  for (const auto& f : fs)
    if (f.cls.empty() || f.rule.empty() || f.message.empty())
      defect("a finding without class, rule or message: " + f.rule + " " + f.message);
  if (std::getenv("SK_FUZZ_VERBOSE") != nullptr) {
    std::fprintf(stderr, "%d cta x %d warps, %zu ops, %s: %s after %llu cycles\n", prog.ctas,
                 prog.warps, prog.ops.size(), prog.functional ? "functional" : "timing",
                 sk::sim::run_status_name(st),
                 static_cast<unsigned long long>(gpu.engine().now()));
    for (const auto& f : fs) std::fprintf(stderr, "  [%s] %s\n", f.rule.c_str(), f.message.c_str());
  }
  g_prog = nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const Program prog = decode(data, size);
  run(prog);
  sk::sim::reset_systemc();
  return 0;
}
