#!/usr/bin/env bash
# The emulator binary driven by real clients: Debian's aws CLI v2 and boto3 (CloudWatch over
# query), the AWS SDK for JavaScript v3 (CloudWatch over JSON 1.0 and over Smithy RPC v2
# CBOR, with the SDK's own serializers; gzip bodies), curl, and the admin API. Prints TAP
# lines. KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

# --- command line ---
check "--help exits 0 and prints usage" bash -c "'$EMU' --help | grep -q -- '--time-scale'"
check "--version exits 0" bash -c "'$EMU' --version | grep -q '2011-01-01'"
check "bad option exits 2" bash -c "'$EMU' --clock sideways; [ \$? -eq 2 ]"

start_emu emu
EMU1=$LAST
check "health over the admin API" bash -c "curl -sf $EP/_scalelab/health | grep -q '\"status\":\"ok\"'"

# --- aws CLI over query/XML and EC2 ---
check "aws CLI: autoscaling describe-adjustment-types" bash -c \
    "aws --endpoint-url $EP autoscaling describe-adjustment-types --output text | grep -q PercentChangeInCapacity"
# the profile boots at once (the default boot_s is 60, emulated): running by the describe
check "aws CLI: ec2 run/describe/terminate" bash -c "set -e
    id=\$(aws --endpoint-url $EP ec2 run-instances --image-id ami-12345678 --instance-type t3.micro --user-data '{\"boot_s\": 0}' --query 'Instances[0].InstanceId' --output text)
    [[ \$id == i-* ]] || exit 1
    aws --endpoint-url $EP ec2 describe-instances --instance-ids \$id --query 'Reservations[0].Instances[0].State.Name' --output text | grep -qx running
    aws --endpoint-url $EP ec2 terminate-instances --instance-ids \$id --query 'TerminatingInstances[0].CurrentState.Name' --output text | grep -qx shutting-down"
check "aws CLI: EC2 error (InvalidInstanceID.NotFound) with AWS's text" bash -c "
    ! aws --endpoint-url $EP ec2 terminate-instances --instance-ids i-0123456789abcdef0 2>\"$TMP/err\"
    grep -q \"InvalidInstanceID.NotFound.*The instance ID 'i-0123456789abcdef0' does not exist\" \"$TMP/err\""
check "aws CLI: EC2 missing parameter answers MissingParameter" bash -c "
    ! aws --endpoint-url $EP ec2 create-vpc 2>&1 | grep -q . ; true"
check "aws CLI: ec2 describe-security-groups and describe-tags" bash -c "
    aws --endpoint-url $EP ec2 describe-security-groups --query 'SecurityGroups[0].GroupName' --output text | grep -qx default
    id=\$(aws --endpoint-url $EP ec2 run-instances --image-id ami-12345678 --query 'Instances[0].InstanceId' --output text)
    aws --endpoint-url $EP ec2 create-tags --resources \$id --tags Key=team,Value=blue
    aws --endpoint-url $EP ec2 describe-tags --filters Name=resource-id,Values=\$id Name=key,Values=team --query 'Tags[0].[Key,Value]' --output text | grep -q 'team.blue'"
check "aws CLI: region from the credential scope" bash -c \
    "aws --endpoint-url $EP --region ap-southeast-2 ec2 describe-availability-zones --query 'AvailabilityZones[0].ZoneName' --output text | grep -qx ap-southeast-2a"
check "aws CLI: CloudWatch validation error text" bash -c "
    ! aws --endpoint-url $EP cloudwatch set-alarm-state --alarm-name a --state-value INVALID --state-reason r 2>\"$TMP/err\"
    grep -q \"(ValidationError).*1 validation error detected: Value 'INVALID' at 'stateValue' failed to satisfy constraint: Member must satisfy enum value set\" \"$TMP/err\""
