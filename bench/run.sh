#!/usr/bin/env bash
# make bench: runs every benchmark script in this folder (bench/bench_*.sh), each of
# which measures one bar side by side with its peer and prints its figures and ratio.
#   bench/run.sh [FILTER]
set -uo pipefail
cd "$(dirname "$0")/.."
# The peers' harnesses live in ../shared/bench beside the checkout.
if [ -z "${SHARED_BENCH:-}" ]; then
    for d in "$PWD/../shared/bench" /work/shared/bench; do
        [ -d "$d" ] && SHARED_BENCH=$d && break
    done
fi
export BUILD=${BUILD:-build} SCALELAB_ROOT=$PWD SHARED_BENCH=${SHARED_BENCH:-}
status=0
for b in bench/bench_*.sh; do
    [ -e "$b" ] || continue
    [ -n "${1:-}" ] && [[ "$b" != *"$1"* ]] && continue
    echo "== $(basename "$b" .sh)"
    bash "$b" || { echo "FAILED: $b"; status=1; }
done
exit $status
