// mi300x_model_test.cc: the MI300X model's intrinsic semantics and findings,
// with small kernels written against sk::arch (kernels/arch/gfx942.h).
//
// Each scenario runs in a child process (one Engine per process): `setup`
// allocates global memory before launch, `body` runs on every wave, `post`
// reads results and statistics after the run and returns them as notes.
#include <doctest/doctest.h>

#include <boost/json.hpp>

#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "kernels/arch/gfx942.h"
#include "kernels/core/lanes.h"
#include "models/mi300x/gpu.h"
#include "engine/isolate.h"
#include "tests/model/scenario.h"
#include "verify/hb/race_detector.h"

namespace {

using sk::models::mi300x::Gpu;
using sk::test::ScenarioResult;
namespace arch = sk::arch;

struct Options {
  int blocks = 1;
  int waves = 2;
  uint32_t lds = 16 * 1024;
  bool functional = true;
  bool races = false;
  uint64_t max_cycles = 2'000'000;
  std::function<void(Gpu&)> setup;
  std::function<std::vector<std::string>(Gpu&)> post;
};

ScenarioResult run(const Options& opt, const std::function<void()>& body) {
  namespace json = boost::json;
  auto child = [&]() -> std::string {
    Gpu gpu(sk::models::mi300x::Params::builtin(), opt.functional);
    std::unique_ptr<sk::verify::RaceDetector> races;
    if (opt.races) {
      races = std::make_unique<sk::verify::RaceDetector>(gpu.engine());
      gpu.engine().set_observer(races.get());
    }
    if (opt.setup) opt.setup(gpu);
    json::object o;
    const std::string err = gpu.launch(opt.blocks, opt.waves, opt.lds, body);
    o["status"] = "not_launched";
    if (err.empty()) {
      const auto st = gpu.run(opt.max_cycles);
      o["status"] = sk::sim::run_status_name(st);
    }
    o["cycles"] = gpu.engine().now();
    json::array fs, notes;
    for (const auto& f : gpu.engine().findings())
      fs.push_back(json::object{{"cls", f.cls}, {"rule", f.rule}, {"message", f.message}});
    if (err.empty() && opt.post)
      for (const auto& n : opt.post(gpu)) notes.push_back(json::string(n));
    o["findings"] = std::move(fs);
    o["notes"] = std::move(notes);
    o["error"] = err;
    return json::serialize(o);
  };
  ScenarioResult r;
  auto res = sk::sim::run_isolated(child, 120);
  if (!res.ok) {
    r.error = res.error;
    return r;
  }
  auto v = json::parse(res.payload).as_object();
  r.ok = true;
  r.status = json::value_to<std::string>(v["status"]);
  r.cycles = json::value_to<uint64_t>(v["cycles"]);
  r.error = json::value_to<std::string>(v["error"]);
  for (const auto& f : v["findings"].as_array()) {
    const auto& o = f.as_object();
    r.findings.push_back({json::value_to<std::string>(o.at("cls")),
                          json::value_to<std::string>(o.at("rule")),
                          json::value_to<std::string>(o.at("message"))});
  }
  for (const auto& n : v["notes"].as_array()) r.notes.push_back(json::value_to<std::string>(n));
  return r;
}

bool has_cls(const ScenarioResult& r, const std::string& cls) {
  for (const auto& f : r.findings)
    if (f.cls == cls) return true;
  return false;
}

uint16_t to_bf16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return static_cast<uint16_t>(u >> 16);  // truncation: the value is then exact
}
float from_bf16(uint16_t b) {
  uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// D = A (M x K) * B (K x M) + 0 by one wave, operands loaded per lane in the
// layout of kernels/arch/gfx942/device/mfma.h; returns max |D - reference|.
template <int kM>
ScenarioResult run_mfma(bool functional, double* max_err) {
  constexpr int kK = 4 * (64 / kM);
  std::mt19937 rng(kM);
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  std::vector<uint16_t> ha(kM * kK), hb(kK * kM);
  for (auto& x : ha) x = to_bf16(dist(rng));
  for (auto& x : hb) x = to_bf16(dist(rng));
  static uint16_t* ga;
  static uint16_t* gb;
  static float* gd;
  Options opt;
  opt.waves = 1;
  opt.functional = functional;
  opt.setup = [&](Gpu& gpu) {
    ga = reinterpret_cast<uint16_t*>(gpu.gmem().allocate(ha.size() * 2, "A"));
    gb = reinterpret_cast<uint16_t*>(gpu.gmem().allocate(hb.size() * 2, "B"));
    gd = reinterpret_cast<float*>(gpu.gmem().allocate(kM * kM * 4, "D"));
    if (gpu.functional()) {
      std::memcpy(ga, ha.data(), ha.size() * 2);
      std::memcpy(gb, hb.data(), hb.size() * 2);
    }
  };
  opt.post = [&](Gpu& gpu) {
    std::vector<std::string> notes;
    double err = 0;
    if (gpu.functional())
      for (int i = 0; i < kM; ++i)
        for (int j = 0; j < kM; ++j) {
          double ref = 0;
          for (int k = 0; k < kK; ++k)
            ref += static_cast<double>(from_bf16(ha[i * kK + k])) * from_bf16(hb[k * kM + j]);
          err = std::max(err, std::fabs(ref - gd[i * kM + j]));
        }
    notes.push_back(std::to_string(err));
    const auto t = gpu.totals();
    notes.push_back(std::to_string(t.mfma));
    notes.push_back(std::to_string(t.simd_busy_cycles()));
    return notes;
  };
  auto body = [] {
    using Acc = std::conditional_t<kM == 32, arch::Acc16, arch::Acc4>;
    constexpr int kRegs = kM == 32 ? 16 : 4;
    sk::WaveArray<arch::Bf16x4, 1> a, b;
    sk::WaveArray<Acc, 1> c{};
    sk::for_each_lane([&](uint32_t l) {
      for (int i = 0; i < 4; ++i) {
        a.lane(l)[0].v[i] = arch::ld_global(&ga[(l % kM) * kK + 4 * (l / kM) + i]);
        b.lane(l)[0].v[i] = arch::ld_global(&gb[(4 * (l / kM) + i) * kM + l % kM]);
      }
    });
    if constexpr (kM == 32)
      arch::mfma_f32_32x32x8_bf16(c, 0, a, 0, b, 0);
    else
      arch::mfma_f32_16x16x16_bf16(c, 0, a, 0, b, 0);
    sk::for_each_lane([&](uint32_t l) {
      for (int r = 0; r < kRegs; ++r) {
        const int row = kM == 32 ? 8 * (r / 4) + 4 * (static_cast<int>(l) / 32) + r % 4
                                 : 4 * (static_cast<int>(l) / 16) + r;
        arch::st_global(&gd[row * kM + l % kM], c.lane(l)[0].v[r]);
      }
    });
  };
  ScenarioResult r = run(opt, body);
  if (r.ok && !r.notes.empty()) *max_err = std::stod(r.notes[0]);
  return r;
}

}  // namespace

