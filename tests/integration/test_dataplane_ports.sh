#!/usr/bin/env bash
# One port per InstancePort (docs/dataplane.md): a load balancer with an HTTP listener to
# InstancePort 8080, a TCP listener to 9090 and a health check on 7070; each instance
# serves each on its own loopback port (the scalelab:ports tag and GET
# /_scalelab/dataplane show the map), each listener's requests arrive on its port and the
# health checks on theirs (the instance counts requests per port). Asserted through the
# AWS API with boto3. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 60

python3 - "$EP" <<'EOF' || failed=1
import json, sys, time, urllib.error, urllib.request
import boto3

ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)
import tap
from tap import check, wait

def admin(path):
    with urllib.request.urlopen(ep + path, timeout=5) as r:
        return json.load(r)

def listener_port(lb_port):
    for l in admin("/_scalelab/dataplane")["listeners"]:
        if l["load_balancer"] == "lbp" and l["load_balancer_port"] == lb_port:
            return l["port"]

def get(port, path="/"):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
        return r.status, r.read()

elb.create_load_balancer(LoadBalancerName="lbp", AvailabilityZones=["us-east-1a"], Listeners=[
    {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8080},
    {"Protocol": "TCP", "LoadBalancerPort": 81, "InstanceProtocol": "TCP", "InstancePort": 9090}])
elb.configure_health_check(LoadBalancerName="lbp", HealthCheck={
    "Target": "HTTP:7070/health", "Interval": 5, "Timeout": 2, "UnhealthyThreshold": 2,
    "HealthyThreshold": 2})
asg.create_launch_configuration(LaunchConfigurationName="lcp", ImageId="ami-12345678",
                                InstanceType="m1.small", UserData=json.dumps({"service_ms": 1}))
asg.create_auto_scaling_group(AutoScalingGroupName="gp", LaunchConfigurationName="lcp",
                              MinSize=1, MaxSize=1, AvailabilityZones=["us-east-1a"],
                              LoadBalancerNames=["lbp"])
def in_service():
    st = elb.describe_instance_health(LoadBalancerName="lbp")["InstanceStates"]
    return st[0]["InstanceId"] if len(st) == 1 and st[0]["State"] == "InService" else None
iid = wait(in_service, 10)
check("the instance is InService behind the load balancer", iid)

def tags():
    r = ec2.describe_instances(InstanceIds=[iid])["Reservations"][0]["Instances"][0]
    return {t["Key"]: t["Value"] for t in r.get("Tags", [])}
def port_map():
    v = tags().get("scalelab:ports", "")
    m = dict(kv.split("=") for kv in v.split(",") if "=" in kv)
    return {int(k): int(p) for k, p in m.items()} if len(m) == 3 else None
pm = wait(port_map, 5)
own = int(tags().get("scalelab:port", "0"))
check("the scalelab:ports tag maps 8080, 9090 and 7070 to three ports of their own",
      pm and set(pm) == {8080, 9090, 7070} and len(set(pm.values()) | {own}) == 4, (pm, own))
dp = {i["id"]: i for i in admin("/_scalelab/dataplane")["instances"]}
check("GET /_scalelab/dataplane shows the same map",
      pm and {int(k): v for k, v in dp[iid]["ports"].items()} == pm, dp.get(iid))

def per_port():
    _, b = get(own, "/_instance/status")
    return {p["port"]: p["requests"] for p in json.loads(b)["ports"]}
before = per_port()
l80, l81 = listener_port(80), listener_port(81)
ok80 = sum(get(l80)[0] == 200 for _ in range(10))
ok81 = sum(get(l81)[0] == 200 for _ in range(5))
check("requests through both listeners succeed", ok80 == 10 and ok81 == 5, (ok80, ok81))
after = per_port()
d = {p: after.get(p, 0) - before.get(p, 0) for p in after}
check("the HTTP listener's requests arrive on InstancePort 8080's port",
      pm and d.get(pm[8080]) == 10, d)
check("the TCP listener's requests arrive on InstancePort 9090's port",
      pm and d.get(pm[9090]) == 5, d)
# (the exact counts above show no health check went to 8080's or 9090's port)
check("the health checks arrive on the target's port (7070's)",
      pm and after.get(pm[7070], 0) > 0, after)
sys.exit(tap.failed)
EOF
finish
