#!/usr/bin/env python3
"""boto3 side of tests/integration/test_state.sh (emulator --state FILE).

    state_client.py EP create FILE     builds objects, writes what describes show to FILE
    state_client.py EP verify FILE     the same describes must match FILE
    state_client.py EP alarms FILE     alarms saved by create are there (CloudWatch)
    state_client.py EP loop N LOG G    group G, then N CreateOrUpdateTags on it; each
                                       acknowledged change -> LOG ("G -", "G key")
    state_client.py EP present LOG     every change in LOG is there
    state_client.py EP replaced FILE   the group's old instances are terminated (lost)
                                       and the group is back at its desired capacity
    state_client.py EP bench N         N CreateOrUpdateTags; prints ms per request
Prints "ok" (or figures) on success; else the reason, exit 1."""
import json
import os
import sys
import time

import boto3

EP, CMD = sys.argv[1], sys.argv[2]
ARGS = sys.argv[3:]


def client(svc, region="us-east-1"):
    return boto3.client(svc, endpoint_url=EP, region_name=region,
                        aws_access_key_id="testing", aws_secret_access_key="testing")


def describe(include_instances=True):
    """What the objects look like through the API (volatile fields left out)."""
    asg, elb, ec2 = client("autoscaling"), client("elb"), client("ec2")
    eu = client("autoscaling", "eu-west-1")
    out = {}
    lbs = elb.describe_load_balancers()["LoadBalancerDescriptions"]
    for lb in lbs:
        lb.pop("CreatedTime", None)
        if not include_instances:
            lb.pop("Instances", None)
    out["lbs"] = lbs
    out["lb_attrs"] = elb.describe_load_balancer_attributes(
        LoadBalancerName="statelb")["LoadBalancerAttributes"]
    out["lb_tags"] = elb.describe_tags(LoadBalancerNames=["statelb"])["TagDescriptions"]
    out["lcs"] = [{k: v for k, v in lc.items() if k != "CreatedTime"}
                  for lc in asg.describe_launch_configurations()["LaunchConfigurations"]]
    groups = asg.describe_auto_scaling_groups()["AutoScalingGroups"]
    for g in groups:
        g.pop("CreatedTime", None)
        if not include_instances:
            g.pop("Instances", None)
    out["groups"] = groups
    out["policies"] = asg.describe_policies()["ScalingPolicies"]
    out["tags"] = asg.describe_tags()["Tags"]
    out["eu_groups"] = [g["AutoScalingGroupARN"]
                        for g in eu.describe_auto_scaling_groups()["AutoScalingGroups"]]
    out["lts"] = [{k: v for k, v in t.items() if k != "CreateTime"}
                  for t in ec2.describe_launch_templates()["LaunchTemplates"]]
    out["vpcs"] = sorted(v["VpcId"] for v in ec2.describe_vpcs()["Vpcs"])
    out["subnets"] = sorted(s["SubnetId"] for s in ec2.describe_subnets()["Subnets"])
    if include_instances:
        res = ec2.describe_instances()["Reservations"]
        out["instances"] = sorted((i["InstanceId"], i["State"]["Name"])
                                  for r in res for i in r["Instances"])
    return json.loads(json.dumps(out, default=str))


