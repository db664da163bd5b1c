// quiet_banner.cc: keeps SystemC's copyright banner off stdout.
//
// libsystemc prints the banner when its simulation context is first created,
// which happens before sc_main runs, unless SYSTEMC_DISABLE_COPYRIGHT_MESSAGE
// is set. Setting it from a static initializer of the executable is early
// enough because the context is created lazily on first use.
#include <cstdlib>

namespace {
const int kQuiet = setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
}  // namespace
