#!/usr/bin/env bash
# Network Load Balancer UDP and TCP_UDP listeners (docs/elbv2.md 10.5) through boto3 and
# python3's socket at --time-scale 60: an Auto Scaling group's two instances behind a UDP
# target group (TCP health checks; UDP is refused as a health check protocol with AWS's
# text); a UDP listener forwards datagrams to the instances' UDP echo and the answers back
# from the listener's port; one client socket (a flow) stays on one target, other sockets
# spread; source_ip stickiness keeps every socket of 127.0.0.1 on one target and another
# address may reach the other; a TCP_UDP listener takes TCP (HTTP) and UDP on one port;
# AWS/NetworkELB NewFlowCount_UDP, ProcessedBytes_UDP and ActiveFlowCount_UDP published.
# TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 60

python3 - "$EP" <<'EOF' || failed=1
import json, socket, sys, time, urllib.request, http.client
from datetime import datetime, timedelta, timezone
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep = sys.argv[1]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
asg = boto3.client("autoscaling", endpoint_url=ep)
cw = boto3.client("cloudwatch", endpoint_url=ep)

def error(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

def dataplane():
    with urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5) as r:
        return json.load(r)

def listener(arn):
    for x in dataplane().get("alb_listeners", []):
        if x["listener_arn"] == arn:
            return x

def ask(port, payload, s=None, src="127.0.0.1"):
    """The instance id that echoed payload (None: no answer in 2 s)."""
    own = s is None
    if own:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind((src, 0))
    s.settimeout(2)
    try:
        s.sendto(payload, ("127.0.0.1", port))
        data, frm = s.recvfrom(4096)
        if frm[1] != port or not data.endswith(b" " + payload):
            return ("bad", frm, data)
        return data.split()[0].decode()
    except OSError:
        return None
    finally:
        if own:
            s.close()

vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subnets = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
sub = [s["SubnetId"] for s in subnets[:2]]
zones = [s["AvailabilityZone"] for s in subnets[:2]]

check("a UDP health check protocol is refused with AWS's text",
      error(v2.create_target_group, Name="bad", Protocol="UDP", Port=80, VpcId=vpc,
            HealthCheckProtocol="UDP") ==
      ("ValidationError", "Health check protocol 'UDP' is not supported"))
nlb = v2.create_load_balancer(Name="udp", Subnets=sub, Type="network")["LoadBalancers"][0]["LoadBalancerArn"]
hc = dict(Port=80, VpcId=vpc, HealthCheckIntervalSeconds=30, HealthCheckTimeoutSeconds=25,
          HealthyThresholdCount=2, UnhealthyThresholdCount=2)
udp = v2.create_target_group(Name="udp", Protocol="UDP", **hc)["TargetGroups"][0]
check("a UDP target group's health check is TCP by default", udp["HealthCheckProtocol"] == "TCP", udp)
udp = udp["TargetGroupArn"]
both = v2.create_target_group(Name="both", Protocol="TCP_UDP", **hc)["TargetGroups"][0]["TargetGroupArn"]
ul = v2.create_listener(LoadBalancerArn=nlb, Protocol="UDP", Port=53,
                        DefaultActions=[{"Type": "forward", "TargetGroupArn": udp}])["Listeners"][0]["ListenerArn"]
bl = v2.create_listener(LoadBalancerArn=nlb, Protocol="TCP_UDP", Port=80,
                        DefaultActions=[{"Type": "forward", "TargetGroupArn": both}])["Listeners"][0]["ListenerArn"]
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="m1.large")
asg.create_auto_scaling_group(AutoScalingGroupName="g", LaunchConfigurationName="lc", MinSize=2,
                              DesiredCapacity=2, MaxSize=2, AvailabilityZones=zones,
                              TargetGroupARNs=[udp, both])

def healthy(t):
    d = v2.describe_target_health(TargetGroupArn=t)["TargetHealthDescriptions"]
    return sorted(x["Target"]["Id"] for x in d if x["TargetHealth"]["State"] == "healthy")
check("the two instances become healthy targets of both groups (TCP checks)",
      wait(lambda: len(healthy(udp)) == 2 and len(healthy(both)) == 2, 60), (healthy(udp), healthy(both)))
ids = healthy(udp)
# cross-zone on: every node reaches both targets
v2.modify_load_balancer_attributes(LoadBalancerArn=nlb, Attributes=[
    {"Key": "load_balancing.cross_zone.enabled", "Value": "true"}])
x = wait(lambda: listener(ul), 5)
check("the UDP listener is a forwarder on 127.0.0.1 (the data plane lists it, protocol UDP)",
      x and x["protocol"] == "UDP", x)
uport = x["port"] if x else 1

s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
first = wait(lambda: ask(uport, b"hello", s), 10)
check("a datagram through the UDP listener is echoed by an instance, from the listener's port",
      first in ids, first)
same = [ask(uport, b"n%d" % k, s) for k in range(6)]
check("one client socket (one flow) stays on its target", same == [first] * 6, same)
check("the data plane counts the open flow", (listener(ul) or {}).get("udp_flows", 0) >= 1, listener(ul))
s.close()
spread = {ask(uport, b"x") for _ in range(8)}
check("new sockets (new flows) reach both targets in turn", spread == set(ids), spread)

v2.modify_target_group_attributes(TargetGroupArn=udp, Attributes=[
    {"Key": "stickiness.enabled", "Value": "true"}, {"Key": "stickiness.type", "Value": "source_ip"}])
stuck = wait(lambda: (lambda w: w.pop() if len(w) == 1 else None)({ask(uport, b"s") for _ in range(8)}), 10)
check("source_ip: every socket of 127.0.0.1 reaches one target", stuck in ids, stuck)
others = {ask(uport, b"o", src=f"127.0.0.{k}") for k in range(2, 18)}
check("source_ip: other addresses reach the other target too", others == set(ids), others)

bx = wait(lambda: listener(bl), 5)
check("the TCP_UDP listener is listed as such", bx and bx["protocol"] == "TCP_UDP", bx)
bport = bx["port"] if bx else 1
got = wait(lambda: ask(bport, b"both"), 10)
check("TCP_UDP: a datagram on the port is echoed by an instance", got in ids, got)
c = http.client.HTTPConnection("127.0.0.1", bport, timeout=5)
c.request("GET", "/")
r = c.getresponse()
r.read()
c.close()
check("TCP_UDP: a TCP connection on the same port is piped to an instance (HTTP 200)",
      r.status == 200 and (r.getheader("X-Scalelab-Instance") or "").split()[:1][0] in ids, r.status)

nd = nlb.split(":loadbalancer/")[1]
def stat(metric, st="Sum"):
    now = datetime.now(timezone.utc)
    d = cw.get_metric_statistics(Namespace="AWS/NetworkELB", MetricName=metric,
                                 Dimensions=[{"Name": "LoadBalancer", "Value": nd}],
                                 StartTime=now - timedelta(hours=2), EndTime=now + timedelta(hours=1),
                                 Period=60, Statistics=[st])["Datapoints"]
    return sum(x[st] for x in d)
for m in ("NewFlowCount_UDP", "ProcessedBytes_UDP", "ActiveFlowCount_UDP"):
    check(f"AWS/NetworkELB {m} (LoadBalancer) is published, non-zero", wait(lambda: stat(m) > 0, 15))
check("NewFlowCount includes the UDP flows", wait(lambda: stat("NewFlowCount") >= stat("NewFlowCount_UDP") > 0, 5))
sys.exit(tap.failed)
EOF
finish
