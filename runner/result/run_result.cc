#include "runner/result/run_result.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sk::sim {
namespace json = boost::json;

json::object finding_to_json(const Finding& f) {
  json::array details, chain;
  for (const auto& d : f.details) details.push_back(json::string(d));
  for (const auto& c : f.chain) chain.push_back(json::string(c));
  return json::object{{"class", f.cls},       {"rule", f.rule},         {"message", f.message},
                      {"cycle", f.cycle},     {"location", f.location}, {"chain", std::move(chain)},
                      {"cta", f.cta},         {"warp", f.warp},         {"role", f.role},
                      {"details", std::move(details)}};
}

// JSON has no infinity or NaN (boost writes a token its own parser rejects):
// an error bound that is not finite (a NaN in D) is written as the largest
// double.
double finite_or_max(double v) {
  return std::isfinite(v) ? v : std::numeric_limits<double>::max();
}

void settle_incomplete(RunResult& r, const std::string& limit_reason) {
  r.limit = limit_reason;
  if (r.status == "completed") return;
  r.predicted_time_us = r.tflops = r.peak_fraction = r.power_w = 0;
  r.overlap_pct = r.tensor_util_pct = r.hbm_util_pct = 0;
  r.bottleneck = "none";
  r.bottleneck_detail.clear();
}

void set_waves(RunResult& r, uint32_t sms) {
  if (sms == 0 || r.tile_m == 0 || r.tile_n == 0) return;
  set_waves(r, uint64_t{(r.m + r.tile_m - 1) / r.tile_m} * ((r.n + r.tile_n - 1) / r.tile_n) * r.batch,
            sms);
}

void set_waves(RunResult& r, uint64_t tiles, uint32_t sms) {
  if (sms == 0) return;
  r.sms = sms;
  r.tiles = tiles;
  const uint32_t slots = std::max<uint32_t>(sms / std::max<uint32_t>(r.tile_ctas, 1), 1);
  r.waves = static_cast<double>(r.tiles) / slots;
  uint64_t tail = r.tiles % slots;
  if (r.split_tiles > 0 && r.split_tiles < r.tiles) {
    // Only the last wave split: the waves before it one CTA a tile (on the
    // launch's CTAs), then the split tiles' rounds, each 1 / tile_ctas of a
    // tile's time; the last wave is the split one.
    const uint64_t ctas = r.ctas > 0 ? r.ctas : sms;
    r.waves = static_cast<double>((r.tiles - r.split_tiles) / ctas) +
              static_cast<double>(r.split_tiles) / slots / std::max<uint32_t>(r.tile_ctas, 1);
    tail = r.split_tiles % slots;
  }
  r.tail_wave_pct = r.tiles == 0 ? 0 : tail == 0 ? 100.0 : 100.0 * static_cast<double>(tail) / slots;
}

void set_roofline(RunResult& r, double flops, double compulsory_bytes) {
  if (compulsory_bytes <= 0 || r.hbm_peak_gbs <= 0 || r.peak_tflops <= 0) return;
  r.compulsory_bytes = compulsory_bytes;
  r.intensity = flops / compulsory_bytes;
  r.machine_balance = r.peak_tflops * 1e12 / (r.hbm_peak_gbs * 1e9);
  r.roofline_tflops = std::min(r.peak_tflops, r.intensity * r.hbm_peak_gbs * 1e9 / 1e12);
}

