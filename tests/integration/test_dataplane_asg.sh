#!/usr/bin/env bash
# Instances as processes behind the AWS API (emulator/autoscale.c), asserted with boto3 at
# --time-scale 60: a group's instances are child processes booting their UserData
# profile's boot time (scaled), running with a scalelab:port tag and serving; kill -9 of
# one and the group replaces it (AWS's cause text); scale out and in changes the
# processes; CPUUtilization comes from what the instances did; SIGTERM of the emulator
# ends every instance; SIGKILL of it and they follow (PDEATHSIG); a deleted group's
# activities with IncludeDeletedGroups, also in an emulator started from the state. TAP lines;
# KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need pgrep procps || finish

start_emu emu --quiet --time-scale 60
EPID=$LAST

# The scenario in one boto3 script; each step prints a TAP line.
python3 - "$EP" "$EPID" "$TMP" <<'EOF' || failed=1
import json, os, subprocess, sys, time, urllib.error, urllib.request
import boto3

ep, epid, tmp = sys.argv[1], int(sys.argv[2]), sys.argv[3]
asg = boto3.client("autoscaling", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
cw = boto3.client("cloudwatch", endpoint_url=ep)
import tap
from tap import check, wait

def kids():
    out = subprocess.run(["pgrep", "-P", str(epid)], capture_output=True, text=True).stdout
    return sorted(int(x) for x in out.split())

def zombies():
    out = subprocess.run(["ps", "-o", "stat=", "--ppid", str(epid)], capture_output=True, text=True).stdout
    return sum(1 for l in out.split() if l.startswith("Z"))

def group():
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g1"])["AutoScalingGroups"][0]

def in_service(n):
    g = group()
    ids = [i["InstanceId"] for i in g["Instances"] if i["LifecycleState"] == "InService"]
    return ids if len(ids) == n and len(g["Instances"]) == n else None

def ports():
    r = ec2.describe_instances(Filters=[{"Name": "instance-state-name", "Values": ["running"]}])
    out = {}
    for res in r["Reservations"]:
        for i in res["Instances"]:
            for t in i.get("Tags", []):
                if t["Key"] == "scalelab:port":
                    out[i["InstanceId"]] = int(t["Value"])
    return out

profile = {"boot_s": 30, "workers": 4, "service_ms": 5}
asg.create_launch_configuration(LaunchConfigurationName="lc1", ImageId="ami-12345678",
                                InstanceType="m1.large", UserData=json.dumps(profile))
t0 = time.time()
asg.create_auto_scaling_group(AutoScalingGroupName="g1", LaunchConfigurationName="lc1",
                              MinSize=2, MaxSize=5, AvailabilityZones=["us-east-1a"])
check("two instance processes start at once", wait(lambda: len(kids()) == 2, 5), kids())
ids = wait(lambda: in_service(2), 10)
el = time.time() - t0
check("both InService after the scaled boot time (30 s / 60 = 0.5 s)", ids and 0.4 < el < 5, f"{el:.2f} s")
p = wait(lambda: len(ports()) == 2 and ports(), 5)
check("each running instance has its port in the scalelab:port tag", p and len(p) == 2, p)
body = {}
for iid, port in (p or {}).items():
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/_instance/status", timeout=5) as r:
        body[iid] = json.load(r)
check("each instance serves on its port and knows its id",
      body and all(b["id"] == iid and b["workers"] == 4 for iid, b in body.items()))

# CPU: load one instance; the emulated minute (1 s real) reports CPUUtilization
victim, vport = sorted(p.items())[0]
end = time.time() + 2.5
n = 0
while time.time() < end:
    urllib.request.urlopen(f"http://127.0.0.1:{vport}/", timeout=5).read()
    n += 1
def cpu_points():
    # the emulated clock (x60 runs ahead of the wall clock), not time.time()
    now = json.load(urllib.request.urlopen(ep + "/_scalelab/clock"))["now_ms"] / 1000
    r = cw.get_metric_statistics(Namespace="AWS/EC2", MetricName="CPUUtilization",
                                 Dimensions=[{"Name": "InstanceId", "Value": victim}],
                                 StartTime=now - 7200, EndTime=now + 7200, Period=60,
                                 Statistics=["Maximum"])
    return r["Datapoints"]
try:
    pts = wait(cpu_points, 5)
    mx = max((d["Maximum"] for d in pts), default=-1)
    check("CPUUtilization per InstanceId from the instance's busy workers", pts and 5 <= mx <= 100,
          f"{len(pts)} datapoints, max {mx:.1f} after {n} requests of 5 ms on 4 workers")
except Exception as e:
    if "NotImplemented" not in str(e):
        raise
    # counted neither way until the emulator serves GetMetricStatistics
    print("# not checked: CPUUtilization (GetMetricStatistics is not served yet)")

# kill -9: replaced, with AWS's cause text
before = set(ids or [])
pid_of = {}
for k in kids():
    cmd = open(f"/proc/{k}/cmdline").read().split("\0")
    pid_of[cmd[cmd.index("--id") + 1]] = k
os.kill(pid_of[victim], 9)
def replaced():
    cur = in_service(2)
    return cur if cur and victim not in cur else None
t0 = time.time()
cur = wait(replaced, 10)
check("kill -9: the group replaces the instance and the new one is InService", cur,
      f"{time.time() - t0:.2f} s")
acts = asg.describe_scaling_activities(AutoScalingGroupName="g1")["Activities"]
check("kill -9: the termination activity has AWS's cause",
      any(victim in a["Description"] and "EC2 health check indicating it has been terminated or stopped" in a["Cause"] for a in acts))
st = ec2.describe_instances(InstanceIds=[victim])["Reservations"][0]["Instances"][0]["State"]["Name"]
check("kill -9: EC2 shows the instance terminated", st == "terminated", st)
check("kill -9: no zombie", wait(lambda: zombies() == 0, 3))

# admin API: the data plane's view and faults
def admin(path, body=None):
    req = urllib.request.Request(ep + path, data=body.encode() if body else None,
                                 method="POST" if body else "GET")
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)
code, dp = admin("/_scalelab/dataplane")
live = {i["id"]: i for i in dp.get("instances", [])}
check("admin dataplane lists the processes with pid and port",
      code == 200 and sorted(live) == sorted(cur or []) and all(i["port"] > 0 for i in live.values()), live)
