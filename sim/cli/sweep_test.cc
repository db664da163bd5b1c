// sweep_test.cc: `sim sweep` pieces on synthetic runs (no simulation): list
// and range parsing, skipping configurations that do not fit, ranking, a
// configuration whose process dies, the JSON and text forms, the cluster and
// tile-group axes, and a sweep split in slices and merged.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdlib>

#include "sim/cli/args.h"
#include "sim/cli/sweep.h"

namespace sk::cli {
namespace {

std::vector<uint64_t> list(const char* text) { return parse_uint_list("--stages", text, 2, 8); }

std::string list_error(const char* text, std::vector<uint64_t> allowed = {}) {
  try {
    parse_uint_list("--x", text, 2, 300, allowed);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

sim::RunResult fake(const sim::MatmulRequest& q) {
  if (q.tile_n == 64 && q.stages == 3) _exit(3);  // this configuration's process dies
  sim::RunResult r;
  r.status = "completed";
  r.tile_m = q.tile_m;
  r.tile_n = q.tile_n;
  r.tile_k = 64;
  r.stages = q.stages;
  r.bottleneck = "mma";
  // Faster with more stages and wider tiles; 128x2 ties with 256x... never.
  r.predicted_time_us = 100.0 / (q.stages * q.tile_n) * 128.0 / q.tile_m;
  if (q.tile_n == 128 && q.stages == 4) r.findings.push_back(sim::Finding{});
  return r;
}

}  // namespace

// The matmul family's problem for 256^3 (the registry's, runner/families).
Problem matmul_256() {
  sim::Values v;
  for (const char* f : {"m", "n", "k"}) v.set(f, "256");
  return make_problem("matmul", v);
}

TEST_CASE("lists and ranges") {
  CHECK(list("2-8") == std::vector<uint64_t>{2, 3, 4, 5, 6, 7, 8});
  CHECK(list("4,2,4") == std::vector<uint64_t>{2, 4});
  CHECK(list("2-3,7") == std::vector<uint64_t>{2, 3, 7});
  CHECK(list("5") == std::vector<uint64_t>{5});
  CHECK(parse_uint_list("--t", "64-256", 1, 4096, {64, 128, 256}) ==
        std::vector<uint64_t>{64, 128, 256});
  CHECK(list_error("4-2").find("goes down") != std::string::npos);
  CHECK(list_error("1-3").find("[2, 300]") != std::string::npos);
  CHECK(list_error("x").find("whole number") != std::string::npos);
  for (const char* bad : {"", "2,", ",2", "2,,3", "2-", "-2", "2-3-4"})
    CHECK(list_error(bad).find("list like") != std::string::npos);
  CHECK(list_error("96", {64, 128, 256}).find("not supported") != std::string::npos);
  CHECK(list_error("65-100", {64, 128, 256}).find("no supported") != std::string::npos);
}

TEST_CASE("a sweep ranks, skips and reports errors") {
  sim::MatmulRequest base;
  base.m = base.n = base.k = 256;
  const Problem matmul = matmul_256();
  // 256 x 5 stages does not fit in shared memory.
  const Sweep s = run_sweep(matmul, base, {{64, 128, 256}, {3, 4, 5}}, 3, 60, fake);
  REQUIRE(s.skipped.size() == 1);
  CHECK(s.skipped[0].tile_n == 256);
  CHECK(s.skipped[0].stages == 5);
  CHECK(s.skipped[0].reason.find("shared memory") != std::string::npos);
  REQUIRE(s.points.size() == 8);
  for (size_t i = 0; i + 2 < s.points.size(); ++i)
    CHECK(s.points[i].result.predicted_time_us <= s.points[i + 1].result.predicted_time_us);
  CHECK(s.points[0].q.tile_n == 256);
  CHECK(s.points[0].q.stages == 4);
  const SweepPoint& last = s.points.back();
  CHECK(!last.ran);
  CHECK(last.q.tile_n == 64);
  CHECK(last.q.stages == 3);
  CHECK(failed(last));
  size_t failing = 0;
  for (const auto& p : s.points) failing += failed(p);
  CHECK(failing == 2);

  const boost::json::object j = sweep_to_json(s, matmul, base);
  CHECK(j.at("results").as_array().size() == 8);
  CHECK(j.at("skipped").as_array().size() == 1);
  const auto& first = j.at("results").as_array()[0].as_object();
  CHECK(first.at("tile_n").to_number<int>() == 256);
  CHECK(first.at("status").as_string() == "completed");
  CHECK(j.at("results").as_array()[7].as_object().at("status").as_string() == "error");

  const std::string text = format_sweep_text(s, matmul, base);
  CHECK(text.find("rank") != std::string::npos);
  CHECK(text.find("128x256x64") != std::string::npos);
  CHECK(text.find("[1 findings]") != std::string::npos);
  CHECK(text.find("error: ") != std::string::npos);
  CHECK(text.find("skipped:") != std::string::npos);
}

TEST_CASE("a sweep over clusters runs every cluster shape, names it and skips where it cannot run") {
  // --arch sm90 --cluster 1x1,2x1,2x2: each tile and stage count per cluster;
  // an MN-major A is refused with a cluster, so only 1x1 runs then.
  sim::MatmulRequest base;
  base.arch = "sm90";
  base.m = base.n = base.k = 256;
  const Problem matmul = matmul_256();
  const std::vector<ClusterDims> clusters{{1, 1}, {2, 1}, {2, 2}};
  const Sweep s = plan_sweep(matmul, base, {{128, 256}, {3, 4}, {}, clusters});
  CHECK(s.skipped.empty());
  REQUIRE(s.points.size() == 12);
  int pairs = 0, quads = 0;
  for (const auto& p : s.points) {
    pairs += p.q.cluster_m == 2 && p.q.cluster_n == 1;
    quads += p.q.cluster_m == 2 && p.q.cluster_n == 2;
  }
  CHECK(pairs == 4);
  CHECK(quads == 4);
  base.a_mn_major = true;
  const Sweep mn = plan_sweep(matmul, base, {{128, 256}, {3, 4}, {}, clusters});
  CHECK(mn.points.size() == 4);
  REQUIRE(mn.skipped.size() == 8);
  CHECK(mn.skipped[0].cluster == "2x1");
  CHECK(mn.skipped[0].reason.find("K-major") != std::string::npos);
  const std::string text = format_sweep_text(mn, matmul, base);
  CHECK(text.find("128x128x64/2x1 stages 3") != std::string::npos);
  const boost::json::object j = sweep_to_json(mn, matmul, base);
  CHECK(j.at("skipped").as_array()[0].as_object().at("cluster").as_string() == "2x1");
}

// Plans, runs each of three slices' points keeping what their processes
// returned, sets the results on a fresh plan and ranks it: what a Slurm job
// does (sim/cli/distributed.h). The merged JSON must be the local sweep's.
void check_sliced_sweep_is_whole(const Problem& problem, const sim::MatmulRequest& base,
                                 const SweepAxes& axes) {
  const Sweep whole = run_sweep(problem, base, axes, 2, 60, fake);
  Sweep merged = plan_sweep(problem, base, axes);
  REQUIRE(merged.points.size() == whole.points.size());
  for (uint32_t slice = 0; slice < 3; ++slice) {
    Sweep part = plan_sweep(problem, base, axes);
    std::vector<size_t> which;
    for (size_t i = slice; i < part.points.size(); i += 3) which.push_back(i);
    run_sweep_points(part, which, 1, 60, fake, [&](size_t i, const sim::IsolatedResult& r) {
      set_sweep_result(merged.points[i], r);
    });
  }
  rank_sweep(merged);
  CHECK(boost::json::serialize(sweep_to_json(merged, problem, base)) ==
        boost::json::serialize(sweep_to_json(whole, problem, base)));
  CHECK(sweep_to_json(whole, problem, base).count("wall_s") == 0);
}

TEST_CASE("a sweep run in slices and merged is the whole sweep") {
  sim::MatmulRequest base;
  base.m = base.n = base.k = 256;
  check_sliced_sweep_is_whole(matmul_256(), base, {{64, 128, 256}, {3, 4, 5}});
}

// `sim sweep ARGS...` parsed (parse_sweep_args).
SweepArgs parse_sweep(std::vector<std::string> args) {
  args.insert(args.begin(), "sweep");
  std::vector<char*> argv;
  for (std::string& t : args) argv.push_back(t.data());
  argv.push_back(nullptr);
  return parse_sweep_args(static_cast<int>(args.size()), argv.data());
}

std::string sweep_error(std::vector<std::string> args) {
  try {
    parse_sweep(std::move(args));
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("a sweep over tile groups runs every group once, names it and is the same sliced") {
  // sim sweep --arch sm90 --m 256 --n 256 --k 256 --tile-n 128,256 --stages 3,4
  //   --tile-group 1,4,8,4: the first stands for the problem, 4 runs once.
  const SweepArgs a = parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256",
                                   "--tile-n", "128,256", "--stages", "3,4", "--tile-group",
                                   "1,4,8,4"});
  CHECK(a.tile_groups == std::vector<uint32_t>{1, 4, 8});
  CHECK(a.base.tile_group == 1);
  CHECK(parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256", "--tile-group",
                     "8,1"})
            .base.tile_group == 8);
  // auto (the kernel's own order, 0) is an axis value like the numbers.
  CHECK(parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256", "--tile-group",
                     "auto,1"})
            .tile_groups == std::vector<uint32_t>{0, 1});
  const Sweep s = plan_sweep(a.problem, a.base, a.axes());
  CHECK(s.skipped.empty());
  REQUIRE(s.points.size() == 2 * 2 * 3);
  for (uint32_t g : {1u, 4u, 8u})
    for (uint32_t tn : {128u, 256u})
      for (uint32_t st : {3u, 4u}) {
        int n = 0;
        for (const auto& p : s.points)
          n += p.q.tile_group == g && p.q.tile_n == tn && p.q.stages == st;
        CHECK_MESSAGE(n == 1, "group ", g, " tile ", tn, " stages ", st);
      }

  // Ranked, named in the table and in every JSON row; equal times rank by
  // group (planned 8, 4, 1 here, so the plan's order does not give it).
  SweepAxes down = a.axes();
  down.tile_groups = {8, 4, 1};
  const Sweep ranked = run_sweep(a.problem, a.base, down, 2, 60, fake);
  REQUIRE(ranked.points.size() == 12);
  CHECK(ranked.points[0].q.tile_group == 1);
  CHECK(ranked.points[1].q.tile_group == 4);
  CHECK(ranked.points[2].q.tile_group == 8);
  const std::string text = format_sweep_text(ranked, a.problem, a.base);
  CHECK(text.find("128x256x64/g1 ") != std::string::npos);
  CHECK(text.find("128x256x64/g8 ") != std::string::npos);
  const boost::json::object j = sweep_to_json(ranked, a.problem, a.base);
  for (const auto& r : j.at("results").as_array())
    CHECK(r.as_object().count("tile_group") == 1);
  CHECK(j.at("results").as_array()[2].as_object().at("tile_group").to_number<int>() == 8);

  // A group the arch refuses is skipped and named (sm100 walks along M only).
  const SweepArgs b = parse_sweep({"--arch", "sm100", "--m", "256", "--n", "256", "--k", "256",
                                   "--tile-n", "128", "--stages", "4", "--tile-group", "1,4,8"});
  const Sweep refused = plan_sweep(b.problem, b.base, b.axes());
  REQUIRE(refused.points.size() == 1);
  REQUIRE(refused.skipped.size() == 2);
  CHECK(refused.skipped[0].tile_group == 4);
  CHECK(format_sweep_text(refused, b.problem, b.base)
            .find("128x128x64/g4 stages 4: --tile-group 4") != std::string::npos);
  CHECK(sweep_to_json(refused, b.problem, b.base)
            .at("skipped").as_array()[1].as_object().at("tile_group").to_number<int>() == 8);

  // Without a list, or with --tile-group 1, no row names a group.
  const SweepArgs plain = parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256",
                                       "--tile-n", "128", "--stages", "4", "--tile-group", "1"});
  const Sweep one = run_sweep(plain.problem, plain.base, plain.axes(), 1, 60, fake);
  CHECK(format_sweep_text(one, plain.problem, plain.base).find("/g") == std::string::npos);
  CHECK(sweep_to_json(one, plain.problem, plain.base)
            .at("results").as_array()[0].as_object().count("tile_group") == 0);
  // One group other than 1 is named.
  const SweepArgs eight = parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256",
                                       "--tile-n", "128", "--stages", "4", "--tile-group", "8"});
  const Sweep g8 = run_sweep(eight.problem, eight.base, eight.axes(), 1, 60, fake);
  CHECK(format_sweep_text(g8, eight.problem, eight.base).find("128x128x64/g8") !=
        std::string::npos);

  // Sliced over machines and merged, the same points and JSON.
  check_sliced_sweep_is_whole(a.problem, a.base, a.axes());
}

