#!/usr/bin/env bash
# STS GetCallerIdentity at the emulator's endpoint (docs/auth.md "STS GetCallerIdentity"):
# boto3 and the aws CLI v2 with --endpoint-url get the account, the root user's ARN and
# the account as UserId in AWS's XML; without --auth the default account, with --auth
# sigv4 and --account the configured one for a known key and 403 InvalidClientTokenId for
# an unknown one; the model's other STS operations answer NotImplemented 501. TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

need python3 python3 || finish
need aws "aws CLI not installed" || finish
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN

start_emu open --quiet || { notok "emulator starts"; finish; }
PID=$LAST
check "boto3 get_caller_identity, no auth: the default account's root user" python3 - "$EP" <<'PY'
import sys, boto3
s = boto3.client("sts", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
r = s.get_caller_identity()
print("#", {k: r[k] for k in ("UserId", "Account", "Arn")})
sys.exit(0 if (r["Account"], r["Arn"], r["UserId"]) == ("123456789012", "arn:aws:iam::123456789012:root", "123456789012") else 1)
PY
check "aws sts get-caller-identity --endpoint-url: the same three" bash -c "
    AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=x aws sts get-caller-identity --endpoint-url '$EP' --region eu-west-1 --output text >'$TMP/cli.out'
    cat '$TMP/cli.out' | sed 's/^/# /'
    [ \"\$(cat '$TMP/cli.out')\" = \"\$(printf '123456789012\tarn:aws:iam::123456789012:root\t123456789012')\" ]"
check "the reply is AWS's XML (GetCallerIdentityResponse in the 2011-06-15 namespace)" bash -c "
    curl -s -X POST '$EP/' -d 'Action=GetCallerIdentity&Version=2011-06-15' |
        grep -q '^<GetCallerIdentityResponse xmlns=\"https://sts.amazonaws.com/doc/2011-06-15/\"><GetCallerIdentityResult><UserId>123456789012</UserId><Account>123456789012</Account><Arn>arn:aws:iam::123456789012:root</Arn></GetCallerIdentityResult><ResponseMetadata><RequestId>'"
check "another STS operation (AssumeRole, GetSessionToken): NotImplemented 501" python3 - "$EP" <<'PY'
import sys, boto3, botocore
s = boto3.client("sts", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
got = []
for call in (lambda: s.get_session_token(), lambda: s.assume_role(RoleArn="arn:aws:iam::123456789012:role/r", RoleSessionName="lab")):
    try:
        call()
        got.append(None)
    except botocore.exceptions.ClientError as e:
        got.append((e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]))
print("#", got)
sys.exit(0 if got == [("NotImplemented", 501)] * 2 else 1)
PY
kill -TERM -- "-$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true

printf 'AKIDSTSTEST0001 secretsecretsecret\n' >"$TMP/creds"
start_emu signed --quiet --auth sigv4 --credentials "$TMP/creds" --account 210987654321 || { notok "emulator with --auth sigv4 starts"; finish; }
PID=$LAST
check "--auth sigv4 --account: a known key's caller is that account's root user" python3 - "$EP" <<'PY'
import sys, boto3
s = boto3.client("sts", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id="AKIDSTSTEST0001", aws_secret_access_key="secretsecretsecret")
r = s.get_caller_identity()
sys.exit(0 if (r["Account"], r["Arn"], r["UserId"]) == ("210987654321", "arn:aws:iam::210987654321:root", "210987654321") else 1)
PY
check "--auth sigv4: the aws CLI with the key gets the account" bash -c "
    AWS_ACCESS_KEY_ID=AKIDSTSTEST0001 AWS_SECRET_ACCESS_KEY=secretsecretsecret aws sts get-caller-identity --endpoint-url '$EP' --region us-east-1 --query Account --output text | grep -qx 210987654321"
check "--auth sigv4: an unknown key is refused (403 InvalidClientTokenId)" python3 - "$EP" <<'PY'
import sys, boto3, botocore
s = boto3.client("sts", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id="AKIDUNKNOWN", aws_secret_access_key="nope")
try:
    s.get_caller_identity()
    sys.exit(1)
except botocore.exceptions.ClientError as e:
    print("#", e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"])
    sys.exit(0 if (e.response["Error"]["Code"], e.response["ResponseMetadata"]["HTTPStatusCode"]) == ("InvalidClientTokenId", 403) else 1)
PY
kill -TERM -- "-$PID" 2>/dev/null || true
wait "$PID" 2>/dev/null || true
finish