TEST_CASE("mfma 32x32x8 and 16x16x16 bf16 match a scalar reference") {
  double err = 1;
  auto r = run_mfma<32>(true, &err);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(err < 1e-3);
  CHECK(r.notes[1] == "1");
  CHECK(r.notes[2] == "32");
  err = 1;
  r = run_mfma<16>(true, &err);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(err < 1e-3);
  CHECK(r.notes[2] == "16");
  // Timing mode: no data, the same matrix core occupancy.
  r = run_mfma<32>(false, &err);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes[2] == "32");
}

namespace {
// Wave 0 fills 256 bytes of LDS by LDS DMA and publishes them through a
// counter; wave 1 waits on the counter and reads them back.
ScenarioResult run_dma(bool wait_vmcnt) {
  static uint32_t* src;
  Options opt;
  opt.races = true;
  opt.setup = [](Gpu& gpu) {
    src = reinterpret_cast<uint32_t*>(gpu.gmem().allocate(256, "src"));
    for (uint32_t i = 0; i < 64; ++i) src[i] = 3 * i + 1;
  };
  static bool wait;
  wait = wait_vmcnt;
  static int bad;
  bad = 0;
  opt.post = [](Gpu&) { return std::vector<std::string>{std::to_string(bad)}; };
  return run(opt, [] {
    auto* words = reinterpret_cast<uint32_t*>(arch::dynamic_lds());
    uint32_t* flag = words + 256;
    arch::annotate_counter(flag, "ready", 0, 1);
    if (arch::wave_idx() == 0) {
      sk::for_each_lane([&](uint32_t l) { arch::global_load_lds_dword(words, &src[l]); });
      if (wait) arch::s_waitcnt_vmcnt<0>();
      if (auto e = sk::elect_one()) arch::atomic_add(flag, 1, arch::Scope::kWorkgroup);
    } else {
      arch::wait_counter_geq(flag, 1, arch::Scope::kWorkgroup);
      sk::for_each_lane([&](uint32_t l) {
        if (arch::ld_lds(&words[l]) != 3 * l + 1) ++bad;
      });
    }
  });
}
}  // namespace

