#!/bin/bash
# bazel_bundle.sh: carry this project's Bazel to a GPU machine that has none
# (and no network), so that the hardware targets run there as documented.
#
#   hw/h200/bazel_bundle.sh pack BUNDLE.tar.xz      # on a machine set up by tools/setup.sh
#   hw/h200/bazel_bundle.sh unpack BUNDLE.tar.xz    # on the GPU machine (root), prints the command
#
# pack takes Debian's bazel-bootstrap 4.2.3 (the client, its install base with
# the server jar, the helper binaries) and the shared libraries the client and
# helpers need beyond libc/libstdc++/libz, and adds a Java runtime cut down
# with jlink to the modules the server loads. Uncompressed modules compress
# better under xz than jlink's own compression: the bundle is about 36 MB.
# unpack installs it under /opt/sk-bazel, puts the libraries where the dynamic
# loader finds them (/usr/local/lib; the sandbox helpers run with the action's
# environment, so LD_LIBRARY_PATH would not reach them) and prints the Bazel
# command line to use, e.g.
#   $(hw/h200/bazel_bundle.sh unpack b.tar.xz) run //hw/h200:gemm_bench -- --m 4096 --n 4096 --k 4096 --all
set -euo pipefail
mode="${1:-}"
bundle="${2:-}"
[ -n "$bundle" ] || { echo "usage: $0 pack|unpack BUNDLE.tar.xz" >&2; exit 2; }
case "$mode" in
  pack)
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    root="$work/sk-bazel"
    mkdir -p "$root/bin" "$root/lib"
    cp -L /usr/bin/bazel-4 "$root/bin/"
    cp -rL /usr/share/bazel "$root/install"   # helpers are symlinks into /usr/libexec there
    for f in "$root/bin/bazel-4" "$root"/install/{linux-sandbox,process-wrapper,build-runfiles,daemonize}; do
      ldd "$f" | awk '/=>/ {print $3}'
    done | sort -u | grep -v -E '/(libc|libm|libgcc_s|libstdc\+\+|libz)\.so' |
      xargs -r cp -L -t "$root/lib/"
    jlink --add-modules java.base,java.compiler,java.instrument,java.logging,java.management,java.naming,java.sql,java.xml,jdk.management,jdk.unsupported,jdk.crypto.ec,java.desktop,java.security.jgss,jdk.zipfs,java.net.http \
      --strip-debug --no-header-files --no-man-pages --compress=0 --output "$root/jre"
    tar -C "$work" -cf - sk-bazel | xz -6 -T0 > "$bundle"
    ls -l "$bundle" >&2
    ;;
  unpack)
    mkdir -p /opt
    rm -rf /opt/sk-bazel
    tar -xJf "$bundle" -C /opt
    cp /opt/sk-bazel/lib/* /usr/local/lib/
    ldconfig
    # Debian's client verifies its install base against its own executable
    # unless told to trust it (its /etc/bazel/bazelrc does the same).
    echo "/opt/sk-bazel/bin/bazel-4 --install_base=/opt/sk-bazel/install" \
      "--server_javabase=/opt/sk-bazel/jre --trust_install_base"
    ;;
  *)
    echo "usage: $0 pack|unpack BUNDLE.tar.xz" >&2
    exit 2
    ;;
esac
