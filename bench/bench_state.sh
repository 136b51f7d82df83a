#!/usr/bin/env bash
# emulator --state FILE: what durability costs.
#   - the snapshot (build, serialize, write, fsync, rename) for the tutorial-sized state and
#     for 100 groups: ms per write and bytes (the emulator's own figures from
#     GET /_scalelab/health "state");
#   - the added latency of a mutating request: CreateOrUpdateTags in a loop (boto3, one
#     connection) against an emulator without --state and one with it, same run.
#   bench/bench_state.sh [N]   (N requests per side, default 300)
set -euo pipefail
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
CLIENT="$ROOT/tests/integration/state_client.py"
N=${1:-300}
TMP=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_MAX_ATTEMPTS=1

start() {
    local name=$1; shift
    setsid "$EMU" --clock manual --port 0 --port-file "$TMP/$name.port" "$@" 2>"$TMP/$name.log" &
    PIDS+=("$!")
    for _ in $(seq 100); do [ -s "$TMP/$name.port" ] && break; sleep 0.1; done
    EP="http://127.0.0.1:$(cat "$TMP/$name.port")"
}

# snapshot figures after `count` more mutating requests (each one commit, one snapshot)
snapshot_figures() {
    local label=$1
    python3 - "$EP" "$label" <<'EOF'
import json, sys, time, urllib.request, boto3
ep, label = sys.argv[1], sys.argv[2]
asg = boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1")
h0 = json.load(urllib.request.urlopen(ep + "/_scalelab/health"))["state"]
for i in range(50):
    asg.create_or_update_tags(Tags=[{"ResourceId": "bench", "ResourceType": "auto-scaling-group",
                                     "Key": "s%d" % (i % 10), "Value": str(i), "PropagateAtLaunch": False}])
h1 = json.load(urllib.request.urlopen(ep + "/_scalelab/health"))["state"]
n = h1["snapshots"] - h0["snapshots"]
print("%-28s %6.2f ms per snapshot (%5.2f ms of it on the loop)  %8d bytes  (%d writes)" %
      (label, (h1["total_ms"] - h0["total_ms"]) / n, (h1["loop_ms"] - h0["loop_ms"]) / n,
       h1["last_bytes"], n))
EOF
}

# tutorial-sized: load balancer, launch configuration, group, 3 policies, 2 alarms, a
# template, a VPC, a second region
start tut --state "$TMP/tut.json"
python3 "$CLIENT" "$EP" create "$TMP/want.json" >/dev/null
python3 "$CLIENT" "$EP" bench 1 >/dev/null   # the "bench" group
snapshot_figures "tutorial state"

# 100 groups with 2 policies each, 5 instances each (records: manual clock)
python3 - "$EP" <<'EOF'
import sys, boto3
asg = boto3.client("autoscaling", endpoint_url=sys.argv[1], region_name="us-east-1")
asg.create_launch_configuration(LaunchConfigurationName="many", ImageId="ami-12345678", InstanceType="t3.micro")
for g in range(100):
    name = "g%03d" % g
    asg.create_auto_scaling_group(AutoScalingGroupName=name, LaunchConfigurationName="many",
                                  MinSize=0, MaxSize=10, DesiredCapacity=5,
                                  AvailabilityZones=["us-east-1a", "us-east-1b"])
    for p, adj in (("up", 1), ("down", -1)):
        asg.put_scaling_policy(AutoScalingGroupName=name, PolicyName=p,
                               AdjustmentType="ChangeInCapacity", ScalingAdjustment=adj)
EOF
snapshot_figures "+100 groups, 500 instances"
kill -TERM "${PIDS[0]}"

# added latency per mutating request
start plain
without=$(python3 "$CLIENT" "$EP" bench "$N")
start durable --state "$TMP/durable.json"
with=$(python3 "$CLIENT" "$EP" bench "$N")
echo "CreateOrUpdateTags x$N, one client: without --state $without, with --state $with"

# many clients at once: the group commit writes one snapshot for many requests
conc() {
    python3 - "$EP" "$N" <<'EOF'
import json, sys, threading, time, urllib.request, boto3
ep, n = sys.argv[1], int(sys.argv[2])
C = 8
def worker(k):
    asg = boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1")
    for i in range(n // C):
        asg.create_or_update_tags(Tags=[{"ResourceId": "bench", "ResourceType": "auto-scaling-group",
                                         "Key": "c%d" % k, "Value": str(i), "PropagateAtLaunch": False}])
def health():
    return json.load(urllib.request.urlopen(ep + "/_scalelab/health")).get("state")
boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1").create_launch_configuration(
    LaunchConfigurationName="c", ImageId="ami-12345678", InstanceType="t3.micro")
boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1").create_auto_scaling_group(
    AutoScalingGroupName="bench", LaunchConfigurationName="c", MinSize=0, MaxSize=1,
    AvailabilityZones=["us-east-1a"])
h0 = health()
ts = [threading.Thread(target=worker, args=(k,)) for k in range(C)]
t0 = time.perf_counter()
for t in ts: t.start()
for t in ts: t.join()
dt = time.perf_counter() - t0
h1 = health()
extra = ""
if h0 and h1:
    extra = ", %.1f requests per snapshot" % ((h1["tickets"] - h0["tickets"]) /
                                              max(1, h1["snapshots"] - h0["snapshots"]))
print("%.0f requests/s%s" % ((n // C) * C / dt, extra))
EOF
}
start plain2
without=$(conc)
start durable2 --state "$TMP/durable2.json"
with=$(conc)
echo "CreateOrUpdateTags x$N, 8 clients: without --state $without; with --state $with"
