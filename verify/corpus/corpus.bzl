"""corpus_pair: a seeded bug and its fixed twin, as two sk_verify_test targets."""

load("//verify:defs.bzl", "sk_verify_test")

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
    sk_verify_test(
        name = name + "_twin",
        kernel = twin,
        deps = [cases],
        configs = [config],
        schedules = twin_schedules,
        expect = "clean",
        tags = ["bug-corpus"],
    )
