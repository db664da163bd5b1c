"""nvcc rules for the device build: compile a .cu to PTX, and check the PTX.

The device build does not go through a Bazel C++ toolchain: the only product
the repository needs from nvcc is PTX (and ptxas acceptance of it), so a plain
action that calls the detected nvcc is enough. Every target these macros create
is tagged incompatible when @local_cuda found no nvcc, so `bazel test //...`
reports it SKIPPED on machines without CUDA instead of failing.
"""

load("@local_cuda//:defs.bzl", "NVCC_PATH")

# Constraint satisfied only where nvcc was detected (see tools/local_cuda.bzl).
NVCC_COMPATIBLE_WITH = ["@local_cuda//:nvcc_available"]

def _nvcc_ptx_impl(ctx):
    if not NVCC_PATH:
        # Unreachable through the macro (the target is incompatible), but a
        # direct use of the rule must not run an empty command line.
        fail("nvcc_ptx: no nvcc was detected by @local_cuda")

    src = ctx.file.src
    out = ctx.actions.declare_file(ctx.attr.name + ".ptx")

    headers = list(ctx.files.hdrs)
    transitive_headers = []
    include_dirs = []
    for dep in ctx.attr.deps:
        if CcInfo in dep:
            cc = dep[CcInfo].compilation_context
            transitive_headers.append(cc.headers)
            include_dirs.extend(cc.includes.to_list())
            include_dirs.extend(cc.quote_includes.to_list())
            include_dirs.extend(cc.system_includes.to_list())
        else:
            headers.extend(dep[DefaultInfo].files.to_list())

    args = ctx.actions.args()
    args.add("-std=c++20")
    args.add("-arch=" + ctx.attr.arch)
    args.add("--ptx")

    # Includes are spelled from the repository root ("kernels/core/..."). In the
    # execroot that root is "." for sources and the bin dir for generated files.
    args.add("-I.")
    args.add("-I" + ctx.bin_dir.path)
    if ctx.label.workspace_root:
        args.add("-I" + ctx.label.workspace_root)
    args.add_all(include_dirs, before_each = "-I", uniquify = True)
    args.add_all(ctx.attr.copts)
    args.add(src)
    args.add("-o", out)

    ctx.actions.run(
        executable = NVCC_PATH,
        arguments = [args],
        inputs = depset([src] + headers, transitive = transitive_headers),
        outputs = [out],
        mnemonic = "NvccPtx",
        progress_message = "nvcc --ptx (%s) %s" % (ctx.attr.arch, src.short_path),
        # nvcc finds the host compiler (g++) through PATH; with
        # --incompatible_strict_action_env that PATH is the fixed system one.
        use_default_shell_env = True,
    )
    # Runfiles too, so that tests can take the PTX as `data`.
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_nvcc_ptx = rule(
    implementation = _nvcc_ptx_impl,
    attrs = {
        "src": attr.label(allow_single_file = [".cu"], mandatory = True),
        "hdrs": attr.label_list(allow_files = True),
        "deps": attr.label_list(),
        "arch": attr.string(default = "sm_100a"),
        "copts": attr.string_list(),
    },
    doc = "Compiles one .cu file to <name>.ptx with the locally detected nvcc.",
)

def nvcc_ptx(name, src, hdrs = [], deps = [], arch = "sm_100a", copts = [], **kwargs):
    """PTX for `src`; every header it includes must be in `hdrs` or `deps`.

    The action is sandboxed, so an include that is not declared fails to
    compile instead of silently escaping dependency tracking.
    """
    _nvcc_ptx(
        name = name,
        src = src,
        hdrs = hdrs,
        deps = deps,
        arch = arch,
        copts = copts,
        target_compatible_with = NVCC_COMPATIBLE_WITH + kwargs.pop("target_compatible_with", []),
        **kwargs
    )

def _shell_quote(s):
    # sh_test args go through make-variable expansion and then Bourne-shell
    # tokenization; quoting keeps patterns with spaces or '$' intact.
    return "'" + s.replace("$", "$$").replace("'", "'\\''") + "'"

