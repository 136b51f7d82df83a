#!/usr/bin/env bash
# The API's request rate limit (issue 19: a per-client limit with AWS's throttling
# answer; docs/dataplane.md "Request rate: Throttling"): with --rate-limit 0.001:5 one
# client address gets 5 requests at once, then AWS's answer in the request's own protocol
# -- boto3 (retries off) sees Throttling / "Rate exceeded" (HTTP 400) from Auto Scaling and
# CloudWatch, RequestLimitExceeded / "Request limit exceeded." (HTTP 503) from EC2; curl
# sees the Query XML, the JSON 1.0 body and the RPC v2 CBOR headers; the admin API is not
# limited. With --rate-limit 1:5 the bucket refills at 1 a second and a refused
# PutMetricAlarm changes nothing. With
# --account-rate-limit 0.001:3 (client limit off; no refill, so a slow run under ASan
# cannot earn a fourth token) an account and Region gets 3, another Region
# its own 3. With --rate-limit 0 nothing is refused. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need python3 python3-boto3 curl || finish

start_emu emu --quiet --rate-limit 0.001:5 || { notok "emulator starts with --rate-limit 0.001:5"; finish; }

python3 - "$EP" <<'PY' || failed=1
import sys, time, urllib.request, urllib.error
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
import tap
from tap import check

ep = sys.argv[1]
cfg = Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=5)
asg = boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1", config=cfg)
cw = boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1", config=cfg)
ec2 = boto3.client("ec2", endpoint_url=ep, region_name="us-east-1", config=cfg)


def err(fn, **kw):
    try:
        fn(**kw)
        return None
    except ClientError as e:
        return (e.response["Error"]["Code"], e.response["Error"]["Message"],
                e.response["ResponseMetadata"]["HTTPStatusCode"])


def drain():
    """Spends the bucket: calls until one is refused (at most 50)."""
    for _ in range(50):
        if err(asg.describe_auto_scaling_groups):
            return


n = 0
while n < 20 and err(asg.describe_auto_scaling_groups) is None:
    n += 1
check("a full bucket of 5 (--rate-limit 0.001:5, no refill to speak of): 5 calls pass at once, the 6th is refused "
      "(%d passed)" % n, n == 5)
e = err(asg.describe_auto_scaling_groups)
check("Auto Scaling (Query): Throttling, 'Rate exceeded', HTTP 400: %r" % (e,),
      e == ("Throttling", "Rate exceeded", 400))
e = err(cw.describe_alarms)
check("CloudWatch through boto3's protocol: Throttling, 'Rate exceeded', HTTP 400: %r" % (e,),
      e == ("Throttling", "Rate exceeded", 400))
e = err(ec2.describe_instances)
check("EC2: RequestLimitExceeded, 'Request limit exceeded.', HTTP 503: %r" % (e,),
      e == ("RequestLimitExceeded", "Request limit exceeded.", 503))
for i in range(30):
    with urllib.request.urlopen(ep + "/_scalelab/health", timeout=5) as r:
        assert r.status == 200
check("the admin API is not limited: 30 GET /_scalelab/health answer 200 meanwhile", True)
sys.exit(tap.failed)
PY

out=$(curl -s -m 5 -d 'Action=DescribeAutoScalingGroups&Version=2011-01-01' "$EP/" -w ' %{http_code}' | tr -d '\n')
case "$out" in
*"<Type>Sender</Type><Code>Throttling</Code><Message>Rate exceeded</Message>"*" 400") ok "curl, Query XML past the limit: 400 Sender Throttling 'Rate exceeded'" ;;
*) notok "curl, Query XML past the limit: $out" ;;
esac
out=$(curl -s -m 5 -D - -H 'X-Amz-Target: GraniteServiceVersion20100801.DescribeAlarms' \
    -H 'Content-Type: application/x-amz-json-1.0' -d '{}' "$EP/" | tr -d '\r')
