#!/usr/bin/env bash
# Acceptance: the seed tutorial flow (load balancer 80->9763 HTTP and 443->9443 TCP replaced
# by 8280/8243, health check TCP:9763 5/3/2/2, launch configuration, group 1..10 on the
# balancer, scale-up/down policies, high/low CPU alarms on the policy ARNs,
# DescribeInstanceHealth, the refused delete, min=max=0, delete, empty describe) with the
# aws CLI v1 (pip's, where one is on PATH) and v2 (Debian's /usr/bin/aws), Debian's botocore
# 1.29 (CloudWatch over query) and the AWS SDK for JavaScript v3 (npm, tests/integration/js;
# CloudWatch over JSON 1.0 and over RPC v2 CBOR); and a CloudWatch metrics round trip over
# RPC v2 CBOR.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu
unset AWS_MAX_ATTEMPTS # the clients with their default retries, as a user runs them

cli_flow() {
    local bin=$1 p=$2 a=("$1" --endpoint-url "$EP") up down
    "${a[@]}" elb create-load-balancer --load-balancer-name "${p}lb" --availability-zones us-east-1c \
        --listeners Protocol=HTTP,LoadBalancerPort=80,InstanceProtocol=HTTP,InstancePort=9763 \
        Protocol=TCP,LoadBalancerPort=443,InstanceProtocol=TCP,InstancePort=9443 >/dev/null
    "${a[@]}" elb delete-load-balancer-listeners --load-balancer-name "${p}lb" --load-balancer-ports 80 443
    "${a[@]}" elb create-load-balancer-listeners --load-balancer-name "${p}lb" \
        --listeners Protocol=HTTP,LoadBalancerPort=80,InstanceProtocol=HTTP,InstancePort=8280 \
        Protocol=TCP,LoadBalancerPort=443,InstanceProtocol=TCP,InstancePort=8243
    "${a[@]}" elb configure-health-check --load-balancer-name "${p}lb" \
        --health-check Target=TCP:9763,Interval=5,Timeout=3,UnhealthyThreshold=2,HealthyThreshold=2 >/dev/null
    # UserData: the instance profile boots at once (the default boot_s is 60 emulated s)
    "${a[@]}" autoscaling create-launch-configuration --launch-configuration-name "${p}lc" \
        --image-id ami-12345678 --instance-type m1.large --user-data '{"boot_s": 0}'
    "${a[@]}" autoscaling create-auto-scaling-group --auto-scaling-group-name "${p}asg" \
        --launch-configuration-name "${p}lc" --availability-zones us-east-1c --min-size 1 --max-size 10 \
        --load-balancer-names "${p}lb"
    up=$("${a[@]}" autoscaling put-scaling-policy --auto-scaling-group-name "${p}asg" --policy-name scale-up \
        --scaling-adjustment 1 --adjustment-type ChangeInCapacity --cooldown 300 --query PolicyARN --output text)
    down=$("${a[@]}" autoscaling put-scaling-policy --auto-scaling-group-name "${p}asg" --policy-name scale-down \
        --scaling-adjustment -1 --adjustment-type ChangeInCapacity --cooldown 300 --query PolicyARN --output text)
    "${a[@]}" cloudwatch put-metric-alarm --alarm-name "${p}HighCPU" --metric-name CPUUtilization \
        --namespace AWS/EC2 --statistic Average --period 600 --threshold 80 \
        --comparison-operator GreaterThanThreshold --dimensions Name=AutoScalingGroupName,Value="${p}asg" \
        --evaluation-periods 1 --alarm-actions "$up" --unit Percent
    "${a[@]}" cloudwatch put-metric-alarm --alarm-name "${p}LowCPU" --metric-name CPUUtilization \
        --namespace AWS/EC2 --statistic Average --period 600 --threshold 40 \
        --comparison-operator LessThanThreshold --dimensions Name=AutoScalingGroupName,Value="${p}asg" \
        --evaluation-periods 1 --alarm-actions "$down" --unit Percent
    [ "$("${a[@]}" cloudwatch describe-alarms --alarm-name-prefix "$p" --query 'length(MetricAlarms)' --output text)" = 2 ]
    for _ in $(seq 50); do
        [ "$("${a[@]}" elb describe-instance-health --load-balancer-name "${p}lb" --query 'InstanceStates[0].State' --output text)" = InService ] && break
        sleep 0.3
    done
    [ "$("${a[@]}" elb describe-instance-health --load-balancer-name "${p}lb" --query 'InstanceStates[0].State' --output text)" = InService ]
    ! "${a[@]}" autoscaling delete-auto-scaling-group --auto-scaling-group-name "${p}asg" 2>"$TMP/err"
    grep -q ResourceInUse "$TMP/err"
    "${a[@]}" autoscaling update-auto-scaling-group --auto-scaling-group-name "${p}asg" --min-size 0 --max-size 0
    for _ in $(seq 50); do
        "${a[@]}" autoscaling delete-auto-scaling-group --auto-scaling-group-name "${p}asg" 2>/dev/null && break
        sleep 0.3
    done
    for _ in $(seq 50); do
        [ "$("${a[@]}" autoscaling describe-auto-scaling-groups --auto-scaling-group-names "${p}asg" --query 'length(AutoScalingGroups)' --output text)" = 0 ] && break
        sleep 0.3
    done
    [ "$("${a[@]}" autoscaling describe-auto-scaling-groups --auto-scaling-group-names "${p}asg" --query 'length(AutoScalingGroups)' --output text)" = 0 ]
    "${a[@]}" cloudwatch delete-alarms --alarm-names "${p}HighCPU" "${p}LowCPU"
    "${a[@]}" autoscaling delete-launch-configuration --launch-configuration-name "${p}lc"
    "${a[@]}" elb delete-load-balancer --load-balancer-name "${p}lb"
    # the CloudWatch protocol this CLI chose, read off its own debug log of one request
    "${a[@]}" --debug cloudwatch describe-alarms --max-records 1 >/dev/null 2>"$TMP/debug"
    local ct proto
    ct=$(grep -o "'Content-Type': b\?'[^';]*" "$TMP/debug" | head -n1 | sed "s/.*'//")
    case $ct in
        application/x-www-form-urlencoded) proto=query ;;
        application/x-amz-json-1.0) proto=json ;;
        application/cbor) proto=smithy-rpc-v2-cbor ;;
        *) echo "unknown CloudWatch content type '$ct'"; return 1 ;;
    esac
    echo "$bin: $("$bin" --version 2>&1 | cut -d' ' -f1) cloudwatch=$proto"
}

