#!/usr/bin/env bash
# One 1,000-datum PutMetricData over the Query protocol (the soak's series explosion):
# CPU per call of the form split, the model-driven parse, and the whole request through
# dispatch_handle (bench/bench_query_put.c, built here against the emulator's library).
# CALLGRIND=1 adds the instruction counts of one parse and one request (valgrind), which
# do not move with the machine's load.
#   bench/bench_query_put.sh     env: PUT_DATUMS=1000 CALLGRIND=0
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PUT_DATUMS=${PUT_DATUMS:-1000}
[ -f "$BUILD/lib/libemulator.a" ] || { echo "build first (make)" >&2; exit 2; }
mkdir -p "$BUILD/bench"
PKGS="libmicrohttpd jansson libcurl openssl libxml-2.0 libcbor zlib librsvg-2.0"
# shellcheck disable=SC2046
${CC:-cc} -std=c11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I. $(pkg-config --cflags $PKGS) \
    bench/bench_query_put.c "$BUILD/lib/libloadgen.a" "$BUILD/lib/libsim.a" \
    "$BUILD/lib/libemulator.a" "$BUILD/lib/libscaler.a" "$BUILD/lib/libcommon.a" \
    $(pkg-config --libs $PKGS) -lpthread -lm -o "$BUILD/bench/bench_query_put"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
"$BUILD/bench/bench_query_put" "$PUT_DATUMS" 50 20
if [ "${CALLGRIND:-0}" = 1 ]; then
    command -v valgrind >/dev/null || { echo "need valgrind" >&2; exit 2; }
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for fn in query_parse dispatch_handle; do
        valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.$fn" --collect-atstart=no \
            --toggle-collect="$fn" "$BUILD/bench/bench_query_put" "$PUT_DATUMS" 1 1 \
            >/dev/null 2>"$tmp/log.$fn"
        ir=$(sed -n 's/^summary: //p' "$tmp/cg.$fn")
        echo "callgrind: $fn of one $PUT_DATUMS-datum PutMetricData: $ir instructions"
    done
fi
