"""sk_fuzz_target: one fuzz target source, three uses.

  <name>               a libFuzzer binary under --config=fuzz (clang, ASan,
                       UBSan, -fsanitize=fuzzer); otherwise the same target
                       linked with replay_main.cc, which runs the files given
                       on its command line (a crash reproducer, a corpus).
  <name>_corpus_test   a cc_test that replays the seed corpus in
                       fuzz/corpus/<name>/ through the target: every input
                       that ever mattered stays a regression test under
                       `bazel test //...` (and under --config=asan / ubsan).
"""

def sk_fuzz_target(name, srcs, deps = [], size = "small"):
    corpus = native.glob(["corpus/" + name + "/*"])
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + ["//fuzz:sc_main_stub"] + select({
            "//fuzz:fuzzing": [],
            "//conditions:default": ["//fuzz:replay_main"],
        }),
        linkopts = select({
            "//fuzz:fuzzing": ["-fsanitize=fuzzer"],
            "//conditions:default": [],
        }),
    )
    native.cc_test(
        name = name + "_corpus_test",
        size = size,
        srcs = srcs,
        deps = deps + ["//fuzz:replay_main", "//fuzz:sc_main_stub"],
        args = ["fuzz/corpus/" + name],
        data = corpus,
    )
