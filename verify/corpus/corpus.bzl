"""corpus_pair: a seeded bug and its fixed twin, as sk_verify_test targets.

The bug target `<name>` runs the mutant and expects its finding. The twin is
the fixed kernel on the bug's config, which must stay clean; pairs that share
both the fixed kernel and the config share one twin test (the same kernel, the
same config and the same seed explore the same schedules, so running it once
per pair only repeated the work), named twin_<kernel>[__<config>], and
`<name>_twin` is a test_suite of it (so `bazel test //...` runs it once).
"""

load("//verify:defs.bzl", "sk_verify_test")

def _twin_name(twin, config):
    name = "twin_" + twin
    if config:
        name += "__" + config.replace("=", "").replace(",", "_")
    return name

def corpus_pair(bug, expect, config = "", twin = "corpus.fixed", schedules = 50, twin_schedules = 200,
                prefix = "corpus.", cases = ":cases", name = None):
    name = name or bug
    sk_verify_test(
        name = name,
        kernel = prefix + bug,
        deps = [cases],
        configs = [config],
        schedules = schedules,
        expect = expect,
        tags = ["bug-corpus"],
    )
    shared = _twin_name(twin, config)
    if native.existing_rule(shared) == None:
        sk_verify_test(
            name = shared,
            kernel = twin,
            deps = [cases],
            configs = [config],
            schedules = twin_schedules,
            expect = "clean",
            tags = ["bug-corpus"],
        )
    native.test_suite(
        name = name + "_twin",
        tests = [":" + shared],
        tags = ["bug-corpus"],
    )
