#!/usr/bin/env bash
# The console's data, with curl and boto3 (issue 17 parts 2-4; docs/admin-api.md), at
# --time-scale 60 (--event-buffer 16k): GET / for curl says what this is; /_scalelab/events?format=jsonl carries
# the group's launch story (activity start with AWS's cause, launch, Pending, InService,
# ELB health, activity end) and the SSE stream delivers events live; kill -9 is logged as
# "killed by signal 9 (SIGKILL)" and its replacement follows; /_scalelab/dataplane names
# each instance's group, load balancers, zone and lifecycle state; curl through the load
# balancer sees X-Scalelab-Instance and a body naming the instance, more than one of them;
# a wrong method answers 405 with Allow; a stalled stream client is dropped while the
# emulator keeps answering. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need curl curl || finish

start_emu emu --time-scale 60 --event-buffer 16k || finish
EPID=$LAST

# the page's front door for curl
curl -s "$EP/" >"$TMP/root.txt"
check "GET / for curl: what this is, region, account, clock, admin API" bash -c "
    grep -q '^scalelab emulator' '$TMP/root.txt' && grep -q '^region:   us-east-1' '$TMP/root.txt' &&
    grep -q '^account:  123456789012' '$TMP/root.txt' && grep -q '^clock: .*time scale 60' '$TMP/root.txt' &&
    grep -q '_scalelab/ lists the endpoints; docs/admin-api.md' '$TMP/root.txt'"
check "GET / with an Action is still the AWS API" bash -c "
    curl -s '$EP/?Action=DescribeScalingProcessTypes&Version=2011-01-01' | grep -q '<Processes>'"
check "a wrong method: 405 with Allow" bash -c "
    curl -s -D - -o /dev/null -X DELETE '$EP/_scalelab/clock' | tr -d '\r' |
        grep -q '^Allow: GET, POST' &&
    [ \$(curl -s -o /dev/null -w '%{http_code}' -X PUT '$EP/_scalelab/events') = 405 ]"

# a live SSE client from the start
curl -sN "$EP/_scalelab/events" >"$TMP/sse.out" 2>/dev/null &
SSE=$!

python3 - "$EP" "$TMP" <<'EOF' || failed=1
import json, os, subprocess, sys, time, urllib.request
import boto3
import tap
from tap import check, wait

ep, tmp = sys.argv[1], sys.argv[2]
asg = boto3.client("autoscaling", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)

def events(since=0):
    with urllib.request.urlopen(f"{ep}/_scalelab/events?format=jsonl&since={since}", timeout=5) as r:
        return [json.loads(l) for l in r.read().decode().splitlines()]

def dataplane():
    with urllib.request.urlopen(f"{ep}/_scalelab/dataplane", timeout=5) as r:
        return json.load(r)

def in_service(n):
    g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["web"])["AutoScalingGroups"][0]
    ids = [i["InstanceId"] for i in g["Instances"] if i["LifecycleState"] == "InService"]
    return ids if len(ids) == n and len(g["Instances"]) == n else None

elb.create_load_balancer(LoadBalancerName="front", AvailabilityZones=["us-east-1a", "us-east-1b"],
                         Listeners=[{"Protocol": "HTTP", "LoadBalancerPort": 8081, "InstancePort": 8080}])
elb.configure_health_check(LoadBalancerName="front", HealthCheck={
    "Target": "HTTP:8080/health", "Interval": 5, "Timeout": 2, "UnhealthyThreshold": 2, "HealthyThreshold": 2})
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="t3.micro",
                                UserData=json.dumps({"boot_s": 30, "workers": 4, "service_ms": 2}))
asg.create_auto_scaling_group(AutoScalingGroupName="web", LaunchConfigurationName="lc", MinSize=2,
                              MaxSize=4, AvailabilityZones=["us-east-1a", "us-east-1b"],
                              LoadBalancerNames=["front"], HealthCheckType="ELB",
                              HealthCheckGracePeriod=60)
