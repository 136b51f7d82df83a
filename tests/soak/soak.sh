#!/usr/bin/env bash
# make soak: a bounded run (at most 10 minutes; stops by itself) replaying issue 19's
# probes against one emulator under --state and a low fd limit, sampling its RSS, fds,
# CPU and the API's answer time every 250 ms, and checking them against the bounds in
# docs/soak.md. Prints one result line:
#   soak: PASS|FAIL 312s rss_max=..MB fds_max=.. cpu=..% api_p99=..ms api_max=..ms
#         crashes=0 lost=0 [failed: ...]
# Not part of .ci/run (minutes of CPU). env: BUILD=build SOAK_FUZZ_SECONDS=10 KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/../integration/lib.sh"
need python3 python3-boto3 || finish
need curl curl || finish

FUZZ=${SOAK_FUZZ_SECONDS:-10}
# 1. the in-process fuzzers of tests/fuzz/ (libFuzzer, ASan+UBSan), briefly
fuzz_rc=0
if command -v clang >/dev/null 2>&1; then
    FUZZ_SECONDS=$FUZZ BUILD="$ROOT/build-fuzz" timeout -k 5 270 "$ROOT/scripts/fuzz.sh" query json cbor \
        >"$TMP/fuzz.log" 2>&1 || fuzz_rc=$?
else
    echo "# clang missing: the libFuzzer targets are skipped" >"$TMP/fuzz.log"
fi

# 2. the emulator under test: --state, a low fd limit (1,300: the 1,010 slow clients and
# the connection table fill it), bounded instances and series
EMU_ARGS=(--state "$TMP/state" --quiet --time-scale 60 --max-instances 40 --max-metric-series 20000)
( ulimit -n 1300; exec setsid "$EMU" --port 0 --port-file "$TMP/emu.port" "${EMU_ARGS[@]}" \
    </dev/null >>"$TMP/emu.log" 2>&1 ) &
LAST=$!
wait_port emu "$LAST" || { notok "emulator starts"; finish; }

timeout -k 5 300 python3 "$ROOT/tests/soak/soak.py" --port "$PORT" --pid "$LAST" --tmp "$TMP" \
    --emu "$EMU" --fuzz-rc "$fuzz_rc" -- "${EMU_ARGS[@]}" || failed=1
finish
