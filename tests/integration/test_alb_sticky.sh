#!/usr/bin/env bash
# Stickiness, slow start and the routing algorithms of ALB target groups, classic ELB's
# stickiness policies, and the connection and NLB metrics (docs/elbv2.md 10.1-10.3, 11,
# 11.1; docs/elb-classic.md 4.1) through boto3 and raw HTTP at --time-scale 60: an AWSALB
# cookie keeps a client on one target and a tampered one is re-picked; stickiness off
# spreads; app_cookie's AWSALBAPP-0 follows the application's cookie; a forward's group
# stickiness (AWSALBTG) keeps a client on one target group; a sticky target that fails its
# checks is replaced by a healthy one; least_outstanding_requests favours the fast target
# where round_robin splits evenly; a target in slow start gets a small share first; the
# classic proxy honours an LB-cookie policy (AWSELB); ActiveConnectionCount,
# NewConnectionCount, ProcessedBytes and the AWS/NetworkELB set appear in
# GetMetricStatistics with AWS's dimensions; an NLB group's source_ip stickiness keeps each
# client address on one target while it is healthy. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 60

python3 - "$EP" <<'EOF' || failed=1
import http.client, json, sys, time, threading, urllib.request
from datetime import datetime, timedelta, timezone
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep = sys.argv[1]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
asg = boto3.client("autoscaling", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)
cw = boto3.client("cloudwatch", endpoint_url=ep)

def admin(path, body=None):
    req = urllib.request.Request(ep + path, data=body.encode() if body else None,
                                 method="POST" if body else "GET")
    with urllib.request.urlopen(req, timeout=5) as r:
        return json.load(r)

