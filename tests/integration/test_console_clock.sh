#!/usr/bin/env bash
# The manual clock drives everything that has a time (issue 17 part 5), through the admin
# API's POST /_scalelab/clock: an instance boots only when the clock passes its boot time;
# the load balancer's health checks run only when the clock passes their interval (an
# instance stays OutOfService for longer than the interval of real time, then turns
# InService after 10 s of the clock); the metrics minute (CPUUtilization) is reported only
# when the clock passes a minute, one datapoint for each minute an advance passed. TAP.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need curl curl || finish
need aws awscli || finish

start_emu emu --clock manual || finish
A=(aws --endpoint-url "$EP" --output text)
adv() { curl -s -X POST -d "{\"advance_s\": $1}" "$EP/_scalelab/clock" >/dev/null; }
lbstate() { "${A[@]}" elb describe-instance-health --load-balancer-name front --query 'InstanceStates[0].State'; }
lcstate() { "${A[@]}" autoscaling describe-auto-scaling-groups --query 'AutoScalingGroups[0].Instances[0].LifecycleState'; }
# a window of two days either side of the emulator's clock (it starts at the wall clock)
now_s=$(curl -s "$EP/_scalelab/clock" | python3 -c 'import json,sys; print(json.load(sys.stdin)["now_ms"] // 1000)')
T0=$(date -u -d "@$((now_s - 2 * 86400))" +%Y-%m-%dT%H:%M:%SZ)
T1=$(date -u -d "@$((now_s + 2 * 86400))" +%Y-%m-%dT%H:%M:%SZ)
# the CPUUtilization datapoints reported for instance $ID so far (one a minute)
cpu_points() {
    "${A[@]}" cloudwatch get-metric-statistics --namespace AWS/EC2 --metric-name CPUUtilization \
        --dimensions Name=InstanceId,Value=$ID --statistics SampleCount --period 86400 \
        --start-time $T0 --end-time $T1 --query 'sum(Datapoints[].SampleCount)'
}
"${A[@]}" elb create-load-balancer --load-balancer-name front \
    --listeners Protocol=HTTP,LoadBalancerPort=8081,InstancePort=8080 --availability-zones us-east-1a >/dev/null
"${A[@]}" elb configure-health-check --load-balancer-name front \
    --health-check Target=HTTP:8080/health,Interval=5,Timeout=2,UnhealthyThreshold=2,HealthyThreshold=3 >/dev/null
"${A[@]}" autoscaling create-launch-configuration --launch-configuration-name lc \
    --image-id ami-12345678 --instance-type t3.micro --user-data '{"boot_s": 60}'
"${A[@]}" autoscaling create-auto-scaling-group --auto-scaling-group-name web \
    --launch-configuration-name lc --min-size 1 --max-size 1 --availability-zones us-east-1a \
    --load-balancer-names front

sleep 2
check "boot: Pending while the clock stands (2 s real)" [ "$(lcstate)" = Pending ]
adv 60
check "boot: InService once the clock passed launch + 60 s" \
    bash -c "for i in \$(seq 50); do [ \"\$(${A[*]} autoscaling describe-auto-scaling-groups --query 'AutoScalingGroups[0].Instances[0].LifecycleState')\" = InService ] && exit 0; sleep 0.2; done; exit 1"
check "health checks: the first check at registration (a new registration's first pass) makes it InService" \
    bash -c "for i in \$(seq 50); do [ \"\$(${A[*]} elb describe-instance-health --load-balancer-name front --query 'InstanceStates[0].State')\" = InService ] && exit 0; sleep 0.2; done; exit 1"
# failing checks, UnhealthyThreshold 2 with an interval of 5 s: on the wall clock two
# checks would fail in 10 real seconds
ID=$("${A[@]}" autoscaling describe-auto-scaling-groups --query 'AutoScalingGroups[0].Instances[0].InstanceId')
curl -s -X POST -d "{\"instance_id\": \"$ID\", \"fault\": \"fail_health=1\"}" "$EP/_scalelab/fault" >/dev/null
sleep 11
check "health checks: still InService 11 real seconds (twice the interval) after failing, the clock standing" \
    [ "$(lbstate)" = InService ]
adv 5
sleep 1
check "health checks: +5 s is one failed check (UnhealthyThreshold 2): still InService" [ "$(lbstate)" = InService ]
adv 5
check "health checks: OutOfService once the clock passed the second interval" \
    bash -c "for i in \$(seq 50); do [ \"\$(${A[*]} elb describe-instance-health --load-balancer-name front --query 'InstanceStates[0].State')\" = OutOfService ] && exit 0; sleep 0.2; done; exit 1"

# the metrics minute: nothing while the clock stands, one datapoint per minute it passes
n0=$(cpu_points)
sleep 3
n1=$(cpu_points)
check "metrics minute: no CPUUtilization datapoint while the clock stands (3 s real; $n0 -> $n1)" [ "$n0" = "$n1" ]
adv 180
check "metrics minute: +3 min reports three more datapoints" \
    bash -c "for i in \$(seq 50); do n=\$(${A[*]} cloudwatch get-metric-statistics --namespace AWS/EC2 --metric-name CPUUtilization --dimensions Name=InstanceId,Value=$ID --statistics SampleCount --period 86400 --start-time $T0 --end-time $T1 --query 'sum(Datapoints[].SampleCount)'); [ \"\${n%.*}\" -ge \$(( ${n1%.*} + 3 )) ] && exit 0; sleep 0.2; done; exit 1"
finish
