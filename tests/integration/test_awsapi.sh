#!/usr/bin/env bash
# loadgen's AWS client (loadgen/awsapi.c, `loadgen aws`) end to end against the emulator
# with SigV4 verification on: the real signing path, credentials from env and from
# profile files, per-service endpoints, AWS errors as code + message. Prints TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

SEC='wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY'
printf '# test keys\nAKIDTEST %s\nAKIDPROF profsecret+/=\n' "$SEC" > "$TMP/keys"
start_emu emu --auth sigv4 --credentials "$TMP/keys"

unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_DEFAULT_REGION AWS_SESSION_TOKEN AWS_ENDPOINT_URL_EC2 \
    AWS_ENDPOINT_URL_AUTO_SCALING AWS_ENDPOINT_URL_CLOUDWATCH AWS_ENDPOINT_URL_ELASTIC_LOAD_BALANCING
export AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY="$SEC" AWS_REGION=us-east-1
export AWS_ENDPOINT_URL="$EP"

check "signed ec2 call accepted (env credentials)" bash -c \
    "'$LG' aws ec2 DescribeAvailabilityZones | grep -q '<zoneName>us-east-1a</zoneName>'"
check "autoscaling create + describe with .member.N lists" bash -c "
    '$LG' aws autoscaling CreateLaunchConfiguration LaunchConfigurationName=lc1 ImageId=ami-12345678 InstanceType=t3.micro >/dev/null
    '$LG' aws autoscaling CreateAutoScalingGroup AutoScalingGroupName='lab 1' LaunchConfigurationName=lc1 MinSize=0 MaxSize=2 AvailabilityZones.member.1=us-east-1a >/dev/null
    '$LG' aws autoscaling DescribeAutoScalingGroups AutoScalingGroupNames.member.1='lab 1' | grep -q '<AutoScalingGroupName>lab 1</AutoScalingGroupName>'"
check "cloudwatch and elb over query" bash -c "
    '$LG' aws cloudwatch DescribeAlarms | grep -q MetricAlarms
    '$LG' aws elb DescribeLoadBalancers | grep -q LoadBalancerDescriptions"
check "AWS error -> CODE: message, exit 3" bash -c "
    '$LG' aws autoscaling CreateAutoScalingGroup AutoScalingGroupName=g2 LaunchConfigurationName=lc1 MinSize=3 MaxSize=1 AvailabilityZones.member.1=us-east-1a 2>'$TMP/err'; rc=\$?
    [ \$rc = 3 ] && grep -q '^ValidationError: ' '$TMP/err'"
check "wrong secret -> SignatureDoesNotMatch" bash -c "
    AWS_SECRET_ACCESS_KEY=wrong '$LG' aws ec2 DescribeVpcs 2>'$TMP/err'; rc=\$?
    [ \$rc = 3 ] && grep -q '^SignatureDoesNotMatch: ' '$TMP/err'"
check "unknown key -> InvalidClientTokenId" bash -c "
    AWS_ACCESS_KEY_ID=AKIDOTHER '$LG' aws autoscaling DescribeAutoScalingGroups 2>'$TMP/err'; rc=\$?
    [ \$rc = 3 ] && grep -q '^InvalidClientTokenId: ' '$TMP/err'"
printf '[default]\nregion = eu-west-1\n[profile lab]\nregion = us-east-1\nendpoint_url = %s\n' "$EP" > "$TMP/config"
printf '[lab]\naws_access_key_id = AKIDPROF\naws_secret_access_key = profsecret+/=\n' > "$TMP/credentials"
check "profile from AWS_SHARED_CREDENTIALS_FILE / AWS_CONFIG_FILE (key, region, endpoint_url)" bash -c "
    env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_REGION -u AWS_ENDPOINT_URL \
        AWS_PROFILE=lab AWS_CONFIG_FILE='$TMP/config' AWS_SHARED_CREDENTIALS_FILE='$TMP/credentials' \
        '$LG' aws ec2 DescribeVpcs | grep -q vpcSet"
check "missing profile -> exit 1 naming it" bash -c "
    AWS_PROFILE=ghost '$LG' aws ec2 DescribeVpcs 2>'$TMP/err'; rc=\$?
    [ \$rc = 1 ] && grep -q ghost '$TMP/err'"
check "per-service endpoint beats AWS_ENDPOINT_URL" bash -c "
    AWS_ENDPOINT_URL=http://127.0.0.1:9 AWS_ENDPOINT_URL_EC2='$EP' '$LG' aws ec2 DescribeVpcs | grep -q vpcSet
    AWS_ENDPOINT_URL=http://127.0.0.1:9 AWS_ENDPOINT_URL_EC2='$EP' '$LG' aws cloudwatch DescribeAlarms 2>'$TMP/err'; rc=\$?
    [ \$rc = 1 ] && grep -q TransportError '$TMP/err'"
check "usage errors exit 2" bash -c "
    '$LG' aws nosuch DescribeVpcs 2>/dev/null; [ \$? = 2 ] || exit 1
    '$LG' aws ec2 DescribeVpcs novalue 2>/dev/null; [ \$? = 2 ]"
finish
