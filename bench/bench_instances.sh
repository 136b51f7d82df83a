#!/usr/bin/env bash
# bench_instances.sh: the instance bars of the real-instances issue.
#  1. N (200) instances at once: total RSS (and PSS) of the children < 1 GiB; the time
#     until all listen and have passed their first HTTP health check (boot time 0), and
#     the slowest instance's spawn -> InService time (bar: <= 100 ms + boot time).
#  2. a group from 1 to 50 instances at --time-scale 60 with boot time 0, through the AWS
#     API (boto3): wall time until 50 are InService (bar: < 2 s).
# Env: N [200], GROW [50]. Loopback only; every process started here is ended here.
set -uo pipefail
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
N=${N:-200}
GROW=${GROW:-50}
TMP=$(mktemp -d)
PIDS=()
cleanup() {
    local p
    for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
    for p in "${PIDS[@]}"; do
        for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
        kill -KILL "$p" 2>/dev/null
    done
    rm -rf "$TMP"
}
trap cleanup EXIT
[ -x "$EMU" ] || { echo "bench_instances: $EMU not built"; exit 1; }

# --- 1. N instances behind `emulator proxy`, HTTP health checks every 50 ms ------------------
t0=$(date +%s%N)
setsid "$EMU" proxy --listen 0 --port-file "$TMP/p.port" --metrics-file "$TMP/m.json" \
    --instances "$N" --profile '{"boot_s": 0, "service_ms": 0}' --health-check HTTP:/health --interval 50ms \
    --timeout 40ms --log-level info 2>"$TMP/p.log" &
PP=$!
PIDS+=("$PP")
all_in=0
for _ in $(seq 600); do
    n=$(grep -c 'backend in service' "$TMP/p.log" 2>/dev/null)
    [ "$n" -ge "$N" ] && { all_in=1; break; }
    sleep 0.05
done
t1=$(date +%s%N)
[ "$all_in" = 1 ] || { echo "instances: only $n of $N in service after 30 s"; tail -5 "$TMP/p.log"; exit 1; }
sleep 0.5 # settle: RSS after serving their health checks
kids=$(pgrep -P "$PP")
rss=0; pss=0; cnt=0
for k in $kids; do
    r=$(awk '/^VmRSS:/ {print $2}' "/proc/$k/status" 2>/dev/null)
    s=$(awk '/^Pss:/ {print $2}' "/proc/$k/smaps_rollup" 2>/dev/null)
    rss=$((rss + ${r:-0})); pss=$((pss + ${s:-0})); cnt=$((cnt + 1))
done
prss=$(awk '/^VmRSS:/ {print $2}' "/proc/$PP/status")
# spawn -> in service per instance, from the log's millisecond timestamps (spawn = start)
# (the proxy logs "listening" right after spawning them all; lines carry ms timestamps)
lat=$(awk '/listening on|backend in service/ {
        split($1, a, "T"); split(a[2], b, ":"); sub("Z", "", b[3]);
        ms = (b[1] * 3600 + b[2] * 60 + b[3]) * 1000;
        if ($0 ~ /listening on/) start = ms; else { if (first == "") first = ms; last = ms } }
        END { printf "%.0f %.0f", first - start, last - start }' "$TMP/p.log")
set -- $lat
lat="first_in_service_ms=$1 last_in_service_ms=$2"
echo "instances: n=$cnt seen_all_in_service_ms=$(( (t1 - t0) / 1000000 )) (after spawn: $lat)" \
     "total_rss_mb=$((rss / 1024)) total_pss_mb=$((pss / 1024)) per_instance_rss_kb=$((rss / (cnt > 0 ? cnt : 1)))" \
     "proxy_rss_kb=$prss bar_total_rss_mb=1024"
kill -TERM "$PP"
for _ in $(seq 100); do kill -0 "$PP" 2>/dev/null || break; sleep 0.05; done
left=0; for k in $kids; do [ -d "/proc/$k" ] && left=$((left + 1)); done
echo "instances: after SIGTERM of the proxy, children left=$left"

