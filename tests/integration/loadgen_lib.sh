# shellcheck shell=bash
# Helpers for tests/integration/test_loadgen*.sh. Source it.
# Servers start under setsid on 127.0.0.1 port 0 (port read back from a file); cleanup
# TERMs each process group we started, then KILLs; temp dir kept only with KEEP_TMP=1.
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
LG="$ROOT/$BUILD/bin/loadgen"
SRV="$ROOT/tests/integration/loadgen_srv.py"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/lgtest.XXXXXX")
PIDS=()
FAILS=0

cleanup() {
    local p i
    for p in "${PIDS[@]}"; do kill -TERM -- "-$p" 2>/dev/null; done
    for i in $(seq 1 50); do
        local alive=0
        for p in "${PIDS[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ "$alive" = 0 ] && break
        sleep 0.1
    done
    for p in "${PIDS[@]}"; do kill -KILL -- "-$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    if [ "${KEEP_TMP:-0}" = 1 ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

ok() { echo "ok - $*"; }
notok() {
    echo "not ok - $*"
    FAILS=$((FAILS + 1))
}
# check DESC CONDITION-COMMAND...: ok if the command succeeds.
check() {
    local d=$1
    shift
    if "$@"; then ok "$d"; else notok "$d"; fi
}

# start_srv NAME [server args...]: sets PORT_<NAME>.
start_srv() {
    local name=$1 i pf
    shift
    pf="$TMP/$name.port"
    setsid python3 "$SRV" --port-file "$pf" --max-seconds 300 "$@" >"$TMP/$name.log" 2>&1 </dev/null &
    PIDS+=("$!")
    for i in $(seq 1 100); do
        if [ -s "$pf" ]; then
            printf -v "PORT_$name" '%s' "$(cat "$pf")"
            return 0
        fi
        kill -0 "${PIDS[-1]}" 2>/dev/null || break
        sleep 0.1
    done
    echo "# server $name did not start:"; sed 's/^/#   /' "$TMP/$name.log"
    exit 1
}

# lg NAME ARGS...: runs loadgen bounded in time; stdout NAME.out, stderr NAME.err,
# exit status NAME.rc, wall seconds NAME.secs.
lg() {
    local name=$1 t0 t1 rc=0
    shift
    t0=$(date +%s.%N)
    timeout -k 5 60 "$LG" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null || rc=$?
    t1=$(date +%s.%N)
    echo "$rc" >"$TMP/$name.rc"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", b - a }' >"$TMP/$name.secs"
    if [ "${ASAN:-0}" = 1 ] && grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer' "$TMP/$name.err"; then
        notok "$name: sanitizer report"; sed 's/^/#   /' "$TMP/$name.err" | head -30
    fi
}
rc_of() { cat "$TMP/$1.rc"; }
# field NAME "Label:" -> first number after the label in NAME.out
field() { awk -v l="$2" 'index($0, l) == 1 { s = substr($0, length(l) + 1); sub(/^[ \t]+/, "", s); split(s, a, /[ \t]/); print a[1]; exit }' "$TMP/$1.out"; }
has() { grep -qF -- "$2" "$TMP/$1.${3:-out}"; }
secs_below() { awk -v s="$(cat "$TMP/$1.secs")" -v m="$2" 'BEGIN { exit !(s < m) }'; }
show() { echo "# $1 (rc $(rc_of "$1")):"; sed 's/^/#   /' "$TMP/$1.out" "$TMP/$1.err" | head -60; }
finish() { [ "$FAILS" -eq 0 ]; }
