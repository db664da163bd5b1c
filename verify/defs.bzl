"""sk_verify_test: a kernel and a list of configs, explored over many schedules.

    load("//verify:defs.bzl", "sk_verify_test")

    sk_verify_test(
        name = "my_kernel_verify",
        kernel = "my_kernel",            # the name the case registered
        deps = [":my_kernel_case"],      # cc_library with alwayslink = True (checked)
        configs = ["m=256,n=128,k=512", "m=129,n=200,k=64"],
        schedules = 200,                 # per config, split over the shards
        expect = "clean",                # or "CLASS/RULE" for a seeded bug
        expect_at = "my/kernel.h",       # optional: the finding names a line of this file
        shard_count = 4,
    )

The test honours TEST_TOTAL_SHARDS / TEST_SHARD_INDEX (schedule i runs on
shard i % shards), touches TEST_SHARD_STATUS_FILE and writes JUnit XML to
XML_OUTPUT_FILE. See docs/verify.md.
"""

def _alwayslink_aspect_impl(target, ctx):
    # A case library registers its kernels from static initializers; linked
    # as an ordinary archive, an optimized (static) link drops them and the
    # kernel is "not registered". Fail at analysis instead, in every mode.
    if ctx.rule.kind == "cc_library" and ctx.rule.attr.srcs and not ctx.rule.attr.alwayslink:
        fail(("%s: a dependency of sk_verify_test must be a cc_library with " +
              "alwayslink = True (its static initializers register the kernel cases)") % target.label)
    return []

_alwayslink_aspect = aspect(implementation = _alwayslink_aspect_impl, attr_aspects = [])

def _alwayslink_check_impl(ctx):
    return [DefaultInfo()]

_alwayslink_check = rule(
    implementation = _alwayslink_check_impl,
    attrs = {"deps": attr.label_list(aspects = [_alwayslink_aspect])},
)

def sk_verify_test(
        name,
        kernel,
        deps,
        configs = [""],
        schedules = 200,
        seed = 0,
        expect = "clean",
        expect_at = None,
        jobs = 2,
        shard_count = None,
        size = "medium",
        tags = [],
        **kwargs):
    args = [
        "--kernel",
        kernel,
        "--schedules",
        str(schedules),
        "--seed",
        str(seed),
        "--expect",
        expect,
        "--jobs",
        str(jobs),
    ]
    if expect_at:
        args += ["--expect-at", expect_at]
    for c in configs:
        # An empty config means the case's defaults (the harness runs one
        # default config when no --config is given).
        args += ["--config", c if c else "default=1"]
    _alwayslink_check(
        name = name + "_alwayslink_check",
        deps = deps,
        tags = ["manual"],
        testonly = True,
    )
    native.cc_test(
        name = name,
        deps = deps + ["//verify/harness:test_main"],
        data = kwargs.pop("data", []) + [":" + name + "_alwayslink_check"],
        args = args,
        shard_count = shard_count,
        size = size,
        tags = tags,
        **kwargs
    )

def _arg(args, flag):
    for i in range(len(args) - 1):
        if args[i] == flag:
            return args[i + 1]
    return None

def sk_detection_bench(name, deps, schedules = 20):
    """A cc_binary that measures every seeded-bug sk_verify_test of this package.

    Call it at the end of the BUILD file: it reads the sk_verify_test rules
    defined above it (native.existing_rules) whose expect is a CLASS/RULE and
    passes each as --case KERNEL|CONFIG|CLASS/RULE (one case per config), so
    the bench runs exactly the bugs and configs that the tests do.

        bazel run -c opt //verify/corpus:detection_bench [-- --schedules N --markdown]
    """
    cases = []
    for rule_name, r in sorted(native.existing_rules().items()):
        if r["kind"] != "cc_test":
            continue
        args = list(r.get("args", []))
        expect = _arg(args, "--expect")
        kernel = _arg(args, "--kernel")
        if kernel == None or expect == None or expect == "clean":
            continue
        for i in range(len(args) - 1):
            if args[i] == "--config":
                cases += ["--case", "%s|%s|%s" % (kernel, args[i + 1], expect)]
    if not cases:
        fail("sk_detection_bench %s: no seeded-bug sk_verify_test above it in this package" % name)
    native.cc_binary(
        name = name,
        deps = deps + ["//verify/harness:detection_bench_main"],
        args = cases + ["--schedules", str(schedules)],
        testonly = True,
    )