code, _ = admin("/_scalelab/fault", json.dumps({"instance_id": (cur or ["x"])[0], "fault": "explode"}))
check("admin fault: an unknown fault is refused (400)", code == 400, code)
hung = sorted(cur)[0]
code, _ = admin("/_scalelab/fault", json.dumps({"instance_id": hung, "fault": "hang"}))
check("admin fault: hang (SIGSTOP)", code == 200, code)
def hung_replaced():
    cur2 = in_service(2)
    return cur2 if cur2 and hung not in cur2 else None
check("hang: status impaired, the group replaces it", wait(hung_replaced, 10))
st = ec2.describe_instances(InstanceIds=[hung])["Reservations"][0]["Instances"][0]["State"]["Name"]
check("hang: the hung instance is terminated and its process reaped",
      st == "terminated" and wait(lambda: len(kids()) == 2 and zombies() == 0, 5), (st, kids()))

# scale out and in: processes follow desired capacity
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=5)
check("scale out to 5: five processes, five InService", wait(lambda: in_service(5), 10) and len(kids()) == 5, kids())
asg.update_auto_scaling_group(AutoScalingGroupName="g1", MinSize=1, DesiredCapacity=1)
check("scale in to 1: one process left, the others reaped", wait(lambda: len(kids()) == 1 and in_service(1), 10), kids())
check("scale in: no zombie", zombies() == 0)
open(os.path.join(tmp, "emu.kids"), "w").write(" ".join(map(str, kids())))
sys.exit(tap.failed)
EOF