json::object to_json(const RunResult& r) {
  json::object o;
  o["kernel"] = r.kernel;
  o["arch"] = r.arch;
  o["status"] = r.status;
  if (!r.limit.empty()) o["limit"] = r.limit;
  o["shape"] = json::object{{"m", r.m}, {"n", r.n}, {"k", r.k}, {"batch", r.batch}};
  o["config"] = json::object{{"name", r.config_name},
                             {"tile_m", r.tile_m},
                             {"tile_n", r.tile_n},
                             {"tile_k", r.tile_k},
                             {"stages", r.stages},
                             {"ctas", r.ctas},
                             {"out_dtype", r.out_dtype},
                             {"functional", r.functional}};
  if (!r.scheduler.empty()) o["config"].as_object()["scheduler"] = r.scheduler;
  if (r.lda != 0)
    o["config"].as_object()["operands"] =
        json::object{{"lda", r.lda},
                     {"ldb", r.ldb},
                     {"ldd", r.ldd},
                     {"padded", r.padded},
                     {"layout_a", r.a_mn_major ? "col" : "row"},
                     {"layout_b", r.b_mn_major ? "row" : "col"}};
  if (r.lda != 0 && r.padded_default)
    o["config"].as_object()["operands"].as_object()["padded_by"] = "default";
  o["cycles"] = r.cycles;
  o["clock_ghz"] = r.clock_ghz;
  if (r.power_w > 0) o["power_w"] = r.power_w;
  if (r.tensor_phase_ghz > 0)
    o["sm_clocks"] = json::object{{"tensor_phase_ghz", r.tensor_phase_ghz},
                                  {"rest_phase_ghz", r.rest_phase_ghz},
                                  {"tensor_phase_cycles", r.tensor_phase_cycles}};
  o["predicted_time_us"] = r.predicted_time_us;
  o["tflops"] = r.tflops;
  o["peak_fraction"] = r.peak_fraction;
  o["overlap_pct"] = r.overlap_pct;
  o["bottleneck"] = r.bottleneck;
  if (!r.bottleneck_detail.empty()) o["bottleneck_detail"] = r.bottleneck_detail;
  o["utilization"] = json::object{{"tensor_core_pct", r.tensor_util_pct},
                                  {"hbm_pct", r.hbm_util_pct},
                                  {"l2_hit_pct", r.l2_hit_pct},
                                  {"hbm_bytes", r.hbm_bytes},
                                  {"smem_fill_bytes", r.smem_fill_bytes},
                                  {"tma_l2_read_bytes", r.tma_l2_read_bytes},
                                  {"tma_l2_copy_bytes", r.tma_l2_copy_bytes},
                                  {"dsmem_bytes", r.dsmem_bytes}};
  if (r.sms > 0)
    o["occupancy"] = json::object{{"sms", r.sms},
                                  {"tiles", r.tiles},
                                  {"ctas_per_sm", 1},
                                  {"ctas_per_tile", r.tile_ctas},
                                  {"split_tiles", r.split_tiles},
                                  {"waves", r.waves},
                                  {"tail_wave_pct", r.tail_wave_pct}};
  if (r.compulsory_bytes > 0)
    o["roofline"] = json::object{{"compulsory_bytes", r.compulsory_bytes},
                                 {"intensity_flop_per_byte", r.intensity},
                                 {"machine_balance_flop_per_byte", r.machine_balance},
                                 {"hbm_peak_gbs", r.hbm_peak_gbs},
                                 {"peak_tflops", r.peak_tflops},
                                 {"roofline_tflops", r.roofline_tflops}};
  // LDS statistics: AMD runs only (NVIDIA shared memory has no bank model).
  if (r.lds_instructions > 0)
    o["utilization"].as_object()["lds"] =
        json::object{{"instructions", r.lds_instructions},
                     {"bank_conflict_cycles", r.lds_bank_conflict_cycles}};
  json::array roles;
  for (const auto& x : r.roles) {
    json::object stalls;
    for (const auto& [cause, pct] : x.stalls) stalls[cause] = pct;
    roles.push_back(json::object{{"name", x.name},
                                 {"busy_pct", x.busy_pct},
                                 {"stall_pct", x.stall_pct},
                                 {"stalls", std::move(stalls)}});
  }
  o["roles"] = std::move(roles);
  json::array fs;
  for (const auto& f : r.findings) fs.push_back(finding_to_json(f));
  o["findings"] = std::move(fs);
  if (!r.output_errors.empty()) {
    json::array errs;
    for (const auto& e : r.output_errors) errs.push_back(json::string(e));
    o["output_errors"] = std::move(errs);
  }
  o["seed"] = r.seed;
  if (r.sync_digest != 0) o["sync_digest"] = r.sync_digest;
  o["events"] = r.events;
  if (!r.stamps.empty()) o["stamps"] = r.stamps;
  if (r.check.ran)
    o["check"] = json::object{{"passed", r.check.passed},
                              {"max_abs_err", finite_or_max(r.check.max_abs_err)},
                              {"max_rel_err", finite_or_max(r.check.max_rel_err)},
                              {"max_tolerance_fraction", finite_or_max(r.check.max_tolerance_fraction)},
                              {"reference", r.check.reference},
                              {"detail", r.check.detail}};
  // The one member that depends on the host rather than the inputs: every
  // other member is byte-identical for the same inputs (docs/reliability.md).
  o["host_timing"] = json::object{{"wall_s", r.wall_s}, {"simulations", r.simulations}};
  return o;
}

