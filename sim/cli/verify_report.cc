// verify_report.cc: see verify_report.h.
#include "sim/cli/verify_report.h"

#include "sim/cli/exit_codes.h"

#include <fmt/format.h>

namespace sk::cli {

std::string replay_command(const RunArgs& in) {
  const sim::MatmulRequest& q = in.q;
  return fmt::format("sim run --kernel {} --arch {}{} --stages {}{} --tile-n {} --out-dtype {}{}{} "
                     "--functional",
                     in.kernel_name(), q.arch, in.problem.options(), q.stages,
                     q.tile_m != 128 ? fmt::format(" --tile-m {}", q.tile_m) : std::string(), q.tile_n,
                     q.out_f32 ? "f32" : "bf16", q.clc ? " --scheduler clc" : "",
                     q.arch == "mi300x" ? " --amd-kernel " + q.amd_kernel : std::string()) +
         (q.data_seed ? fmt::format(" --data-seed {}", *q.data_seed) : std::string());
}

std::string verify_header(const RunArgs& in) {
  const sim::MatmulRequest& base = in.q;
  // The SM100 2-SM kernel's tile is a CTA pair's.
  const bool pair = base.arch == "sm100" && base.cluster_m * base.cluster_n > 1;
  return fmt::format(
      "verify {} on {}: M={} N={} K={}, tile {}x{}{}, {} stages{}; seeds {}..{}, data seed {}\n",
      in.problem.family->display_name(), base.arch, base.m, base.n, base.k, pair ? 256 : base.tile_m,
      base.tile_n, pair ? " per CTA pair" : "", base.stages, base.clc ? ", CLC scheduler" : "",
      base.seed, base.seed + in.schedules - 1, base.operand_seed());
}

int verify_exit_code(const verify::ExploreReport& rep) {
  if (!rep.findings.empty() || !rep.errors.empty()) return kExitFindings;
  return rep.limited > 0 ? kExitLimit : kExitClean;
}

boost::json::object verify_to_json(const RunArgs& in, const verify::ExploreReport& rep) {
  const std::string replay = replay_command(in);
  boost::json::array fs;
  for (const auto& f : rep.findings) {
    boost::json::object o = sim::finding_to_json(f.finding);
    o["seed"] = f.seed;
    o["schedules"] = f.schedules;
    o["replay"] = fmt::format("{} --seed {}", replay, f.seed);
    fs.push_back(std::move(o));
  }
  boost::json::array errs;
  for (const auto& e : rep.errors) errs.push_back(boost::json::string(e));
  boost::json::object o{{"kernel", in.kernel_name()}, {"arch", in.q.arch},
                        {"explored", rep.explored},   {"findings", std::move(fs)},
                        {"errors", std::move(errs)}};
  o["data_seed"] = in.q.operand_seed();
  if (rep.limited > 0) o["limited"] = rep.limited;
  if (rep.orders > 0) o["sync_orders"] = rep.orders;
  return o;
}

}  // namespace sk::cli
