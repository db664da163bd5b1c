// label.h: report labels built in kernel code ("input" + ".full" ->
// "input.full"), for the model's names of barriers and counters.
//
// Invariant: the result is NUL-terminated and at most 47 characters (the
// first part is cut at 30, the whole at 40); it lives in the returned value,
// so it is valid for the full expression that passes it on. On the device the
// annotation hooks ignore it and the compiler drops the copy.
#pragma once

#include "kernels/core/platform.h"

namespace sk {

struct Label {
  char text[48];
};

SK_DEVICE Label join_label(const char* first, const char* second) {
  Label l{};
  int n = 0;
  for (const char* p = first; *p != 0 && n < 30; ++p) l.text[n++] = *p;
  for (const char* p = second; *p != 0 && n < 40; ++p) l.text[n++] = *p;
  l.text[n] = 0;
  return l;
}

}  // namespace sk