TEST_CASE("LDS DMA published after s_waitcnt_vmcnt arrives intact; without the wait it races") {
  auto r = run_dma(true);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes.at(0) == "0");
  r = run_dma(false);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(has_cls(r, "race"), r.findings_text());
  CHECK(r.notes.at(0) != "0");  // the reader really sees stale bytes
}

TEST_CASE("a whole-wave increment of a pipeline counter is a finding") {
  Options opt;
  opt.waves = 1;
  auto r = run(opt, [] {
    auto* flag = reinterpret_cast<uint32_t*>(arch::dynamic_lds());
    arch::annotate_counter(flag, "input.full", 0, 1);
    arch::atomic_add(flag, 1, arch::Scope::kWorkgroup);
    if (auto e = sk::elect_one()) arch::atomic_add(flag, 1, arch::Scope::kWorkgroup);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "counter.multi_lane_increment");
  CHECK(r.findings[0].cls == "arrival_count");
  CHECK(r.findings[0].message.find("64 lanes of wave 0") != std::string::npos);
  CHECK(r.findings[0].message.find("input.full[0]") != std::string::npos);
}

TEST_CASE("every lane of a per-lane loop incrementing a pipeline counter is a finding") {
  Options opt;
  opt.waves = 1;
  auto r = run(opt, [] {
    auto* flag = reinterpret_cast<uint32_t*>(arch::dynamic_lds());
    arch::annotate_counter(flag, "input.full", 0, 1);
    sk::for_each_lane([&](uint32_t) { arch::atomic_add(flag, 1, arch::Scope::kWorkgroup); });
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "counter.multi_lane_increment");
  CHECK(r.findings[0].message.find("64 lanes of wave 0") != std::string::npos);
}

TEST_CASE("a lap left short by one producer is an under-arrival deadlock") {
  Options opt;
  opt.waves = 4;
  auto r = run(opt, [] {
    auto* flag = reinterpret_cast<uint32_t*>(arch::dynamic_lds());
    arch::annotate_counter(flag, "input.empty", 0, 4);
    if (arch::wave_idx() == 0) {
      arch::wait_counter_geq(flag, 4, arch::Scope::kWorkgroup);
    } else if (auto e = sk::elect_one()) {
      arch::atomic_add(flag, 1, arch::Scope::kWorkgroup);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "deadlock");
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].cls == "arrival_count");
  CHECK(r.findings[0].rule == "counter.under_arrival");
  CHECK(r.findings[0].message.find("input.empty[0] got 3 of 4") != std::string::npos);
}

namespace {
// Wave 0 zeroes and annotates a pipeline counter; wave 1, later in time,
// increments it, with or without an s_barrier between (wave 0 waits for the
// increment). The init is the store, reported at its line.
ScenarioResult counter_init_then_use(bool with_barrier) {
  Options opt;
  opt.waves = 2;
  opt.races = true;
  return run(opt, [with_barrier] {
    auto* flag = reinterpret_cast<uint32_t*>(arch::dynamic_lds());
    if (arch::wave_idx() == 0) {
      if (auto e = sk::elect_one()) {
        arch::st_lds(flag, 0u);
        arch::annotate_counter(flag, "ready", -1, 1);
      }
    } else {
      for (int i = 0; i < 50; ++i) arch::s_sleep<1>();
    }
    if (with_barrier) arch::workgroup_sync();
    if (arch::wave_idx() == 1) {
      if (auto e = sk::elect_one()) arch::atomic_add(flag, 1, arch::Scope::kWorkgroup);
    } else {
      arch::wait_counter_geq(flag, 1, arch::Scope::kWorkgroup);
    }
  });
}
}  // namespace

TEST_CASE("a counter used by a wave not ordered after the store that zeroed it is a finding") {
  auto r = counter_init_then_use(false);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  REQUIRE_MESSAGE(r.findings.size() == 1, r.findings_text());
  CHECK(r.findings[0].cls == "mbarrier");
  CHECK(r.findings[0].rule == "counter.init_not_ordered");
  CHECK(r.findings[0].message.find("atomic_add on ready by CTA 0 warp 1") != std::string::npos);
  CHECK(r.findings[0].message.find("mi300x_model_test.cc:") != std::string::npos);
  CHECK(r.findings[0].message.find("workgroup_sync") != std::string::npos);
  r = counter_init_then_use(true);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
}

TEST_CASE("a counter nobody increments is deadlock.never_arrived") {
  Options opt;
  opt.waves = 2;
  auto r = run(opt, [] {
    auto* flag = reinterpret_cast<uint32_t*>(arch::dynamic_lds());
    arch::annotate_counter(flag, "input.full", 1);
    if (arch::wave_idx() == 0) arch::wait_counter_geq(flag, 1, arch::Scope::kWorkgroup);
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "deadlock");
  CHECK_MESSAGE(r.has_rule("deadlock.never_arrived"), r.findings_text());
}

TEST_CASE("LDS over capacity is a resource finding and nothing launches") {
  Options opt;
  opt.lds = 70000;
  auto r = run(opt, [] {});
  REQUIRE(r.ok);
  CHECK(r.status == "not_launched");
  CHECK(!r.error.empty());
  CHECK(r.has_rule("resource.lds_capacity"));
}

namespace {
ScenarioResult run_banks(int stride_bytes, bool functional) {
  Options opt;
  opt.waves = 1;
  opt.functional = functional;
  opt.post = [](Gpu& gpu) {
    const auto t = gpu.totals();
    return std::vector<std::string>{std::to_string(t.lds_bank_conflict_cycles),
                                    std::to_string(t.lds_instructions)};
  };
  static int stride;
  stride = stride_bytes;
  return run(opt, [] {
    auto* lds = arch::dynamic_lds();
    sk::for_each_lane([&](uint32_t l) {
      (void)arch::ld_lds(reinterpret_cast<const uint32_t*>(lds + l * stride));
    });
  });
}
}  // namespace

TEST_CASE("LDS bank conflicts: 32 distinct dwords in bank 0 take 31 extra passes per group") {
  auto r = run_banks(128, true);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes.at(0) == "62");  // two groups of 32 lanes
  CHECK(r.notes.at(1) == "1");
  r = run_banks(0, true);  // broadcast
  REQUIRE(r.ok);
  CHECK(r.notes.at(0) == "0");
  r = run_banks(4, true);  // consecutive dwords
  REQUIRE(r.ok);
  CHECK(r.notes.at(0) == "0");
  r = run_banks(128, false);  // timing mode samples the site
  REQUIRE(r.ok);
  CHECK(r.notes.at(0) == "62");
}

namespace {
// Every lane gathers two 16-bit LDS elements, lo at lane * stride bytes and hi
// 256 bytes after it, and writes the packed pair to out[lane].
ScenarioResult run_u16x2(int stride_bytes) {
  Options opt;
  opt.waves = 1;
  static uint64_t out;
  static int stride;
  stride = stride_bytes;
  opt.setup = [](Gpu& gpu) { out = gpu.gmem().allocate(64 * 4, "out"); };
  opt.post = [](Gpu& gpu) {
    const auto t = gpu.totals();
    std::vector<std::string> notes{std::to_string(t.lds_bank_conflict_cycles),
                                   std::to_string(t.lds_instructions)};
    const auto* o = reinterpret_cast<const uint32_t*>(gpu.gmem().host(out));
    for (int l = 0; l < 64; ++l) notes.push_back(std::to_string(o[l]));
    return notes;
  };
  return run(opt, [] {
    auto* lds = arch::dynamic_lds();
    auto* e = reinterpret_cast<uint16_t*>(lds);
    if (auto lane = sk::elect_one())
      for (int i = 0; i < 4096; ++i) arch::st_lds(e + i, static_cast<uint16_t>(i));
    sk::for_each_lane([&](uint32_t l) {
      const auto* lo = reinterpret_cast<const uint16_t*>(lds + l * stride);
      const uint32_t v = arch::ld_lds_u16x2(lo, lo + 128);
      arch::st_global(reinterpret_cast<uint32_t*>(out) + l, v);
    });
  });
}
}  // namespace

TEST_CASE("ld_lds_u16x2: two ds_read_u16 packed lo | hi << 16, each bank-conflict counted") {
  auto r = run_u16x2(2);  // consecutive elements: 64 bytes per 32-lane group
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes.at(0) == "0");
  CHECK(r.notes.at(1) == "4098");  // 4096 stores, two reads
  for (uint32_t l = 0; l < 64; ++l)
    CHECK(r.notes.at(2 + l) == std::to_string(l | (l + 128) << 16));
  r = run_u16x2(128);  // every lane of a group in bank 0, distinct dwords
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.notes.at(0) == "124");  // 31 extra passes x 2 groups x 2 reads
  CHECK(r.notes.at(2 + 1) == std::to_string(64 | (64 + 128) << 16));
}

