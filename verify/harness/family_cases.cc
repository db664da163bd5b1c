// family_cases.cc: every registered kernel family (runner/families) as an
// sk_verify_test kernel named "family.<name>", so a family is explored by
// Bazel without a case file of its own:
//
//   sk_verify_test(name = "conv2d_verify", kernel = "family.conv2d",
//                  deps = ["//verify/harness:families"],
//                  configs = ["n=2,h=9,w=11,c=37,k=70,r=3,s=3,pad=1"])
//
// Config keys are the family's fields (a choice field takes the index of its
// choice, a flag 0 or 1) and the run's: arch (index into the family's
// architectures), tile_n, stages (the architecture's defaults), out_f32, clc,
// variant (index into the architecture's kernels, such as mi300x's ping-pong
// and wave-specialized; default the first).
// Every run is functional, so the race detector and the reference check run.
//
// Invariants: a key that is neither a field nor a run key, a missing or
// out-of-range field, a field without the one it needs, and a request the
// family refuses each throw
// std::invalid_argument with a one-line reason (the harness reports it as
// an error, never as a clean run).
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "runner/families/registry.h"
#include "verify/harness/registry.h"

namespace sk::verify {
namespace {

sim::RunResult run_family(const sim::Family& f, const CaseConfig& cfg, uint64_t seed) {
  const std::string who = "family." + f.name + ": ";
  static const std::set<std::string> run_keys = {"arch", "tile_n", "stages", "out_f32", "clc",
                                                 "variant", "default"};
  for (const auto& [key, value] : cfg.values())
    if (f.field(key) == nullptr && run_keys.count(key) == 0)
      throw std::invalid_argument(who + "no field or run key '" + key + "'");
  // A choice is its index, a flag given when nonzero; fill_values checks the rest.
  const auto given = [&](const sim::Field& x) -> std::optional<std::string> {
    if (!cfg.has(x.name)) return std::nullopt;
    const int64_t n = cfg.get(x.name, 0);
    if (x.kind == sim::Field::Kind::kFlag && n == 0) return std::nullopt;
    if (x.kind != sim::Field::Kind::kChoice) return std::to_string(n);
    if (n < 0 || static_cast<size_t>(n) >= x.choices.size())
      throw std::invalid_argument(who + "'" + x.name + "' indexes " +
                                  std::to_string(x.choices.size()) + " choices");
    return x.choices[static_cast<size_t>(n)];
  };
  sim::Values v;
  if (std::string err = sim::fill_values(f, given, "", v); !err.empty())
    throw std::invalid_argument(who + err);
  const sim::ArchSpace& space =
      f.archs.at(cfg.get_in("arch", 0, 0, static_cast<int64_t>(f.archs.size()) - 1));
  sim::MatmulRequest q;
  q.arch = space.arch;
  if (std::string err = f.bind(v, q); !err.empty()) throw std::invalid_argument(who + err);
  q.tile_n = cfg.get_in("tile_n", space.default_tile_n, 1, 4096);
  q.stages = cfg.get_in("stages", space.default_stages, 2, 8);
  q.out_f32 = cfg.get("out_f32", 0) != 0;
  q.clc = cfg.get("clc", 0) != 0;
  if (!space.variants.empty())
    q.amd_kernel = space.variants.at(static_cast<size_t>(
        cfg.get_in("variant", 0, 0, static_cast<int64_t>(space.variants.size()) - 1)));
  else if (cfg.has("variant"))
    throw std::invalid_argument(who + "'variant': " + space.arch + " has one kernel");
  q.functional = true;
  q.seed = seed;
  if (std::string err = f.validate(v, q); !err.empty()) throw std::invalid_argument(who + err);
  return f.simulate(v, q);
}

bool register_all() {
  for (const sim::Family& f : sim::families())
    register_kernel("family." + f.name, f.display_name() + " (runner/families)",
                    [&f](const CaseConfig& cfg, uint64_t seed) { return run_family(f, cfg, seed); });
  return true;
}

const bool registered = register_all();

}  // namespace
}  // namespace sk::verify
