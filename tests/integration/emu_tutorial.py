#!/usr/bin/env python3
"""The seed tutorial flow (shared/seeds/ab-nohup-and-ec2-autoscaling-tutorial.txt) against the
emulator with botocore clients: whatever botocore this interpreter has (current: CloudWatch
over JSON 1.0; Debian's 1.29: CloudWatch over query).

    emu_tutorial.py ENDPOINT PREFIX
Prints "ok <botocore version> cloudwatch=<protocol>" or fails with a reason (exit 1)."""
import sys
import time

import botocore
import botocore.session
from botocore.exceptions import ClientError

EP, P = sys.argv[1], sys.argv[2]
S = botocore.session.get_session()


def client(svc):
    return S.create_client(svc, endpoint_url=EP, region_name="us-east-1",
                           aws_access_key_id="testing", aws_secret_access_key="testing")


def expect(fn, code):
    try:
        fn()
    except ClientError as e:
        got = e.response["Error"]["Code"]
        if got != code:
            raise SystemExit("want %s got %s: %s" % (code, got, e.response["Error"].get("Message")))
        return e.response["Error"].get("Message", "")
    raise SystemExit("no error, want " + code)


def wait(cond, what, secs=15):
    end = time.time() + secs
    while time.time() < end:
        if cond():
            return
        time.sleep(0.2)
    raise SystemExit("timed out waiting for " + what)


elb, asg, cw = client("elb"), client("autoscaling"), client("cloudwatch")
lb, lc, grp = P + "lb", P + "lc", P + "asg"
elb.create_load_balancer(LoadBalancerName=lb, AvailabilityZones=["us-east-1c"], Listeners=[
    {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 9763},
    {"Protocol": "TCP", "LoadBalancerPort": 443, "InstanceProtocol": "TCP", "InstancePort": 9443}])
elb.delete_load_balancer_listeners(LoadBalancerName=lb, LoadBalancerPorts=[80, 443])
elb.create_load_balancer_listeners(LoadBalancerName=lb, Listeners=[
    {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8280},
    {"Protocol": "TCP", "LoadBalancerPort": 443, "InstanceProtocol": "TCP", "InstancePort": 8243}])
hc = elb.configure_health_check(LoadBalancerName=lb, HealthCheck={
    "Target": "TCP:9763", "Interval": 5, "Timeout": 3, "UnhealthyThreshold": 2,
    "HealthyThreshold": 2})["HealthCheck"]
assert hc["Target"] == "TCP:9763" and hc["Interval"] == 5, hc
d = elb.describe_load_balancers(LoadBalancerNames=[lb])["LoadBalancerDescriptions"][0]
ports = sorted((l["Listener"]["LoadBalancerPort"], l["Listener"]["InstancePort"])
               for l in d["ListenerDescriptions"])
assert ports == [(80, 8280), (443, 8243)], ports
# UserData: the instance profile boots at once (the default boot_s is 60 emulated seconds,
# a real minute at this emulator's --time-scale 1)
asg.create_launch_configuration(LaunchConfigurationName=lc, ImageId="ami-12345678",
                                InstanceType="m1.large", UserData='{"boot_s": 0}')
asg.create_auto_scaling_group(AutoScalingGroupName=grp, LaunchConfigurationName=lc,
                              AvailabilityZones=["us-east-1c"], MinSize=1, MaxSize=10,
                              LoadBalancerNames=[lb])
up = asg.put_scaling_policy(AutoScalingGroupName=grp, PolicyName="scale-up",
                            ScalingAdjustment=1, AdjustmentType="ChangeInCapacity",
                            Cooldown=300)["PolicyARN"]
down = asg.put_scaling_policy(AutoScalingGroupName=grp, PolicyName="scale-down",
                              ScalingAdjustment=-1, AdjustmentType="ChangeInCapacity",
                              Cooldown=300)["PolicyARN"]
for name, op, thr, arn in (("HighCPU", "GreaterThanThreshold", 80, up),
                           ("LowCPU", "LessThanThreshold", 40, down)):
    cw.put_metric_alarm(AlarmName=P + name, MetricName="CPUUtilization", Namespace="AWS/EC2",
                        Statistic="Average", Period=600, Threshold=thr, ComparisonOperator=op,
                        Dimensions=[{"Name": "AutoScalingGroupName", "Value": grp}],
                        EvaluationPeriods=1, AlarmActions=[arn], Unit="Percent")
alarms = cw.describe_alarms(AlarmNamePrefix=P)["MetricAlarms"]
assert sorted(a["AlarmName"] for a in alarms) == [P + "HighCPU", P + "LowCPU"], alarms
assert all(a["StateValue"] == "INSUFFICIENT_DATA" for a in alarms), alarms
assert {a["AlarmActions"][0] for a in alarms} == {up, down}, alarms
pol = asg.describe_policies(AutoScalingGroupName=grp)["ScalingPolicies"]
assert sorted(p["PolicyName"] for p in pol) == ["scale-down", "scale-up"], pol


def in_service():
    st = elb.describe_instance_health(LoadBalancerName=lb)["InstanceStates"]
    return len(st) == 1 and st[0]["State"] == "InService"


wait(in_service, "one instance InService at the load balancer")
msg = expect(lambda: asg.delete_auto_scaling_group(AutoScalingGroupName=grp), "ResourceInUse")
assert "while there are instances" in msg, msg
asg.update_auto_scaling_group(AutoScalingGroupName=grp, MinSize=0, MaxSize=0)


def gone():
    try:
        asg.delete_auto_scaling_group(AutoScalingGroupName=grp)
        return True
    except ClientError as e:
        if e.response["Error"]["Code"] not in ("ResourceInUse", "ScalingActivityInProgress"):
            raise
        return False


wait(gone, "the group to empty and delete")
wait(lambda: asg.describe_auto_scaling_groups(AutoScalingGroupNames=[grp])["AutoScalingGroups"] == [],
     "an empty describe")
acts = asg.describe_scaling_activities()["Activities"]
cw.delete_alarms(AlarmNames=[P + "HighCPU", P + "LowCPU"])
asg.delete_launch_configuration(LaunchConfigurationName=lc)
elb.delete_load_balancer(LoadBalancerName=lb)
# metrics round trip in this client's CloudWatch protocol
now = time.time()
cw.put_metric_data(Namespace=P + "App", MetricData=[
    {"MetricName": "Latency", "Value": v, "Unit": "Milliseconds", "Timestamp": now}
    for v in (10.0, 20.0, 30.0)])
st = cw.get_metric_statistics(Namespace=P + "App", MetricName="Latency", StartTime=now - 600,
                              EndTime=now + 600, Period=60, Statistics=["Average", "Maximum"])
pts = st["Datapoints"]
assert len(pts) == 1 and pts[0]["Average"] == 20.0 and pts[0]["Maximum"] == 30.0, st
sm = cw.meta.service_model
proto = getattr(sm, "resolved_protocol", None) or sm.metadata.get("protocol")
print("ok botocore %s cloudwatch=%s" % (botocore.__version__, proto))
