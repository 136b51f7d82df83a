#!/usr/bin/env bash
# bench/bench_scenario.sh: issue 5's bars for `loadgen scenario`, each measured here:
#   1. runner overhead per observed period < 5 ms CPU: the controlling thread's CPU time
#      per sample period (CLOCK_THREAD_CPUTIME_ID around the five polls, the sample push
#      and its sinks; the player's load threads excluded), read from the demo's --json
#      ("runner.cpu_ms_per_period"). Peer, same run: boto3 making the same five calls
#      per period against the same kind of emulator (process CPU per period).
#   2. `make demo` (scripts/demo.sh) completes in under 3 minutes of real time with its
#      expectations holding (exit 0), five runs out of five (BENCH_DEMO_RUNS to change).
#   3. the demo's predicted-vs-observed figure: the InService capacities of `scaler
#      simulate` and of the emulator differ by more than one instance at most 10 % of the
#      time, and end equal.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
runs=${BENCH_DEMO_RUNS:-5}
tmp=$(mktemp -d)
EPID=
cleanup() {
    if [ -n "$EPID" ]; then
        kill -TERM -- "-$EPID" 2>/dev/null || kill -TERM "$EPID" 2>/dev/null || true
        wait "$EPID" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT
status=0
[ -x "$BUILD/bin/loadgen" ] && [ -x "$BUILD/bin/emulator" ] || { echo "bench_scenario: build first"; exit 1; }

pass_fail() { if [ "$1" = 1 ]; then echo PASS; else status=1; echo FAIL; fi; }

ok_runs=0
worst=0
cpu_sum=0
cpu_max=0
for i in $(seq "$runs"); do
    t0=$(date +%s.%N)
    rc=0
    BUILD=$BUILD scripts/demo.sh --quiet --json "$tmp/demo$i.json" >"$tmp/demo$i.out" 2>"$tmp/demo$i.err" || rc=$?
    t1=$(date +%s.%N)
    wall=$(echo "$t1 - $t0" | bc -l)
    read -r cpu pmax over final_p final_o <<<"$(python3 - "$tmp/demo$i.json" <<'PY' 2>/dev/null || echo "nan nan nan -1 -2"
import json, sys
d = json.load(open(sys.argv[1]))
p = d.get("predicted", {})
print(d["runner"]["cpu_ms_per_period"], d["runner"]["cpu_ms_per_period_max"],
      p.get("over_one_instance_pct", "nan"),
      p.get("final_in_service", -1), d["summary"]["groups"][0]["final_in_service"])
PY
)"
    printf '  demo run %d: exit %d, %6.1f s wall; runner %s ms CPU/period (max %s); capacity differs by > 1 instance %s %% of the time; final InService predicted %s, observed %s\n' \
        "$i" "$rc" "$wall" "$cpu" "$pmax" "$over" "$final_p" "$final_o"
    if [ "$rc" != 0 ]; then grep -E 'expectation|loadgen scenario:' "$tmp/demo$i.err" | head -5 | sed 's/^/      /'; fi
    good=0
    if [ "$rc" = 0 ] && [ "$(echo "$wall < 180" | bc -l)" = 1 ]; then good=1; ok_runs=$((ok_runs + 1)); fi
    [ "$(echo "$wall > $worst" | bc -l)" = 1 ] && worst=$wall
    if [ "$cpu" != nan ]; then
        cpu_sum=$(echo "$cpu_sum + $cpu" | bc -l)
        [ "$(echo "$cpu > $cpu_max" | bc -l)" = 1 ] && cpu_max=$cpu
    fi
    if [ "$i" = 1 ]; then first_over=$over; first_fp=$final_p; first_fo=$final_o; fi
    last_over=$over; last_fp=$final_p; last_fo=$final_o
    : "$good"
done

