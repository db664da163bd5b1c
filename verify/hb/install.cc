// install.cc: see install.h.
#include "verify/hb/install.h"

#include <memory>

#include "engine/observer.h"
#include "verify/hb/race_detector.h"

namespace sk::verify {
namespace {

std::unique_ptr<sim::Observer> make(sim::Engine& engine,
                                    std::function<std::string(uint64_t)> name_global) {
  auto races = std::make_unique<RaceDetector>(engine);
  races->set_global_namer(std::move(name_global));
  return races;
}

}  // namespace

void install_race_detector() { sim::install_functional_observer(&make); }

}  // namespace sk::verify