case "$out" in
*"HTTP/1.1 400"*"x-amzn-query-error: Throttling;Sender"*'"__type":"Throttling"'*'"message":"Rate exceeded"'*) ok "curl, CloudWatch JSON 1.0: 400, x-amzn-query-error Throttling;Sender, __type Throttling" ;;
*) notok "curl, CloudWatch JSON 1.0 past the limit: $out" ;;
esac
out=$(printf '\xa0' | curl -s -m 5 -o /dev/null -D - -H 'Content-Type: application/cbor' \
    -H 'Smithy-Protocol: rpc-v2-cbor' --data-binary @- \
    "$EP/service/GraniteServiceVersion20100801/operation/DescribeAlarms" | tr -d '\r')
case "$out" in
*"HTTP/1.1 400"*"x-amzn-query-error: Throttling;Sender"*) ok "curl, CloudWatch RPC v2 CBOR: 400, x-amzn-query-error Throttling;Sender" ;;
*) notok "curl, CloudWatch CBOR past the limit: $out" ;;
esac

start_emu emu1 --quiet --rate-limit 1:5 || { notok "emulator starts with --rate-limit 1:5"; finish; }
python3 - "$EP" <<'PY' || failed=1
import sys, time
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
import tap
from tap import check

ep = sys.argv[1]
cfg = Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=5)
asg = boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1", config=cfg)
cw = boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1", config=cfg)


def passes(n=20):
    k = 0
    for _ in range(n):
        try:
            asg.describe_auto_scaling_groups()
            k += 1
        except ClientError as e:
            assert e.response["Error"]["Code"] == "Throttling", e.response
            return k
    return k


passes()
try:
    cw.put_metric_alarm(AlarmName="refused", MetricName="CPUUtilization", Namespace="AWS/EC2",
                        Statistic="Average", Period=60, EvaluationPeriods=1, Threshold=50,
                        ComparisonOperator="GreaterThanThreshold")
    code = None
except ClientError as e:
    code = e.response["Error"]["Code"]
check("a PutMetricAlarm past the limit: Throttling (%s)" % code, code == "Throttling")
time.sleep(3)
n = passes()
check("3 s after the bucket ran dry it refilled at 1 a second, not to its burst of 5: %d calls "
      "pass (3 or 4: what was left of a token)" % n, n in (3, 4))
time.sleep(1.1)
names = [a["AlarmName"] for a in cw.describe_alarms()["MetricAlarms"]]
check("the refused PutMetricAlarm changed nothing: no alarm 'refused' (%r)" % names,
      "refused" not in names)
sys.exit(tap.failed)
PY

start_emu emu2 --quiet --rate-limit 0 --account-rate-limit 0.001:3 ||
    { notok "emulator starts with --account-rate-limit 0.001:3"; finish; }
python3 - "$EP" <<'PY' || failed=1
import sys, time
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
import tap
from tap import check

ep = sys.argv[1]
cfg = Config(retries={"total_max_attempts": 1})


def passed(region, n=10):
    c = boto3.client("autoscaling", endpoint_url=ep, region_name=region, config=cfg)
    k = 0
    for _ in range(n):
        try:
            c.describe_auto_scaling_groups()
            k += 1
        except ClientError as e:
            assert e.response["Error"]["Code"] == "Throttling", e.response
            break
    return k


time.sleep(1)
east = passed("us-east-1")
west = passed("us-west-2")
check("--account-rate-limit 0.001:3 (per account and Region, no refill to speak of): us-east-1 gets 3 (%d), us-west-2 "
      "its own 3 (%d)" % (east, west), east == 3 and west == 3)
sys.exit(tap.failed)
PY

start_emu emu3 --quiet --rate-limit 0 --account-rate-limit 0 ||
    { notok "emulator starts with the limits off"; finish; }
bad=0
for i in $(seq 200); do
    code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$EP/?Action=DescribeAlarms&Version=2010-08-01")
    [ "$code" = 200 ] || bad=$((bad + 1))
done
[ "$bad" = 0 ] && ok "--rate-limit 0 --account-rate-limit 0: 200 calls at once all answer 200" ||
    notok "with the limits off, $bad of 200 calls were not 200"
out=$("$EMU" --rate-limit 5:0 2>&1 || true)
case "$out" in
*"bad --rate-limit"*) ok "--rate-limit 5:0 is refused naming the flag" ;;
*) notok "--rate-limit 5:0: $out" ;;
esac
finish
