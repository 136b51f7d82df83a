#!/usr/bin/env bash
# `loadgen scenario FILE --dry-run`: the plan of AWS calls for every shipped scenario, and
# the plan played through `loadgen aws` against the emulator (the API accepts every
# setup call, alarm actions resolved to the PolicyARNs it returned, and the teardown
# leaves nothing). Prints TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

for f in "$ROOT"/scenarios/*.json; do
    n=$(basename "$f" .json)
    if grep -q '"albs"' "$f"; then
        check "dry-run $n: ALBs are refused with exit 2 and the path (scaler simulate only)" bash -c "
            '$LG' scenario '$f' --dry-run 2>'$TMP/$n.err'; [ \$? = 2 ] &&
            grep -qF '$f: \$.infrastructure.albs: Application Load Balancers' '$TMP/$n.err'"
        continue
    fi
    if grep -q '"composite_alarms"' "$f"; then
        check "dry-run $n: composite alarms are refused with exit 2 and the path (scaler simulate only)" bash -c "
            '$LG' scenario '$f' --dry-run 2>'$TMP/$n.err'; [ \$? = 2 ] &&
            grep -qF '$f: \$.infrastructure.composite_alarms: composite alarms' '$TMP/$n.err'"
        continue
    fi
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

start_emu emu
export AWS_ENDPOINT_URL="$EP" AWS_REGION=us-east-1
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

for n in seed-tutorial step-scaling target-tracking target-tracking-math; do
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
finish