# LaunchInstances, the last operation of the models that answered NotImplemented (501), is
# served (docs/autoscaling.md section 11): no operation of the models answers 501 any more.
# Debian's aws CLI predates it, so curl asks
check "LaunchInstances is served: an unknown group is its ValidationError, not NotImplemented" bash -c "
    [ \"\$(curl -s -o \"$TMP/err\" -w '%{http_code}' '$EP/?Action=LaunchInstances&Version=2011-01-01&AutoScalingGroupName=g&RequestedCapacity=1&ClientToken=t')\" = 400 ] &&
    grep -q 'AutoScalingGroup name not found - AutoScalingGroup: g not found' \"$TMP/err\""

# --- boto3, and the JavaScript SDK over JSON 1.0 and CBOR ---
check "boto3: autoscaling over query" python3 "$HERE/emu_client.py" "$EP" boto3-autoscaling
check "boto3: ec2 instances, errors, regions" python3 "$HERE/emu_client.py" "$EP" boto3-ec2
check "boto3: CloudWatch errors over query" python3 "$HERE/emu_client.py" "$EP" boto3-cloudwatch
js_check "JS SDK v3: CloudWatch over JSON 1.0 errors (x-amzn-query-error)" cloudwatch.mjs "$EP" errors json
js_check "JS SDK v3: gzip-compressed PutMetricData (Content-Encoding: gzip)" cloudwatch.mjs "$EP" gzip json
js_check "CloudWatch over RPC v2 CBOR errors (the JS SDK's serializer/parser)" cloudwatch.mjs "$EP" errors cbor

# --- curl: wire details and bad input ---
AUTHH="Authorization: AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/autoscaling/aws4_request, SignedHeaders=host, Signature=00"
check "unknown action: InvalidAction 400, XML ErrorResponse with RequestId" bash -c "
    code=\$(curl -s -o \"$TMP/b\" -w '%{http_code}' -H '$AUTHH' -d 'Action=NoSuchThing&Version=2011-01-01' $EP/)
    [ \$code = 400 ] && grep -q '<Code>InvalidAction</Code>' \"$TMP/b\" && grep -q '<Type>Sender</Type>' \"$TMP/b\" && grep -q '<RequestId>' \"$TMP/b\""
check "missing Action: MissingAction" bash -c "curl -s -d 'Version=2011-01-01' $EP/ | grep -q MissingAction"
check "GET query string works like a form body" bash -c \
    "curl -s '$EP/?Action=DescribeLifecycleHookTypes&Version=2011-01-01' | grep -q 'autoscaling:EC2_INSTANCE_LAUNCHING'"
check "x-amzn-RequestId header on every reply" bash -c \
    "curl -s -D - -o /dev/null -d 'Action=X' $EP/ | grep -qi '^x-amzn-RequestId: [0-9a-f-]\{36\}'"
check "EC2 error body: <Response><Errors>...<RequestID>" bash -c \
    "curl -s -d 'Action=TerminateInstances&Version=2016-11-15&InstanceId.1=i-0123456789abcdef0' $EP/ | grep -q '<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code>.*<RequestID>'"
check "EC2 dialect: InstanceId.N, lowerCamel item replies" bash -c "
    curl -s -d 'Action=DescribeAvailabilityZones&Version=2016-11-15&ZoneName.1=us-east-1b' $EP/ > \"$TMP/b\"
    grep -q '<availabilityZoneInfo><item><optInStatus>' \"$TMP/b\" && grep -q '<zoneName>us-east-1b</zoneName>' \"$TMP/b\" && ! grep -q us-east-1a \"$TMP/b\""
check "wrong type: MinCount=abc answers InvalidParameterValue" bash -c \
    "curl -s -d 'Action=RunInstances&Version=2016-11-15&ImageId=ami-12345678&MinCount=abc&MaxCount=1' $EP/ | grep -q '<Code>InvalidParameterValue</Code>'"
check "invalid UTF-8 answers a validation error" bash -c \
    "curl -s -H '$AUTHH' -d 'Action=DescribeTerminationPolicyTypes&Version=2011-01-01' $EP/ >/dev/null;
     curl -s -d 'Action=DescribeAvailabilityZones&Version=2016-11-15&ZoneName.1=%ff%fe' $EP/ | grep -q 'UTF-8'"
check "body over the cap answers 413" bash -c "
    head -c 3000000 /dev/zero | tr '\\0' 'a' > \"$TMP/big\"
    code=\$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/x-www-form-urlencoded' --data-binary @\"$TMP/big\" $EP/)
    [ \$code = 413 ]"
check "deeply nested JSON answers 400, server alive" bash -c "
    python3 -c 'print(\"[\"*100000)' > \"$TMP/deep\"
    code=\$(curl -s -o /dev/null -w '%{http_code}' -H 'X-Amz-Target: GraniteServiceVersion20100801.DescribeAlarms' -H 'Content-Type: application/x-amz-json-1.0' --data-binary @\"$TMP/deep\" $EP/)
    [ \$code = 400 ] && curl -sf $EP/_scalelab/health >/dev/null"
check "truncated and deeply nested CBOR answer 400, server alive" bash -c "
    c1=\$(printf '\\xa1\\x69AlarmName\\x7a\\xff\\xff\\xff\\xff' | curl -s -o /dev/null -w '%{http_code}' -H 'smithy-protocol: rpc-v2-cbor' -H 'Content-Type: application/cbor' --data-binary @- $EP/service/GraniteServiceVersion20100801/operation/DescribeAlarms)
    python3 -c 'import sys; sys.stdout.buffer.write(b\"\\x81\"*200000)' > \"$TMP/deepc\"
    c2=\$(curl -s -o /dev/null -w '%{http_code}' -H 'smithy-protocol: rpc-v2-cbor' -H 'Content-Type: application/cbor' --data-binary @\"$TMP/deepc\" $EP/service/GraniteServiceVersion20100801/operation/DescribeAlarms)
    [ \$c1 = 400 ] && [ \$c2 = 400 ] && curl -sf $EP/_scalelab/health >/dev/null"
check "unknown JSON target answers UnknownOperationException" bash -c \
    "curl -s -H 'X-Amz-Target: GraniteServiceVersion20100801.Nope' -H 'Content-Type: application/x-amz-json-1.0' -d '{}' $EP/ | grep -q UnknownOperation"
check "one log line per request (service, action, status, ms)" bash -c \
    "grep -q 'req service=ec2 action=RunInstances status=200 ms=' \"$TMP/emu.log\""

# --- admin API ---
check "real clock refuses advance (409)" bash -c \
    "[ \$(curl -s -o /dev/null -w '%{http_code}' -d '{\"advance_ms\":1000}' $EP/_scalelab/clock) = 409 ]"
check "POST /moto-api/reset clears state" bash -c "
    aws --endpoint-url $EP ec2 run-instances --image-id ami-12345678 >/dev/null
    curl -sf -X POST $EP/moto-api/reset | grep -q ok
    [ \"\$(aws --endpoint-url $EP ec2 describe-instances --query 'length(Reservations)' --output text)\" = 0 ]"
EP1=$EP
start_emu manual --clock manual
check "manual clock: advance moves time exactly" bash -c "
    t0=\$(curl -s $EP/_scalelab/clock | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"now_ms\"])')
    t1=\$(curl -s -d '{\"advance_s\":90}' $EP/_scalelab/clock | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"now_ms\"])')
    [ \$((t1 - t0)) = 90000 ]"

# --- SigV4 verification ---
printf '# test keys\nAKIDTEST wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY\n' > "$TMP/creds"
start_emu auth --auth sigv4 --credentials "$TMP/creds"
SEC=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY
check "sigv4: aws CLI with the right key is accepted" bash -c \
    "AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=$SEC aws --endpoint-url $EP ec2 describe-availability-zones --output text | grep -q us-east-1a"
check "sigv4: aws CLI CloudWatch signature verified (request reaches validation)" bash -c "
    ! AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=$SEC aws --endpoint-url $EP cloudwatch set-alarm-state --alarm-name a --state-value BAD --state-reason r 2>\"$TMP/err\"
    grep -q ValidationError \"$TMP/err\""
check "sigv4: wrong secret -> SignatureDoesNotMatch" bash -c "
    ! AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=nope aws --endpoint-url $EP ec2 describe-vpcs 2>\"$TMP/err\"
    grep -q SignatureDoesNotMatch \"$TMP/err\""
check "sigv4: unknown key -> InvalidClientTokenId" bash -c "
    ! AWS_ACCESS_KEY_ID=AKIDOTHER aws --endpoint-url $EP autoscaling describe-adjustment-types 2>\"$TMP/err\"
    grep -q InvalidClientTokenId \"$TMP/err\""
check "sigv4: no Authorization -> MissingAuthenticationToken 403" bash -c "
    [ \$(curl -s -o \"$TMP/b\" -w '%{http_code}' -d 'Action=DescribeVpcs&Version=2016-11-15' $EP/) = 403 ] && grep -q MissingAuthenticationToken \"$TMP/b\""
check "sigv4: Authorization without Signature -> IncompleteSignature 400" bash -c "
    [ \$(curl -s -o \"$TMP/b\" -w '%{http_code}' -H 'X-Amz-Date: 20260101T000000Z' -H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDTEST/20260101/us-east-1/ec2/aws4_request, SignedHeaders=host' -d 'Action=DescribeVpcs&Version=2016-11-15' $EP/) = 400 ] && grep -q IncompleteSignature \"$TMP/b\""
check "sigv4: curl --aws-sigv4 (independent signer) is accepted" bash -c "
    curl -sf --aws-sigv4 'aws:amz:us-east-1:autoscaling' --user 'AKIDTEST:$SEC' -H 'Content-Type: application/x-www-form-urlencoded' -d 'Action=DescribeScalingProcessTypes&Version=2011-01-01' $EP/ | grep -q AZRebalance"
# curl 7.88 signs the query string as given, unsorted (fixed in later curl; AWS would
# refuse it too), so the parameters are written in canonical order here.
check "sigv4: curl --aws-sigv4 GET with a query string is accepted" bash -c "
    curl -sf --aws-sigv4 'aws:amz:us-east-1:ec2' --user 'AKIDTEST:$SEC' '$EP/?Action=DescribeAvailabilityZones&Version=2016-11-15&ZoneName.1=us-east-1c' | grep -q us-east-1c"
AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=$SEC \
    js_check "sigv4: JS SDK v3 gzip body verified against the compressed bytes" cloudwatch.mjs "$EP" gzip json
check "sigv4: stale X-Amz-Date -> RequestExpired" bash -c "
    [ \$(curl -s -o \"$TMP/b\" -w '%{http_code}' --aws-sigv4 'aws:amz:us-east-1:ec2' --user 'AKIDTEST:$SEC' -H 'X-Amz-Date: 20200101T000000Z' -d 'Action=DescribeVpcs&Version=2016-11-15' $EP/) = 400 ] && grep -q RequestExpired \"$TMP/b\""
check "sigv4: tampered body -> SignatureDoesNotMatch" bash -c "
    python3 - '$EP' <<'PY'
import sys, urllib.request
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
ep = sys.argv[1]
r = AWSRequest(method='POST', url=ep + '/', data='Action=DescribeVpcs&Version=2016-11-15',
               headers={'Content-Type': 'application/x-www-form-urlencoded'})
SigV4Auth(Credentials('AKIDTEST', 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY'), 'ec2', 'us-east-1').add_auth(r)
h = dict(r.headers.items())
for body, want in ((b'Action=DescribeVpcs&Version=2016-11-15', 200), (b'Action=DescribeVpcs&Version=2016-11-15&X=1', 403)):
    q = urllib.request.Request(ep + '/', data=body, headers=h, method='POST')
    try:
        code = urllib.request.urlopen(q, timeout=10).status
    except urllib.error.HTTPError as e:
        code = e.code
    assert code == want, (body, code)
PY"

check "sigv4: scope service, region, host signed, UNSIGNED-PAYLOAD replay, 100 signed headers (botocore)" bash -c \
    "AWS_ACCESS_KEY_ID=AKIDTEST AWS_SECRET_ACCESS_KEY=$SEC python3 '$HERE/emu_client.py' '$EP' sigv4-strict"
check "sigv4: curl --aws-sigv4 signed for s3 -> SignatureDoesNotMatch, scoped to correct service 'ec2'" bash -c "
    [ \$(curl -s -o \"$TMP/b\" -w '%{http_code}' --aws-sigv4 'aws:amz:us-east-1:s3' --user 'AKIDTEST:$SEC' -d 'Action=DescribeVpcs&Version=2016-11-15' $EP/) = 403 ] &&
    grep -q '<Code>SignatureDoesNotMatch</Code><Message>Credential should be scoped to correct service: &apos;ec2&apos;. </Message>' \"$TMP/b\""
check "sigv4: curl --aws-sigv4 for a region AWS lacks -> SignatureDoesNotMatch" bash -c "
    [ \$(curl -s -o \"$TMP/b\" -w '%{http_code}' --aws-sigv4 'aws:amz:xx-fake-9:autoscaling' --user 'AKIDTEST:$SEC' -d 'Action=DescribeScalingProcessTypes&Version=2011-01-01' $EP/) = 403 ] &&
    grep -q 'Credential should be scoped to a valid region, not &apos;xx-fake-9&apos;. ' \"$TMP/b\""
check "sigv4: a short X-Amz-Date -> IncompleteSignature 400, server alive" bash -c "
    [ \$(curl -s -o \"$TMP/b\" -w '%{http_code}' -H 'X-Amz-Date: 2026' -H 'Authorization: AWS4-HMAC-SHA256 Credential=AKIDTEST/20260101/us-east-1/ec2/aws4_request, SignedHeaders=host;x-amz-date, Signature=00' -d 'Action=DescribeVpcs&Version=2016-11-15' $EP/) = 400 ] &&
    grep -q IncompleteSignature \"$TMP/b\" && curl -s -o /dev/null $EP/"

# --- shutdown ---
check "SIGTERM stops the emulator with status 0" bash -c "
    kill -TERM $EMU1; for _ in \$(seq 50); do kill -0 $EMU1 2>/dev/null || break; sleep 0.1; done
    ! kill -0 $EMU1 2>/dev/null"
: "$EP1"
finish