def ptx_check_test(name, ptx, patterns, tags = [], **kwargs):
    """Test that the PTX produced by `ptx` contains every fixed string in `patterns`.

    On failure the log names each missing pattern, so a lost instruction is
    identified without reading the PTX.
    """
    if not patterns:
        fail("ptx_check_test %s: patterns must not be empty" % name)
    kwargs.setdefault("size", "small")
    native.sh_test(
        name = name,
        srcs = ["//tools:ptx_check.sh"],
        data = [ptx],
        args = ["$(rootpath %s)" % ptx] + [_shell_quote(p) for p in patterns],
        tags = tags,
        target_compatible_with = NVCC_COMPATIBLE_WITH + kwargs.pop("target_compatible_with", []),
        **kwargs
    )

def ptx_entry_check_test(name, ptx, entries, present = [], absent = [], min_entries = 1, tags = [], **kwargs):
    """Test that each kernel of `ptx` whose .entry name matches the regex `entries`
    contains every fixed string in `present` and none in `absent`, and that at
    least `min_entries` kernels match (tools/ptx_entry_check.py).
    """
    if not present and not absent:
        fail("ptx_entry_check_test %s: give present or absent strings" % name)
    kwargs.setdefault("size", "small")
    args = ["$(rootpath %s)" % ptx, "--entries", _shell_quote(entries), "--min", str(min_entries)]
    if present:
        args += ["--present"] + [_shell_quote(p) for p in present]
    if absent:
        args += ["--absent"] + [_shell_quote(p) for p in absent]
    native.sh_test(
        name = name,
        srcs = ["//tools:ptx_entry_check.py"],
        data = [ptx],
        args = args,
        tags = tags,
        target_compatible_with = NVCC_COMPATIBLE_WITH + kwargs.pop("target_compatible_with", []),
        **kwargs
    )

def nvcc_bench_with_ptx(name, src, hdrs = [], libs = [], arch = "sm_90a", **kwargs):
    """A benchmark binary <stem>.bin from one .cu, and the PTX it was built from, <stem>.ptx.

    One nvcc run: -keep leaves the PTX of the binary's device code, so a
    ptx_check_test of the benchmark's kernels (ptx = ":<stem>.ptx") costs no
    second front-end compile. Warnings are errors, as in nvcc_ptx, and so is
    ptxas's note that it serializes a kernel's wgmma (C7514); the inputs
    are `src` and `hdrs` alone (the genrule is sandboxed). `libs` are the
    link options (e.g. "-lcuda").
    """
    if not src.endswith(".cu"):
        fail("nvcc_bench_with_ptx %s: src must be a .cu file" % name)
    stem = src[:-len(".cu")]
    compile = "%s -std=c++20 -O3 -gencode=arch=compute_%s,code=%s -Werror all-warnings -keep -keep-dir $$k -I. $(location %s) %s -o $(location %s.bin)" % (
        NVCC_PATH,
        arch[len("sm_"):],
        arch,
        src,
        " ".join(libs),
        stem,
    )
    # ptxas reports a kernel whose wgmma it serializes (C7514: the compiler
    # reads accumulators while an mma_async may still write them) as info,
    # not as a warning; the kernel then runs its tensor core one op at a
    # time. That fails the build here, with ptxas's line.
    serialized = "if grep -q C7514 $$k/nvcc.log; then echo '%s: ptxas serializes wgmma (C7514) in:' >&2; grep C7514 $$k/nvcc.log | grep -o \"function '[^']*'\" | sort -u >&2; false; fi" % src
    native.genrule(
        name = name,
        srcs = [src] + hdrs,
        outs = [stem + ".bin", stem + ".ptx"],
        cmd = "k=$$(mktemp -d) && { %s 2>$$k/nvcc.log; rc=$$?; cat $$k/nvcc.log >&2; [ $$rc = 0 ]; } && { %s; } && cp $$k/%s.ptx $(location %s.ptx); rc=$$?; rm -rf $$k; exit $$rc" % (compile, serialized, stem, stem),
        target_compatible_with = NVCC_COMPATIBLE_WITH + kwargs.pop("target_compatible_with", []),
        **kwargs
    )
