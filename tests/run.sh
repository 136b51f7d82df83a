#!/usr/bin/env bash
# Runs every suite and ends with one line: "N passed, N failed, N skipped".
#   tests/run.sh [unit|integration|all] [FILTER]
# Unit tests are the cmocka binaries under $BUILD/tests (TAP output); integration tests are
# tests/integration/test_*.sh, each printing TAP lines ("ok ...", "not ok ...", and
# "ok ... # SKIP reason" for a check that could not run: counted apart, printed with its
# reason). FILTER is a substring of the suite's name.
# Each suite runs under a timeout (SUITE_TIMEOUT seconds, default 600, 1800 under ASAN=1: a
# sanitized build runs the CPU-bound suites several times slower): a suite that has not
# ended by then fails with its name. A suite whose script says `# suite-timeout: N` gets at
# least N seconds (the Terraform example: minutes of the provider's own work, not ours). When a suite ends, for whatever reason, every process it
# started is stopped (tests/procs.sh). A suite that exits non-zero without reporting a
# failure counts as one failure; under ASAN=1 a sanitizer report in its output is one more.
# Suites run one after the other; each one's name is printed as it starts, its "not ok" and
# SKIP lines as they come (every line with TESTS_VERBOSE=1), then its counts and time. The
# whole output of each suite is kept in $BUILD/test-logs/NAME.log.
set -uo pipefail

BUILD=${BUILD:-build}
which=${1:-all}
filter=${2:-}
timeout_s=${SUITE_TIMEOUT:-$([ "${ASAN:-0}" = 1 ] && echo 1800 || echo 600)}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
. tests/procs.sh
export BUILD SCALELAB_ROOT="$root"
export CMOCKA_MESSAGE_OUTPUT=TAP
if [ "${ASAN:-0}" = 1 ]; then
    export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
logs="$BUILD/test-logs"
mkdir -p "$logs"

passed=0
failed=0
skipped=0
failed_suites=()
suite_id=

# Interrupted: stop the running suite's processes, then go.
on_signal() {
    [ -n "$suite_id" ] && stop_suite "$suite_id" 2
    echo "interrupted"
    exit 130
}
trap on_signal INT TERM HUP

# show NAME OUT: reads a suite's output as it comes. NAME is already printed (no newline);
# the first line shown now starts a new line. Shows "not ok" and SKIP lines (every line with
# TESTS_VERBOSE=1); at the end writes "PASSED FAILED SKIPPED LINES_SHOWN" to OUT.
show() {
    awk -v verbose="${TESTS_VERBOSE:-0}" -v out="$2" '
        function say(s) { if (!shown++) print ""; print "    " s; fflush() }
        /^not ok( |$)/ { f++; say($0); next }
        /^ok( |$)/ && /#[ \t]*[Ss][Kk][Ii][Pp]/ {
            s++; r = $0; sub(/^[^#]*#[ \t]*[Ss][Kk][Ii][Pp][^ \t]*[ \t]*/, "", r)
            say("SKIP " (r == "" ? "(no reason given)" : r)); next
        }
        /^ok( |$)/ { p++; if (verbose == 1) say($0); next }
        verbose == 1 { say($0) }
        END { printf "%d %d %d %d\n", p, f, s, shown > out }'
}

# own_timeout SCRIPT: the `# suite-timeout: N` a suite script asks for, else 0
own_timeout() {
    [ -f "$1" ] || { echo 0; return; }
    sed -n 's/^# suite-timeout: *\([0-9][0-9]*\) *$/\1/p' "$1" | head -1 | grep . || echo 0
}

run_suite() {
    local name=$1 log t0 t1 tpid rc p f s shown extra=() limit=$timeout_s own
    shift
    own=$(own_timeout "${2:-}")
    [ "$own" -gt "$limit" ] && limit=$own
    log="$logs/${name//\//_}.log"
    suite_id="run$$-${name//\//_}"
    printf '%-46s ' "$name"
    t0=${EPOCHREALTIME/./}
    # emptied before tail opens it and appended to after: a log left by an earlier run, truncated
    # under a running tail, made it skip lines ("file truncated") and miscount the suite
    : >"$log"
    timeout -k 15 "$limit" env SCALELAB_SUITE_ID="$suite_id" "$@" >>"$log" 2>&1 </dev/null &
    tpid=$!
    # in the background so that a signal to this script is handled at once
    tail -n +1 -s 0.1 -f --pid="$tpid" "$log" | show "$name" "$log.counts" &
    wait $!
    read -r p f s shown <"$log.counts"
    rm -f "$log.counts"
    wait "$tpid"
    rc=$?
    t1=${EPOCHREALTIME/./}
    stop_suite "$suite_id"
    suite_id=
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        extra+=("not ok - $name timed out after $limit s (SUITE_TIMEOUT or its suite-timeout)")
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        extra+=("not ok - $name exited with status $rc")
    fi
    if [ "${ASAN:-0}" = 1 ] && grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer' "$log"; then
        extra+=("not ok - $name: sanitizer report")
    fi
    if [ "${#extra[@]}" -gt 0 ]; then
        [ "$shown" -gt 0 ] || echo
        shown=1
        printf '%s\n' "${extra[@]}" | tee -a "$log" | sed 's/^/    /'
        f=$((f + ${#extra[@]}))
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
    local secs counts
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e6 }')
    counts="$p passed"
    [ "$s" -gt 0 ] && counts+=", $s skipped"
    [ "$f" -gt 0 ] && counts+=", $f failed"
    # the name again when lines were shown after it
    [ "$shown" -gt 0 ] && printf '%-46s ' "$name"
    if [ "$f" -gt 0 ]; then
        failed_suites+=("$name")
        printf 'FAIL %-34s %6s s\n' "$counts" "$secs"
        grep -vE '^(ok|not ok)( |$)|^1\.\.[0-9]+$' "$log" | tail -n 60 | sed 's/^/    /'
    else
        printf 'ok   %-34s %6s s\n' "$counts" "$secs"
    fi
}

if [ "$which" = all ] || [ "$which" = unit ]; then
    while IFS= read -r bin; do
        [ -n "$filter" ] && [[ "$bin" != *"$filter"* ]] && continue
        run_suite "unit/${bin#"$BUILD"/tests/}" "$bin"
    done < <(find "$BUILD/tests" -type f -perm -u+x -name 'test_*' 2>/dev/null | sort)
fi

if [ "$which" = all ] || [ "$which" = integration ]; then
    for t in tests/integration/test_*.sh; do
        [ -e "$t" ] || continue
        [ -n "$filter" ] && [[ "$t" != *"$filter"* ]] && continue
        run_suite "integration/$(basename "$t" .sh)" bash "$t"
    done
fi

if [ "${#failed_suites[@]}" -gt 0 ]; then
    echo "failed suites: ${failed_suites[*]}"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
