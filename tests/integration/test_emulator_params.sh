#!/usr/bin/env bash
# Unknown request parameters, per protocol: the query services (Auto Scaling, ELB,
# CloudWatch over query) and EC2 answer UnknownParameter 400 "The parameter X is not
# recognized" (X the wire name down to the first unknown segment); Action, Version and the
# query-string authentication parameters are accepted; CloudWatch over JSON 1.0 and CBOR
# ignores unknown members (see docs/cloudwatch.md). Prints TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu
AUTH_AS='AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/autoscaling/aws4_request, SignedHeaders=host, Signature=00'

# query SERVICE BODY: POSTs a form; prints "<status> <body>"
query() {
    local svc=$1 body=$2
    curl -s -o "$TMP/body" -w '%{http_code}' -X POST "$EP/" \
        -H "Authorization: AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/$svc/aws4_request, SignedHeaders=host, Signature=00" \
        -H 'Content-Type: application/x-www-form-urlencoded; charset=utf-8' --data "$body"
    printf ' '
    cat "$TMP/body"
}

# expect DESC SERVICE BODY STATUS TEXT...: the reply has STATUS and contains every TEXT
expect() {
    local desc=$1 svc=$2 body=$3 status=$4
    shift 4
    local out
    out=$(query "$svc" "$body")
    if [ "${out%% *}" != "$status" ]; then
        notok "$desc (status ${out%% *}, want $status)"; echo "#   $out" | head -c 600; echo; return
    fi
    for t in "$@"; do
        case "$out" in *"$t"*) ;; *) notok "$desc (no '$t')"; echo "#   $out" | head -c 600; echo; return ;; esac
    done
    ok "$desc"
}

AS='Action=DescribeAutoScalingGroups&Version=2011-01-01'
expect "autoscaling: known parameters pass" autoscaling "$AS&MaxRecords=10" 200 "<AutoScalingGroups"
expect "autoscaling: unknown top-level parameter" autoscaling "$AS&Bogus=1" 400 \
    "<Code>UnknownParameter</Code>" "<Message>The parameter Bogus is not recognized</Message>" "<Type>Sender</Type>"
expect "autoscaling: unknown nested list member names the full path" autoscaling \
    "$AS&AutoScalingGroupNames.member.1=a&AutoScalingGroupNames.memberz.1=b" 400 \
    "The parameter AutoScalingGroupNames.memberz is not recognized"
expect "autoscaling: unknown structure member in a list element" autoscaling \
    "Action=CreateOrUpdateTags&Version=2011-01-01&Tags.member.1.Key=k&Tags.member.1.Value=v&Tags.member.1.ResourceId=g&Tags.member.1.ResourceType=auto-scaling-group&Tags.member.1.Colour=red" \
    400 "The parameter Tags.member.1.Colour is not recognized"
expect "autoscaling: sub-key under a scalar" autoscaling "$AS&MaxRecords=5&MaxRecords.x=1" 400 \
    "The parameter MaxRecords.x is not recognized"
expect "autoscaling: an operation without input refuses parameters" autoscaling \
    "Action=DescribeAdjustmentTypes&Version=2011-01-01&Foo=1" 400 "The parameter Foo is not recognized"
expect "autoscaling: SigV4 and SigV2 query-auth parameters are accepted" autoscaling \
    "$AS&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKID%2F20260101%2Fus-east-1%2Fautoscaling%2Faws4_request&X-Amz-Date=20260101T000000Z&X-Amz-Expires=300&X-Amz-SignedHeaders=host&X-Amz-Signature=00&X-Amz-Security-Token=t&AWSAccessKeyId=AKID&SignatureVersion=2&SignatureMethod=HmacSHA256&Signature=x&Timestamp=2026-01-01T00%3A00%3A00Z" \
    200 "<AutoScalingGroups"
expect "autoscaling: the empty list form Name= is known" autoscaling "$AS&AutoScalingGroupNames=" 200 "<AutoScalingGroups"
expect "elb: unknown parameter" elasticloadbalancing \
    "Action=DescribeLoadBalancers&Version=2012-06-01&PageSize=10&Colour=red" 400 \
    "<Code>UnknownParameter</Code>" "The parameter Colour is not recognized"
expect "elb: known parameters pass" elasticloadbalancing \
    "Action=DescribeLoadBalancers&Version=2012-06-01&PageSize=10" 200 "<LoadBalancerDescriptions"
