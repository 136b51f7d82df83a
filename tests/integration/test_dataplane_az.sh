#!/usr/bin/env bash
# The availability-zone outage fault (POST /_scalelab/fault {"zone","fault":"az_outage"},
# docs/dataplane.md) asserted through the AWS API with boto3 at --time-scale 60: a group
# over three zones behind a load balancer; the zone goes down: its instance dies (EC2
# terminated, Server.InternalError), DescribeAvailabilityZones shows it impaired, the
# group's launch there fails with AWS's InsufficientInstanceCapacity text and the group
# launches in its other zones; requests through the balancer keep succeeding; the zone
# comes back by itself (for_s) and the group rebalances into it. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 60
EPID=$LAST

python3 - "$EP" "$EPID" "$ROOT/$BUILD/bin/scaler" "$ROOT/tests/integration/az_outage_parity.json" <<'EOF' || failed=1
import json, os, re, subprocess, sys, time, urllib.error, urllib.request
import boto3

ep, epid, scaler, parity = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
asg = boto3.client("autoscaling", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)
import tap
from tap import check, wait
ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]

def admin(path, body=None):
    req = urllib.request.Request(ep + path, data=json.dumps(body).encode() if body is not None else None,
                                 method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)

def group():
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g1"])["AutoScalingGroups"][0]

def by_zone():
    out = {z: [] for z in ZONES}
    for i in group()["Instances"]:
        if i["LifecycleState"] == "InService":
            out[i["AvailabilityZone"]].append(i["InstanceId"])
    return out

def balanced(zones):
    def f():
        g = group()
        bz = by_zone()
        if len(g["Instances"]) != 3 or any(len(bz[z]) != 1 for z in zones):
            return None
        return bz
    return f

def lb_port():
    for l in admin("/_scalelab/dataplane")[1]["listeners"]:
        if l["load_balancer"] == "lb1":
            return l["port"]
    return None

def through_lb(n):
    port = lb_port()
    good = 0
    for _ in range(n):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
                good += r.status == 200
        except Exception:
            pass
    return good

elb.create_load_balancer(LoadBalancerName="lb1", AvailabilityZones=ZONES, Listeners=[
    {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8080}])
elb.configure_health_check(LoadBalancerName="lb1", HealthCheck={
    "Target": "HTTP:8080/health", "Interval": 5, "Timeout": 2, "UnhealthyThreshold": 2,
    "HealthyThreshold": 2})
asg.create_launch_configuration(LaunchConfigurationName="lc1", ImageId="ami-12345678",
                                InstanceType="m1.large",
                                UserData=json.dumps({"boot_s": 5, "workers": 4, "service_ms": 1}))
asg.create_auto_scaling_group(AutoScalingGroupName="g1", LaunchConfigurationName="lc1",
                              MinSize=3, MaxSize=6, DesiredCapacity=3, AvailabilityZones=ZONES,
                              LoadBalancerNames=["lb1"])
bz = wait(balanced(ZONES), 10)
check("three InService instances, one per zone", bz, by_zone())
victim = bz["us-east-1a"][0] if bz else None
pid = None
for i in admin("/_scalelab/dataplane")[1]["instances"]:
    if i["id"] == victim:
        pid = i["pid"]

# bad requests
st, _ = admin("/_scalelab/fault", {"zone": "us-east-1z", "fault": "az_outage"})
check("unknown zone -> 400", st == 400, st)
st, _ = admin("/_scalelab/fault", {"zone": "us-east-1a", "fault": "az_melt"})
check("unknown zone fault -> 400", st == 400, st)
st, _ = admin("/_scalelab/fault", {"zone": "us-east-1a", "fault": "az_outage", "for_s": "x"})
check("for_s not a number -> 400", st == 400, st)

# the outage: 10 emulated minutes (10 s real)
t0 = time.time()
st, r = admin("/_scalelab/fault", {"zone": "us-east-1a", "fault": "az_outage", "for_s": 600})
check("az_outage answers 200 with the instances that died", st == 200 and r["instances"] == [victim],
      r)
def gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except (FileNotFoundError, ProcessLookupError):
        return True
check("the victim's process is gone (kill -9)", pid and wait(lambda: gone(pid), 3))
inst = ec2.describe_instances(InstanceIds=[victim])["Reservations"][0]["Instances"][0]
check("EC2: the zone's instance is terminated with Server.InternalError",
      inst["State"]["Name"] == "terminated" and inst["StateReason"]["Code"] == "Server.InternalError",
      inst["State"])
zs = {z["ZoneName"]: z["State"] for z in ec2.describe_availability_zones()["AvailabilityZones"]}
check("DescribeAvailabilityZones: us-east-1a impaired, the others available",
      zs.get("us-east-1a") == "impaired" and zs.get("us-east-1b") == "available", zs)
