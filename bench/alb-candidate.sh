#!/usr/bin/env bash
# bench/alb-candidate.sh PORT B1PORT B2PORT: the emulator's Application Load Balancer as a
# candidate for ../shared/bench/lb-vs-nginx.sh (and bench_alb.sh): starts the emulator,
# makes through boto3 an ALB whose HTTP listener on 127.0.0.1:PORT has one path rule
# (/soap* and /ok*) forwarding to an ip target group of the two backends 127.0.0.1:B1PORT
# and 127.0.0.1:B2PORT (ip targets on loopback are reached at their address, docs/elbv2.md
# 10), default action a 404 fixed response, waits until both targets are healthy, then
# stays in the foreground (the emulator ends with it).
#   lb-vs-nginx.sh "bench/alb-candidate.sh {port} {b1port} {b2port}"
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 PORT B1PORT B2PORT" >&2; exit 1; }
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
EMU="$ROOT/${BUILD:-build}/bin/emulator"
TMPD=$(mktemp -d)
trap 'kill "$EPID" 2>/dev/null; wait "$EPID" 2>/dev/null; rm -rf "$TMPD"' EXIT
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_MAX_ATTEMPTS=1
# --time-scale 60: health checks every 0.5 s real, so the targets are healthy in ~1 s
"$EMU" --quiet --port 0 --port-file "$TMPD/port" --time-scale 60 &
EPID=$!
for _ in $(seq 1 100); do [ -s "$TMPD/port" ] && break; sleep 0.1; done
[ -s "$TMPD/port" ] || { echo "alb-candidate: the emulator did not start" >&2; exit 1; }
python3 - "http://127.0.0.1:$(cat "$TMPD/port")" "$1" "$2" "$3" <<'EOF'
import sys, time
import boto3
ep, port, b1, b2 = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subs = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
lb = v2.create_load_balancer(Name="bench", Subnets=[s["SubnetId"] for s in subs[:2]])
lba = lb["LoadBalancers"][0]["LoadBalancerArn"]
tg = v2.create_target_group(Name="backends", Protocol="HTTP", Port=80, VpcId=vpc, TargetType="ip",
                            HealthCheckPath="/health", HealthCheckIntervalSeconds=30,
                            HealthCheckTimeoutSeconds=25, HealthyThresholdCount=2)
tga = tg["TargetGroups"][0]["TargetGroupArn"]
v2.register_targets(TargetGroupArn=tga, Targets=[{"Id": "127.0.0.1", "Port": b1},
                                                 {"Id": "127.0.0.1", "Port": b2}])
lis = v2.create_listener(LoadBalancerArn=lba, Protocol="HTTP", Port=port, DefaultActions=[
    {"Type": "fixed-response", "FixedResponseConfig": {"StatusCode": "404"}}])
lisa = lis["Listeners"][0]["ListenerArn"]
# the rule at once (the proxy reads the rules per request); until the checks pass the
# group fails open to both targets
v2.create_rule(ListenerArn=lisa, Priority=10,
               Conditions=[{"Field": "path-pattern", "Values": ["/soap*", "/ok*"]}],
               Actions=[{"Type": "forward", "TargetGroupArn": tga}])
for _ in range(200):
    hs = v2.describe_target_health(TargetGroupArn=tga)["TargetHealthDescriptions"]
    if sum(h["TargetHealth"]["State"] == "healthy" for h in hs) == 2:
        break
    time.sleep(0.1)
else:
    sys.exit("alb-candidate: the targets did not become healthy")
EOF
wait "$EPID"