# --- 2. a group from 1 to GROW instances at --time-scale 60 ----------------------------------
setsid "$EMU" --port 0 --port-file "$TMP/e.port" --quiet --time-scale 60 2>"$TMP/e.log" &
EP=$!
PIDS+=("$EP")
for _ in $(seq 100); do [ -s "$TMP/e.port" ] && break; sleep 0.05; done
AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=y AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null \
AWS_SHARED_CREDENTIALS_FILE=/dev/null python3 - "http://127.0.0.1:$(cat "$TMP/e.port")" "$GROW" <<'EOF'
import sys, time, boto3
ep, grow = sys.argv[1], int(sys.argv[2])
asg = boto3.client("autoscaling", endpoint_url=ep)
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="t3.micro", UserData='{"boot_s": 0}')
asg.create_auto_scaling_group(AutoScalingGroupName="g", LaunchConfigurationName="lc", MinSize=1,
                              MaxSize=grow, AvailabilityZones=["us-east-1a"])
def in_service():
    g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g"])["AutoScalingGroups"][0]
    return sum(1 for i in g["Instances"] if i["LifecycleState"] == "InService")
while in_service() < 1:
    time.sleep(0.02)
t0 = time.time()
asg.set_desired_capacity(AutoScalingGroupName="g", DesiredCapacity=grow)
n = 0
while time.time() - t0 < 30:
    n = in_service()
    if n >= grow:
        break
    time.sleep(0.02)
print(f"group: 1 -> {grow} InService in {time.time() - t0:.2f} s (n={n}) at --time-scale 60, boot 0; bar < 2 s")
EOF

# --- 3. API latency while CPU is collected from N instances ----------------------------------
# A group of N instances (boot 0) at --time-scale 60: every emulated minute (1 s real) the
# emulator collects each instance's status for CPUUtilization. A client times GET
# /_scalelab/health on one keep-alive connection for 8 s: the blocking collector (the old
# one, SCALELAB_BLOCKING_CPU_FETCH=1) against the non-blocking one on the event loop. The
# figure to read is the median over the 1-s windows of each window's slowest request: a
# stall of the loop shows in every window, the host's scheduling noise only in some.
for mode in blocking nonblocking; do
    bf=0; [ "$mode" = blocking ] && bf=1
    SCALELAB_BLOCKING_CPU_FETCH=$bf setsid "$EMU" --port 0 --port-file "$TMP/c$bf.port" --quiet \
        --time-scale 60 2>"$TMP/c$bf.log" &
    CP=$!
    PIDS+=("$CP")
    for _ in $(seq 100); do [ -s "$TMP/c$bf.port" ] && break; sleep 0.05; done
    AWS_ACCESS_KEY_ID=x AWS_SECRET_ACCESS_KEY=y AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null \
    AWS_SHARED_CREDENTIALS_FILE=/dev/null python3 - "$(cat "$TMP/c$bf.port")" "$N" "$mode" <<'EOF'
import http.client, sys, time, boto3
port, n, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
asg = boto3.client("autoscaling", endpoint_url=f"http://127.0.0.1:{port}")
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="t3.micro", UserData='{"boot_s": 0}')
asg.create_auto_scaling_group(AutoScalingGroupName="g", LaunchConfigurationName="lc", MinSize=n,
                              MaxSize=n, AvailabilityZones=["us-east-1a"])
t0 = time.time()
while time.time() - t0 < 60:
    g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g"])["AutoScalingGroups"][0]
    up = sum(1 for i in g["Instances"] if i["LifecycleState"] == "InService")
    if up >= n:
        break
    time.sleep(0.2)
time.sleep(1.5)  # a first collection round, so each instance has a previous reading
c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
lat, wmax = [], {}
t_start = time.perf_counter()
while time.perf_counter() - t_start < 8:
    s = time.perf_counter()
    c.request("GET", "/_scalelab/health")
    c.getresponse().read()
    ms = (time.perf_counter() - s) * 1000
    lat.append(ms)
    w = int(s - t_start)  # 1-s windows: each holds one collection round
    wmax[w] = max(wmax.get(w, 0), ms)
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
mx = sorted(wmax.values())
print(f"api-during-cpu-collection: collector={mode} instances={up} requests={len(lat)} "
      f"p50_ms={q(0.50):.2f} p99_ms={q(0.99):.2f} max_ms={lat[-1]:.1f} "
      f"median_of_per_second_max_ms={mx[len(mx) // 2]:.1f} (one collection round per second)")
EOF
    kill -TERM "$CP"
    for _ in $(seq 200); do kill -0 "$CP" 2>/dev/null || break; sleep 0.05; done
done
