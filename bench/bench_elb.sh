#!/usr/bin/env bash
# EC2/ELB data-plane reads: per-call cost with 1,000 instances and 200 registered
# (bench/bench_elb.c, built here against libscaler); the indexed instance lookup beside a
# linear scan over the same records.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
mkdir -p "$BUILD/bench"
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I. bench/bench_elb.c \
    "$BUILD/lib/libscaler.a" -lm -o "$BUILD/bench/bench_elb"
"$BUILD/bench/bench_elb" "${BENCH_INSTANCES:-1000}" "${BENCH_REGISTERED:-200}"
