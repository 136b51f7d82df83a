#!/usr/bin/env bash
# Launching never blocks (issue 19 finding 2), asserted with boto3: SetDesiredCapacity
# 10,000 answers at once; the processes start from the event loop at most --launch-rate per
# second while the API keeps answering; --max-instances bounds every account and region
# together, launches past it fail as AWS's do when there is no capacity
# (InsufficientInstanceCapacity "Insufficient capacity.": the group's activity, and
# RunInstances with HTTP 500). TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need pgrep procps || finish

MAX=12 RATE=10
start_emu emu --time-scale 60 --max-instances $MAX --launch-rate $RATE || { notok "emulator starts"; finish; }
EPID=$LAST
grep -q "max instances $MAX," "$TMP/emu.log" && ok "the start line names the bound (max instances $MAX)" ||
    notok "start line without 'max instances $MAX'"

python3 - "$EP" "$EPID" "$MAX" <<'EOF' || failed=1
import json, subprocess, sys, time
import boto3, botocore
from botocore.config import Config
import tap
from tap import check, wait

ep, epid, cap = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cfg = Config(read_timeout=10, connect_timeout=5, retries={"max_attempts": 1, "mode": "standard"})
asg = boto3.client("autoscaling", endpoint_url=ep, config=cfg)
ec2 = boto3.client("ec2", endpoint_url=ep, config=cfg)
west = boto3.client("autoscaling", endpoint_url=ep, config=cfg, region_name="us-west-2")

def kids():
    out = subprocess.run(["pgrep", "-P", str(epid)], capture_output=True, text=True).stdout
    return len(out.split())

def timed(fn, **kw):
    t = time.monotonic()
    fn(**kw)
    return time.monotonic() - t

for c in (asg, west):
    c.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                  InstanceType="m1.small", UserData=json.dumps({"boot_s": 0}))
asg.create_auto_scaling_group(AutoScalingGroupName="big", LaunchConfigurationName="lc", MinSize=0,
                              MaxSize=10000, DesiredCapacity=0,
                              AvailabilityZones=["us-east-1a", "us-east-1b", "us-east-1c"])
took = timed(asg.set_desired_capacity, AutoScalingGroupName="big", DesiredCapacity=10000)
check("SetDesiredCapacity 10000 answers at once", took < 2.0, f"{took:.2f} s")
# the API answers while the processes start
worst, n = 0.0, 0
while kids() < cap and n < 200:
    worst = max(worst, timed(asg.describe_auto_scaling_groups, AutoScalingGroupNames=["big"]))
    n += 1
check("DescribeAutoScalingGroups answers while instances start", worst < 2.0,
      f"slowest of {n}: {worst:.3f} s")

def in_service():
    g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["big"])["AutoScalingGroups"][0]
    return sum(1 for i in g["Instances"] if i["LifecycleState"] == "InService")
got = wait(lambda: in_service() == cap and in_service(), 30)
check(f"--max-instances {cap}: {cap} instances InService, {cap} processes", got == cap and kids() == cap,
      f"InService {in_service()}, processes {kids()}")

def failed_acts():
    acts = asg.describe_scaling_activities(AutoScalingGroupName="big")["Activities"]
    return [a for a in acts if a["StatusCode"] == "Failed"]
fa = wait(failed_acts, 10)
want = "Launching a new EC2 instance.  Status Reason: Insufficient capacity. Launching EC2 instance failed."
check("a launch past it is a Failed activity with InsufficientInstanceCapacity's text",
      bool(fa) and fa[0].get("StatusMessage") == "Insufficient capacity." and fa[0]["Description"] == want,
      fa[0] if fa else "no Failed activity")

# RunInstances, in another region (the bound is every world's together): HTTP 500
try:
    boto3.client("ec2", endpoint_url=ep, config=cfg, region_name="us-west-2").run_instances(
        ImageId="ami-12345678", MinCount=1, MaxCount=1)
    check("RunInstances past the bound is refused", False, "it launched")
except botocore.exceptions.ClientError as e:
    r = e.response
    check("RunInstances past the bound (another region): 500 InsufficientInstanceCapacity 'Insufficient capacity.'",
          (r["ResponseMetadata"]["HTTPStatusCode"], r["Error"]["Code"], r["Error"]["Message"]) ==
          (500, "InsufficientInstanceCapacity", "Insufficient capacity."), r["Error"])

# scaling in makes room: another region's group gets it
took = timed(asg.set_desired_capacity, AutoScalingGroupName="big", DesiredCapacity=cap - 2)
west.create_auto_scaling_group(AutoScalingGroupName="w", LaunchConfigurationName="lc", MinSize=2,
                               MaxSize=2, AvailabilityZones=["us-west-2a"])
def west_up():
    g = west.describe_auto_scaling_groups(AutoScalingGroupNames=["w"])["AutoScalingGroups"][0]
    return sum(1 for i in g["Instances"] if i["LifecycleState"] == "InService") == 2
check("after scale-in the room goes to a group in another region", wait(west_up, 30) is True,
      f"processes {kids()}")
sys.exit(tap.failed)
EOF

# the rate: the $MAX process starts are spread over at least ($MAX - burst) / rate seconds
# (burst: a tenth of a second's worth, at least one)
python3 - "$TMP/emu.log" "$MAX" "$RATE" <<'EOF' || failed=1
import datetime, re, sys
log, cap, rate = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
ts = []
for line in open(log):
    if "autoscale: instance" in line and "starting" in line:
        ts.append(datetime.datetime.strptime(line.split()[0], "%Y-%m-%dT%H:%M:%S.%fZ").timestamp())
burst = max(1, int(rate / 10))
need = (cap - burst) / rate
span = ts[cap - 1] - ts[0] if len(ts) >= cap else 0
print(("ok - " if span >= need * 0.9 else "not ok - ") +
      f"the first {cap} starts span {span:.2f} s (at {rate:g}/s at least {need:.2f} s)")
EOF
finish