# SIGTERM: the emulator ends every instance
KIDS=$(cat "$TMP/emu.kids")
kill -TERM "$EPID"
for _ in $(seq 100); do kill -0 "$EPID" 2>/dev/null || break; sleep 0.05; done
if ! kill -0 "$EPID" 2>/dev/null; then ok "SIGTERM: the emulator exits"; else notok "SIGTERM: the emulator exits"; fi
gone=1; for p in $KIDS; do [ -d "/proc/$p" ] && gone=0; done
if [ "$gone" = 1 ]; then ok "SIGTERM: its instances are gone ($KIDS)"; else notok "SIGTERM: its instances are gone ($KIDS)"; fi

# SIGKILL: the instances notice (PDEATHSIG)
start_emu emu2 --quiet --time-scale 60
EPID2=$LAST
python3 - "$EP" <<'EOF'
import boto3, sys
asg = boto3.client("autoscaling", endpoint_url=sys.argv[1])
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678", InstanceType="t3.micro")
asg.create_auto_scaling_group(AutoScalingGroupName="g", LaunchConfigurationName="lc", MinSize=3, MaxSize=3,
                              AvailabilityZones=["us-east-1a"])
EOF
for _ in $(seq 100); do [ "$(pgrep -P "$EPID2" | wc -l)" = 3 ] && break; sleep 0.05; done
KIDS=$(pgrep -P "$EPID2" | tr '\n' ' ')
if [ "$(echo $KIDS | wc -w)" = 3 ]; then ok "three instances of a new group"; else notok "three instances of a new group ($KIDS)"; fi
kill -KILL "$EPID2"
wait "$EPID2" 2>/dev/null || true
gone=0
for _ in $(seq 100); do
    gone=1; for p in $KIDS; do [ -d "/proc/$p" ] && ! grep -q '^State:.*Z' "/proc/$p/status" 2>/dev/null && gone=0; done
    [ "$gone" = 1 ] && break; sleep 0.05
done
if [ "$gone" = 1 ]; then ok "SIGKILL of the emulator: its instances exit (PDEATHSIG)"; else notok "SIGKILL of the emulator: its instances exit"; fi

# DescribeScalingActivities IncludeDeletedGroups: a deleted group's activities are listed
# only with the flag, marked Deleted, newest first, paged; they are in the state document
# (GET /_scalelab/state) and an emulator started with it as --state lists them again.
start_emu emu3 --quiet --time-scale 60
EPID3=$LAST
python3 - "$EP" "$EPID3" "$TMP" <<'EOF' || failed=1
import subprocess, sys, time, urllib.request
import boto3

ep, epid, tmp = sys.argv[1], sys.argv[2], sys.argv[3]
asg = boto3.client("autoscaling", endpoint_url=ep)
import tap
from tap import check, wait

def acts(**kw):
    return asg.describe_scaling_activities(**kw)["Activities"]

def settled(name, n):
    a = acts(AutoScalingGroupName=name)
    return a if len(a) == n and all("EndTime" in x for x in a) else None

asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="t3.micro")
for name in ("gd", "keep"):
    asg.create_auto_scaling_group(AutoScalingGroupName=name, LaunchConfigurationName="lc",
                                  MinSize=0, MaxSize=2, DesiredCapacity=1,
                                  AvailabilityZones=["us-east-1a"])
wait(lambda: settled("gd", 1) and settled("keep", 1), 10)
asg.set_desired_capacity(AutoScalingGroupName="keep", DesiredCapacity=0)
wait(lambda: settled("keep", 2), 10)
asg.delete_auto_scaling_group(AutoScalingGroupName="gd", ForceDelete=True)
gone = wait(lambda: not asg.describe_auto_scaling_groups(
    AutoScalingGroupNames=["gd"])["AutoScalingGroups"], 10)