# pip's v1: an `aws` on PATH that says aws-cli/1 (pip is the only source of the v1 CLI, and
# no registry this project reaches carries it: skipped where there is none)
AWS_V1=
for c in $(type -ap aws); do
    "$c" --version 2>&1 | grep -q '^aws-cli/1\.' && AWS_V1=$c && break
done
if [ -n "$AWS_V1" ]; then
    check_job "tutorial flow: aws CLI v1" cli_flow "$AWS_V1" cli
else
    skip "tutorial flow: aws CLI v1: none on PATH (pip's; no registry here carries it)"
fi
if [ -x /usr/bin/aws ] && /usr/bin/aws --version 2>&1 | grep -q '^aws-cli/2\.'; then
    check_job "tutorial flow: aws CLI v2" cli_flow /usr/bin/aws cl2
else
    notok "tutorial flow: aws CLI v2 (no v2 at /usr/bin/aws: scripts/deps.sh installs Debian's awscli)"
fi
# The JavaScript SDK v3 (the clients pinned in js/package-lock.json, installed into build/js
# by npm ci when missing or stale): the same flow in js/tutorial.mjs, CloudWatch over the
# SDK's default JSON 1.0, then over RPC v2 CBOR.
js_check "tutorial flow: AWS SDK for JavaScript v3 (CloudWatch over JSON 1.0)" tutorial.mjs "$EP" js
js_check "tutorial flow: AWS SDK for JavaScript v3 (CloudWatch over RPC v2 CBOR)" tutorial.mjs "$EP" jsc cbor
check_job "tutorial flow: Debian botocore (CloudWatch over query)" /usr/bin/python3 "$HERE/emu_tutorial.py" "$EP" deb
js_check "CloudWatch metrics round trip over RPC v2 CBOR (the JavaScript SDK's)" cloudwatch.mjs "$EP" roundtrip cbor
finish