ids = wait(lambda: in_service(2), 15)
check("two instances InService", ids, ids)
def healthy():
    h = elb.describe_instance_health(LoadBalancerName="front")["InstanceStates"]
    return len(h) == 2 and all(x["State"] == "InService" for x in h)
check("both InService on the load balancer", wait(healthy, 15))

ev = events()
types = [e["type"] for e in ev]
starts = [e for e in ev if e["type"] == "activity_start" and e.get("group") == "web"]
check("events: an activity_start per launch, with AWS's cause", len(starts) == 2 and all(
    "a user request created an AutoScalingGroup changing the desired capacity from 0 to 2" in e["cause"]
    and e["description"].startswith("Launching a new EC2 instance: i-") for e in starts), starts)
for iid in ids or []:
    mine = [e["type"] + ":" + e.get("to", "") for e in ev if e.get("instance_id") == iid]
    check(f"events: {iid} launch, Pending, running, InService, registered, InService on front",
          all(x in mine for x in ("launch:pending", "lifecycle:Pending", "instance:running",
                                  "lifecycle:InService", "health:OutOfService", "health:InService")), mine)
ends = [e for e in ev if e["type"] == "activity_end" and e.get("group") == "web"]
check("events: each launch activity ends Successful", len(ends) == 2 and all(e["status"] == "Successful" for e in ends))
check("events: seq counts from 1 in order, each with time and text",
      [e["seq"] for e in ev] == list(range(1, len(ev) + 1)) and all(e["time"] and e["text"] for e in ev))

dp = dataplane()
rows = {i["id"]: i for i in dp["instances"]}
check("dataplane: each instance's group, load balancers, zone and lifecycle state",
      ids and all(rows[i]["group"] == "web" and rows[i]["load_balancers"] == ["front"] and
                  rows[i]["zone"] in ("us-east-1a", "us-east-1b") and rows[i]["lifecycle_state"] == "InService"
                  and rows[i]["pid"] > 0 for i in ids), rows)

# through the load balancer: the header and the body name the instance, and both serve
port = [l["port"] for l in dp["listeners"] if l["load_balancer"] == "front"][0]
seen, bodies, bad = set(), set(), []
for _ in range(40):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as r:
        who = r.headers.get("X-Scalelab-Instance", "")
        body = r.read().decode().strip()
    seen.add(who)
    bodies.add(body)
    if who.split(" ")[0] not in rows or body != who:
        bad.append((who, body))
check("curl through the load balancer: X-Scalelab-Instance '<id> <zone>' and the same in the body",
      not bad and all(w.split(" ")[1] == rows[w.split(" ")[0]]["zone"] for w in seen), bad[:3])
check("curl through the load balancer: both instances answer", len(seen) == 2, seen)

# kill -9: the log says so, the replacement's story follows
victim = sorted(ids)[0]
last = ev[-1]["seq"]
req = urllib.request.Request(f"{ep}/_scalelab/fault", method="POST",
                             data=json.dumps({"instance_id": victim, "fault": "kill"}).encode())
urllib.request.urlopen(req, timeout=5).read()
def replaced():
    cur = in_service(2)
    return cur if cur and victim not in cur else None
cur = wait(replaced, 20)
check("kill -9: replaced", cur, cur)
ev2 = events(last)
exits = [e for e in ev2 if e["type"] == "exit" and e["instance_id"] == victim]
check("events: the fault, then 'killed by signal 9 (SIGKILL)'",
      any(e["type"] == "fault" and e["instance_id"] == victim and e["fault"] == "kill" for e in ev2)
      and exits and exits[0]["how"] == "killed by signal 9 (SIGKILL)" and exits[0]["signal"] == 9, exits)
check("events: the termination activity with AWS's cause",
      any(e["type"] == "activity_start" and victim in e["description"] and
          "taken out of service in response to a" in e["cause"] for e in ev2))
new = [i for i in (cur or []) if i not in ids]
check("events: the replacement's launch and InService",
      new and any(e["type"] == "launch" and e["instance_id"] == new[0] for e in ev2) and
      any(e["type"] == "lifecycle" and e["instance_id"] == new[0] and e["to"] == "InService" for e in ev2))