check("IncludeDeletedGroups: a force-deleted group goes once its instance is terminated", gone)
live = acts()
check("without IncludeDeletedGroups the deleted group's activities are not listed",
      acts(AutoScalingGroupName="gd") == [] and len(live) == 2
      and all(a["AutoScalingGroupName"] == "keep" for a in live),
      [a["AutoScalingGroupName"] for a in live])
check("a live group's activities are AutoScalingGroupState InService",
      all(a.get("AutoScalingGroupState") == "InService" for a in live))
dead = acts(AutoScalingGroupName="gd", IncludeDeletedGroups=True)
check("IncludeDeletedGroups=true: the deleted group's launch and termination, marked Deleted",
      len(dead) == 2 and all(a["AutoScalingGroupState"] == "Deleted" for a in dead)
      and dead[0]["Description"].startswith("Terminating EC2 instance: i-")
      and dead[1]["Description"].startswith("Launching a new EC2 instance: i-")
      and "a user request to delete the group" in dead[0]["Cause"],
      [(a["Description"], a["AutoScalingGroupState"]) for a in dead])
both = acts(IncludeDeletedGroups=True)
starts = [a["StartTime"] for a in both]
check("IncludeDeletedGroups=true without a group name: every group's, newest first",
      len(both) == 4 and {a["AutoScalingGroupName"] for a in both} == {"gd", "keep"}
      and starts == sorted(starts, reverse=True),
      [(a["AutoScalingGroupName"], str(a["StartTime"])) for a in both])
page = asg.describe_scaling_activities(IncludeDeletedGroups=True, MaxRecords=3)
rest = asg.describe_scaling_activities(IncludeDeletedGroups=True, MaxRecords=3,
                                       NextToken=page.get("NextToken", "none"))
check("IncludeDeletedGroups=true pages like the rest (MaxRecords, NextToken)",
      len(page["Activities"]) == 3 and "NextToken" not in rest
      and [a["ActivityId"] for a in page["Activities"] + rest["Activities"]]
      == [a["ActivityId"] for a in both])
ids = [a["ActivityId"] for a in dead]
check("ActivityIds of a deleted group's activities: ignored without the flag, found with it",
      acts(ActivityIds=ids) == []
      and [a["ActivityId"] for a in acts(ActivityIds=ids, IncludeDeletedGroups=True)] == ids)
open(f"{tmp}/emu3.ids", "w").write(" ".join(ids))
with urllib.request.urlopen(ep + "/_scalelab/state", timeout=5) as r:
    doc = r.read()
check("the state document keeps the deleted group's activities",
      all(i.encode() in doc for i in ids) and b'"deleted_activities"' in doc)
open(f"{tmp}/emu3.state", "wb").write(doc)
sys.exit(tap.failed)
EOF
start_emu emu3b --quiet --time-scale 60 --state "$TMP/emu3.state"
want=$(for id in $(cat "$TMP/emu3.ids" 2>/dev/null); do printf '%s\tDeleted\n' "$id"; done)
out=$(aws autoscaling describe-scaling-activities --endpoint-url "$EP" \
      --auto-scaling-group-name gd --include-deleted-groups \
      --query 'Activities[].[ActivityId,AutoScalingGroupState]' --output text 2>&1) || true
if [ -n "$want" ] && [ "$out" = "$want" ]; then
    ok "restarted from that state: aws CLI --include-deleted-groups lists them, Deleted"
else
    notok "restarted from that state: aws CLI --include-deleted-groups lists them, Deleted ($out)"
fi
out=$(aws autoscaling describe-scaling-activities --endpoint-url "$EP" \
      --auto-scaling-group-name gd --query 'length(Activities)' --output text 2>&1) || true
if [ "$out" = 0 ]; then ok "restarted from that state: without the flag, none"
else notok "restarted from that state: without the flag, none ($out)"; fi
finish
