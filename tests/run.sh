#!/usr/bin/env bash
# Runs every suite and ends with one line: "N passed, N failed".
#   tests/run.sh [unit|integration] [FILTER]
# Unit tests are the cmocka binaries under $BUILD/tests (TAP output); integration
# tests are tests/integration/test_*.sh, each printing TAP lines ("ok ...", "not ok ...").
# A suite that exits non-zero without reporting a failure counts as one failure.
set -uo pipefail

BUILD=${BUILD:-build}
which=${1:-all}
filter=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
export BUILD SCALELAB_ROOT="$root"
export CMOCKA_MESSAGE_OUTPUT=TAP

passed=0
failed=0
failed_suites=()

run_suite() {
    local name=$1
    shift
    local out rc p f
    out=$("$@" 2>&1)
    rc=$?
    p=$(grep -cE '^ok ' <<<"$out")
    f=$(grep -cE '^not ok ' <<<"$out")
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        out+=$'\n'"not ok - $name exited with status $rc"
    fi
    if [ "${ASAN:-0}" = 1 ] && grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer' <<<"$out"; then
        f=$((f + 1))
        out+=$'\n'"not ok - $name: sanitizer report"
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    if [ "$f" -gt 0 ]; then
        failed_suites+=("$name")
        printf 'FAIL %-40s %d passed, %d failed\n' "$name" "$p" "$f"
        grep -vE '^ok ' <<<"$out" | tail -n 60 | sed 's/^/    /'
    else
        printf 'ok   %-40s %d passed\n' "$name" "$p"
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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