namespace {
template <class T>
T get(const json::object& o, const char* k) {
  return json::value_to<T>(o.at(k));
}
}  // namespace

Finding finding_from_json(const json::value& v) {
  const auto& fo = v.as_object();
  Finding f;
  f.cls = get<std::string>(fo, "class");
  f.rule = get<std::string>(fo, "rule");
  f.message = get<std::string>(fo, "message");
  f.cycle = get<uint64_t>(fo, "cycle");
  f.location = get<std::string>(fo, "location");
  f.cta = get<int>(fo, "cta");
  f.warp = get<int>(fo, "warp");
  f.role = get<std::string>(fo, "role");
  for (const auto& d : fo.at("details").as_array()) f.details.push_back(json::value_to<std::string>(d));
  if (const auto* chain = fo.if_contains("chain"))
    for (const auto& c : chain->as_array()) f.chain.push_back(json::value_to<std::string>(c));
  return f;
}

RunResult run_result_from_json(const json::value& v) {
  const auto& o = v.as_object();
  RunResult r;
  r.kernel = get<std::string>(o, "kernel");
  r.arch = get<std::string>(o, "arch");
  r.status = get<std::string>(o, "status");
  if (o.contains("limit")) r.limit = get<std::string>(o, "limit");
  const auto& s = o.at("shape").as_object();
  r.m = get<uint32_t>(s, "m");
  r.n = get<uint32_t>(s, "n");
  r.k = get<uint32_t>(s, "k");
  if (s.contains("batch")) r.batch = get<uint32_t>(s, "batch");
  const auto& c = o.at("config").as_object();
  r.config_name = get<std::string>(c, "name");
  r.tile_m = get<uint32_t>(c, "tile_m");
  r.tile_n = get<uint32_t>(c, "tile_n");
  r.tile_k = get<uint32_t>(c, "tile_k");
  r.stages = get<uint32_t>(c, "stages");
  r.ctas = get<uint32_t>(c, "ctas");
  r.out_dtype = get<std::string>(c, "out_dtype");
  r.functional = get<bool>(c, "functional");
  if (c.contains("scheduler")) r.scheduler = get<std::string>(c, "scheduler");
  if (c.contains("operands")) {
    const auto& ops = c.at("operands").as_object();
    r.lda = get<uint32_t>(ops, "lda");
    r.ldb = get<uint32_t>(ops, "ldb");
    r.ldd = get<uint32_t>(ops, "ldd");
    r.padded = get<bool>(ops, "padded");
    if (ops.contains("padded_by")) r.padded_default = get<std::string>(ops, "padded_by") == "default";
    if (ops.contains("layout_a")) r.a_mn_major = get<std::string>(ops, "layout_a") == "col";
    if (ops.contains("layout_b")) r.b_mn_major = get<std::string>(ops, "layout_b") == "row";
  }
  r.cycles = get<uint64_t>(o, "cycles");
  r.clock_ghz = get<double>(o, "clock_ghz");
  if (o.contains("power_w")) r.power_w = get<double>(o, "power_w");
  if (o.contains("sm_clocks")) {
    const auto& c = o.at("sm_clocks").as_object();
    r.tensor_phase_ghz = get<double>(c, "tensor_phase_ghz");
    r.rest_phase_ghz = get<double>(c, "rest_phase_ghz");
    r.tensor_phase_cycles = get<uint64_t>(c, "tensor_phase_cycles");
  }
  r.predicted_time_us = get<double>(o, "predicted_time_us");
  r.tflops = get<double>(o, "tflops");
  r.peak_fraction = get<double>(o, "peak_fraction");
  r.overlap_pct = get<double>(o, "overlap_pct");
  r.bottleneck = get<std::string>(o, "bottleneck");
  if (o.contains("bottleneck_detail")) r.bottleneck_detail = get<std::string>(o, "bottleneck_detail");
  const auto& u = o.at("utilization").as_object();
  r.tensor_util_pct = get<double>(u, "tensor_core_pct");
  r.hbm_util_pct = get<double>(u, "hbm_pct");
  r.l2_hit_pct = get<double>(u, "l2_hit_pct");
  r.hbm_bytes = get<uint64_t>(u, "hbm_bytes");
  if (u.contains("smem_fill_bytes")) r.smem_fill_bytes = get<uint64_t>(u, "smem_fill_bytes");
  if (u.contains("tma_l2_read_bytes")) r.tma_l2_read_bytes = get<uint64_t>(u, "tma_l2_read_bytes");
  if (u.contains("tma_l2_copy_bytes")) r.tma_l2_copy_bytes = get<uint64_t>(u, "tma_l2_copy_bytes");
  if (u.contains("dsmem_bytes")) r.dsmem_bytes = get<uint64_t>(u, "dsmem_bytes");
  if (u.contains("lds")) {
    const auto& l = u.at("lds").as_object();
    r.lds_instructions = get<uint64_t>(l, "instructions");
    r.lds_bank_conflict_cycles = get<uint64_t>(l, "bank_conflict_cycles");
  }
  if (o.contains("occupancy")) {
    const auto& oc = o.at("occupancy").as_object();
    r.sms = get<uint32_t>(oc, "sms");
    r.tiles = get<uint64_t>(oc, "tiles");
    if (oc.contains("ctas_per_tile")) r.tile_ctas = get<uint32_t>(oc, "ctas_per_tile");
    if (oc.contains("split_tiles")) r.split_tiles = get<uint64_t>(oc, "split_tiles");
    r.waves = get<double>(oc, "waves");
    r.tail_wave_pct = get<double>(oc, "tail_wave_pct");
  }
  if (o.contains("roofline")) {
    const auto& rf = o.at("roofline").as_object();
    r.compulsory_bytes = get<double>(rf, "compulsory_bytes");
    r.intensity = get<double>(rf, "intensity_flop_per_byte");
    r.machine_balance = get<double>(rf, "machine_balance_flop_per_byte");
    r.hbm_peak_gbs = get<double>(rf, "hbm_peak_gbs");
    r.peak_tflops = get<double>(rf, "peak_tflops");
    r.roofline_tflops = get<double>(rf, "roofline_tflops");
  }
  for (const auto& x : o.at("roles").as_array()) {
    const auto& ro = x.as_object();
    RoleStats rs{get<std::string>(ro, "name"), get<double>(ro, "busy_pct"),
                 get<double>(ro, "stall_pct"), {}};
    for (const auto& [cause, pct] : ro.at("stalls").as_object())
      rs.stalls.emplace_back(std::string(cause), json::value_to<double>(pct));
    r.roles.push_back(std::move(rs));
  }
  for (const auto& x : o.at("findings").as_array()) r.findings.push_back(finding_from_json(x));
  if (o.contains("output_errors"))
    for (const auto& e : o.at("output_errors").as_array())
      r.output_errors.push_back(json::value_to<std::string>(e));
  r.seed = get<uint64_t>(o, "seed");
  if (o.contains("sync_digest")) r.sync_digest = get<uint64_t>(o, "sync_digest");
  r.events = get<uint64_t>(o, "events");
  if (const auto* st = o.if_contains("stamps")) r.stamps = st->as_object();
  r.wall_s = get<double>(o.at("host_timing").as_object(), "wall_s");
  if (const auto* n = o.at("host_timing").as_object().if_contains("simulations"))
    r.simulations = static_cast<int>(n->to_number<int64_t>());
  if (o.contains("check")) {
    const auto& ch = o.at("check").as_object();
    r.check.ran = true;
    r.check.passed = get<bool>(ch, "passed");
    r.check.max_abs_err = get<double>(ch, "max_abs_err");
    r.check.max_rel_err = get<double>(ch, "max_rel_err");
    if (ch.contains("max_tolerance_fraction"))
      r.check.max_tolerance_fraction = get<double>(ch, "max_tolerance_fraction");
    r.check.reference = get<std::string>(ch, "reference");
    r.check.detail = get<std::string>(ch, "detail");
  }
  return r;
}

}  // namespace sk::sim
