#!/usr/bin/env bash
# layering_test.sh LAYERING_PY README: the source tree passes the layering
# check, and seeded trees with one violation each fail it with the message that
# names the file and the rule, while their fixed twins pass.
set -euo pipefail
checker=$1
root=$(dirname "$(realpath "$2")")
fail() { echo "FAIL: $*" >&2; exit 1; }

# The tree itself.
if ! out=$(python3 "$checker" --root "$root" 2>&1); then
  echo "$out" >&2
  fail "the source tree breaks the layering"
fi

# A minimal tree in the real layer order; each case adds one file.
base() {
  rm -rf "$t" && mkdir -p "$t"/{engine,models,kernels/arch/sm100/model,kernels/matmul,runner,traces,verify,sim}
  echo '#include "engine/engine.h"' > "$t/models/api.h"
  echo '#include "models/sm100/api.h"' > "$t/kernels/arch/sm100/model/intrinsics.h"
  printf '#ifndef K_H_\n#define K_H_\n#include "kernels/arch/sm100.h"\n#endif\n' > "$t/kernels/matmul/k.h"
  echo '#include "kernels/matmul/k.h"' > "$t/runner/run.cc"
  printf 'cc_library(\n    name = "sim",\n    deps = ["//runner", "//verify"],\n)\n' > "$t/sim/BUILD"
}
t=${TEST_TMPDIR:-$(mktemp -d)}/tree

expect_ok() {  # description
  python3 "$checker" --root "$t" >/dev/null 2>&1 || fail "$1: fixed twin rejected"
}
expect_violation() {  # description, expected text
  local out rc=0
  out=$(python3 "$checker" --root "$t" 2>&1) || rc=$?
  [ "$rc" = 1 ] || fail "$1: exit $rc, expected 1 ($out)"
  grep -qF -- "$2" <<<"$out" || fail "$1: no '$2' in: $out"
}

base; expect_ok "base tree"

base; echo '#include "runner/run.h"' >> "$t/models/api.h"
expect_violation "upward include" "models/api.h:2: models/ uses runner/run.h, which is in a higher layer"

base; echo '#include "traces/writer.h"' > "$t/kernels/matmul/uses_trace.h"
expect_violation "sideways include" "kernels/matmul/uses_trace.h:1: kernels/ uses traces/writer.h, which is in the same layer"

base; printf 'cc_library(\n    name = "engine",\n    deps = ["//models/sm100"],\n)\n' > "$t/engine/BUILD"
expect_violation "upward BUILD label" "engine/BUILD:3: engine/ uses //models, which is in a higher layer"

base; mkdir -p "$t/newpkg"; echo 'x' > "$t/newpkg/a.h"
expect_violation "unplaced package" "newpkg/: top-level package missing from the layer table"

base; echo '#include "models/sm100/api.h"' >> "$t/kernels/matmul/k.h"
expect_violation "kernel logic uses the model" "kernels/matmul/k.h:5: uses models/sm100/api.h: only the model bindings"

base; printf 'cc_library(\n    name = "kernels_device",\n    deps = ["//engine"],\n)\n' > "$t/kernels/BUILD"
expect_violation "device target depends on the engine" "kernels/BUILD:3: uses //engine: only the model bindings"
base; printf 'cc_library(\n    name = "kernels_model",\n    deps = ["//engine"],\n)\n' > "$t/kernels/BUILD"
expect_ok "model target depends on the engine"

base; printf '#ifdef __CUDACC__\nint x;\n#endif\n' > "$t/kernels/matmul/switch.h"
expect_violation "ifdef in kernel logic" "kernels/matmul/switch.h:1: preprocessor conditional in kernel logic"
base; printf '#ifdef __CUDACC__\nint x;\n#endif\n' > "$t/kernels/arch/sm100/switch.h"
expect_ok "ifdef in kernels/arch"

echo "layering: source tree and 8 seeded cases OK"
