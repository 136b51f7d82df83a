#!/usr/bin/env bash
# CloudWatch store + alarms: put rate and RSS for 1,000 metrics x 1 day of 1-minute data
# with 1,000 alarms (bench/bench_metrics.c, built here against libscaler).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
mkdir -p "$BUILD/bench"
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I. bench/bench_metrics.c \
    "$BUILD/lib/libscaler.a" -ljansson -lm -o "$BUILD/bench/bench_metrics"
"$BUILD/bench/bench_metrics" "${BENCH_METRICS:-1000}" "${BENCH_MINUTES:-1440}"
