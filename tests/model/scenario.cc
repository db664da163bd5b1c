#include "tests/model/scenario.h"

#include <boost/json.hpp>

#include <memory>

#include "models/sm100/gpu.h"
#include "engine/isolate.h"
#include "verify/hb/race_detector.h"

namespace sk::test {
namespace {
std::vector<std::string>* g_notes = nullptr;
}

void note(const std::string& s) {
  if (g_notes != nullptr) g_notes->push_back(s);
}

bool ScenarioResult::has_rule(const std::string& rule) const {
  for (const auto& f : findings)
    if (f.rule == rule) return true;
  return false;
}

int ScenarioResult::count_rule(const std::string& rule) const {
  int n = 0;
  for (const auto& f : findings) n += f.rule == rule;
  return n;
}

std::string ScenarioResult::findings_text() const {
  std::string s = error;
  for (const auto& f : findings) s += "[" + f.rule + "] " + f.message + "\n";
  return s;
}

ScenarioResult run_scenario(const ScenarioOptions& opt, const std::function<void()>& body) {
  namespace json = boost::json;
  auto child = [&]() -> std::string {
    std::vector<std::string> notes;
    g_notes = &notes;
    models::sm100::Params params = models::sm100::Params::builtin();
    if (opt.num_sms > 0) params.num_sms = opt.num_sms;
    params.tensormap_fetch_latency = opt.tensormap_fetch_latency;
    params.tma_unaligned_row_factor = opt.tma_unaligned_row_factor;
    params.tma_oob_rows_per_cycle = opt.tma_oob_rows_per_cycle;
    params.tma_oob_rates = opt.tma_oob_rates;
    params.tma_store_read_latency = opt.tma_store_read_latency;
    if (opt.l2_bytes_per_cycle > 0) params.l2_bytes_per_cycle = opt.l2_bytes_per_cycle;
    params.tma_multicast_l2_share = opt.tma_multicast_l2_share;
    params.dsmem_store_bytes_per_cycle = opt.dsmem_store_bytes_per_cycle;
    params.alu_under_mma = {opt.alu_under_mma.fp32, opt.alu_under_mma.half, opt.alu_under_mma.sfu,
                            opt.alu_under_mma.chain};
    params.tensor_under_fp32 = {opt.tensor_under_fp32.a, opt.tensor_under_fp32.p};
    models::sm100::Gpu gpu(params, opt.functional);
    std::unique_ptr<verify::RaceDetector> races;
    if (opt.race_detector) {
      races = std::make_unique<verify::RaceDetector>(gpu.engine());
      gpu.engine().set_observer(races.get());
    }
    if (opt.setup) opt.setup();
    std::string err = gpu.launch(opt.ctas, opt.warps, opt.smem_bytes, body, opt.cluster_size);
    if (!err.empty()) throw std::runtime_error(err);
    auto st = gpu.run(opt.max_cycles);
    json::object o;
    o["status"] = sim::run_status_name(st);
    o["cycles"] = gpu.engine().now();
    o["sync_digest"] = races ? races->order_digest() : 0;
    json::array fs, details;
    for (const auto& f : gpu.engine().findings()) {
      json::array chain;
      for (const auto& c : f.chain) chain.push_back(json::string(c));
      fs.push_back(json::object{{"cls", f.cls},
                                {"rule", f.rule},
                                {"message", f.message},
                                {"location", f.location},
                                {"chain", std::move(chain)}});
      for (const auto& d : f.details) details.push_back(json::string(d));
    }
    o["findings"] = std::move(fs);
    o["details"] = std::move(details);
    json::array ns;
    for (const auto& n : notes) ns.push_back(json::string(n));
    o["notes"] = std::move(ns);
    return json::serialize(o);
  };
  auto res = sim::run_isolated(child, 120);
  ScenarioResult r;
  if (!res.ok) {
    r.error = res.error;
    return r;
  }
  auto v = json::parse(res.payload).as_object();
  r.ok = true;
  r.status = json::value_to<std::string>(v["status"]);
  r.cycles = json::value_to<uint64_t>(v["cycles"]);
  r.sync_digest = json::value_to<uint64_t>(v["sync_digest"]);
  for (const auto& f : v["findings"].as_array()) {
    const auto& o = f.as_object();
    ScenarioFinding sf{json::value_to<std::string>(o.at("cls")),
                       json::value_to<std::string>(o.at("rule")),
                       json::value_to<std::string>(o.at("message")),
                       json::value_to<std::string>(o.at("location")),
                       {}};
    for (const auto& c : o.at("chain").as_array()) sf.chain.push_back(json::value_to<std::string>(c));
    r.findings.push_back(std::move(sf));
  }
  for (const auto& d : v["details"].as_array()) r.deadlock_details.push_back(json::value_to<std::string>(d));
  for (const auto& n : v["notes"].as_array()) r.notes.push_back(json::value_to<std::string>(n));
  return r;
}

}  // namespace sk::test