TEST_CASE("a sweep over the SM90 schedules runs each, names ping-pong and skips its wide tiles") {
  // sim sweep --arch sm90 --m 256 --n 256 --k 256 --tile-n 128,256 --stages 3,4
  //   --kernel-schedule cooperative,pingpong,cooperative: each once, the first for the problem.
  const SweepArgs a = parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256",
                                   "--tile-n", "128,256", "--stages", "3,4", "--kernel-schedule",
                                   "cooperative,pingpong,cooperative"});
  CHECK(a.pingpongs == std::vector<bool>{false, true});
  CHECK_FALSE(a.base.pingpong);
  CHECK(parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256", "--kernel-schedule",
                     "pingpong,cooperative"})
            .base.pingpong);
  // Ping-pong holds a 128 x 128 tile a warpgroup: its 256-wide rows are skipped, with the reason.
  const Sweep plan = plan_sweep(a.problem, a.base, a.axes());
  REQUIRE(plan.points.size() == 2 * 2 + 2);
  REQUIRE(plan.skipped.size() == 2);
  for (const Skipped& k : plan.skipped) {
    CHECK(k.pingpong);
    CHECK(k.tile_n == 256);
  }
  const Sweep s = run_sweep(a.problem, a.base, a.axes(), 2, 60, fake);
  const std::string text = format_sweep_text(s, a.problem, a.base);
  CHECK(text.find("128x128x64/pingpong ") != std::string::npos);
  CHECK(text.find("128x256x64/pingpong stages 3: --pingpong") != std::string::npos);
  CHECK(text.find("128x256x64 ") != std::string::npos);
  const boost::json::object j = sweep_to_json(s, a.problem, a.base);
  int pingpong_rows = 0;
  for (const auto& r : j.at("results").as_array()) {
    const std::string sched(r.as_object().at("kernel_schedule").as_string());
    CHECK((sched == "pingpong" || sched == "cooperative"));
    pingpong_rows += sched == "pingpong";
  }
  CHECK(pingpong_rows == 2);
  CHECK(j.at("skipped").as_array()[0].as_object().at("kernel_schedule").as_string() == "pingpong");
  // A cooperative sweep names no schedule; a bad one, or one against --pingpong, is refused.
  const SweepArgs coop = parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256",
                                      "--tile-n", "128", "--stages", "4"});
  const Sweep c = run_sweep(coop.problem, coop.base, coop.axes(), 1, 60, fake);
  CHECK(format_sweep_text(c, coop.problem, coop.base).find("pingpong") == std::string::npos);
  CHECK(sweep_to_json(c, coop.problem, coop.base)
            .at("results").as_array()[0].as_object().count("kernel_schedule") == 0);
  CHECK(sweep_error({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256", "--kernel-schedule",
                     "cooperative,pong"})
            .find("pong") != std::string::npos);
  CHECK(sweep_error({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256", "--pingpong",
                     "--kernel-schedule", "cooperative,pingpong"})
            .find("contradict") != std::string::npos);
  CHECK(sweep_error({"--m", "256", "--n", "256", "--k", "256", "--kernel-schedule", "pingpong"})
            .find("--kernel-schedule needs --arch sm90") != std::string::npos);

  // Sliced over machines and merged, the same points and JSON.
  check_sliced_sweep_is_whole(a.problem, a.base, a.axes());
}

