#!/usr/bin/env bash
# make fuzz: libFuzzer (clang -fsanitize=fuzzer,address,undefined) on the query, JSON and
# CBOR parsers and on the whole front door (dispatch: routing, decoding, the handlers and
# libscaler behind them, rendering, admin), each for FUZZ_SECONDS (default 60). Exit 1 on
# any crash, leak or sanitizer report; crash inputs stay in $BUILD/fuzz/<target>/.
#   scripts/fuzz.sh [TARGET...]      env: FUZZ_SECONDS=60 BUILD=build-fuzz
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build-fuzz}
SECS=${FUZZ_SECONDS:-60}
CC=${FUZZ_CC:-clang}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(query json cbor dispatch)

mkdir -p "$BUILD/gen" "$BUILD/fuzz"
python3 scripts/gen-models.py "$BUILD/gen/model_tables.c"
FLAGS=(-std=c11 -D_GNU_SOURCE -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
       -fno-sanitize-recover=all -I. $(pkg-config --cflags jansson))
SRC=(emulator/query.c emulator/model.c emulator/model_check.c emulator/model_pattern.c emulator/model_ucat.c emulator/awserr.c
     emulator/awsjson.c emulator/acbor.c emulator/xml.c scaler/status.c scaler/civil.c common/base64.c common/buf.c common/xalloc.c common/log.c
     "$BUILD/gen/model_tables.c")
# dispatch links every library source but the programs' main.c and the libmicrohttpd glue
DISPATCH_SRC=($(ls common/*.c scaler/*.c emulator/*.c | grep -v -e '^emulator/main\.c$' -e '^emulator/server\.c$')
              "$BUILD/gen/model_tables.c")
status=0
for t in "${targets[@]}"; do
    bin="$BUILD/fuzz/fuzz_$t"
    echo "fuzz: building $bin"
    if [ "$t" = dispatch ]; then
        "$CC" "${FLAGS[@]}" $(pkg-config --cflags openssl zlib librsvg-2.0) -o "$bin" "tests/fuzz/fuzz_$t.c" \
            "${DISPATCH_SRC[@]}" $(pkg-config --libs jansson openssl zlib librsvg-2.0) -lpthread -lm
    else
        "$CC" "${FLAGS[@]}" -o "$bin" "tests/fuzz/fuzz_$t.c" "${SRC[@]}" $(pkg-config --libs jansson) -lm
    fi
    corpus="$BUILD/fuzz/$t-corpus"
    mkdir -p "$corpus" "$BUILD/fuzz/$t"
    # a few seeds so the fuzzer starts from real requests
    case $t in
    query) printf '\x00\x0cAutoScalingGroupName=g&MinSize=1&MaxSize=2&AvailabilityZones.member.1=a' >"$corpus/seed1"
           printf '\x03\x10InstanceId.1=i-1&Filter.1.Name=x&Filter.1.Value.1=y' >"$corpus/seed2" ;;
    json)  printf '\x20{"Namespace":"A","MetricData":[{"MetricName":"m","Value":1,"Timestamp":1.5}]}' >"$corpus/seed1" ;;
    cbor)  printf '\x20\xa1\x69Namespace\x61A' >"$corpus/seed1" ;;
    # flags, operation, region length, region, body (tests/fuzz/fuzz_dispatch.c)
    dispatch) printf '\x00\x0c\x09us-west-2AutoScalingGroupName=g&MinSize=1&MaxSize=2&AvailabilityZones.member.1=us-west-2a' >"$corpus/seed1"
              printf '\x01\x0b\x00{"Namespace":"A","MetricData":[{"MetricName":"m","Value":1}]}' >"$corpus/seed2"
              printf '\x02\x05\x00\xa0' >"$corpus/seed3"
              printf '\x23\x00\x00{"advance_s":60}' >"$corpus/seed4" ;;
    esac
    echo "fuzz: running $t for ${SECS}s"
    if ! "$bin" -max_total_time="$SECS" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$BUILD/fuzz/$t/" -print_final_stats=1 "$corpus" >"$BUILD/fuzz/$t.log" 2>&1; then
        echo "fuzz: $t FAILED (see $BUILD/fuzz/$t.log)"
        tail -n 30 "$BUILD/fuzz/$t.log"
        status=1
    else
        echo "fuzz: $t ok: $(grep -E 'stat::number_of_executed_units' "$BUILD/fuzz/$t.log" | awk '{print $2}') executions, no crash"
    fi
done
exit $status
