# tests/integration/emu_lib.sh: sourced by the data-plane tests. Starts emulators on
# ephemeral ports (start NAME [ARGS]: sets EP and LAST), stops every one it started by PID
# on exit, shows their logs when `failed` is set, and points boto3 at no real account.
# A test whose emulators start instance processes writes those PIDs (children of an
# emulator it started) to "$TMP"/NAME.kids: cleanup KILLs them too, for the case where the
# emulator died before it could end them. ok/notok print TAP lines (notok sets `failed`).
# The sourcing script sets `set -euo pipefail` first.
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
TMP=$(mktemp -d)
PIDS=()
failed=0

cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do
        for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null || true
    done
    for p in $(cat "$TMP"/*.kids 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
    if [ "$failed" -ne 0 ]; then
        for f in "$TMP"/*.log; do [ -f "$f" ] && { echo "# $f:"; tail -n 25 "$f" | sed 's/^/#   /'; }; done
    fi
    if [ "${ASAN:-0}" = 1 ]; then cat "$TMP"/*.log 2>/dev/null | grep -E 'AddressSanitizer|runtime error:' || true; fi
    [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$TMP"
}
trap cleanup EXIT

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }

start() {
    local name=$1; shift
    rm -f "$TMP/$name.port"
    setsid "$EMU" --port 0 --port-file "$TMP/$name.port" --quiet "$@" 2>"$TMP/$name.log" &
    LAST=$!
    PIDS+=("$LAST")
    for _ in $(seq 100); do
        [ -s "$TMP/$name.port" ] && break
        kill -0 "$LAST" 2>/dev/null || { echo "# emulator died"; return 1; }
        sleep 0.1
    done
    EP="http://127.0.0.1:$(cat "$TMP/$name.port")"
}

# the Python parts of the tests import tap.py (check, wait) from here
export PYTHONPATH="$ROOT/tests/integration${PYTHONPATH:+:$PYTHONPATH}"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_MAX_ATTEMPTS=1