def create(path):
    asg, elb, ec2, cw = client("autoscaling"), client("elb"), client("ec2"), client("cloudwatch")
    elb.create_load_balancer(
        LoadBalancerName="statelb", AvailabilityZones=["us-east-1c"],
        Listeners=[{"Protocol": "HTTP", "LoadBalancerPort": 8280, "InstanceProtocol": "HTTP",
                    "InstancePort": 9763},
                   {"Protocol": "TCP", "LoadBalancerPort": 8243, "InstanceProtocol": "TCP",
                    "InstancePort": 9443}],
        Tags=[{"Key": "course", "Value": "autoscaling"}])
    elb.configure_health_check(LoadBalancerName="statelb", HealthCheck={
        "Target": "TCP:9763", "Interval": 5, "Timeout": 3, "UnhealthyThreshold": 2,
        "HealthyThreshold": 2})
    elb.modify_load_balancer_attributes(LoadBalancerName="statelb", LoadBalancerAttributes={
        "ConnectionDraining": {"Enabled": True, "Timeout": 60},
        "CrossZoneLoadBalancing": {"Enabled": True}})
    asg.create_launch_configuration(LaunchConfigurationName="statelc", ImageId="ami-12345678",
                                    InstanceType="m1.large", UserData='{"boot_s": 0}')
    asg.create_auto_scaling_group(
        AutoScalingGroupName="stateasg", LaunchConfigurationName="statelc", MinSize=1,
        MaxSize=10, AvailabilityZones=["us-east-1c"], LoadBalancerNames=["statelb"],
        HealthCheckGracePeriod=30,
        Tags=[{"Key": "env", "Value": "lab", "PropagateAtLaunch": True,
               "ResourceId": "stateasg", "ResourceType": "auto-scaling-group"}])
    up = asg.put_scaling_policy(AutoScalingGroupName="stateasg", PolicyName="up",
                                AdjustmentType="ChangeInCapacity", ScalingAdjustment=1,
                                Cooldown=300)["PolicyARN"]
    down = asg.put_scaling_policy(AutoScalingGroupName="stateasg", PolicyName="down",
                                  AdjustmentType="ChangeInCapacity", ScalingAdjustment=-1,
                                  Cooldown=300)["PolicyARN"]
    asg.put_scaling_policy(AutoScalingGroupName="stateasg", PolicyName="step",
                           PolicyType="StepScaling", AdjustmentType="PercentChangeInCapacity",
                           MinAdjustmentMagnitude=1,
                           StepAdjustments=[{"MetricIntervalLowerBound": 0,
                                             "MetricIntervalUpperBound": 10.5,
                                             "ScalingAdjustment": 10},
                                            {"MetricIntervalLowerBound": 10.5,
                                             "ScalingAdjustment": 30}])
    asg.suspend_processes(AutoScalingGroupName="stateasg", ScalingProcesses=["AZRebalance"])
    asg.enable_metrics_collection(AutoScalingGroupName="stateasg", Granularity="1Minute",
                                  Metrics=["GroupMaxSize"])
    for name, op, thr, arn in (("HighCPU", "GreaterThanThreshold", 80, up),
                               ("LowCPU", "LessThanThreshold", 40, down)):
        cw.put_metric_alarm(AlarmName=name, MetricName="CPUUtilization", Namespace="AWS/EC2",
                            Statistic="Average", Period=600, EvaluationPeriods=1, Threshold=thr,
                            ComparisonOperator=op, AlarmActions=[arn],
                            Dimensions=[{"Name": "AutoScalingGroupName", "Value": "stateasg"}])
    ec2.create_launch_template(LaunchTemplateName="statelt", LaunchTemplateData={
        "ImageId": "ami-12345678", "InstanceType": "t3.micro"})
    vpc = ec2.create_vpc(CidrBlock="10.9.0.0/16")["Vpc"]["VpcId"]
    ec2.create_subnet(VpcId=vpc, CidrBlock="10.9.1.0/24", AvailabilityZone="us-east-1a")
    eu = client("autoscaling", "eu-west-1")
    eu.create_launch_configuration(LaunchConfigurationName="eulc", ImageId="ami-12345678",
                                   InstanceType="t3.micro")
    eu.create_auto_scaling_group(AutoScalingGroupName="euasg", LaunchConfigurationName="eulc",
                                 MinSize=0, MaxSize=1, AvailabilityZones=["eu-west-1a"])
    snap = describe()
    snap["alarms"] = alarms_now()
    with open(path, "w") as f:
        json.dump(snap, f, indent=1, sort_keys=True)
    print("ok")


def alarms_now():
    return sorted((a["AlarmName"], a["AlarmArn"], a["Threshold"], tuple(a["AlarmActions"]))
                  for a in client("cloudwatch").describe_alarms()["MetricAlarms"])


def diff(a, b, where=""):
    if type(a) is not type(b):
        return "%s: %r != %r" % (where, a, b)
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return "%s.%s: only on one side (%r / %r)" % (where, k, a.get(k), b.get(k))
            d = diff(a[k], b[k], where + "." + k)
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d != %d entries" % (where, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            d = diff(x, y, "%s[%d]" % (where, i))
            if d:
                return d
        return None
    return None if a == b else "%s: %r != %r" % (where, a, b)


def verify(path, include_instances):
    with open(path) as f:
        want = json.load(f)
    want.pop("alarms", None)
    if not include_instances:
        want.pop("instances", None)
        for g in want["groups"]:
            g.pop("Instances", None)
        for lb in want["lbs"]:
            lb.pop("Instances", None)
    got = describe(include_instances)
    d = diff(want, got)
    if d:
        raise SystemExit("differs: " + d)
    print("ok")


