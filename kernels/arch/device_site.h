// device_site.h (device builds, NVIDIA and AMD): the caller-line names that
// kernel components use (kernels/arch/model/site.h) as empty types, so the
// components compile unchanged and the device code carries nothing.
#pragma once

#include "kernels/core/platform.h"

namespace sk::arch {

struct CallSite {
  static constexpr SK_HOST_DEVICE CallSite current() { return {}; }
};

struct Caller {
  SK_DEVICE explicit Caller(CallSite) {}
};

}  // namespace sk::arch
