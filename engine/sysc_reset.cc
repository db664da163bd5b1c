#include "engine/sysc_reset.h"

#include <systemc>

namespace sk::sim {

void reset_systemc() {
  // libsystemc's own static objects (sc_event::none and others) belong to the
  // first context and are destroyed at exit through it, so that one is kept
  // (it leaks one run's processes); later contexts are ours to delete.
  static sc_core::sc_simcontext* const first = sc_core::sc_get_curr_simcontext();
  if (sc_core::sc_curr_simcontext != first) delete sc_core::sc_curr_simcontext;
  sc_core::sc_curr_simcontext = new sc_core::sc_simcontext;
  sc_core::sc_default_global_context = sc_core::sc_curr_simcontext;
}

}  // namespace sk::sim
