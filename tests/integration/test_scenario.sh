#!/usr/bin/env bash
# `loadgen scenario FILE --dry-run`: the plan of AWS calls for every shipped scenario, and
# the plan played through `loadgen aws` against the emulator (the API accepts every
# setup call, alarm actions resolved to the PolicyARNs it returned, and the teardown
# leaves nothing). Prints TAP lines.
set -euo pipefail

ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
LG="$ROOT/$BUILD/bin/loadgen"
TMP=$(mktemp -d)
PID=
failed=0

cleanup() {
    if [ -n "$PID" ]; then
        kill -TERM "$PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$PID" 2>/dev/null || true
    fi
    if [ "$failed" -ne 0 ] && [ -f "$TMP/emu.log" ]; then
        echo "# emulator log tail:"; tail -n 20 "$TMP/emu.log" | sed 's/^/#   /'
    fi
    if [ "${ASAN:-0}" = 1 ]; then cat "$TMP"/*.log 2>/dev/null | grep -E 'AddressSanitizer|runtime error:' || true; fi
    [ "${KEEP_TMP:-0}" = 1 ] || rm -rf "$TMP"
}
trap cleanup EXIT

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }
check() { local d=$1; shift; if "$@" >"$TMP/out" 2>&1; then ok "$d"; else notok "$d"; sed 's/^/#   /' "$TMP/out" | tail -n 15; fi; }

for f in "$ROOT"/scenarios/*.json; do
    n=$(basename "$f" .json)
    check "dry-run $n: setup and teardown printed, names prefixed" bash -c "
        '$LG' scenario '$f' --dry-run --prefix sl-t >'$TMP/$n.plan'
        grep -q '^# setup' '$TMP/$n.plan' && grep -q '^# teardown' '$TMP/$n.plan'
        grep -q '^autoscaling CreateAutoScalingGroup AutoScalingGroupName=sl-t-' '$TMP/$n.plan'
        grep -q '^autoscaling DeleteAutoScalingGroup AutoScalingGroupName=sl-t-.* ForceDelete=true' '$TMP/$n.plan'"
done
check "bad file exits 2 with the JSON path" bash -c "
    printf '{\"name\":\"x\",\"duration\":\"1h\",\"load\":[{\"rate\":-1}]}' >'$TMP/bad.json'
    '$LG' scenario '$TMP/bad.json' --dry-run 2>'$TMP/err'; [ \$? = 2 ] && grep -qF 'bad.json: \$' '$TMP/err'"
check "missing file exits 2" bash -c "'$LG' scenario /nonexistent.json --dry-run 2>/dev/null; [ \$? = 2 ]"

"$EMU" --port 0 --port-file "$TMP/port" 2>"$TMP/emu.log" &
PID=$!
for _ in $(seq 100); do
    [ -s "$TMP/port" ] && break
    kill -0 "$PID" 2>/dev/null || { echo "not ok - emulator died"; cat "$TMP/emu.log"; exit 1; }
    sleep 0.1
done
export AWS_ENDPOINT_URL="http://127.0.0.1:$(cat "$TMP/port")" AWS_REGION=us-east-1
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN

# play NAME: runs the plan's lines through loadgen aws, resolving {arn:P}.
play() {
    local plan=$1 section=$2
    declare -A arn=()
    local line
    awk -v s="# $section" '/^# /{on=index($0, s)==1; next} on' "$plan" > "$TMP/lines"
    while IFS= read -r line; do
        for p in "${!arn[@]}"; do line=${line//"{arn:$p}"/${arn[$p]}}; done
        eval "set -- $line"
        "$LG" aws "$@" > "$TMP/reply" || { echo "failed: $line"; return 1; }
        if [ "$2" = PutScalingPolicy ]; then
            pname=$(printf '%s\n' "$@" | sed -n 's/^PolicyName=//p')
            arn[$pname]=$(sed -n 's:.*<PolicyARN>\(.*\)</PolicyARN>.*:\1:p' "$TMP/reply")
            [ -n "${arn[$pname]}" ] || { echo "no PolicyARN for $pname"; return 1; }
        fi
    done < "$TMP/lines"
}

for n in seed-tutorial step-scaling target-tracking; do
    [ -f "$ROOT/scenarios/$n.json" ] || continue
    "$LG" scenario "$ROOT/scenarios/$n.json" --dry-run --prefix "sl-$n" > "$TMP/$n.plan"
    check "$n: every setup call accepted by the API (alarm actions = returned PolicyARNs)" bash -c "
        $(declare -f play); TMP='$TMP' LG='$LG' play '$TMP/$n.plan' setup
        '$LG' aws autoscaling DescribeAutoScalingGroups | grep -q '<AutoScalingGroupName>sl-$n-'
        '$LG' aws cloudwatch DescribeAlarms | grep -q 'arn:aws:autoscaling:'"
    check "$n: teardown leaves no group, alarm, launch configuration or load balancer" bash -c "
        $(declare -f play); TMP='$TMP' LG='$LG' play '$TMP/$n.plan' teardown
        ! '$LG' aws autoscaling DescribeAutoScalingGroups | grep -q 'sl-$n-'
        ! '$LG' aws autoscaling DescribeLaunchConfigurations | grep -q 'sl-$n-'
        ! '$LG' aws cloudwatch DescribeAlarms | grep -q '<AlarmName>sl-$n-'
        ! '$LG' aws elb DescribeLoadBalancers | grep -q 'sl-$n-'"
done