# the peer: boto3 polling the same five calls per period against an emulator
setsid "$BUILD/bin/emulator" --port 0 --port-file "$tmp/port" --quiet 2>"$tmp/emu.log" &
EPID=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.1; done
peer=$(python3 - "http://127.0.0.1:$(cat "$tmp/port")" "$BUILD/bin/loadgen" "$tmp" <<'PY' 2>"$tmp/peer.err" || echo nan
import os, resource, subprocess, sys, time
import boto3
ep, lg, tmp = sys.argv[1:4]
env = dict(os.environ, AWS_ENDPOINT_URL=ep, AWS_REGION="us-east-1", AWS_ACCESS_KEY_ID="x",
           AWS_SECRET_ACCESS_KEY="x")
# the demo's infrastructure through loadgen's own plan
plan = subprocess.run([lg, "scenario", "scenarios/demo.json", "--dry-run", "--prefix", "peer"],
                      capture_output=True, text=True, check=True).stdout
kw = dict(endpoint_url=ep, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="x")
asg, cw, elb = boto3.client("autoscaling", **kw), boto3.client("cloudwatch", **kw), boto3.client("elb", **kw)
arns = {}
import shlex
for line in plan.splitlines():
    if line.startswith("# teardown"):
        break
    if line.startswith("#"):
        continue
    w = shlex.split(line)
    args = [a for a in w]
    for k, a in enumerate(args):
        for name, arn in arns.items():
            args[k] = args[k].replace("{arn:%s}" % name, arn)
    out = subprocess.run([lg, "aws"] + args, capture_output=True, text=True, env=env).stdout
    if w[1] == "PutScalingPolicy" and "<PolicyARN>" in out:
        name = [a.split("=", 1)[1] for a in w if a.startswith("PolicyName=")][0]
        arns[name] = out.split("<PolicyARN>")[1].split("</PolicyARN>")[0]
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
now = time.time()
import datetime
for _ in range(3):  # warm the clients up
    asg.describe_auto_scaling_groups(AutoScalingGroupNames=["peer-autoscleasg"])
n = 30
c0 = cpu()
for _ in range(n):
    asg.describe_auto_scaling_groups(AutoScalingGroupNames=["peer-autoscleasg"])
    elb.describe_instance_health(LoadBalancerName="peer-autoscalelb")
    cw.describe_alarms(AlarmNames=["peer-MyHighCPUAlarm1", "peer-MyLowCPUAlarm"])
    asg.describe_scaling_activities(AutoScalingGroupName="peer-autoscleasg", MaxRecords=100)
    end = datetime.datetime.now(datetime.timezone.utc)
    cw.get_metric_statistics(Namespace="AWS/EC2", MetricName="CPUUtilization",
        Dimensions=[{"Name": "AutoScalingGroupName", "Value": "peer-autoscleasg"}],
        StartTime=end - datetime.timedelta(seconds=60), EndTime=end, Period=60,
        Statistics=["Average", "SampleCount"])
print("%.2f" % ((cpu() - c0) * 1000 / n))
PY
)
kill -TERM -- "-$EPID" 2>/dev/null; wait "$EPID" 2>/dev/null; EPID=

mean_cpu=nan
[ "$runs" -gt 0 ] && mean_cpu=$(echo "scale=3; $cpu_sum / $runs" | bc -l)
echo "bar 1: runner overhead per observed period < 5 ms CPU"
printf '  loadgen scenario: mean of the runs %s ms, worst run'"'"'s mean %s ms; peer boto3 (same 5 calls): %s ms per period  ' "$mean_cpu" "$cpu_max" "$peer"
pass_fail "$([ "$(echo "$cpu_max < 5" | bc -l 2>/dev/null)" = 1 ] && echo 1)"
echo "bar 2: make demo under 3 minutes, expectations holding, $runs runs out of $runs"
printf '  %d of %d runs exit 0 in < 180 s (slowest %.1f s)  ' "$ok_runs" "$runs" "$worst"
pass_fail "$([ "$ok_runs" = "$runs" ] && echo 1)"
echo "bar 3: predicted vs observed: > 1 instance apart at most 10 % of the time, same final capacity"
printf '  first run: %s %%, final %s vs %s; last run: %s %%, final %s vs %s  ' \
    "${first_over:-nan}" "${first_fp:--}" "${first_fo:--}" "${last_over:-nan}" "${last_fp:--}" "${last_fo:--}"
pass_fail "$([ "$(echo "${first_over:-100} <= 10 && ${last_over:-100} <= 10" | bc -l 2>/dev/null)" = 1 ] &&
    [ "${first_fp:-a}" = "${first_fo:-b}" ] && [ "${last_fp:-a}" = "${last_fo:-b}" ] && echo 1)"
exit $status
