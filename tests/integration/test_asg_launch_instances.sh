#!/usr/bin/env bash
# LaunchInstances through boto3 and the aws CLI at --time-scale 60 (docs/autoscaling.md 11):
# a launch-template group in two zones behind a classic load balancer with a launch hook;
# synchronous launches into the zone asked (ids, types, zone id in the reply), real instance
# processes that wait in Pending:Wait, then register with the load balancer; desired raised
# by what launched; the client token answering again (and IdempotentParameterMismatch); the
# refusals (multi-zone without a zone, MaxSize, a launch configuration group, a mixed
# On-Demand/Spot policy); an EC2 limit (--max-instances) as an Errors item with
# RetryStrategy none and retry-with-group-configuration; weights with the Group*Capacity
# metrics (docs/autoscaling.md 14); the client token surviving --state. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

# Debian's botocore and aws CLI v2 predate LaunchInstances (2025-11-18): both take the
# operation from the model the emulator serves (emulator/models/), through AWS_DATA_PATH
mkdir -p "$TMP/models/autoscaling/2011-01-01"
cp "$ROOT/emulator/models/autoscaling.json" "$TMP/models/autoscaling/2011-01-01/service-2.json"
export AWS_DATA_PATH="$TMP/models"

start_emu emu --quiet --time-scale 60 --max-instances 6 --state "$TMP/state.json" || exit 1
EMU_PID=$LAST

python3 - "$EP" "$TMP/ids.json" <<'EOF' || failed=1
import json, sys, time
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep, scratch = sys.argv[1], sys.argv[2]
asg = boto3.client("autoscaling", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)
cw = boto3.client("cloudwatch", endpoint_url=ep)

def error_of(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

def group(name="g1"):
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=[name])["AutoScalingGroups"][0]

def states(name="g1"):
    return {i["InstanceId"]: i["LifecycleState"] for i in group(name)["Instances"]}

def lb_in_service():
    return sorted(i["InstanceId"] for i in elb.describe_instance_health(LoadBalancerName="lb1")["InstanceStates"]
                  if i["State"] == "InService")

ec2.create_launch_template(LaunchTemplateName="web", LaunchTemplateData={
    "ImageId": "ami-0c02fb55956c7d316", "InstanceType": "t3.micro",
    "UserData": __import__("base64").b64encode(json.dumps({"boot_s": 10}).encode()).decode()})
elb.create_load_balancer(LoadBalancerName="lb1", AvailabilityZones=["us-east-1a", "us-east-1b"], Listeners=[
    {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8080}])
elb.configure_health_check(LoadBalancerName="lb1", HealthCheck={
    "Target": "TCP:8080", "Interval": 5, "Timeout": 2, "UnhealthyThreshold": 2, "HealthyThreshold": 2})
asg.create_auto_scaling_group(
    AutoScalingGroupName="g1", LaunchTemplate={"LaunchTemplateName": "web"}, MinSize=0, MaxSize=4,
    DesiredCapacity=0, AvailabilityZones=["us-east-1a", "us-east-1b"], LoadBalancerNames=["lb1"],
    LifecycleHookSpecificationList=[{"LifecycleHookName": "boot",
                                     "LifecycleTransition": "autoscaling:EC2_INSTANCE_LAUNCHING",
                                     "HeartbeatTimeout": 3600, "DefaultResult": "ABANDON"}])

# a launch into one zone unbalances the group: AZRebalance would launch into the other zone
# ("may trigger additional asynchronous launches", docs/autoscaling.md 11.1), so it is off here
asg.suspend_processes(AutoScalingGroupName="g1", ScalingProcesses=["AZRebalance"])
e = error_of(asg.launch_instances, AutoScalingGroupName="g1", RequestedCapacity=1)
check("a group in two zones without a zone or subnet: ValidationError, nothing launched",
      e == ("ValidationError", "Either AvailabilityZones, AvailabilityZoneIds or SubnetIds must be "
            "specified for an Auto Scaling group with multiple Availability Zones.")
      and group()["Instances"] == [], e)
zone_b = [z for z in ec2.describe_availability_zones()["AvailabilityZones"] if z["ZoneName"] == "us-east-1b"][0]
r = asg.launch_instances(AutoScalingGroupName="g1", RequestedCapacity=2, AvailabilityZones=["us-east-1b"],
                         ClientToken="tok-1")
inst = r.get("Instances", [])
ids = inst[0]["InstanceIds"] if inst else []
check("LaunchInstances: two ids at once in the zone asked, type, market and zone id",
      r["AutoScalingGroupName"] == "g1" and r["ClientToken"] == "tok-1" and r.get("Errors") == [] and
      len(inst) == 1 and len(ids) == 2 and inst[0]["InstanceType"] == "t3.micro" and
      inst[0]["MarketType"] == "OnDemand" and inst[0]["AvailabilityZone"] == "us-east-1b" and
      inst[0]["AvailabilityZoneId"] == zone_b["ZoneId"], r)
