// detection_bench.cc: time to detection of every seeded bug in the corpus.
//
//   bazel run -c opt //verify/corpus:detection_bench [-- --schedules N]
//
// For each registered corpus.<bug> case (the correct twins excluded) it
// explores schedules from seed 0 until the first finding and prints the
// wall time, the seed and the first finding. Targets (issue): at most 0.5 s
// per entry, the whole corpus within 60 s on a 2-core machine.
#include <fmt/format.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "verify/explore/explorer.h"
#include "verify/harness/registry.h"
#include "verify/hb/install.h"

extern "C" int sc_main(int argc, char* argv[]) {
  sk::verify::install_race_detector();
  uint64_t schedules = 50;
  if (argc == 3 && std::string(argv[1]) == "--schedules") schedules = std::strtoull(argv[2], nullptr, 10);
  double total = 0, worst = 0;
  int entries = 0, missed = 0;
  std::cout << fmt::format("{:<32} {:>9} {:>6}  {}\n", "entry", "seconds", "seed", "first finding");
  for (const auto* k : sk::verify::kernels()) {
    const bool corpus = k->name.rfind("corpus.", 0) == 0 || k->name.rfind("corpus_sm90.", 0) == 0;
    if (!corpus || k->name == "corpus.fixed" || k->name == "corpus_sm90.fixed" ||
        k->name == "corpus.pre_arrive" || k->name == "corpus.retarget_a")
      continue;
    const auto cfg = sk::verify::CaseConfig::parse(
        k->name == "corpus.accumulator_reuse"  ? "m=512,n=128,k=256,ctas=1"
        : k->name == "corpus.tile_to_two_ctas" ? "m=256,n=128,k=128,ctas=2"
                                               : "");
    sk::verify::ExploreOptions o;
    for (uint64_t s = 0; s < schedules; ++s) o.seeds.push_back(s);
    o.jobs = 1;
    o.stop_on_first = true;
    const auto r = sk::verify::explore([&](uint64_t seed) { return k->run(cfg, seed); }, o);
    ++entries;
    total += r.wall_s;
    worst = std::max(worst, r.wall_s);
    if (!r.any_failing) ++missed;
    std::cout << fmt::format("{:<32} {:>9.3f} {:>6}  {}\n", k->name, r.wall_s,
                             r.any_failing ? std::to_string(r.first_failing_seed) : "-",
                             r.any_failing ? r.first_failing.front().cls + "/" +
                                                 r.first_failing.front().rule
                                           : "NOT DETECTED");
  }
  std::cout << fmt::format("{} entries, {} not detected; total {:.2f} s, worst {:.3f} s\n", entries,
                           missed, total, worst);
  return missed == 0 ? 0 : 1;
}