TEST_CASE("a sweep with --split-tail splits the last wave of its split points only") {
  const SweepArgs a = parse_sweep({"--arch", "sm90", "--m", "2048", "--n", "2048", "--k", "1024",
                                   "--tile-n", "128", "--stages", "4", "--split-k", "1,2",
                                   "--split-tail"});
  const Sweep s = plan_sweep(a.problem, a.base, a.axes());
  REQUIRE(s.points.size() == 2);
  CHECK_FALSE(s.points[0].q.split_tail);  // no split: nothing to split at the tail
  CHECK(s.points[1].q.split_k == 2);
  CHECK(s.points[1].q.split_tail);
  const std::string text = format_sweep_text(s, a.problem, a.base);
  CHECK(text.find("128x128x64/splitk2tail") != std::string::npos);
  const boost::json::object j = sweep_to_json(s, a.problem, a.base);
  CHECK_FALSE(j.at("results").as_array()[0].as_object().contains("split_tail"));
  CHECK(j.at("results").as_array()[1].as_object().at("split_tail").as_bool());
  CHECK(sweep_error({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "1024", "--split-tail"})
            .find("--split-tail") != std::string::npos);
}

TEST_CASE("a bad tile group in the sweep's list is a one-line usage error") {
  const std::vector<std::string> shape{"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256",
                                       "--tile-group"};
  for (const char* bad : {"0", "x", "1,0", "4,x", "1,,4", "1,", "257"}) {
    std::vector<std::string> args = shape;
    args.push_back(bad);
    const std::string err = sweep_error(args);
    CHECK_MESSAGE(err.find("--tile-group") != std::string::npos, bad, ": ", err);
    CHECK(err.find('\n') == std::string::npos);
  }
  CHECK(sweep_error({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256", "--tile-group",
                     "1,256"}) == "");
}

