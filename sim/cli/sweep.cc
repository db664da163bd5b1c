// sweep.cc: see sweep.h. Runs configurations in a process pool (one isolated
// process per configuration, run_isolated_pool), ranks them, and prints the
// table and JSON.
#include "sim/cli/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <tuple>

#include "sim/cli/args.h"
#include "sim/cli/exit_codes.h"
#include "sim/cli/options.h"
#include "sim/cli/params_option.h"
#include "engine/isolate.h"
#include "runner/kernels/matmul_dispatch.h"

namespace sk::cli {
namespace {

int group(const SweepPoint& p) { return !p.ran ? 2 : p.result.status != "completed" ? 1 : 0; }

// A run reports its tile; otherwise the family's fixed M and K show. A
// cluster other than 1 x 1 follows the tile ("128x256x64/2x1"), then the
// tile group where the sweep shows it ("128x256x64/2x1/g8").
std::string cluster_name(const sim::MatmulRequest& q) {
  return q.cluster_m * q.cluster_n > 1 ? fmt::format("{}x{}", q.cluster_m, q.cluster_n) : "";
}
std::string group_suffix(uint32_t tile_group, bool show) {
  if (!show) return "";
  return tile_group == 0 ? std::string("/gauto") : fmt::format("/g{}", tile_group);
}
// A tile group for the JSON: the number, or "auto" (0, the kernel's choice).
boost::json::value tile_group_json(uint32_t tile_group) {
  return tile_group == 0 ? boost::json::value("auto") : boost::json::value(tile_group);
}
// A K split over a cluster of S CTAs follows the rest ("128x128x64/splitk4",
// "/splitk2tail" with --split-tail), and the ping-pong schedule ends it
// ("128x128x64/gauto/pingpong").
std::string split_suffix(uint32_t split_k, bool tail) {
  return split_k > 1 ? fmt::format("/splitk{}{}", split_k, tail ? "tail" : "") : "";
}
std::string schedule_suffix(bool pingpong) { return pingpong ? "/pingpong" : ""; }
// A planned point's tile M: the request's where the sweep set another than
// the default 128 (--tile-m list), else the family's.
uint32_t planned_tile_m(uint32_t tile_m, const sim::ArchSpace& space) {
  return tile_m != 128 ? tile_m : space.tile_m;
}
std::string tile_name(const SweepPoint& p, const sim::ArchSpace& space, bool show_group) {
  const std::string c = cluster_name(p.q);
  const std::string t = p.ran ? fmt::format("{}x{}x{}", p.result.tile_m, p.result.tile_n, p.result.tile_k)
                              : fmt::format("{}x{}x{}", planned_tile_m(p.q.tile_m, space),
                                            p.q.tile_n, space.tile_k);
  return (c.empty() ? t : t + "/" + c) + group_suffix(p.q.tile_group, show_group) +
         split_suffix(p.q.split_k, p.q.split_tail) + schedule_suffix(p.q.pingpong);
}

}  // namespace

const char* kernel_schedule_name(bool pingpong) { return pingpong ? "pingpong" : "cooperative"; }

bool failed(const SweepPoint& p) { return group(p) != 0 || !p.result.findings.empty(); }

int sweep_exit_code(const std::vector<SweepPoint>& points) {
  bool limited = false;
  for (const SweepPoint& p : points) {
    const bool limit = p.ran && p.result.status == "limit" && p.result.findings.empty();
    if (failed(p) && !limit) return kExitFindings;
    limited = limited || limit;
  }
  return limited ? kExitLimit : kExitClean;
}

Sweep plan_sweep(const Problem& problem, const sim::MatmulRequest& base, const SweepAxes& axes) {
  Sweep s;
  const std::vector<std::string> kernels =
      axes.variants.empty() ? std::vector<std::string>{""} : axes.variants;
  const std::vector<ClusterDims> shapes =
      axes.clusters.empty() ? std::vector<ClusterDims>{{base.cluster_m, base.cluster_n}}
                            : axes.clusters;
  const std::vector<uint32_t> groups =
      axes.tile_groups.empty() ? std::vector<uint32_t>{base.tile_group} : axes.tile_groups;
  const std::vector<uint32_t> splits =
      axes.split_ks.empty() ? std::vector<uint32_t>{base.split_k} : axes.split_ks;
  const std::vector<bool> pingpongs =
      axes.pingpongs.empty() ? std::vector<bool>{base.pingpong} : axes.pingpongs;
  const std::vector<uint32_t> tile_ms =
      axes.tile_ms.empty() ? std::vector<uint32_t>{base.tile_m} : axes.tile_ms;
  for (uint32_t tm : tile_ms)
  for (const bool pp : pingpongs)
  for (uint32_t sk : splits)
  for (const ClusterDims& c : shapes)
    for (uint32_t g : groups)
      for (const std::string& v : kernels)
        for (uint32_t tn : axes.tile_ns)
          for (uint32_t st : axes.stages) {
            SweepPoint p;
            p.q = base;
            if (!v.empty()) p.q.amd_kernel = v;
            p.q.cluster_m = c.m;
            p.q.cluster_n = c.n;
            p.q.tile_group = g;
            p.q.split_k = sk;
            p.q.split_tail = base.split_tail && sk > 1;  // a tail of no split is no split
            p.q.pingpong = pp;
            p.q.tile_m = tm;
            p.q.tile_n = tn;
            p.q.stages = st;
            if (std::string why = problem.validate(p.q); !why.empty())
              s.skipped.push_back(Skipped{tn, st, why, v,
                                          axes.clusters.empty() ? "" : cluster_name(p.q), g, sk, pp,
                                          tm});
            else
              s.points.push_back(std::move(p));
          }
  return s;
}

bool show_tile_group(const Sweep& s, const sim::MatmulRequest& base) {
  bool show = base.tile_group != 1;
  for (const SweepPoint& p : s.points) show |= p.q.tile_group != 1;
  for (const Skipped& k : s.skipped) show |= k.tile_group != 1;
  return show;
}

void require_runnable(const Sweep& plan) {
  if (!plan.points.empty() || plan.skipped.empty()) return;
  const std::string& first = plan.skipped.front().reason;
  size_t others = 0;
  for (const Skipped& k : plan.skipped) others += k.reason != first ? 1 : 0;
  if (others == 0) throw UsageError(first);
  throw UsageError(fmt::format("no configuration of the sweep can run: {} (and {} with other reasons; "
                               "sim run with one configuration shows each)",
                               first, others));
}

void set_sweep_result(SweepPoint& p, const sim::IsolatedResult& res) {
  if (!res.ok) {
    p.error = res.error;
  } else {
    p.ran = true;
    p.result = sim::run_result_from_json(boost::json::parse(res.payload));
  }
}

void run_sweep_points(Sweep& s, const std::vector<size_t>& which, int jobs, double wall_limit_s,
                      const std::function<sim::RunResult(const sim::MatmulRequest&)>& run,
                      const std::function<void(size_t, const sim::IsolatedResult&)>& raw) {
  sim::run_isolated_pool(
      which.size(), jobs, wall_limit_s,
      [&](size_t i) { return boost::json::serialize(sim::to_json(run(s.points[which[i]].q))); },
      [&](size_t i, sim::IsolatedResult res) {
        if (raw) raw(which[i], res);
        set_sweep_result(s.points[which[i]], res);
        return true;
      });
}

void rank_sweep(Sweep& s) {
  std::stable_sort(s.points.begin(), s.points.end(), [](const SweepPoint& a, const SweepPoint& b) {
    const double ta = group(a) == 0 ? a.result.predicted_time_us : 0;
    const double tb = group(b) == 0 ? b.result.predicted_time_us : 0;
    return std::make_tuple(group(a), ta, a.q.tile_n, a.q.stages, a.q.amd_kernel, a.q.cluster_m,
                           a.q.cluster_n, a.q.tile_group, a.q.split_k, a.q.pingpong, a.q.tile_m) <
           std::make_tuple(group(b), tb, b.q.tile_n, b.q.stages, b.q.amd_kernel, b.q.cluster_m,
                           b.q.cluster_n, b.q.tile_group, b.q.split_k, b.q.pingpong, b.q.tile_m);
  });
}

Sweep run_sweep(const Problem& problem, const sim::MatmulRequest& base, const SweepAxes& axes,
                int jobs, double wall_limit_s,
                const std::function<sim::RunResult(const sim::MatmulRequest&)>& run) {
  const auto t0 = std::chrono::steady_clock::now();
  Sweep s = plan_sweep(problem, base, axes);
  std::vector<size_t> all(s.points.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  run_sweep_points(s, all, jobs, wall_limit_s, run);
  rank_sweep(s);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

std::string format_sweep_text(const Sweep& s, const Problem& problem,
                              const sim::MatmulRequest& base) {
  const sim::ArchSpace& space = problem.space(base.arch);
  std::string t = fmt::format(
      "sweep {} on {}: M={} N={} K={}, {} out, timing mode; {} configurations run, {} "
      "skipped\n",
      problem.family->display_name(), base.arch, base.m, base.n, base.k, base.out_f32 ? "f32" : "bf16", s.points.size(),
      s.skipped.size());
  // The kernel column appears where the architecture has several kernels.
  const bool kernels = !space.variants.empty();
  auto kernel_col = [kernels](const std::string& v) {
    return kernels ? fmt::format("{:<16}  ", v) : std::string();
  };
  // The tile column is as wide as its longest entry (a cluster or a tile
  // group widens it).
  const bool groups = show_tile_group(s, base);
  size_t tw = 10;
  for (const SweepPoint& p : s.points) tw = std::max(tw, tile_name(p, space, groups).size());
  auto row = [tw](const auto& rank, const auto& tile, const std::string& kernel, const auto&... cols) {
    return fmt::format("{:>4}  {:<{}}  {}", rank, tile, tw, kernel) +
           fmt::format("{:>6}  {:>12}  {:>7}  {:>9}  {:>9}  {}\n", cols...);
  };
  t += row("rank", "tile", kernel_col("kernel"), "stages", "predicted_us", "TFLOP/s", "% of peak",
           "overlap %", "bottleneck");
  for (size_t i = 0; i < s.points.size(); ++i) {
    const SweepPoint& p = s.points[i];
    if (!p.ran) {
      t += row(i + 1, tile_name(p, space, groups), kernel_col(p.q.amd_kernel), p.q.stages, "-",
               "-", "-", "-", "error: " + p.error);
      continue;
    }
    const sim::RunResult& r = p.result;
    std::string note = r.bottleneck;
    if (r.status != "completed") note += fmt::format("  [{}]", r.status);
    if (!r.findings.empty()) note += fmt::format("  [{} findings]", r.findings.size());
    t += row(i + 1, tile_name(p, space, groups), kernel_col(p.q.amd_kernel), r.stages,
             fmt::format("{:.2f}", r.predicted_time_us),
                     fmt::format("{:.1f}", r.tflops), fmt::format("{:.1f}", 100 * r.peak_fraction),
                     fmt::format("{:.1f}", r.overlap_pct), note);
  }
  if (!s.skipped.empty()) t += "skipped:\n";
  for (const Skipped& k : s.skipped)
    t += fmt::format("  {}x{}x{}{}{}{}{}{} stages {}: {}\n", planned_tile_m(k.tile_m, space), k.tile_n,
                     space.tile_k,
                     k.cluster.empty() ? "" : "/" + k.cluster, group_suffix(k.tile_group, groups),
                     split_suffix(k.split_k, base.split_tail), schedule_suffix(k.pingpong),
                     k.variant.empty() ? "" : " " + k.variant, k.stages, k.reason);
  // A best configuration that leaves most SMs idle on a K the tiles could
  // share: where the family has a K split and the sweep did not try one.
  if (const sim::Field* split = problem.family->field("split-k");
      split != nullptr && base.arch == "sm90" && !s.points.empty() && s.points[0].ran) {
    bool tried = base.split_k > 1;
    for (const SweepPoint& p : s.points) tried |= p.q.split_k > 1;
    const sim::RunResult& best = s.points[0].result;
    if (!tried && best.sms > 0 && 2 * best.ctas <= best.sms && base.k >= 8 * 64)
      t += fmt::format("note: the best configuration runs {} CTAs on {} SMs; --split-k 1,2,3,4,8 "
                       "(tile N 128) splits each tile's K over a cluster\n",
                       best.ctas, best.sms);
  }
  t += fmt::format("wall {:.2f} s\n", s.wall_s);
  return t;
}

boost::json::object sweep_to_json(const Sweep& s, const Problem& problem,
                                  const sim::MatmulRequest& base) {
  const sim::ArchSpace& space = problem.space(base.arch);
  bool any_cluster = false;  // the cluster column, when any point has one
  bool any_split = false;  // the split_k column, when any point or skipped one has one
  for (const SweepPoint& p : s.points) {
    any_cluster |= p.q.cluster_m * p.q.cluster_n > 1;
    any_split |= p.q.split_k > 1;
  }
  for (const Skipped& k : s.skipped) any_split |= k.split_k > 1;
  // "kernel_schedule" on every row where any row, run or skipped, is ping-pong.
  bool any_pingpong = false;
  for (const SweepPoint& p : s.points) any_pingpong |= p.q.pingpong;
  for (const Skipped& k : s.skipped) any_pingpong |= k.pingpong;
  const bool groups = show_tile_group(s, base);  // "tile_group" on every row
  boost::json::array results;
  for (const SweepPoint& p : s.points) {
    const sim::RunResult& r = p.result;
    boost::json::object o{{"tile_m", p.ran ? r.tile_m : planned_tile_m(p.q.tile_m, space)},
                          {"tile_n", p.ran ? r.tile_n : p.q.tile_n},
                          {"tile_k", p.ran ? r.tile_k : space.tile_k},
                          {"stages", p.q.stages},
                          {"out_dtype", base.out_f32 ? "f32" : "bf16"},
                          {"predicted_time_us", r.predicted_time_us},
                          {"tflops", r.tflops},
                          {"peak_fraction", r.peak_fraction},
                          {"overlap_pct", r.overlap_pct},
                          {"bottleneck", r.bottleneck},
                          {"status", p.ran ? r.status : std::string("error")},
                          {"findings", r.findings.size()}};
    if (!space.variants.empty()) o["amd_kernel"] = p.q.amd_kernel;
    if (p.q.cluster_m * p.q.cluster_n > 1 || base.cluster_m * base.cluster_n > 1 || any_cluster)
      o["cluster"] = fmt::format("{}x{}", p.q.cluster_m, p.q.cluster_n);
    if (groups) o["tile_group"] = tile_group_json(p.q.tile_group);
    if (any_split) o["split_k"] = p.q.split_k;
    if (p.q.split_tail) o["split_tail"] = true;
    if (any_pingpong) o["kernel_schedule"] = kernel_schedule_name(p.q.pingpong);
    if (!p.ran) o["error"] = p.error;
    results.push_back(std::move(o));
  }
  boost::json::array skipped;
  for (const Skipped& k : s.skipped) {
    boost::json::object o{{"tile_m", planned_tile_m(k.tile_m, space)},
                          {"tile_n", k.tile_n},
                          {"stages", k.stages},
                          {"reason", k.reason}};
    if (!k.variant.empty()) o["amd_kernel"] = k.variant;
    if (!k.cluster.empty()) o["cluster"] = k.cluster;
    if (groups) o["tile_group"] = tile_group_json(k.tile_group);
    if (any_split) o["split_k"] = k.split_k;
    if (any_pingpong) o["kernel_schedule"] = kernel_schedule_name(k.pingpong);
    skipped.push_back(std::move(o));
  }
  boost::json::object doc{{"kernel", problem.kernel()}, {"arch", base.arch},
                          {"m", base.m},                {"n", base.n},
                          {"k", base.k},                {"results", std::move(results)},
                          {"skipped", std::move(skipped)}};
  if (boost::json::object extra = problem.extra_json(); !extra.empty())
    doc["problem"] = std::move(extra);
  return doc;
}

po::options_description sweep_options() {
  po::options_description opts("sim sweep options");
  add_family_options(opts);
  opts.add_options()
      ("stages", po::value<std::string>(),
       "stage counts: a list (2,4,6) or a range (2-8); default: the family's range on --arch")
      ("tile-n", po::value<std::string>(),
       "tile widths: a list or range of those the family has on --arch (default: all of them)")
      ("tile-m", po::value<std::string>(),
       "--kernel matmul --arch sm90: tile heights, a list of 128, 192 and 256 (192 and 256: the "
       "consumer warpgroups split the tile along N, tile N 128 only; default 128)")
      ("out-dtype", po::value<std::string>()->default_value("bf16"), "output type: bf16 or f32")
      ("amd-kernel", po::value<std::string>(),
       "--arch mi300x: the kernels to sweep, a comma list of pingpong and wave_specialized "
       "(default: both)")
      ("jobs", po::value<std::string>()->default_value("2"), "simulations run in parallel")
      ("json", po::value<std::string>(), "write the ranked results as JSON to FILE, or - for stdout")
      ("wall-limit", po::value<std::string>()->default_value("600"),
       "wall-clock seconds for each configuration (then it stops with status limit)");
  add_params_option(opts);
  add_sm_clock_option(opts);
  add_progress_options(opts);
  add_slurm_options(opts);
  return opts;
}

SweepArgs parse_sweep_args(int argc, char** argv) {
  const po::options_description opts = sweep_options();
  const po::options_description hidden = slice_options();
  const po::variables_map vm = parse_options(argc, argv, "sweep", opts, &hidden);
  SweepArgs a;
  a.help = print_help(vm, "sweep", opts);
  if (a.help) return a;
  // --cluster, --tile-group, --split-k and --kernel-schedule take a list
  // here: the first stands for the problem, the sweep runs each once. Each
  // value is checked as the family's field checks one (parse_field); a family
  // without the field refuses the option in parse_problem.
  std::map<std::string, std::string> first;
  const sim::Family* fam = sim::find_family(vm["kernel"].as<std::string>());
  const sim::Field* cluster_field = fam != nullptr ? fam->field("cluster") : nullptr;
  if (vm.count("cluster")) {
    for (const std::string& c : comma_items(vm["cluster"].as<std::string>())) {
      if (first.count("cluster") == 0) first["cluster"] = c;
      // Each value must be one of the family's cluster choices.
      if (cluster_field != nullptr)
        if (std::string err = sim::parse_field(*cluster_field, c); !err.empty())
          throw UsageError(err);
      if (c.size() == 3 && c[1] == 'x') {
        const ClusterDims d{static_cast<uint32_t>(c[0] - '0'), static_cast<uint32_t>(c[2] - '0')};
        bool dup = false;
        for (const ClusterDims& e : a.clusters) dup |= e.m == d.m && e.n == d.n;
        if (!dup) a.clusters.push_back(d);
      }
    }
  }
  // A list of a field's values (--tile-group, --split-k, --kernel-schedule):
  // each checked as the family's field, read by `value`, kept once, in order.
  const auto list_axis = [&](const char* name, auto& out, const auto& value) {
    const sim::Field* field = fam != nullptr ? fam->field(name) : nullptr;
    if (!vm.count(name) || field == nullptr) return;
    for (const std::string& item : comma_items(vm[name].as<std::string>())) {
      if (first.count(name) == 0) first[name] = item;
      if (std::string err = sim::parse_field(*field, item); !err.empty()) throw UsageError(err);
      const auto v = value(item);
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
  };
  // A word ("auto") reads as 0.
  const auto uint_of = [](const std::string& item) {
    return static_cast<uint32_t>(sim::uint_value(item));
  };
  list_axis("tile-group", a.tile_groups, uint_of);
  list_axis("split-k", a.split_ks, uint_of);
  list_axis("kernel-schedule", a.pingpongs,
            [](const std::string& item) { return item == kernel_schedule_name(true); });
  a.problem = parse_problem(vm, "sweep", a.base, first);
  if (vm.count("tile-m")) {
    if (a.base.arch != "sm90" || a.problem.family->name != "matmul")
      throw UsageError("--tile-m needs --kernel matmul --arch sm90");
    for (uint64_t v : parse_uint_list("--tile-m", vm["tile-m"].as<std::string>(), 1, 4096, {128, 192, 256}))
      if (std::find(a.tile_ms.begin(), a.tile_ms.end(), v) == a.tile_ms.end())
        a.tile_ms.push_back(static_cast<uint32_t>(v));
  }
  // --split-tail applies to the sweep's splits over 1: without one it would
  // change nothing.
  if (a.base.split_tail && a.base.split_k <= 1 &&
      std::none_of(a.split_ks.begin(), a.split_ks.end(), [](uint32_t s) { return s > 1; }))
    throw UsageError("--split-tail splits the last wave's tiles over the K split's cluster; give "
                     "--split-k with a split over 1 (e.g. 1,2,3)");
  load_params_option(vm, a.base.arch);
  const sim::ArchSpace& space = a.problem.space(a.base.arch);
  if (vm.count("stages")) {
    for (uint64_t v : parse_uint_list("--stages", vm["stages"].as<std::string>(), 2, 8))
      a.stages.push_back(static_cast<uint32_t>(v));
  } else {
    for (uint32_t v = space.stages_lo; v <= space.stages_hi; ++v) a.stages.push_back(v);
  }
  if (vm.count("tile-n")) {
    const std::vector<uint64_t> widths(space.tile_ns.begin(), space.tile_ns.end());
    for (uint64_t v : parse_uint_list("--tile-n", vm["tile-n"].as<std::string>(), 1, 4096, widths))
      a.tile_ns.push_back(static_cast<uint32_t>(v));
  } else {
    a.tile_ns = space.tile_ns;
  }
  a.base.out_f32 = parse_out_f32(vm);
  const SmClocks clocks = parse_sm_clock(vm, a.base.arch);
  a.base.sm_clock_ghz = clocks.tensor_ghz;
  a.base.rest_clock_ghz = clocks.rest_ghz;
  if (vm.count("amd-kernel") && space.variants.empty())
    throw UsageError(fmt::format("--amd-kernel: {} on {} has one kernel (--arch mi300x has two)",
                                 a.problem.family->name, a.base.arch));
  if (!space.variants.empty()) {
    if (!vm.count("amd-kernel")) {
      a.variants = space.variants;
    } else {
      for (const std::string& v : comma_items(vm["amd-kernel"].as<std::string>())) {
        if (std::find(space.variants.begin(), space.variants.end(), v) == space.variants.end())
          throw UsageError(fmt::format("--amd-kernel: '{}' is not one of {}", v,
                                       sim::joined(space.variants, ", ")));
        if (std::find(a.variants.begin(), a.variants.end(), v) == a.variants.end())
          a.variants.push_back(v);
      }
    }
  }
  a.jobs = static_cast<int>(parse_uint("--jobs", vm["jobs"].as<std::string>(), 1, 64));
  a.wall =
      static_cast<double>(parse_uint("--wall-limit", vm["wall-limit"].as<std::string>(), 1, 86400));
  a.base.wall_limit_s = a.wall;
  a.json_path = parse_json_path(vm);
  a.progress = parse_progress(vm);
  a.dist = parse_distributed_args(vm, argc, argv, "sweep");
  return a;
}

int sweep_locally(const SweepArgs& a) {
  const sim::MatmulRequest& base = a.base;
  const std::string& json_path = a.json_path;
  const Problem& problem = a.problem;
  // run_sweep, with the estimate before and done/total during.
  const auto t0 = std::chrono::steady_clock::now();
  Sweep s = plan_sweep(problem, base, a.axes());
  require_runnable(s);
  double est_s = 0;
  for (const SweepPoint& p : s.points) est_s += problem.estimate(p.q).wall_s;
  est_s /= std::max<double>(1, std::min<double>(a.jobs, static_cast<double>(s.points.size())));
  if (est_s > sim::kAnnounceWallS)
    std::cerr << "sim sweep: "
              << batch_estimate_line(s.points.size(), "configurations", est_s, a.jobs, a.wall) << "\n";
  {
    DoneCounter counter("sim sweep", "configurations", s.points.size(), a.progress);
    std::vector<size_t> all(s.points.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    run_sweep_points(s, all, a.jobs, a.wall,
                     [&problem](const sim::MatmulRequest& q) { return problem.run(q); },
                     [&counter](size_t, const sim::IsolatedResult&) { counter.done(); });
  }
  rank_sweep(s);
  s.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!json_path.empty())
    write_output("--json", json_path, boost::json::serialize(sweep_to_json(s, problem, base)));
  std::ostream& text = json_path == "-" ? std::cerr : std::cout;
  text << format_sweep_text(s, problem, base);
  return sweep_exit_code(s.points);
}

}  // namespace sk::cli