def alarms(path):
    with open(path) as f:
        want = json.load(f)["alarms"]
    got = [list(a[:3]) + [list(a[3])] for a in alarms_now()]
    want = [list(a[:3]) + [list(a[3])] for a in want]
    if got != want:
        raise SystemExit("alarms differ: want %r, got %r" % (want, got))
    print("ok")


def empty_group(asg, name):
    """A group of no instances to hang tags on (made once)."""
    if asg.describe_auto_scaling_groups(AutoScalingGroupNames=[name])["AutoScalingGroups"]:
        return
    asg.create_launch_configuration(LaunchConfigurationName=name + "-lc",
                                    ImageId="ami-12345678", InstanceType="t3.micro")
    asg.create_auto_scaling_group(AutoScalingGroupName=name, LaunchConfigurationName=name + "-lc",
                                  MinSize=0, MaxSize=1, AvailabilityZones=["us-east-1a"])


def loop(n, log, group):
    asg = client("autoscaling")
    empty_group(asg, group)
    with open(log, "a") as f:
        f.write("%s -\n" % group)  # the group itself was acknowledged
        for i in range(n):
            key = "k%03d" % i
            asg.create_or_update_tags(Tags=[{"ResourceId": group,
                                             "ResourceType": "auto-scaling-group",
                                             "Key": key, "Value": "v%d" % i,
                                             "PropagateAtLaunch": False}])
            f.write("%s %s\n" % (group, key))
            f.flush()
            os.fsync(f.fileno())
    print("ok")


def present(log):
    with open(log) as f:
        acked = [tuple(l.split()) for l in f if len(l.split()) == 2]
    asg = client("autoscaling")
    groups = {g["AutoScalingGroupName"] for g in asg.describe_auto_scaling_groups()[
        "AutoScalingGroups"]}
    tags = set()
    for page in asg.get_paginator("describe_tags").paginate():
        tags |= {(t["ResourceId"], t["Key"]) for t in page["Tags"]}
    missing = [a for a in acked if (a[1] == "-" and a[0] not in groups) or
               (a[1] != "-" and a not in tags)]
    if missing:
        raise SystemExit("acknowledged but lost: %s" % missing)
    print("ok %d acknowledged changes present" % len(acked))


def replaced(path):
    with open(path) as f:
        old = {i for i, _ in json.load(f)["instances"]}
    asg, ec2 = client("autoscaling"), client("ec2")
    deadline = time.time() + 30
    while time.time() < deadline:
        g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["stateasg"])[
            "AutoScalingGroups"][0]
        live = [i for i in g["Instances"] if i["LifecycleState"] == "InService"]
        states = {i["InstanceId"]: (i["State"]["Name"], i.get("StateReason", {}).get("Code"))
                  for r in ec2.describe_instances()["Reservations"] for i in r["Instances"]}
        lost = [i for i in old if states.get(i, ("gone",))[0] in ("terminated", "gone")]
        if (len(live) >= g["DesiredCapacity"] and all(i["InstanceId"] not in old for i in live)
                and len(lost) == len(old)):
            print("ok %d old instances lost, %d new InService" % (len(lost), len(live)))
            return
        time.sleep(0.3)
    raise SystemExit("not replaced: group %r, states %r" % (g["Instances"], states))


def bench(n):
    asg = client("autoscaling")
    empty_group(asg, "bench")
    t0 = time.perf_counter()
    for i in range(n):
        asg.create_or_update_tags(Tags=[{"ResourceId": "bench",
                                         "ResourceType": "auto-scaling-group",
                                         "Key": "k%d" % (i % 40), "Value": str(i),
                                         "PropagateAtLaunch": False}])
    dt = time.perf_counter() - t0
    print("%.3f ms/request" % (dt * 1000 / n))


if CMD == "create":
    create(ARGS[0])
elif CMD == "verify":
    verify(ARGS[0], True)
elif CMD == "verify-records":
    verify(ARGS[0], False)
elif CMD == "alarms":
    alarms(ARGS[0])
elif CMD == "loop":
    loop(int(ARGS[0]), ARGS[1], ARGS[2])
elif CMD == "present":
    present(ARGS[0])
elif CMD == "replaced":
    replaced(ARGS[0])
elif CMD == "bench":
    bench(int(ARGS[0]))
else:
    raise SystemExit("unknown command " + CMD)