g = group()
check("the instances are members at once (Pending) and desired is 2",
      g["DesiredCapacity"] == 2 and sorted(states()) == sorted(ids) and
      all(s.startswith("Pending") for s in states().values()), (g["DesiredCapacity"], states()))
ec2_ids = [i["InstanceId"] for res in ec2.describe_instances(InstanceIds=ids)["Reservations"] for i in res["Instances"]]
check("EC2 knows them, in us-east-1b", sorted(ec2_ids) == sorted(ids) and all(
    i["Placement"]["AvailabilityZone"] == "us-east-1b"
    for res in ec2.describe_instances(InstanceIds=ids)["Reservations"] for i in res["Instances"]), ec2_ids)
check("the launch hook holds them in Pending:Wait, out of the load balancer",
      wait(lambda: all(s == "Pending:Wait" for s in states().values()) and len(states()) == 2, 10)
      and lb_in_service() == [], (states(), lb_in_service()))
for i in ids:
    asg.complete_lifecycle_action(AutoScalingGroupName="g1", LifecycleHookName="boot",
                                  LifecycleActionResult="CONTINUE", InstanceId=i)
check("CONTINUE: InService, and the load balancer finds them healthy",
      wait(lambda: all(s == "InService" for s in states().values()) and lb_in_service() == sorted(ids), 20),
      (states(), lb_in_service()))
acts = asg.describe_scaling_activities(AutoScalingGroupName="g1")["Activities"]
mine = [a for a in acts if "LaunchInstances request (client token tok-1)" in a["Cause"]]
check("each launch is a scaling activity with the request in its cause",
      len(mine) == 2 and all(a["Description"].startswith("Launching a new EC2 instance: i-") for a in mine), acts)
time.sleep(2)
check("the group keeps them (no launch, no scale-in): desired 2", group()["DesiredCapacity"] == 2 and len(states()) == 2)

again = asg.launch_instances(AutoScalingGroupName="g1", RequestedCapacity=2, AvailabilityZones=["us-east-1b"],
                             ClientToken="tok-1")
check("the same client token: the first reply, nothing launched",
      again.get("Instances") == inst and len(states()) == 2 and group()["DesiredCapacity"] == 2, again)
e = error_of(asg.launch_instances, AutoScalingGroupName="g1", RequestedCapacity=1,
             AvailabilityZones=["us-east-1b"], ClientToken="tok-1")
check("the token with other parameters: IdempotentParameterMismatch",
      e == ("IdempotentParameterMismatch", "The parameters of this request do not match those of the "
            "earlier request with client token tok-1."), e)
e = error_of(asg.launch_instances, AutoScalingGroupName="g1", RequestedCapacity=3, AvailabilityZones=["us-east-1a"])
check("past MaxSize: SetDesiredCapacity's ValidationError, nothing launched",
      e == ("ValidationError", "New SetDesiredCapacity value 5 is above max value 4 for the AutoScalingGroup.")
      and len(states()) == 2, e)
r = asg.launch_instances(AutoScalingGroupName="g1", RequestedCapacity=1, AvailabilityZoneIds=[zone_b["ZoneId"]])
check("by AvailabilityZoneIds; boto3 fills the ClientToken",
      r["Instances"] and r["Instances"][0]["AvailabilityZone"] == "us-east-1b" and len(r["ClientToken"]) > 0, r)
third = r["Instances"][0]["InstanceIds"][0] if r["Instances"] else None
wait(lambda: states().get(third) == "Pending:Wait", 10)
asg.complete_lifecycle_action(AutoScalingGroupName="g1", LifecycleHookName="boot",
                              LifecycleActionResult="CONTINUE", InstanceId=third)

asg.create_launch_configuration(LaunchConfigurationName="lc1", ImageId="ami-12345678", InstanceType="m1.small")
asg.create_auto_scaling_group(AutoScalingGroupName="old", LaunchConfigurationName="lc1", MinSize=0, MaxSize=2,
                              AvailabilityZones=["us-east-1a"])
e = error_of(asg.launch_instances, AutoScalingGroupName="old", RequestedCapacity=1)
check("a launch configuration group: ValidationError", e == ("ValidationError",
      "LaunchInstances does not support Auto Scaling groups that use launch configurations. "
      "Migrate the group old to a launch template and try again."), e)
lt_spec = {"LaunchTemplateSpecification": {"LaunchTemplateName": "web"}}
asg.create_auto_scaling_group(AutoScalingGroupName="half", MinSize=0, MaxSize=2, AvailabilityZones=["us-east-1a"],
                              MixedInstancesPolicy={"LaunchTemplate": lt_spec, "InstancesDistribution": {
                                  "OnDemandPercentageAboveBaseCapacity": 50}})
e = error_of(asg.launch_instances, AutoScalingGroupName="half", RequestedCapacity=1)
check("a mixed On-Demand/Spot policy: ValidationError", e and e[0] == "ValidationError" and
      "fully On-Demand or fully Spot" in e[1], e)