def req(port, path="/", host="a.example", cookies=None, src="127.0.0.1"):
    """(status, instance id, {cookie name: (value, attributes)}) of one request on a new
    connection from address src."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(src, 0))
    h = {"Host": host}
    if cookies:
        h["Cookie"] = "; ".join(f"{k}={v}" for k, v in cookies.items())
    try:
        c.request("GET", path, headers=h)
        r = c.getresponse()
        r.read()
        set_ck = {}
        for k, v in r.getheaders():
            if k.lower() == "set-cookie":
                nv, _, attrs = v.partition(";")
                n, _, val = nv.partition("=")
                set_ck[n.strip()] = (val, attrs)
        who = (r.getheader("X-Scalelab-Instance") or "").split()[:1]
        return r.status, who[0] if who else None, set_ck
    except OSError as e:
        return 0, None, {"error": (str(e), "")}
    finally:
        c.close()

def error(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

def jar(set_ck, *names):
    return {n: set_ck[n][0] for n in names if n in set_ck}

vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subnets = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
sub = [s["SubnetId"] for s in subnets[:2]]
zones = [s["AvailabilityZone"] for s in subnets[:2]]

lba = v2.create_load_balancer(Name="sticky", Subnets=sub)["LoadBalancers"][0]["LoadBalancerArn"]
hc = dict(Protocol="HTTP", Port=80, VpcId=vpc, HealthCheckPath="/health", HealthCheckIntervalSeconds=30,
          HealthCheckTimeoutSeconds=25, HealthyThresholdCount=2, UnhealthyThresholdCount=2)
tg = {n: v2.create_target_group(Name=n, **hc)["TargetGroups"][0]["TargetGroupArn"]
      for n in ("lbck", "plain", "app", "lor", "slow")}
def attrs(t, **kv):
    v2.modify_target_group_attributes(TargetGroupArn=tg[t], Attributes=[
        {"Key": k.replace("__", "."), "Value": v} for k, v in kv.items()])
attrs("lbck", stickiness__enabled="true", stickiness__type="lb_cookie",
      stickiness__lb_cookie__duration_seconds="600")
attrs("app", stickiness__enabled="true", stickiness__type="app_cookie",
      stickiness__app_cookie__cookie_name="SESS", stickiness__app_cookie__duration_seconds="600")
attrs("lor", load_balancing__algorithm__type="least_outstanding_requests")
attrs("slow", slow_start__duration_seconds="900")
lis = v2.create_listener(LoadBalancerArn=lba, Protocol="HTTP", Port=80, DefaultActions=[
    {"Type": "forward", "TargetGroupArn": tg["lbck"]}])["Listeners"][0]["ListenerArn"]
for prio, host, action in [
        (10, "plain.example", {"Type": "forward", "TargetGroupArn": tg["plain"]}),
        (20, "app.example", {"Type": "forward", "TargetGroupArn": tg["app"]}),
        (30, "lor.example", {"Type": "forward", "TargetGroupArn": tg["lor"]}),
        (40, "slow.example", {"Type": "forward", "TargetGroupArn": tg["slow"]}),
        (50, "groups.example", {"Type": "forward", "ForwardConfig": {
            "TargetGroups": [{"TargetGroupArn": tg["lbck"], "Weight": 1},
                             {"TargetGroupArn": tg["plain"], "Weight": 1}],
            "TargetGroupStickinessConfig": {"Enabled": True, "DurationSeconds": 300}}})]:
    v2.create_rule(ListenerArn=lis, Priority=prio, Actions=[action],
                   Conditions=[{"Field": "host-header", "HostHeaderConfig": {"Values": [host]}}])

profile = json.dumps({"boot_s": 20, "workers": 16, "service_ms": 2})
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="m1.large", UserData=profile)
asg.create_auto_scaling_group(AutoScalingGroupName="web", LaunchConfigurationName="lc",
                              MinSize=2, DesiredCapacity=2, MaxSize=2, AvailabilityZones=zones,
                              TargetGroupARNs=[tg["lbck"], tg["plain"], tg["app"], tg["lor"]])

def healthy(t):
    d = v2.describe_target_health(TargetGroupArn=tg[t])["TargetHealthDescriptions"]
    return sorted(x["Target"]["Id"] for x in d if x["TargetHealth"]["State"] == "healthy")
def alb_port():
    for x in admin("/_scalelab/dataplane").get("alb_listeners", []):
        if x["listener_arn"] == lis:
            return x["port"]
port = wait(alb_port, 5)
ok = wait(lambda: all(len(healthy(t)) == 2 for t in ("lbck", "plain", "app", "lor")), 60)
check("two instances become healthy targets of four target groups", ok,
      {t: healthy(t) for t in tg})
ids = healthy("lbck")

# stickiness off: round robin spreads, no cookie
seen = [req(port, host="plain.example") for _ in range(10)]
check("stickiness off: requests spread over both targets, in turn",
      {s[1] for s in seen} == set(ids) and all(seen[i][1] != seen[i + 1][1] for i in range(9)), seen)
check("stickiness off: no load balancer cookie", all("AWSALB" not in s[2] for s in seen), seen[0])

# duration-based: AWSALB and AWSALBCORS, opaque, and the client stays
st, first, ck = req(port)
check("lb_cookie: the response sets AWSALB and AWSALBCORS (SameSite=None; Secure), one value",
      st == 200 and "AWSALB" in ck and "AWSALBCORS" in ck and ck["AWSALB"][0] == ck["AWSALBCORS"][0]
      and "Expires=" in ck["AWSALB"][1] and "SameSite=None" in ck["AWSALBCORS"][1], ck)
check("the cookie value is opaque (no instance id or port in it)",
      all(i not in ck["AWSALB"][0] and i[2:] not in ck["AWSALB"][0] for i in ids), ck["AWSALB"][0])
cookie = jar(ck, "AWSALB")
stuck = [req(port, cookies=cookie)[1] for _ in range(12)]
check("a client with the AWSALB cookie stays on one target", set(stuck) == {first}, stuck)
fresh = {req(port)[1] for _ in range(8)}
check("clients without the cookie are spread", fresh == set(ids), fresh)
bad = dict(cookie)
bad["AWSALB"] = ("0" if bad["AWSALB"][0] != "0" else "1") + bad["AWSALB"][1:]
st, who, ck2 = req(port, cookies=bad)
check("a tampered cookie is not honoured: a new target is picked and a new cookie set",
      st == 200 and "AWSALB" in ck2 and ck2["AWSALB"][0] != bad["AWSALB"], ck2)

# application-based: AWSALBAPP-0 when the target sets SESS
st, app_who, ck = req(port, "/_instance/cookie/SESS", host="app.example")
check("app_cookie: the target's SESS and the load balancer's AWSALBAPP-0 both reach the client",
      st == 200 and "SESS" in ck and "AWSALBAPP-0" in ck, ck)
st, _, ck_plain = req(port, "/", host="app.example")
check("app_cookie: no AWSALBAPP-0 on a response without the application cookie",
      "AWSALBAPP-0" not in ck_plain, ck_plain)
appjar = jar(ck, "SESS", "AWSALBAPP-0")
stuck = [req(port, host="app.example", cookies=appjar)[1] for _ in range(10)]
check("a client sending SESS and AWSALBAPP-0 stays on the target", set(stuck) == {app_who}, stuck)
loose = {req(port, host="app.example", cookies={"AWSALBAPP-0": appjar["AWSALBAPP-0"]})[1]
         for _ in range(8)}
check("without the application cookie the session is not sticky", loose == set(ids), loose)

# target group stickiness: AWSALBTG keeps the client on one group (lbck answers set AWSALB)
mixed = [("AWSALB" in req(port, host="groups.example")[2]) for _ in range(12)]
check("a weighted forward without AWSALBTG uses both groups", set(mixed) == {True, False}, mixed)
st, _, ck = req(port, host="groups.example")
check("the forward's group stickiness sets AWSALBTG and AWSALBTGCORS",
      "AWSALBTG" in ck and "AWSALBTGCORS" in ck, ck)
tgjar = jar(ck, "AWSALBTG")
same = [("AWSALB" in req(port, host="groups.example", cookies=tgjar)[2]) for _ in range(10)]
check("with AWSALBTG every request goes to the same target group", len(set(same)) == 1, same)

# least outstanding requests favours the fast target; round robin splits evenly
slowid = ids[0]
admin("/_scalelab/fault", json.dumps({"instance_id": slowid, "fault": "slow=60"}))
def burst(host, n=48, threads=8):
    out = []
    lock = threading.Lock()
    def run(k):
        for _ in range(k):
            r = req(port, host=host)
            with lock:
                out.append(r[1])
    th = [threading.Thread(target=run, args=(n // threads,)) for _ in range(threads)]
    for t in th:
        t.start()
    for t in th:
        t.join(60)
    return out
rr = burst("plain.example")
lor = burst("lor.example")
check("round_robin: the slow target gets half the requests",
      abs(rr.count(slowid) - len(rr) / 2) <= 2, (rr.count(slowid), len(rr)))
check("least_outstanding_requests: the fast target takes most of them",
      lor.count(slowid) * 3 < len(lor), (lor.count(slowid), len(lor)))
admin("/_scalelab/fault", json.dumps({"instance_id": slowid, "fault": "slow=1"}))

# a sticky target that fails its health checks: the client moves to a healthy one
st, who, ck = req(port)
cookie = jar(ck, "AWSALB")
other = [i for i in ids if i != who][0]
admin("/_scalelab/fault", json.dumps({"instance_id": who, "fault": "fail_health=1"}))
check("the sticky target becomes unhealthy", wait(lambda: healthy("lbck") == [other], 20),
      healthy("lbck"))
st, now_who, ck = req(port, cookies=cookie)
check("a request with the cookie of an unhealthy target goes to a healthy one, re-bound",
      st == 200 and now_who == other and "AWSALB" in ck and ck["AWSALB"][0] != cookie["AWSALB"],
      (st, now_who, ck))
admin("/_scalelab/fault", json.dumps({"instance_id": who, "fault": "fail_health=0"}))
wait(lambda: len(healthy("lbck")) == 2, 20)

# slow start: the second target of the group ramps up over 900 emulated s (15 s real)
v2.register_targets(TargetGroupArn=tg["slow"], Targets=[{"Id": ids[0]}])
check("slow start group: the first target is healthy", wait(lambda: healthy("slow") == [ids[0]], 20))
v2.register_targets(TargetGroupArn=tg["slow"], Targets=[{"Id": ids[1]}])
check("slow start group: the second target becomes healthy",
      wait(lambda: len(healthy("slow")) == 2, 20), healthy("slow"))
early = [req(port, host="slow.example")[1] for _ in range(40)]
time.sleep(6)
later = [req(port, host="slow.example")[1] for _ in range(40)]
check("slow start: the new target gets a small share at first",
      early.count(ids[1]) <= 10, (early.count(ids[1]), len(early)))
check("slow start: its share grows with time", later.count(ids[1]) > early.count(ids[1]),
      (early.count(ids[1]), later.count(ids[1])))

# classic ELB: an LB-cookie stickiness policy on the listener (AWSELB)
elb.create_load_balancer(LoadBalancerName="classic", AvailabilityZones=zones, Listeners=[
    {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 80}])
# cross-zone: every node reaches both instances (without it a node keeps to its zone)
elb.modify_load_balancer_attributes(LoadBalancerName="classic", LoadBalancerAttributes={
    "CrossZoneLoadBalancing": {"Enabled": True}})
elb.register_instances_with_load_balancer(LoadBalancerName="classic",
                                          Instances=[{"InstanceId": i} for i in ids])
elb.create_lb_cookie_stickiness_policy(LoadBalancerName="classic", PolicyName="stick",
                                       CookieExpirationPeriod=300)
def clb_port():
    for x in admin("/_scalelab/dataplane").get("listeners", []):
        if x["load_balancer"] == "classic":
            return x["port"]
cport = wait(clb_port, 5)
inserv = lambda: [s["InstanceId"] for s in elb.describe_instance_health(
    LoadBalancerName="classic")["InstanceStates"] if s["State"] == "InService"]
check("classic: both instances InService", wait(lambda: len(inserv()) == 2, 40), inserv())
before = [req(cport, host="x")[2] for _ in range(3)]
check("classic: no AWSELB cookie before the policy is set on the listener",
      all("AWSELB" not in c for c in before), before)
elb.set_load_balancer_policies_of_listener(LoadBalancerName="classic", LoadBalancerPort=80,
                                           PolicyNames=["stick"])
def classic_cookie():
    r = req(cport, host="x")
    return r if "AWSELB" in r[2] else None
r = wait(classic_cookie, 5)
check("classic: the LB-cookie policy makes the proxy set AWSELB with the expiration",
      r and "Expires=" in r[2]["AWSELB"][1], r)
if r:
    stuck = [req(cport, host="x", cookies=jar(r[2], "AWSELB"))[1] for _ in range(10)]
    check("classic: a client with AWSELB stays on one instance", set(stuck) == {r[1]}, stuck)

# metrics: the connection figures with AWS's dimensions
lbdim = lba.split(":loadbalancer/")[1]
def stat(ns, metric, dims, st="Sum"):
    now = datetime.now(timezone.utc)
    d = cw.get_metric_statistics(Namespace=ns, MetricName=metric,
                                 Dimensions=[{"Name": k, "Value": v} for k, v in dims],
                                 StartTime=now - timedelta(hours=2), EndTime=now + timedelta(hours=1),
                                 Period=60, Statistics=[st])["Datapoints"]
    return sum(x[st] for x in d)
for m in ("NewConnectionCount", "ActiveConnectionCount", "ProcessedBytes"):
    check(f"AWS/ApplicationELB {m} (LoadBalancer) is published, non-zero",
          wait(lambda: stat("AWS/ApplicationELB", m, [("LoadBalancer", lbdim)]) > 0, 10))
check("RequestCount by AvailabilityZone+LoadBalancer",
      wait(lambda: any(stat("AWS/ApplicationELB", "RequestCount",
                            [("AvailabilityZone", z), ("LoadBalancer", lbdim)]) > 0 for z in zones), 10))

# a Network Load Balancer: the AWS/NetworkELB core
nlb = v2.create_load_balancer(Name="net", Subnets=sub, Type="network")["LoadBalancers"][0]["LoadBalancerArn"]
tcp = v2.create_target_group(Name="tcp", Protocol="TCP", Port=80, VpcId=vpc,
                             HealthCheckIntervalSeconds=30, HealthCheckTimeoutSeconds=25,
                             HealthyThresholdCount=2, UnhealthyThresholdCount=2)["TargetGroups"][0]["TargetGroupArn"]
tg["tcp"] = tcp
nlis = v2.create_listener(LoadBalancerArn=nlb, Protocol="TCP", Port=80, DefaultActions=[
    {"Type": "forward", "TargetGroupArn": tcp}])["Listeners"][0]["ListenerArn"]
v2.register_targets(TargetGroupArn=tcp, Targets=[{"Id": i} for i in ids])
def nlb_port():
    for x in admin("/_scalelab/dataplane").get("alb_listeners", []):
        if x["listener_arn"] == nlis:
            return x["port"]
nport = wait(nlb_port, 5)
check("the NLB's targets become healthy", wait(lambda: len(healthy("tcp")) == 2, 30), healthy("tcp"))
flows = [req(nport, host="x")[0] for _ in range(6)]
check("the NLB pipes the requests", flows == [200] * 6, flows)
nd = nlb.split(":loadbalancer/")[1]
tgd = tcp.split(":")[-1]
for m in ("NewFlowCount", "NewFlowCount_TCP", "ProcessedBytes", "ProcessedBytes_TCP"):
    check(f"AWS/NetworkELB {m} (LoadBalancer) is published, non-zero",
          wait(lambda: stat("AWS/NetworkELB", m, [("LoadBalancer", nd)]) > 0, 10))
check("AWS/NetworkELB ActiveFlowCount is published (LoadBalancer, Maximum)",
      wait(lambda: cw.list_metrics(Namespace="AWS/NetworkELB", MetricName="ActiveFlowCount")["Metrics"], 10))
check("AWS/NetworkELB HealthyHostCount by TargetGroup+LoadBalancer is 2",
      wait(lambda: stat("AWS/NetworkELB", "HealthyHostCount",
                        [("TargetGroup", tgd), ("LoadBalancer", nd)], "Maximum") == 2, 10))
names = {m["MetricName"] for m in cw.list_metrics(Namespace="AWS/NetworkELB")["Metrics"]}
check("AWS/NetworkELB has no ApplicationELB-only metric", "RequestCount" not in names, sorted(names))

# source_ip stickiness on the NLB's group (docs/elbv2.md 10.4): off, one address's
# connections take the targets in turn; on, each address keeps one target while it is
# healthy, other addresses reach the other; unhealthy, its clients move; healthy again, back
def who_from(src, n=6):
    return [req(nport, host="x", src=src)[1] for _ in range(n)]
check("stickiness off: connections from 127.0.0.1 reach both targets", len(set(who_from("127.0.0.1"))) == 2)
check("an HTTP group refuses source_ip with AWS's text",
      error(v2.modify_target_group_attributes, TargetGroupArn=tg["plain"],
            Attributes=[{"Key": "stickiness.type", "Value": "source_ip"}]) ==
      ("ValidationError", "Target group attribute value 'source_ip' is not valid for key 'stickiness.type'"))
check("a TCP group refuses lb_cookie with AWS's text",
      error(v2.modify_target_group_attributes, TargetGroupArn=tcp,
            Attributes=[{"Key": "stickiness.type", "Value": "lb_cookie"}]) ==
      ("ValidationError", "Target group attribute value 'lb_cookie' is not valid for key 'stickiness.type'"))
v2.modify_target_group_attributes(TargetGroupArn=tcp, Attributes=[
    {"Key": "stickiness.enabled", "Value": "true"}, {"Key": "stickiness.type", "Value": "source_ip"}])
stuck = wait(lambda: (lambda w: w[0] if len(set(w)) == 1 and w[0] else None)(who_from("127.0.0.1", 8)), 10)
check("source_ip: every connection from 127.0.0.1 reaches one target", stuck, who_from("127.0.0.1"))
by_src = {f"127.0.0.{k}": who_from(f"127.0.0.{k}", 4) for k in range(2, 18)}
check("source_ip: each other loopback address keeps its own target",
      all(len(set(w)) == 1 and w[0] for w in by_src.values()), by_src)
check("source_ip: some addresses reach the other target",
      any(w[0] != stuck for w in by_src.values()), by_src)
v2.modify_target_group(TargetGroupArn=tcp, HealthCheckProtocol="HTTP", HealthCheckPath="/health")
admin("/_scalelab/fault", json.dumps({"instance_id": stuck, "fault": "fail_health=1"}))
other = [i for i in ids if i != stuck][0]
check("the sticky NLB target becomes unhealthy", wait(lambda: healthy("tcp") == [other], 20), healthy("tcp"))
moved = wait(lambda: set(who_from("127.0.0.1", 4)) == {other}, 5)
check("its client's connections go to the healthy target", moved, who_from("127.0.0.1"))
admin("/_scalelab/fault", json.dumps({"instance_id": stuck, "fault": "fail_health=0"}))
check("healthy again", wait(lambda: len(healthy("tcp")) == 2, 20), healthy("tcp"))
check("the client is back on its target (the same rule, the same answer)",
      wait(lambda: set(who_from("127.0.0.1", 4)) == {stuck}, 5), who_from("127.0.0.1"))
sys.exit(tap.failed)
EOF
finish