TEST_CASE("a sweep over K splits runs each split, names it and skips the tiles it cannot run") {
  // sim sweep --arch sm90 --m 256 --n 256 --k 1024 --tile-n 128,256 --stages 3,4
  //   --split-k 1,4,2,4: the first stands for the problem, 4 runs once; the
  //   split runs with 128-column tiles only.
  const SweepArgs a = parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "1024",
                                   "--tile-n", "128,256", "--stages", "3,4", "--split-k",
                                   "1,4,2,4"});
  CHECK(a.split_ks == std::vector<uint32_t>{1, 4, 2});
  CHECK(a.base.split_k == 1);
  const Sweep s = plan_sweep(a.problem, a.base, a.axes());
  REQUIRE(s.points.size() == 4 + 2 + 2);  // split 1: both tiles; 4 and 2: 128 only
  REQUIRE(s.skipped.size() == 4);
  for (const Skipped& k : s.skipped) {
    CHECK(k.tile_n == 256);
    CHECK(k.split_k > 1);
    CHECK(k.reason.find("tile N 128") != std::string::npos);
  }
  const std::string text = format_sweep_text(s, a.problem, a.base);
  CHECK(text.find("128x256x64/splitk4 stages 3") != std::string::npos);
  const boost::json::object j = sweep_to_json(s, a.problem, a.base);
  CHECK(j.at("results").as_array()[0].as_object().contains("split_k"));
  CHECK(j.at("skipped").as_array()[0].as_object().at("split_k").to_number<int64_t>() == 4);
  CHECK_THROWS_AS(parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "1024",
                               "--split-k", "1,5"}),
                  UsageError);

  // Without --split-k, a best configuration on under half the SMs with K of
  // 8 k-blocks or more gets a note that points to it; with it, none.
  const SweepArgs plain = parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "1024",
                                       "--tile-n", "128", "--stages", "4"});
  Sweep few = plan_sweep(plain.problem, plain.base, plain.axes());
  REQUIRE(few.points.size() == 1);
  few.points[0].ran = true;
  few.points[0].result.status = "completed";
  few.points[0].result.ctas = 4;
  few.points[0].result.sms = 132;
  CHECK(format_sweep_text(few, plain.problem, plain.base).find("note: the best configuration runs 4 "
                                                                "CTAs on 132 SMs; --split-k") !=
        std::string::npos);
  few.points[0].q.split_k = 2;
  CHECK(format_sweep_text(few, plain.problem, plain.base).find("note:") == std::string::npos);
}

