// registry_test.cc: what every registered family must hold, checked against
// the family's own runs rather than restated: its defaults validate on each of
// its architectures, its FLOP count is the one its run reports TFLOP/s from,
// each field's range is enforced by parse_field at both ends, fields shared
// between families mean the same kind of option, and each seeded bug it names
// is a case of the corpus (verify/corpus/BUILD, the first argument). The
// CLI fuzzer's dictionary is generated from the registry (fuzz/cli_dict.cc).
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>

#include <boost/json.hpp>

#include "engine/isolate.h"
#include "runner/families/registry.h"
#include "runner/family/estimate.h"
#include "runner/result/run_result.h"

namespace sk::sim {
namespace {

std::string g_corpus_build;

// The smallest valid values of a family: each required field at its lower
// bound plus 63 (or its first choice), the defaults for the rest.
Values small_values(const Family& f) {
  Values v;
  for (const Field& x : f.fields) {
    if (!x.default_value.empty()) {
      v.set(x.name, x.default_value);
    } else if (x.required) {
      if (x.kind == Field::Kind::kChoice) v.set(x.name, x.choices.front());
      else if (x.kind == Field::Kind::kUint) v.set(x.name, std::to_string(std::min<uint64_t>(x.lo + 63, x.hi)));
      else v.set(x.name, std::to_string(x.min));
    }
  }
  // Conv2d: a filter that fits the input.
  if (f.field("r") != nullptr) {
    v.set("r", "3");
    v.set("s", "3");
  }
  return v;
}

TEST_CASE("every family has unique names, architectures and consistent shared fields") {
  REQUIRE(!families().empty());
  std::map<std::string, Field::Kind> kinds;
  for (const Family& f : families()) {
    CAPTURE(f.name);
    CHECK(find_family(f.name) == &f);
    CHECK(!f.archs.empty());
    CHECK(!f.summary().empty());
    CHECK(!f.reference.empty());
    CHECK(f.bind);
    CHECK(f.validate);
    CHECK(f.flops);
    CHECK(f.run);
    for (const Field& x : f.fields) {
      CAPTURE(x.name);
      const auto [it, fresh] = kinds.emplace(x.name, x.kind);
      CHECK(it->second == x.kind);  // one option, one kind
      if (!x.needs.empty()) CHECK(f.field(x.needs) != nullptr);
      if (!x.default_value.empty()) CHECK(parse_field(x, x.default_value).empty());
    }
  }
  CHECK(find_family("conv3d") == nullptr);
}

TEST_CASE("field ranges are enforced at both ends") {
  for (const Family& f : families())
    for (const Field& x : f.fields) {
      CAPTURE(f.name);
      CAPTURE(x.name);
      if (x.kind == Field::Kind::kUint) {
        CHECK(parse_field(x, std::to_string(x.lo)).empty());
        CHECK(parse_field(x, std::to_string(x.hi)).empty());
        CHECK(parse_field(x, std::to_string(x.hi + 1)).find("--" + x.name) != std::string::npos);
        if (x.lo > 0) CHECK(!parse_field(x, std::to_string(x.lo - 1)).empty());
        CHECK(!parse_field(x, "x").empty());
        CHECK(!parse_field(x, "").empty());
      } else if (x.kind == Field::Kind::kChoice) {
        for (const auto& c : x.choices) CHECK(parse_field(x, c).empty());
        CHECK(parse_field(x, "nonsense").find("must be") != std::string::npos);
      } else if (x.kind == Field::Kind::kNumber) {
        CHECK(parse_field(x, "0").empty());
        CHECK(!parse_field(x, "1e300").empty());
        CHECK(!parse_field(x, "nan").empty());
      }
    }
}

TEST_CASE("defaults validate, and the FLOP count is the run's") {
  for (const Family& f : families())
    for (const ArchSpace& a : f.archs) {
      CAPTURE(f.name);
      CAPTURE(a.arch);
      const Values v = small_values(f);
      MatmulRequest q;
      q.arch = a.arch;
      REQUIRE(f.bind(v, q).empty());
      q.tile_n = a.default_tile_n;
      q.stages = a.default_stages;
      CHECK(std::find(a.tile_ns.begin(), a.tile_ns.end(), a.default_tile_n) != a.tile_ns.end());
      CHECK(a.default_stages >= a.stages_lo);
      CHECK(a.default_stages <= a.stages_hi);
      REQUIRE(f.validate(v, q) == "");
      // A tile width outside the space is refused with a reason.
      MatmulRequest bad = q;
      bad.tile_n = 96;
      CHECK(!f.validate(v, bad).empty());
      // Timing mode, in a child process as sim runs it.
      const auto res = run_isolated(
          [&] { return boost::json::serialize(to_json(f.simulate(v, q))); }, 120);
      REQUIRE(res.ok);
      const RunResult r = run_result_from_json(boost::json::parse(res.payload));
      REQUIRE(r.status == "completed");
      REQUIRE(r.predicted_time_us > 0);
      // The estimate before the run (estimate.h) is within a factor of two
      // of the events the run took from four tiles up (a factor of three
      // for a tile or two: the per-tile term is fitted on larger grids), on
      // shapes it was not fitted to.
      const RunEstimate est = estimate_run(a, q, f.flops(v, q));
      const double factor = est.tiles >= 4 ? 2.0 : 3.0;
      CAPTURE(est.tiles);
      CHECK(est.events >= static_cast<double>(r.events) / factor);
      CHECK(est.events <= factor * static_cast<double>(r.events));
      CHECK(est.wall_s > 0);
      const double tflops = f.flops(v, q) / (r.predicted_time_us * 1e-6) / 1e12;
      CHECK(tflops == doctest::Approx(r.tflops).epsilon(1e-9));
      // The roofline is the family's compulsory traffic, and the model moves
      // at least that much from HBM (it reads every operand and writes D).
      REQUIRE(f.bytes);
      CHECK(r.compulsory_bytes == doctest::Approx(f.bytes(v, q)));
      CHECK(r.intensity == doctest::Approx(f.flops(v, q) / f.bytes(v, q)));
      CHECK(r.roofline_tflops <= r.peak_tflops * (1 + 1e-12));
      CHECK(r.waves > 0);
      // Every bottleneck comes with its figure, and no stall is left unexplained.
      CHECK(!r.bottleneck_detail.empty());
      for (const auto& role : r.roles)
        for (const auto& [cause, pct] : role.stalls) {
          CAPTURE(role.name);
          CHECK(cause != "other");
        }
      CHECK(static_cast<double>(r.hbm_bytes) >= r.compulsory_bytes);
    }
}

// Odd shapes; the filter as large as the input reads every input row with
// taps the first never touches, and the strided one skips pixels.
TEST_CASE("conv2d moves at least its compulsory bytes, small and large filters") {
  const Family* f = find_family("conv2d");
  REQUIRE(f != nullptr);
  const std::map<std::string, std::string> filters[] = {
      {{"n", "2"}, {"h", "33"}, {"w", "29"}, {"c", "70"}, {"k", "96"}, {"r", "3"}, {"s", "3"},
       {"stride", "1"}, {"pad", "1"}, {"dilation", "1"}},
      {{"n", "2"}, {"h", "21"}, {"w", "19"}, {"c", "40"}, {"k", "72"}, {"r", "19"}, {"s", "17"},
       {"stride", "1"}, {"pad", "0"}, {"dilation", "1"}},
      {{"n", "3"}, {"h", "30"}, {"w", "31"}, {"c", "64"}, {"k", "64"}, {"r", "3"}, {"s", "3"},
       {"stride", "1"}, {"pad", "0"}, {"dilation", "2"}}};
  for (const auto& shape : filters) {
    CAPTURE(shape.at("r"));
    Values v;
    for (const auto& [k, x] : shape) v.set(k, x);
    MatmulRequest q;
    q.arch = "sm100";
    REQUIRE(f->bind(v, q).empty());
    q.tile_n = 128;
    q.stages = 4;
    REQUIRE(f->validate(v, q) == "");
    const auto res = run_isolated(
        [&] { return boost::json::serialize(to_json(f->simulate(v, q))); }, 120);
    REQUIRE(res.ok);
    const RunResult r = run_result_from_json(boost::json::parse(res.payload));
    REQUIRE(r.status == "completed");
    CHECK(r.compulsory_bytes == doctest::Approx(f->bytes(v, q)));
    CHECK(static_cast<double>(r.hbm_bytes) >= r.compulsory_bytes);
    const RunEstimate est = estimate_run(*f->space("sm100"), q, f->flops(v, q));
    const double factor = est.tiles >= 4 ? 2.0 : 3.0;
    CHECK(est.events >= static_cast<double>(r.events) / factor);
    CHECK(est.events <= factor * static_cast<double>(r.events));
  }
}

// The MI300X model looks every block that any lane of a wave instruction
// touches up in its cache, also in the visits that run only the lowest lane;
// these shapes have rows of A and B 4 KiB apart or more, so each instruction
// spans several blocks.
TEST_CASE("mi300x moves at least its compulsory bytes with every kernel") {
  const Family* f = find_family("matmul");
  REQUIRE(f != nullptr);
  for (const char* kernel : {"pingpong", "wave_specialized"})
    for (const auto& [m, n, k] : {std::tuple{"512", "512", "2048"}, std::tuple{"333", "517", "2100"}}) {
      CAPTURE(kernel);
      CAPTURE(m);
      Values v;
      v.set("m", m);
      v.set("n", n);
      v.set("k", k);
      MatmulRequest q;
      q.arch = "mi300x";
      q.amd_kernel = kernel;
      REQUIRE(f->bind(v, q).empty());
      q.tile_n = 128;
      q.stages = 3;
      REQUIRE(f->validate(v, q) == "");
      const auto res = run_isolated(
          [&] { return boost::json::serialize(to_json(f->simulate(v, q))); }, 120);
      REQUIRE(res.ok);
      const RunResult r = run_result_from_json(boost::json::parse(res.payload));
      REQUIRE(r.status == "completed");
      CHECK(static_cast<double>(r.hbm_bytes) >= r.compulsory_bytes);
      // Each operand block comes from HBM once (the cache holds them all),
      // so the model moves no more than the blocks the operands span.
      CHECK(static_cast<double>(r.hbm_bytes) <= 1.05 * r.compulsory_bytes + 65536);
      const RunEstimate est = estimate_run(*f->space("mi300x"), q, f->flops(v, q));
      CHECK(est.events >= 0.5 * static_cast<double>(r.events));
      CHECK(est.events <= 2.0 * static_cast<double>(r.events));
    }
}

// F16 operands take the BF16 forms' time on every architecture (the same
// tensor-core and matrix-core rates); only the element decoding differs.
TEST_CASE("matmul with F16 inputs predicts the BF16 time") {
  const Family* f = find_family("matmul");
  REQUIRE(f != nullptr);
  for (const char* arch : {"sm100", "sm90", "mi300x"}) {
    CAPTURE(arch);
    uint64_t cycles[2] = {0, 0};
    for (int f16 = 0; f16 < 2; ++f16) {
      Values v;
      v.set("m", "512");
      v.set("n", "384");
      v.set("k", "520");
      if (f16) v.set("in-dtype", "f16");
      MatmulRequest q;
      q.arch = arch;
      REQUIRE(f->bind(v, q).empty());
      CHECK(q.in_f16 == (f16 == 1));
      q.tile_n = f->space(arch)->default_tile_n;
      q.stages = f->space(arch)->default_stages;
      REQUIRE(f->validate(v, q) == "");
      const auto res = run_isolated(
          [&] { return boost::json::serialize(to_json(f->simulate(v, q))); }, 120);
      REQUIRE(res.ok);
      const RunResult r = run_result_from_json(boost::json::parse(res.payload));
      REQUIRE(r.status == "completed");
      CHECK(r.config_name.find(f16 ? "_f16_" : "_bf16_") != std::string::npos);
      cycles[f16] = r.cycles;
    }
    CHECK(cycles[0] == cycles[1]);
  }
}

// A batch of L is L GEMMs in one launch: L times the tiles, FLOPs and
// compulsory bytes, at least those bytes from HBM, and (the matrices being
// independent, with one B each) no faster per matrix than one GEMM alone
// when a single matrix already fills the machine.
TEST_CASE("matmul with --batch runs every matrix's tiles") {
  const Family* f = find_family("matmul");
  REQUIRE(f != nullptr);
  for (const char* arch : {"sm100", "sm90", "mi300x"}) {
    CAPTURE(arch);
    RunResult runs[2];
    for (int i = 0; i < 2; ++i) {
      Values v;
      v.set("m", "1000");
      v.set("n", "1100");
      v.set("k", "264");
      if (i == 1) v.set("batch", "3");
      MatmulRequest q;
      q.arch = arch;
      REQUIRE(f->bind(v, q).empty());
      CHECK(q.batch == (i == 1 ? 3u : 1u));
      q.tile_n = f->space(arch)->default_tile_n;
      q.stages = f->space(arch)->default_stages;
      REQUIRE(f->validate(v, q) == "");
      const auto res = run_isolated(
          [&] { return boost::json::serialize(to_json(f->simulate(v, q))); }, 120);
      REQUIRE(res.ok);
      runs[i] = run_result_from_json(boost::json::parse(res.payload));
      REQUIRE(runs[i].status == "completed");
      CHECK(static_cast<double>(runs[i].hbm_bytes) >= runs[i].compulsory_bytes);
      const RunEstimate est = estimate_run(*f->space(arch), q, f->flops(v, q));
      CHECK(est.events >= 0.5 * static_cast<double>(runs[i].events));
      CHECK(est.events <= 2.0 * static_cast<double>(runs[i].events));
    }
    CHECK(runs[1].batch == 3);
    CHECK(runs[1].tiles == 3 * runs[0].tiles);
    CHECK(runs[1].compulsory_bytes == doctest::Approx(3 * runs[0].compulsory_bytes));
    CHECK(runs[1].intensity == doctest::Approx(runs[0].intensity));
    CHECK(runs[1].cycles > runs[0].cycles);
    CHECK(runs[1].cycles < 3 * runs[0].cycles);  // the batch fills the idle SMs
  }
}

// The block-scaled and blockwise FP8 families count a batch the same way,
// with any operand layout their MMA kind takes; NVFP4 refuses MN-major ones.
TEST_CASE("block-scaled families with --batch and --layout-*") {
  struct Case {
    const char* family;
    const char* format;  // "" for blockwise
    const char* layout_a;
    const char* layout_b;
  };
  for (const Case& c : {Case{"block_scaled_matmul", "mxfp8", "col", "row"},
                        Case{"block_scaled_matmul", "nvfp4", "row", "col"},
                        Case{"blockwise_fp8_matmul", "", "col", "col"}}) {
    CAPTURE(c.family);
    CAPTURE(c.format);
    const Family* f = find_family(c.family);
    REQUIRE(f != nullptr);
    RunResult runs[2];
    for (int i = 0; i < 2; ++i) {
      Values v;
      v.set("m", "300");
      v.set("n", "260");
      v.set("k", "256");
      if (*c.format != 0) v.set("format", c.format);
      if (i == 1) {
        v.set("batch", "3");
        v.set("layout-a", c.layout_a);
        v.set("layout-b", c.layout_b);
      }
      MatmulRequest q;
      q.arch = "sm100";
      REQUIRE(f->bind(v, q).empty());
      CHECK(q.batch == (i == 1 ? 3u : 1u));
      q.tile_n = f->space("sm100")->default_tile_n;
      q.stages = f->space("sm100")->default_stages;
      REQUIRE(f->validate(v, q) == "");
      const auto res = run_isolated(
          [&] { return boost::json::serialize(to_json(f->simulate(v, q))); }, 120);
      REQUIRE(res.ok);
      runs[i] = run_result_from_json(boost::json::parse(res.payload));
      REQUIRE(runs[i].status == "completed");
      const double tflops = f->flops(v, q) / (runs[i].predicted_time_us * 1e-6) / 1e12;
      CHECK(tflops == doctest::Approx(runs[i].tflops).epsilon(1e-9));
    }
    CHECK(runs[1].batch == 3);
    CHECK(runs[1].tiles == 3 * runs[0].tiles);
    CHECK(runs[1].compulsory_bytes == doctest::Approx(3 * runs[0].compulsory_bytes));
    CHECK(runs[1].a_mn_major == (std::string(c.layout_a) == "col"));
    CHECK(runs[1].b_mn_major == (std::string(c.layout_b) == "row"));
  }
  const Family* f = find_family("block_scaled_matmul");
  REQUIRE(f != nullptr);
  Values v;
  v.set("m", "128");
  v.set("n", "128");
  v.set("k", "256");
  v.set("format", "nvfp4");
  v.set("layout-b", "row");
  MatmulRequest q;
  q.arch = "sm100";
  REQUIRE(f->bind(v, q).empty());
  q.tile_n = 128;
  q.stages = 4;
  CHECK(f->validate(v, q).find("K-major operands only") != std::string::npos);
}

TEST_CASE("seeded bugs are corpus cases") {
  REQUIRE(!g_corpus_build.empty());
  size_t named = 0;
  for (const Family& f : families())
    for (const std::string& bug : f.seeded_bugs) {
      CAPTURE(bug);
      ++named;
      CHECK(g_corpus_build.find("corpus_pair(\"" + bug + "\"") != std::string::npos);
    }
  CHECK(named >= 10);
}

}  // namespace
}  // namespace sk::sim

extern "C" int sc_main(int argc, char* argv[]) {
  // argv[1]: verify/corpus/BUILD.
  auto slurp = [](const char* path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  if (argc > 1) sk::sim::g_corpus_build = slurp(argv[1]);
  doctest::Context ctx(argc - 1, argv + 1);
  return ctx.run();
}
