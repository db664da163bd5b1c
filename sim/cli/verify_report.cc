// verify_report.cc: see verify_report.h.
#include "sim/cli/verify_report.h"

#include <fmt/format.h>

namespace sk::cli {

std::string replay_command(const MatmulArgs& in) {
  const sim::MatmulRequest& q = in.q;
  if (in.conv) {
    const sim::Conv2dShape& s = in.conv_shape;
    return fmt::format("sim run --kernel conv2d --n {} --h {} --w {} --c {} --k {} --r {} --s {} "
                       "--stride {} --pad {} --dilation {} --stages {} --tile-n {} --out-dtype {}{} "
                       "--functional",
                       s.n, s.h, s.w, s.c, s.k, s.r, s.s, s.stride_h, s.pad_h, s.dil_h, q.stages,
                       q.tile_n, q.out_f32 ? "f32" : "bf16",
                       in.residual ? fmt::format(" --residual --beta {}", in.beta) : "");
  }
  std::string family_opts;
  if (in.family == Family::kBlockScaled)
    family_opts = in.format == sim::BlockFormat::kNvfp4 ? " --format nvfp4"
                  : in.format == sim::BlockFormat::kMxfp8E5m2
                      ? " --format mxfp8 --fp8-type e5m2"
                      : " --format mxfp8";
  return fmt::format("sim run --kernel {}{} --arch {} --m {} --n {} --k {} --stages {} "
                     "--tile-n {} --out-dtype {}{} --functional",
                     in.kernel_name(), family_opts, q.arch, q.m, q.n, q.k, q.stages, q.tile_n,
                     q.out_f32 ? "f32" : "bf16", q.clc ? " --scheduler clc" : "");
}

std::string verify_header(const MatmulArgs& in) {
  const sim::MatmulRequest& base = in.q;
  return fmt::format("verify {} on {}: M={} N={} K={}, tile 128x{}, {} stages{}; seeds {}..{}\n",
                     in.conv ? "conv2d (implicit GEMM)" : in.kernel_name(), base.arch, base.m,
                     base.n, base.k, base.tile_n, base.stages, base.clc ? ", CLC scheduler" : "",
                     base.seed, base.seed + in.schedules - 1);
}

boost::json::object verify_to_json(const MatmulArgs& in, const verify::ExploreReport& rep) {
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
  return boost::json::object{{"kernel", in.kernel_name()}, {"arch", in.q.arch},
                             {"explored", rep.explored},   {"findings", std::move(fs)},
                             {"errors", std::move(errs)}};
}

}  // namespace sk::cli