# --max-instances 6 (the host's room: EC2 answers InsufficientInstanceCapacity past it): 3 run
# in g1; a weighted group of t3.small (weight 2) takes 2 more
w_policy = {"LaunchTemplate": {"LaunchTemplateSpecification": {"LaunchTemplateName": "web"},
                               "Overrides": [{"InstanceType": "t3.small", "WeightedCapacity": "2"}]}}
asg.create_auto_scaling_group(AutoScalingGroupName="w", MinSize=0, MaxSize=20, AvailabilityZones=["us-east-1a"],
                              MixedInstancesPolicy=w_policy)
asg.enable_metrics_collection(AutoScalingGroupName="w", Granularity="1Minute")
r = asg.launch_instances(AutoScalingGroupName="w", RequestedCapacity=3, ClientToken="w-1")
check("weights: 3 units asked, two t3.small launched (4 units), desired 3",
      [len(c["InstanceIds"]) for c in r["Instances"]] == [2] and r["Instances"][0]["InstanceType"] == "t3.small"
      and group("w")["DesiredCapacity"] == 3, r)

def latest(name, g):
    now = time.time()
    pts = cw.get_metric_statistics(Namespace="AWS/AutoScaling", MetricName=name, Period=60,
                                   Statistics=["Maximum"], Dimensions=[{"Name": "AutoScalingGroupName", "Value": g}],
                                   StartTime=now - 3600, EndTime=now + 20 * 3600)["Datapoints"]
    return max(pts, key=lambda d: d["Timestamp"])["Maximum"] if pts else None

got = wait(lambda: (lambda v: v if v[0] == 4 and v[1] == 2 else None)(
    [latest(n, "w") for n in ("GroupInServiceCapacity", "GroupInServiceInstances",
                              "GroupTotalCapacity", "GroupTotalInstances", "GroupPendingCapacity")]), 20)
check("Group*Capacity counts the weights: InService 4 units of 2 instances, Total 4 of 2, Pending 0",
      got == [4, 2, 4, 2, 0], got)

r = asg.launch_instances(AutoScalingGroupName="w", RequestedCapacity=4, ClientToken="w-2")
errs = r.get("Errors", [])
check("--max-instances reached after one more: one launched, an Errors item with EC2's code; desired +2",
      [len(c["InstanceIds"]) for c in r["Instances"]] == [1] and len(errs) == 1 and
      errs[0]["ErrorCode"] == "InsufficientInstanceCapacity" and errs[0]["AvailabilityZone"] == "us-east-1a"
      and group("w")["DesiredCapacity"] == 5, r)
r = asg.launch_instances(AutoScalingGroupName="w", RequestedCapacity=2, ClientToken="w-3",
                         RetryStrategy="retry-with-group-configuration")
check("retry-with-group-configuration at the limit: nothing launched, desired takes the 2 asked",
      r["Instances"] == [] and r["Errors"][0]["ErrorCode"] == "InsufficientInstanceCapacity" and
      group("w")["DesiredCapacity"] == 7, r)
# room for the aws CLI's launch below: w goes with its instances
asg.delete_auto_scaling_group(AutoScalingGroupName="w", ForceDelete=True)
check("w force-deleted with its instances", wait(lambda: not asg.describe_auto_scaling_groups(
    AutoScalingGroupNames=["w"])["AutoScalingGroups"], 20))
json.dump({"ids": ids}, open(scratch, "w"))
sys.exit(tap.failed)
EOF

# --- the aws CLI v2 ---
if need aws awscli; then
    out=$(aws --endpoint-url "$EP" autoscaling launch-instances --auto-scaling-group-name g1 \
        --requested-capacity 1 --availability-zones us-east-1a --client-token cli-1 \
        --query 'Instances[0].[AvailabilityZone,length(InstanceIds)]' --output text)
    check "aws autoscaling launch-instances: one instance in us-east-1a" test "$out" = "us-east-1a	1"
    out=$(aws --endpoint-url "$EP" autoscaling launch-instances --auto-scaling-group-name g1 \
        --requested-capacity 1 --client-token cli-2 2>&1 || true)
    check "aws autoscaling launch-instances without a zone: the ValidationError" \
        grep -q "ValidationError.*Either AvailabilityZones, AvailabilityZoneIds or SubnetIds" <<<"$out"
    [ "$failed" = 0 ] || echo "# $out"
fi

# --- --state: the client tokens come back ---
kill -TERM -- "-$EMU_PID"
wait "$EMU_PID" 2>/dev/null || true
start_emu emu2 --quiet --time-scale 60 --state "$TMP/state.json" || exit 1
check "--state: the client token answers with its first reply after a restart" python3 -c "
import boto3, json, sys
a = boto3.client('autoscaling', endpoint_url='$EP')
ids = json.load(open('$TMP/ids.json'))['ids']
r = a.launch_instances(AutoScalingGroupName='g1', RequestedCapacity=2, AvailabilityZones=['us-east-1b'], ClientToken='tok-1')
sys.exit(0 if r['Instances'][0]['InstanceIds'] == ids else 1)"

if [ "$failed" != 0 ]; then tail -n 30 "$TMP/emu.log" | sed 's/^/# emu: /'; fi
finish