expect "cloudwatch query: unknown member inside MetricData" monitoring \
    "Action=PutMetricData&Version=2010-08-01&Namespace=App&MetricData.member.1.MetricName=M&MetricData.member.1.Value=1&MetricData.member.1.Colour=red" \
    400 "The parameter MetricData.member.1.Colour is not recognized"
expect "cloudwatch query: a map entry's unknown part" monitoring \
    "Action=ListMetrics&Version=2010-08-01&Namespace=App&Extra.entry.1.key=a" 400 \
    "The parameter Extra is not recognized"
expect "cloudwatch query: known parameters pass" monitoring \
    "Action=PutMetricData&Version=2010-08-01&Namespace=App&MetricData.member.1.MetricName=M&MetricData.member.1.Value=1&MetricData.member.1.Dimensions.member.1.Name=A&MetricData.member.1.Dimensions.member.1.Value=b" \
    200 "<PutMetricDataResponse"
expect "ec2: unknown parameter (EC2's error shape)" ec2 \
    "Action=DescribeInstances&Version=2016-11-15&ImageType=machine" 400 \
    "<Response><Errors><Error><Code>UnknownParameter</Code><Message>The parameter ImageType is not recognized</Message>"
expect "ec2: unknown sub-parameter of a filter" ec2 \
    "Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=instance-state-name&Filter.1.Value.1=running&Filter.1.Colour=red" \
    400 "The parameter Filter.1.Colour is not recognized"
expect "ec2: known parameters pass (capitalised and model names)" ec2 \
    "Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=instance-state-name&Filter.1.Value.1=running&MaxResults=5" \
    200 "<reservationSet"

# CloudWatch JSON 1.0 and CBOR: unknown members are ignored
out=$(curl -s -w ' %{http_code}' -X POST "$EP/" -H 'X-Amz-Target: GraniteServiceVersion20100801.ListMetrics' \
    -H 'Content-Type: application/x-amz-json-1.0' -H 'x-amzn-query-mode: true' \
    --data '{"Namespace":"App","Colour":"red"}')
case "$out" in *'"Metrics"'*' 200') ok "cloudwatch json: unknown members are ignored" ;;
    *) notok "cloudwatch json: unknown members are ignored"; echo "#   $out" ;; esac
if python3 - "$EP" <<'PY' >"$TMP/cbor.out" 2>&1; then ok "cloudwatch cbor: unknown members are ignored"; else notok "cloudwatch cbor: unknown members are ignored"; sed 's/^/#   /' "$TMP/cbor.out"; fi
import sys, urllib.request
# {"Namespace": "App", "Colour": "red"} in CBOR
body = bytes([0xa2, 0x69]) + b"Namespace" + bytes([0x63]) + b"App" + bytes([0x66]) + b"Colour" + bytes([0x63]) + b"red"
req = urllib.request.Request(sys.argv[1] + "/service/GraniteServiceVersion20100801/operation/ListMetrics",
                             data=body, method="POST",
                             headers={"smithy-protocol": "rpc-v2-cbor", "Content-Type": "application/cbor",
                                      "Accept": "application/cbor"})
with urllib.request.urlopen(req) as r:
    assert r.status == 200, r.status
    data = r.read()
    assert b"Metrics" in data, data
PY

# boto3 and the CLI send only known parameters: a few calls through each still work
if python3 - "$EP" <<'PY' >"$TMP/boto.out" 2>&1; then ok "boto3: every service still answers"; else notok "boto3: every service still answers"; sed 's/^/#   /' "$TMP/boto.out"; fi
import sys, boto3
ep = sys.argv[1]
kw = dict(endpoint_url=ep, region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t")
boto3.client("autoscaling", **kw).describe_auto_scaling_groups(MaxRecords=5)
boto3.client("elb", **kw).describe_load_balancers(PageSize=5)
cw = boto3.client("cloudwatch", **kw)
cw.put_metric_data(Namespace="App", MetricData=[{"MetricName": "M", "Value": 1.0, "Unit": "Count",
                                                  "Dimensions": [{"Name": "A", "Value": "b"}]}])
cw.list_metrics(Namespace="App")
boto3.client("ec2", **kw).describe_instances(Filters=[{"Name": "instance-state-name", "Values": ["running"]}])
PY
finish
