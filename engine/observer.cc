// observer.cc: the process-wide observer factory of observer.h.
#include "engine/observer.h"

namespace sk::sim {
namespace {
ObserverFactory& factory() {
  static ObserverFactory f = nullptr;
  return f;
}
}  // namespace

void install_functional_observer(ObserverFactory f) { factory() = f; }
ObserverFactory functional_observer() { return factory(); }

}  // namespace sk::sim
