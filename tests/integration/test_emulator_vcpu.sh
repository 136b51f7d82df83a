#!/usr/bin/env bash
# The account's running On-Demand vCPU limit (issue 19; docs/dataplane.md "Launching: rate
# and bound"): with --max-vcpus 4, boto3 RunInstances of two t3.micro (2 vCPUs each) is
# served and a third gets VcpuLimitExceeded with AWS's text (HTTP 400), MaxCount past the
# limit gets what fits, and an Auto Scaling group asking for 3 gets 2 instances and a
# Failed activity whose StatusMessage is that text; another Region has its own limit.
# TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need python3 python3-boto3 || finish

start_emu emu --quiet --max-vcpus 4 || { notok "emulator starts with --max-vcpus 4"; finish; }

python3 - "$EP" <<'PY' || failed=1
import sys, time
import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
import tap
from tap import check, wait

ep = sys.argv[1]
cfg = Config(retries={"total_max_attempts": 1})
ec2 = boto3.client("ec2", endpoint_url=ep, region_name="us-east-1", config=cfg)
west = boto3.client("ec2", endpoint_url=ep, region_name="us-west-2", config=cfg)
asg = boto3.client("autoscaling", endpoint_url=ep, region_name="eu-west-1", config=cfg)
text = ("You have requested more vCPU capacity than your current vCPU limit of 4 allows for "
        "the instance bucket that the specified instance type belongs to. Please visit "
        "http://aws.amazon.com/contact-us/ec2-request to request an adjustment to this limit.")


def run(c, n, m=None):
    try:
        r = c.run_instances(ImageId="ami-12c6146b", InstanceType="t3.micro", MinCount=n,
                            MaxCount=m or n)
        return [i["InstanceId"] for i in r["Instances"]]
    except ClientError as e:
        return (e.response["Error"]["Code"], e.response["Error"]["Message"],
                e.response["ResponseMetadata"]["HTTPStatusCode"])


ids = run(ec2, 2)
check("2 t3.micro (4 vCPUs) within --max-vcpus 4: served", isinstance(ids, list) and len(ids) == 2)
e = run(ec2, 1)
check("a third: VcpuLimitExceeded, AWS's text, HTTP 400: %r" % (e,),
      e == ("VcpuLimitExceeded", text, 400))
got = run(west, 1, 5)
check("another Region has its own limit; MaxCount 5 there gets the 2 that fit (%r)" % (got,),
      isinstance(got, list) and len(got) == 2)
ec2.terminate_instances(InstanceIds=ids[:1])
again = run(ec2, 1)
check("a terminated instance gives its vCPUs back: one more is served (%r)" % (again,),
      isinstance(again, list) and len(again) == 1)

asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12c6146b",
                                InstanceType="t3.micro")
asg.create_auto_scaling_group(AutoScalingGroupName="web", LaunchConfigurationName="lc",
                              MinSize=1, MaxSize=4, DesiredCapacity=3,
                              AvailabilityZones=["eu-west-1a"])


def failed():
    acts = asg.describe_scaling_activities(AutoScalingGroupName="web")["Activities"]
    return [a for a in acts if a["StatusCode"] == "Failed"]


ok = wait(lambda: failed(), 10)
acts = failed()
n = len(asg.describe_auto_scaling_groups(AutoScalingGroupNames=["web"])
        ["AutoScalingGroups"][0]["Instances"])
check("a group asking for 3 t3.micro under --max-vcpus 4 gets 2 instances (%d)" % n, n == 2)
check("and a Failed activity with StatusMessage EC2's text and AWS's Description form",
      ok and acts[0].get("StatusMessage") == text and
      acts[0]["Description"] == "Launching a new EC2 instance.  Status Reason: " + text +
      " Launching EC2 instance failed.", repr(acts[:1]))
sys.exit(tap.failed)
PY
finish