// libsystemc (linked through //engine) provides main() and calls sc_main.
extern "C" int sc_main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  doctest::Context ctx(argc, argv);
  return ctx.run();
}

TEST_CASE("a sweep over the SM90 tile heights runs each and skips the N split's wide tiles") {
  // sim sweep --arch sm90 --m 256 --n 256 --k 256 --tile-n 128,256 --stages 3,4 --tile-m 256,128,256
  const SweepArgs a = parse_sweep({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256",
                                   "--tile-n", "128,256", "--stages", "3,4", "--tile-m", "256,128,256"});
  CHECK(a.tile_ms == std::vector<uint32_t>{128, 256});
  // The split along N holds tile N 128 only: 256 x 256 is skipped, with the reason.
  const Sweep plan = plan_sweep(a.problem, a.base, a.axes());
  REQUIRE(plan.points.size() == 2 * 2 + 2);
  REQUIRE(plan.skipped.size() == 2);
  for (const Skipped& k : plan.skipped) {
    CHECK(k.tile_m == 256);
    CHECK(k.tile_n == 256);
    CHECK_FALSE(k.reason.empty());
  }
  const Sweep s = run_sweep(a.problem, a.base, a.axes(), 2, 60, fake);
  const std::string text = format_sweep_text(s, a.problem, a.base);
  CHECK(text.find("256x128x64 ") != std::string::npos);
  CHECK(text.find("256x256x64 stages 3: ") != std::string::npos);
  CHECK(text.find("128x256x64 ") != std::string::npos);
  const boost::json::object j = sweep_to_json(s, a.problem, a.base);
  int tall = 0;
  for (const auto& r : j.at("results").as_array()) tall += r.as_object().at("tile_m").as_uint64() == 256;
  CHECK(tall == 2);
  for (const auto& k : j.at("skipped").as_array()) CHECK(k.as_object().at("tile_m").as_uint64() == 256);
  // Another height, another architecture or another family is refused.
  CHECK(sweep_error({"--arch", "sm90", "--m", "256", "--n", "256", "--k", "256", "--tile-m", "64"})
            .find("--tile-m") != std::string::npos);
  CHECK(sweep_error({"--arch", "sm100", "--m", "256", "--n", "256", "--k", "256", "--tile-m", "192"})
            .find("--tile-m needs --kernel matmul --arch sm90") != std::string::npos);

  // Sliced over machines and merged, the same points and JSON.
  check_sliced_sweep_is_whole(a.problem, a.base, a.axes());
}

}  // namespace sk::cli