TEST_CASE("buffer_load_dword_lds: lanes past num_records write 0") {
  static uint32_t* src;
  static int bad;
  bad = 0;
  Options opt;
  opt.waves = 1;
  opt.setup = [](Gpu& gpu) {
    src = reinterpret_cast<uint32_t*>(gpu.gmem().allocate(1024, "src"));
    for (uint32_t i = 0; i < 256; ++i) src[i] = 100 + i;
  };
  opt.post = [](Gpu&) { return std::vector<std::string>{std::to_string(bad)}; };
  auto r = run(opt, [] {
    auto* words = reinterpret_cast<uint32_t*>(arch::dynamic_lds());
    sk::for_each_lane([&](uint32_t l) { arch::st_lds(&words[l], 0xFFFFFFFFu); });
    arch::s_waitcnt_lgkmcnt<0>();
    const arch::BufferRsrc rsrc = arch::make_buffer_rsrc(src, 64);  // 16 dwords in range
    sk::for_each_lane([&](uint32_t l) { arch::buffer_load_dword_lds(words, rsrc, 4 * l); });
    arch::s_waitcnt_vmcnt<0>();
    sk::for_each_lane([&](uint32_t l) {
      if (arch::ld_lds(&words[l]) != (l < 16 ? 100 + l : 0u)) ++bad;
    });
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes.at(0) == "0");
}

TEST_CASE("a bad buffer descriptor is a finding") {
  Options opt;
  opt.waves = 1;
  auto r = run(opt, [] {
    arch::BufferRsrc rsrc{};
    rsrc.w[2] = 64;
    sk::for_each_lane([&](uint32_t l) {
      arch::buffer_load_dword_lds(arch::dynamic_lds(), rsrc, 4 * l);
    });
    arch::s_waitcnt_vmcnt<0>();
  });
  REQUIRE(r.ok);
  CHECK(r.has_rule("lds_dma.bad_descriptor"));
}

namespace {
ScenarioResult run_barrier(bool barrier) {
  static bool with;
  with = barrier;
  Options opt;
  opt.races = true;
  return run(opt, [] {
    auto* words = reinterpret_cast<uint32_t*>(arch::dynamic_lds());
    if (arch::wave_idx() == 0) {
      sk::for_each_lane([&](uint32_t l) { arch::st_lds(&words[l], l); });
      arch::s_waitcnt_lgkmcnt<0>();
      if (with) arch::s_barrier();
    } else {
      arch::s_sleep<10>();
      if (with) arch::s_barrier();
      sk::for_each_lane([&](uint32_t l) { (void)arch::ld_lds(&words[l]); });
    }
  });
}
}  // namespace

TEST_CASE("s_barrier orders LDS writes before it with reads after it") {
  auto r = run_barrier(true);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  r = run_barrier(false);
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK_MESSAGE(has_cls(r, "race"), r.findings_text());
}

TEST_CASE("an exited wave no longer counts at s_barrier; a partial-wave MFMA is a finding") {
  Options opt;
  opt.waves = 3;
  auto r = run(opt, [] {
    if (arch::wave_idx() == 2) return;
    arch::s_barrier();
    arch::workgroup_sync();
    if (arch::wave_idx() == 0) {
      sk::WaveArray<arch::Bf16x4, 1> a{}, b{};
      sk::WaveArray<arch::Acc4, 1> c{};
      if (auto e = sk::elect_one()) arch::mfma_f32_16x16x16_bf16(c, 0, a, 0, b, 0);
    }
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  REQUIRE(r.findings.size() == 1);
  CHECK(r.findings[0].rule == "mfma.partial_wave");
}

TEST_CASE("grids larger than the CU count run every workgroup") {
  static uint32_t* out;
  Options opt;
  opt.blocks = 700;
  opt.waves = 1;
  opt.setup = [](Gpu& gpu) { out = reinterpret_cast<uint32_t*>(gpu.gmem().allocate(700 * 4, "out")); };
  opt.post = [](Gpu&) {
    int missing = 0;
    for (int i = 0; i < 700; ++i) missing += out[i] != static_cast<uint32_t>(i) + 1;
    return std::vector<std::string>{std::to_string(missing)};
  };
  auto r = run(opt, [] {
    if (auto e = sk::elect_one()) arch::st_global(&out[arch::block_idx()], arch::block_idx() + 1);
    arch::s_waitcnt_vmcnt<0>();
  });
  REQUIRE_MESSAGE(r.ok, r.error);
  CHECK(r.status == "completed");
  CHECK_MESSAGE(r.findings.empty(), r.findings_text());
  CHECK(r.notes.at(0) == "0");
}

// The address rules of the MI300X model, each with its correct twin: one
// wave makes one access, bad (the finding) or good (clean). `bad` selects.
namespace {
uint32_t* g_words = nullptr;  // a 1 KiB global allocation (256 dwords)

ScenarioResult one_access(void (*body)(bool bad), bool bad) {
  Options opt;
  opt.waves = 1;
  opt.setup = [](Gpu& gpu) {
    g_words = reinterpret_cast<uint32_t*>(gpu.gmem().allocate(1024, "words"));
    for (uint32_t i = 0; i < 256; ++i) g_words[i] = i;
  };
  return run(opt, [body, bad] {
    if (auto e = sk::elect_one()) body(bad);
  });
}

void check_pair(void (*body)(bool), const std::string& rule) {
  const auto good = one_access(body, false), bad = one_access(body, true);
  REQUIRE_MESSAGE(good.ok, good.error);
  REQUIRE_MESSAGE(bad.ok, bad.error);
  CHECK_MESSAGE(good.findings.empty(), good.findings_text());
  CHECK_MESSAGE(bad.has_rule(rule), bad.findings_text());
  for (const auto& f : bad.findings) CHECK_MESSAGE(f.rule == rule, bad.findings_text());
}
}  // namespace

TEST_CASE("ds accesses misaligned or outside the workgroup's LDS are lds.bad_access") {
  check_pair([](bool bad) {
    uint8_t* lds = arch::dynamic_lds();
    arch::st_lds(reinterpret_cast<uint32_t*>(lds + (bad ? 2 : 4)), 7u);  // misaligned dword
  }, "lds.bad_access");
  check_pair([](bool bad) {
    uint8_t* lds = arch::dynamic_lds();
    (void)arch::ld_lds(reinterpret_cast<uint32_t*>(lds + (bad ? 16 * 1024 : 16 * 1024 - 4)));
  }, "lds.bad_access");
}

TEST_CASE("an LDS address taken of a pointer outside the LDS is lds.bad_address") {
  check_pair([](bool bad) {
    (void)arch::lds_addr(arch::dynamic_lds() + (bad ? 16 * 1024 + 64 : 64));
  }, "lds.bad_address");
}

TEST_CASE("a global load or store outside every allocation is global.out_of_bounds") {
  check_pair([](bool bad) { (void)arch::ld_global(g_words + (bad ? 256 : 255)); },
             "global.out_of_bounds");
  check_pair([](bool bad) { arch::st_global(g_words + (bad ? 300 : 0), 1u); },
             "global.out_of_bounds");
}

TEST_CASE("an LDS DMA to a misaligned or out-of-range base is lds_dma.bad_base") {
  check_pair([](bool bad) {
    arch::global_load_lds_dword(arch::dynamic_lds() + (bad ? 2 : 0), g_words);
    arch::s_waitcnt_vmcnt<0>();
  }, "lds_dma.bad_base");
}

TEST_CASE("an atomic on a misaligned word is atomic.bad_address") {
  check_pair([](bool bad) {
    (void)arch::atomic_add(reinterpret_cast<uint32_t*>(arch::dynamic_lds() + (bad ? 2 : 8)), 1u,
                           arch::Scope::kWorkgroup);
  }, "atomic.bad_address");
  check_pair([](bool bad) {
    (void)arch::atomic_add(reinterpret_cast<uint32_t*>(reinterpret_cast<uint8_t*>(g_words) +
                                                       (bad ? 1 : 4)),
                           1u, arch::Scope::kAgent);
  }, "atomic.bad_address");
}

TEST_CASE("folding a CU's busy intervals at a horizon keeps the summary's figures") {
  // Random intervals; those added after a fold start at or after its
  // horizon, as the models guarantee (they start at the engine's cycle or
  // later).
  std::mt19937 rng(20261126);
  auto add = [&rng](sk::models::mi300x::CuStats& s, uint64_t from) {
    for (int i = 0; i < 300; ++i) {
      const uint64_t b = from + rng() % 5000, e = b + 1 + rng() % 400;
      if (rng() % 3 == 0)
        s.dma_busy.emplace_back(b, e);
      else
        s.simd_busy[rng() % 4].emplace_back(b, e);
    }
  };
  sk::models::mi300x::CuStats whole, folded;
  whole.simd_busy.resize(4);
  folded.simd_busy.resize(4);
  uint64_t horizon = 0;
  for (int round = 0; round < 6; ++round) {
    std::mt19937 copy = rng;  // both fed the same draws
    add(whole, horizon);
    rng = copy;
    add(folded, horizon);
    horizon += 2000 + rng() % 3000;
    folded.fold(horizon);
  }
  CHECK(folded.folded_dma > 0);
  CHECK(folded.dma_busy.size() + folded.simd_busy[0].size() < whole.dma_busy.size() + whole.simd_busy[0].size());
  CHECK(folded.simd_busy_cycles() == whole.simd_busy_cycles());
  CHECK(folded.dma_cycles() == whole.dma_cycles());
  CHECK(folded.covered_cycles() == whole.covered_cycles());
}
