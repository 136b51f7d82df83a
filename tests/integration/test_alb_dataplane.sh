#!/usr/bin/env bash
# The Application Load Balancer data plane (docs/elbv2.md 10-12) through boto3 and curl at
# --time-scale 60: an ALB listener proxies HTTP to an Auto Scaling group's healthy targets,
# routes /api/* to a second group's target group by a path rule, answers a fixed-response
# rule and a redirect rule itself, 503 for a target group without targets; a killed
# instance is replaced and serves again; RequestCountPerTarget is published
# (GetMetricStatistics); ALBRequestCountPerTarget's ResourceLabel is checked with AWS's
# texts, and a target-tracking policy on it scales the group out under a bounded loadgen
# load; a Network Load Balancer's TCP listener pipes to its healthy targets. TAP lines;
# KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

need curl
start_emu emu --quiet --time-scale 60

python3 - "$EP" "$LG" <<'EOF' || failed=1
import json, subprocess, sys, time, urllib.request, urllib.error
from datetime import datetime, timedelta, timezone
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep, lg = sys.argv[1], sys.argv[2]
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

def admin(path, body=None):
    req = urllib.request.Request(ep + path, data=body.encode() if body else None,
                                 method="POST" if body else "GET")
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)

def get(port, path, host="shop.example.com"):
    """(status, headers, body) of GET path through the listener; redirects not followed."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a, **k):
            return None
    op = urllib.request.build_opener(NoRedirect)
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers={"Host": host})
    try:
        with op.open(req, timeout=5) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()
    except OSError as e:
        return 0, {}, str(e)

vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subnets = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
sub = [s["SubnetId"] for s in subnets[:2]]
zones = [s["AvailabilityZone"] for s in subnets[:2]]

lb = v2.create_load_balancer(Name="shop", Subnets=sub)["LoadBalancers"][0]
lba = lb["LoadBalancerArn"]
# checks every 0.5 s real, a 0.4 s timeout: a loaded machine (ASan) does not fail them
hc = dict(Protocol="HTTP", Port=80, VpcId=vpc, HealthCheckIntervalSeconds=30,
          HealthCheckTimeoutSeconds=25, HealthyThresholdCount=2, UnhealthyThresholdCount=2)
web = v2.create_target_group(Name="web", **hc)["TargetGroups"][0]["TargetGroupArn"]
api = v2.create_target_group(Name="api", **hc)["TargetGroups"][0]["TargetGroupArn"]
empty = v2.create_target_group(Name="empty", **hc)["TargetGroups"][0]["TargetGroupArn"]
v2.modify_target_group_attributes(TargetGroupArn=web, Attributes=[
    {"Key": "deregistration_delay.timeout_seconds", "Value": "30"}])
lis = v2.create_listener(LoadBalancerArn=lba, Protocol="HTTP", Port=80,
                         DefaultActions=[{"Type": "forward", "TargetGroupArn": web}])["Listeners"][0]["ListenerArn"]
def rule(prio, path, action):
    v2.create_rule(ListenerArn=lis, Priority=prio, Actions=[action],
                   Conditions=[{"Field": "path-pattern", "PathPatternConfig": {"Values": [path]}}])
rule(10, "/api/*", {"Type": "forward", "TargetGroupArn": api})
rule(20, "/teapot", {"Type": "fixed-response", "FixedResponseConfig": {
    "StatusCode": "418", "ContentType": "application/json", "MessageBody": '{"tea":true}'}})
rule(30, "/old/*", {"Type": "redirect", "RedirectConfig": {"StatusCode": "HTTP_301",
                                                           "Path": "/new/#{path}"}})
rule(40, "/empty", {"Type": "forward", "TargetGroupArn": empty})

# the listener's proxy: port 80 is privileged, so an ephemeral one (the data plane's map)
def alb_port():
    for x in admin("/_scalelab/dataplane").get("alb_listeners", []):
        if x["listener_arn"] == lis:
            return x["port"]
port = wait(alb_port, 5)
check("the HTTP listener is a proxy on 127.0.0.1 (the data plane lists its port)", port, port)

profile = json.dumps({"boot_s": 20, "workers": 8, "service_ms": 2})
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="m1.large", UserData=profile)
asg.create_auto_scaling_group(AutoScalingGroupName="web", LaunchConfigurationName="lc",
                              MinSize=2, DesiredCapacity=2, MaxSize=6, AvailabilityZones=zones,
                              TargetGroupARNs=[web], HealthCheckType="ELB",
                              HealthCheckGracePeriod=30, DefaultCooldown=30)
asg.create_auto_scaling_group(AutoScalingGroupName="api", LaunchConfigurationName="lc",
                              MinSize=1, MaxSize=1, AvailabilityZones=zones[:1],
                              TargetGroupARNs=[api])

def healthy(tg):
    d = v2.describe_target_health(TargetGroupArn=tg)["TargetHealthDescriptions"]
    return sorted(x["Target"]["Id"] for x in d if x["TargetHealth"]["State"] == "healthy")

def members(name):
    g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=[name])["AutoScalingGroups"][0]
    return sorted(i["InstanceId"] for i in g["Instances"])

check("the web group's two instances become healthy targets",
      wait(lambda: len(healthy(web)) == 2, 40), v2.describe_target_health(TargetGroupArn=web))
check("the api group's instance becomes a healthy target", wait(lambda: len(healthy(api)) == 1, 40))
webids, apiids = healthy(web), healthy(api)

def served_by(path, n=20):
    seen, codes = set(), set()
    for _ in range(n):
        st, h, _b = get(port, path)
        codes.add(st)
        seen.add((h.get("X-Scalelab-Instance") or "?").split()[0])
    return codes, seen

codes, seen = served_by("/")
check("GET / through the listener: 200 from the web group's targets, both of them",
      codes == {200} and seen == set(webids), (codes, seen, webids))
codes, seen = served_by("/api/users")
check("/api/* goes to the api target group by the path rule", codes == {200} and seen == set(apiids),
      (codes, seen, apiids))
st, h, body = get(port, "/teapot")
check("fixed-response rule: 418, its content type and body, from awselb",
      st == 418 and h.get("Content-Type") == "application/json" and body == '{"tea":true}'
      and h.get("Server") == "awselb/2.0", (st, h, body))
st, h, body = get(port, "/old/page?x=1")
check("redirect rule: 301 with #{host} #{path} #{query} replaced",
      st == 301 and h.get("Location") == "http://shop.example.com/new/old/page?x=1", (st, h))
st, h, body = get(port, "/empty")
check("a forward to a target group without targets: the load balancer's 503 page",
      st == 503 and "503 Service Temporarily Unavailable" in body, (st, body[:80]))

# the load balancer's 504 and 502: a hung target past the idle timeout, then a dead one
v2.modify_load_balancer_attributes(LoadBalancerArn=lba, Attributes=[
    {"Key": "idle_timeout.timeout_seconds", "Value": "1"}])
admin("/_scalelab/fault", json.dumps({"instance_id": apiids[0], "fault": "hang"}))
t0 = time.time()
st, h, body = get(port, "/api/slow")
check("a target that does not answer within the idle timeout (1 s): 504 from the load balancer",
      st == 504 and "504 Gateway Time-out" in body and time.time() - t0 < 4.5,
      (st, body[:60], time.time() - t0))
v2.modify_load_balancer_attributes(LoadBalancerArn=lba, Attributes=[
    {"Key": "idle_timeout.timeout_seconds", "Value": "60"}])
import threading
res = {}
th = threading.Thread(target=lambda: res.update(r=get(port, "/api/gone")))
th.start()
time.sleep(0.5)  # the request is outstanding on the hung target; then it dies
admin("/_scalelab/fault", json.dumps({"instance_id": apiids[0], "fault": "kill"}))
th.join(10)
st, h, body = res.get("r", (0, {}, ""))
check("a target that closes the connection with a request outstanding: 502 from the load balancer",
      st == 502 and "502 Bad Gateway" in body, (st, body[:60]))

# a killed instance: unhealthy, replaced, and the listener serves from the new one
victim = webids[0]
admin("/_scalelab/fault", json.dumps({"instance_id": victim, "fault": "kill"}))
check("after kill -9, requests keep being answered by the other target",
      wait(lambda: served_by("/", 6) == ({200}, set(webids[1:])), 10), served_by("/", 6))
new = wait(lambda: (lambda h: len(h) == 2 and victim not in h and h)(healthy(web)), 60)
check("the group replaces the killed instance and it becomes a healthy target", new, healthy(web))
codes, seen = served_by("/")
check("the replacement serves through the listener", new and codes == {200} and seen == set(new),
      (codes, seen, new))

# metrics: RequestCountPerTarget on the TargetGroup dimension, Sum
tgdim = web.split(":")[-1]
lbdim = lba.split(":loadbalancer/")[1]
def rcpt():
    now = datetime.now(timezone.utc)
    r = cw.get_metric_statistics(Namespace="AWS/ApplicationELB", MetricName="RequestCountPerTarget",
                                 Dimensions=[{"Name": "TargetGroup", "Value": tgdim}],
                                 StartTime=now - timedelta(hours=2), EndTime=now + timedelta(hours=1),
                                 Period=60, Statistics=["Sum"])
    return r["Datapoints"]
check("RequestCountPerTarget is published for the target group (Sum, non-zero)",
      wait(lambda: any(d["Sum"] > 0 for d in rcpt()), 10), rcpt()[:3])
names = {m["MetricName"] for m in cw.list_metrics(Namespace="AWS/ApplicationELB")["Metrics"]}
check("the AWS/ApplicationELB set: RequestCount, HealthyHostCount, HTTPCode_Target_2XX_Count, "
      "HTTP_Fixed_Response_Count, HTTP_Redirect_Count, HTTPCode_ELB_503_Count",
      {"RequestCount", "HealthyHostCount", "UnHealthyHostCount", "HTTPCode_Target_2XX_Count",
       "HTTP_Fixed_Response_Count", "HTTP_Redirect_Count", "HTTPCode_ELB_503_Count",
       "TargetResponseTime"} <= names, sorted(names))
lbm = [m for m in cw.list_metrics(Namespace="AWS/ApplicationELB", MetricName="RequestCount")["Metrics"]]
check("RequestCount by LoadBalancer app/shop/<id> and by TargetGroup+LoadBalancer",
      any(m["Dimensions"] == [{"Name": "LoadBalancer", "Value": lbdim}] for m in lbm) and
      any(sorted(d["Name"] for d in m["Dimensions"]) == ["LoadBalancer", "TargetGroup"] for m in lbm), lbm)

# target tracking on ALBRequestCountPerTarget
label = f"{lbdim}/{tgdim}"
tt = lambda **spec: dict(AutoScalingGroupName="web", PolicyName="rc", PolicyType="TargetTrackingScaling",
                         TargetTrackingConfiguration={"PredefinedMetricSpecification": spec,
                                                      "TargetValue": 600.0})
check("no ResourceLabel: AWS's ValidationError",
      error(asg.put_scaling_policy, **tt(PredefinedMetricType="ALBRequestCountPerTarget")) ==
      ("ValidationError", "Resource label should be specified for predefined metric type ALBRequestCountPerTarget"))
check("a malformed ResourceLabel: ValidationError",
      error(asg.put_scaling_policy, **tt(PredefinedMetricType="ALBRequestCountPerTarget",
                                         ResourceLabel=tgdim)) ==
      ("ValidationError", f"Invalid resource label '{tgdim}' for predefined metric type ALBRequestCountPerTarget"))
check("nothing stored after the errors", asg.describe_policies(AutoScalingGroupName="web")["ScalingPolicies"] == [])
asg.put_scaling_policy(**tt(PredefinedMetricType="ALBRequestCountPerTarget", ResourceLabel=label))
al = cw.describe_alarms(AlarmNamePrefix="TargetTracking-web-AlarmHigh")["MetricAlarms"]
check("the policy's high alarm watches AWS/ApplicationELB RequestCountPerTarget (Sum) by TargetGroup",
      len(al) == 1 and al[0]["Namespace"] == "AWS/ApplicationELB" and
      al[0]["MetricName"] == "RequestCountPerTarget" and al[0]["Statistic"] == "Sum" and
      al[0]["Dimensions"] == [{"Name": "TargetGroup", "Value": tgdim}], al)

# bounded load: 120 requests/s for 12 s = 7,200 per emulated minute over 2 targets, 6x the target
load = subprocess.Popen([lg, "--rate", "120", "--duration", "12s", "--connections", "8", "-q",
                         f"http://127.0.0.1:{port}/"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
grew = wait(lambda: len(members("web")) > 2 and members("web"), 30)
out, err = load.communicate(timeout=60)
check("the ALBRequestCountPerTarget policy scales the group out under load", grew, members("web"))
check("the load went through the listener without errors", load.returncode == 0 and b"Non-2xx" not in out,
      (load.returncode, out[-400:], err[-400:]))

# a Network Load Balancer's TCP listener: bytes piped to its target group's healthy targets
nlb = v2.create_load_balancer(Name="tcp", Subnets=sub, Type="network")["LoadBalancers"][0]["LoadBalancerArn"]
tcp = v2.create_target_group(Name="tcp", Protocol="TCP", Port=80, VpcId=vpc,
                             HealthCheckIntervalSeconds=30, HealthCheckTimeoutSeconds=25,
                             HealthyThresholdCount=2, UnhealthyThresholdCount=2)["TargetGroups"][0]["TargetGroupArn"]
nlis = v2.create_listener(LoadBalancerArn=nlb, Protocol="TCP", Port=80,
                          DefaultActions=[{"Type": "forward", "TargetGroupArn": tcp}])["Listeners"][0]["ListenerArn"]
target = wait(lambda: healthy(api), 30)
v2.register_targets(TargetGroupArn=tcp, Targets=[{"Id": (target or ["i-x"])[0]}])
def nlb_port():
    for x in admin("/_scalelab/dataplane").get("alb_listeners", []):
        if x["listener_arn"] == nlis and x["protocol"] == "TCP":
            return x["port"]
nport = wait(nlb_port, 5)
check("the NLB's TCP target becomes healthy on TCP checks", wait(lambda: healthy(tcp) == target, 30),
      v2.describe_target_health(TargetGroupArn=tcp)["TargetHealthDescriptions"])
st, h, body = get(nport, "/via-nlb") if nport else (0, {}, "")
check("a TCP listener pipes HTTP to the target unchanged (no awselb header)",
      st == 200 and (h.get("X-Scalelab-Instance") or "").split()[:1] == target[:1] and "Server" not in h,
      (st, h))
sys.exit(tap.failed)
EOF
finish
