#!/bin/bash
# deadlock_headline_test.sh: a deadlock report's headline names the barrier
# that explains it, not one short only because its arrivers wait there.
# The K split's full barriers counting one arrival too many
# (corpus_cluster.split_full_counts_all) leave a producer's input.empty short
# too, of the consumer warpgroup that waits in the reduction; the headline
# must name the reduction's split_k.full, the remote last arriver with its CTA.
set -uo pipefail
probe="$1"
out=$("$probe" --kernel corpus_cluster.split_full_counts_all --config split=2 --schedules 1 2>&1)
want="likely cause: split_k.full[0] of CTA 0: 2 arrivals expected per phase, 1 arrived in this phase (last from CTA 1 warp 4 (mma))"
if ! grep -qF "$want" <<<"$out"; then
  echo "FAIL: the headline does not read: $want"
  grep -m1 "under_arrival" <<<"$out"
  exit 1
fi
echo "ok"