try:
    ec2.run_instances(ImageId="ami-12345678", InstanceType="m1.large", MinCount=1, MaxCount=1,
                      Placement={"AvailabilityZone": "us-east-1a"})
    check("RunInstances into the zone fails", False)
except Exception as e:
    check("RunInstances into the zone fails with InsufficientInstanceCapacity",
          "InsufficientInstanceCapacity" in str(e), str(e)[:200])

def replaced():
    g = group()
    bz = by_zone()
    if len(g["Instances"]) == 3 and not bz["us-east-1a"] and \
            sum(len(v) for v in bz.values()) == 3:
        return bz
    return None
bz2 = wait(replaced, 8)
check("the group replaces it in its other zones (3 InService, none in us-east-1a)", bz2, by_zone())
acts = asg.describe_scaling_activities(AutoScalingGroupName="g1")["Activities"]
check("the termination activity has AWS's EC2 health-check cause",
      any(victim in a["Description"] and
          "in response to a EC2 health check indicating it has been terminated or stopped" in a["Cause"]
          for a in acts))
failed_acts = [a for a in acts if a["StatusCode"] == "Failed"]
want = ("We currently do not have sufficient m1.large capacity in the Availability Zone you "
        "requested (us-east-1a). Our system will be working on provisioning additional capacity.")
check("a launch into the zone is a Failed activity with AWS's capacity text",
      any(want in a.get("StatusMessage", "") and
          a["Description"].startswith("Launching a new EC2 instance.  Status Reason: We currently") and
          json.loads(a.get("Details", "{}")).get("Availability Zone") == "us-east-1a"
          for a in failed_acts), [a.get("StatusMessage") for a in failed_acts][:2])
good = through_lb(50)
check("requests through the load balancer succeed during the outage", good == 50, f"{good}/50")
still_down = {z["ZoneName"]: z["State"] for z in ec2.describe_availability_zones()["AvailabilityZones"]}
check("the zone is still down before for_s ends", still_down["us-east-1a"] == "impaired"
      or time.time() - t0 > 9.5, still_down)

# back after 600 emulated s; the failed-launch avoidance (5 emulated min) ends; rebalance
def zone_back():
    return {z["ZoneName"]: z["State"] for z in ec2.describe_availability_zones()["AvailabilityZones"]}["us-east-1a"] == "available"
check("the zone comes back by itself after for_s", wait(zone_back, 14), f"{time.time() - t0:.1f} s")
bz3 = wait(balanced(ZONES), 15)
check("the group rebalances into the zone that came back (one InService per zone)", bz3, by_zone())
acts = asg.describe_scaling_activities(AutoScalingGroupName="g1")["Activities"]
check("the rebalance is an AZRebalance activity with AWS's cause",
      any("in response to an Availability Zone rebalancing" in a["Cause"] for a in acts))
good = through_lb(20)
check("requests through the load balancer succeed after the rebalance", good == 20, f"{good}/20")

# the simulator's az_outage (same zones, group, load balancer, outage) tells the same story
def kinds(rows):
    out = set()
    for status, cause, desc in rows:
        last = re.split(r"At \S+Z ", cause)[-1]
        k = ("EC2 health" if "EC2 health check" in last else
             "rebalance" if "Availability Zone rebalancing" in cause else
             "difference" if "difference between desired" in cause else "other")
        out.add((status, k, "launch" if desc.startswith("Launching") else "terminate"))
    return out
emu_rows = [(a["StatusCode"], a["Cause"], a["Description"])
            for a in asg.describe_scaling_activities(AutoScalingGroupName="g1")["Activities"]]
sim = json.loads(subprocess.run([scaler, "simulate", parity, "--json"], capture_output=True,
                                text=True, timeout=60).stdout)
sim_rows = [(e["status"], e["cause"], e["description"]) for e in sim["timeline"]
            if e["type"] == "activity"]
ek, sk = kinds(emu_rows), kinds(sim_rows)
check("simulator and emulator: the same kinds of activities around the outage", ek == sk,
      f"emulator only {sorted(ek - sk)}, simulator only {sorted(sk - ek)}")
ef = {d for s_, c, d in emu_rows if s_ == "Failed"}
sf = {d for s_, c, d in sim_rows if s_ == "Failed"}
check("simulator and emulator: the same failed-launch text", ef and ef == sf, f"{ef} vs {sf}")

# az_outage without for_s stays until az_recover
st, r = admin("/_scalelab/fault", {"zone": "us-east-1b", "fault": "az_outage"})
check("az_outage without for_s", st == 200 and r["until_ms"] is None and len(r["instances"]) == 1, r)
st, r = admin("/_scalelab/fault", {"zone": "us-east-1b", "fault": "az_recover"})
check("az_recover brings it back at once", st == 200 and zone_back() and
      {z["ZoneName"]: z["State"] for z in ec2.describe_availability_zones()["AvailabilityZones"]}["us-east-1b"] == "available", r)
sys.exit(tap.failed)
EOF
finish