def overview():
    with urllib.request.urlopen(f"{ep}/_scalelab/overview", timeout=5) as r:
        return json.load(r)

# what the console draws: the world's zones and a group's warm pool
w = overview()["worlds"][0]
check("overview: the world's zones with their state", [(z["name"], z["state"]) for z in w["zones"]][:2] ==
      [("us-east-1a", "available"), ("us-east-1b", "available")], w["zones"])
check("overview: no warm pool is null", [g["warm_pool"] for g in w["groups"]] == [None])
asg.put_warm_pool(AutoScalingGroupName="web", MinSize=1, MaxGroupPreparedCapacity=3)
def warmed():
    g = overview()["worlds"][0]["groups"][0]
    st = sorted(i["lifecycle_state"] for i in g["instances"] if i["lifecycle_state"].startswith("Warmed:"))
    return g if st == ["Warmed:Stopped"] else None
g = wait(warmed, 20)
check("overview: the warm pool's figures and its instance in Warmed:Stopped",
      g and g["warm_pool"] == {"pool_state": "Stopped", "min_size": 1, "max_group_prepared_capacity": 3,
                               "size": 1, "pending_delete": False}, g and g["warm_pool"])
asg.delete_warm_pool(AutoScalingGroupName="web", ForceDelete=True)
with open(os.path.join(tmp, "last_seq"), "w") as f:
    f.write(str(events()[-1]["seq"]))
sys.exit(tap.failed)
EOF

kill "$SSE" 2>/dev/null || true
wait "$SSE" 2>/dev/null || true
check "SSE: the live stream carried the launches and the kill, as events with ids" bash -c "
    grep -q '^event: launch$' '$TMP/sse.out' && grep -q '^event: exit$' '$TMP/sse.out' &&
    grep -q '^id: $(cat "$TMP/last_seq")$' '$TMP/sse.out' && grep -q '^data: {\"seq\":1,' '$TMP/sse.out'"
check "stderr: events as human lines, the kill as SIGKILL" bash -c "
    grep -q ' I event: group web activity started: Launching a new EC2 instance: i-' '$TMP/emu.log' &&
    grep -q ' W event: instance i-[0-9a-f]* killed by signal 9 (SIGKILL)' '$TMP/emu.log' &&
    ! grep -q 'exited on its own (status 9)' '$TMP/emu.log'"

# a client that never reads: the emulator drops it once its buffer fills, and answers on
python3 - "$PORT" <<'EOF' || failed=1
import json, socket, sys, time, urllib.request
import tap
from tap import check, wait
port = int(sys.argv[1])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connect: a small window
s.connect(("127.0.0.1", port))
s.sendall(b"GET /_scalelab/events HTTP/1.1\r\nHost: x\r\n\r\n")
time.sleep(0.3)
# many events: a zone outage and recovery, over and over, each one a fault event
t0 = time.time()
for i in range(800):
    for f in ("az_outage", "az_recover"):
        req = urllib.request.Request(f"http://127.0.0.1:{port}/_scalelab/fault", method="POST",
            data=json.dumps({"zone": "us-east-1c", "fault": f}).encode())
        urllib.request.urlopen(req, timeout=5).read()
el = time.time() - t0
def dropped():
    try:
        s.setblocking(False)
        while True:
            d = s.recv(65536)
            if not d:
                return True
    except BlockingIOError:
        return False
    except OSError:
        return True
with urllib.request.urlopen(f"http://127.0.0.1:{port}/_scalelab/health", timeout=5) as r:
    ok = json.load(r)["status"] == "ok"
check("a stalled stream client: 1600 admin calls still served promptly", ok and el < 60, f"{el:.1f} s")
check("a stalled stream client is dropped (its connection closed)", wait(dropped, 5))
sys.exit(tap.failed)
EOF
check "the drop is logged" grep -q 'W events: a stream client fell [0-9]* bytes behind: dropped' "$TMP/emu.log"
finish
