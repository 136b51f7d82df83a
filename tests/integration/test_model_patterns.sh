#!/usr/bin/env bash
# The models' pattern constraints through boto3 (issue 19 finding 6: a launch
# configuration named with a control character or U+FFFF was accepted, and afterwards
# boto3 could not parse DescribeLaunchConfigurations for the whole region, also after a
# --state restart): such names are refused with AWS's ValidationError text, nothing is
# stored, and the region describes fine before and after a restart; names the pattern
# allows (tab, an emoji, U+FFFD) are kept as sent. docs/models.md "Patterns".
# TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need python3 python3-boto3 || finish

start_emu emu --state "$TMP/state" || { notok "emulator starts"; finish; }
EMU_PID=$LAST

cat >"$TMP/pat.py" <<'PY'
import sys
import boto3
from botocore.exceptions import ClientError
import tap
from tap import check

ep = sys.argv[1]
phase = sys.argv[2]
asg = boto3.client("autoscaling", endpoint_url=ep)
cw = boto3.client("cloudwatch", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)
XML = "[\\u0020-\\uD7FF\\uE000-\\uFFFD\\uD800\\uDC00-\\uDBFF\\uDFFF\\r\\n\\t]*"


def refused(what, fn, code, text):
    try:
        fn()
    except ClientError as e:
        got = (e.response["Error"]["Code"], e.response["Error"]["Message"])
        check(what, got == (code, text), "got %r" % (got,))
        return
    check(what, False, "accepted")


def lc(name):
    return lambda: asg.create_launch_configuration(
        LaunchConfigurationName=name, ImageId="ami-12345678", InstanceType="m1.small")


if phase == "create":
    asg.create_launch_configuration(LaunchConfigurationName="lc-good", ImageId="ami-12345678",
                                    InstanceType="m1.small")
    for label, name in (("U+0001", "lc\x01"), ("U+001F", "lc\x1f"), ("U+FFFF", "lc\uffff"),
                        ("U+FFFE", "lc\ufffe"), ("ESC", "\x1b[31mred")):
        refused("CreateLaunchConfiguration named with %s: ValidationError with AWS's text" % label,
                lc(name), "ValidationError",
                "1 validation error detected: Value '%s' at 'launchConfigurationName' failed to "
                "satisfy constraint: Member must satisfy regular expression pattern: %s"
                % (name.replace("\x01", "\ufffd").replace("\x1f", "\ufffd").replace("\x1b", "\ufffd")
                   .replace("\uffff", "\ufffd").replace("\ufffe", "\ufffd"), XML))
    for name in ("lc\ttab", "lc \U0001F600", "lc\ufffd"):
        lc(name)()
    refused("ELB AddTags with a key outside [\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]",
            lambda: elb.add_tags(LoadBalancerNames=["nolb"], Tags=[{"Key": "a!", "Value": "v"}]),
            "ValidationError",
            "1 validation error detected: Value 'a!' at 'tags.1.member.key' failed to satisfy "
            "constraint: Member must satisfy regular expression pattern: "
            "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$")
    try:
        cw.put_metric_data(Namespace=":x", MetricData=[{"MetricName": "m", "Value": 1}])
        check("PutMetricData with Namespace ':x' refused", False, "accepted")
    except ClientError as e:
        check("PutMetricData with Namespace ':x' refused: pattern [^:].*",
              "Member must satisfy regular expression pattern: [^:].*" in e.response["Error"]["Message"],
              e.response["Error"]["Message"])

names = sorted(c["LaunchConfigurationName"]
               for c in asg.describe_launch_configurations()["LaunchConfigurations"])
check("%s: DescribeLaunchConfigurations parses and lists exactly the accepted names" % phase,
      names == sorted(["lc-good", "lc\ttab", "lc \U0001F600", "lc\ufffd"]), repr(names))
check("%s: DescribeAutoScalingGroups parses" % phase,
      asg.describe_auto_scaling_groups()["AutoScalingGroups"] == [])
sys.exit(tap.failed)
PY

python3 "$TMP/pat.py" "$EP" create || failed=$((failed + 1))
kill -TERM -- "-$EMU_PID"
wait_for 10 bash -c "! kill -0 $EMU_PID 2>/dev/null" || notok "emulator stops on SIGTERM"
start_emu emu2 --state "$TMP/state" || { notok "emulator restarts on its state"; finish; }
python3 "$TMP/pat.py" "$EP" restarted || failed=$((failed + 1))
finish
