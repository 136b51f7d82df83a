#!/usr/bin/env bash
# ELBv2 through boto3 (docs/elbv2.md) at --time-scale 60: an ALB, a target group, a listener
# and a path rule as CreateLoadBalancer/CreateTargetGroup/CreateListener/CreateRule answer
# and describe them; AWS's error codes and texts; a registered instance walking
# DescribeTargetHealth from unused through initial to healthy on real health checks of its
# process, deregistration ending at once with nothing in flight; an Auto Scaling group with
# TargetGroupARNs (and one with TrafficSources) whose
# instances become healthy targets (DescribeLoadBalancerTargetGroups InService,
# DescribeTrafficSources; detached: Removing while the instances drain, then gone); and the records across a restart with --state. TAP lines;
# KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 60 --state "$TMP/state.json"

python3 - "$EP" <<'EOF' || failed=1
import sys, time
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep = sys.argv[1]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
asg = boto3.client("autoscaling", endpoint_url=ep)

def error(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subnets = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
sub = [s["SubnetId"] for s in subnets[:2]]

# --- load balancer ---
lb = v2.create_load_balancer(Name="web", Subnets=sub, Tags=[{"Key": "team", "Value": "a"}])["LoadBalancers"][0]
arn = lb["LoadBalancerArn"]
check("ALB ARN loadbalancer/app/web/<16 hex>",
      arn.startswith("arn:aws:elasticloadbalancing:us-east-1:123456789012:loadbalancer/app/web/")
      and len(arn.rsplit("/", 1)[1]) == 16, arn)
check("ALB: active, internet-facing, application, two zones, the VPC's default group",
      lb["State"]["Code"] == "active" and lb["Scheme"] == "internet-facing" and
      lb["Type"] == "application" and len(lb["AvailabilityZones"]) == 2 and
      len(lb["SecurityGroups"]) == 1 and lb["VpcId"] == vpc, lb)
check("DNS name web-N.us-east-1.elb.amazonaws.com",
      lb["DNSName"].startswith("web-") and lb["DNSName"].endswith(".us-east-1.elb.amazonaws.com"))
check("DescribeLoadBalancers by name", v2.describe_load_balancers(Names=["web"])["LoadBalancers"][0]["LoadBalancerArn"] == arn)
check("unknown name: LoadBalancerNotFound with AWS's text",
      error(v2.describe_load_balancers, Names=["nope"]) ==
      ("LoadBalancerNotFound", "Load balancers '[nope]' not found"))
check("one subnet for an ALB: ValidationError",
      (error(v2.create_load_balancer, Name="one", Subnets=sub[:1]) or ("",))[0] == "ValidationError")
check("same name, other scheme: DuplicateLoadBalancerName",
      error(v2.create_load_balancer, Name="web", Subnets=sub, Scheme="internal") ==
      ("DuplicateLoadBalancerName", "A load balancer with the same name 'web' exists, but with different settings"))
attrs = {a["Key"]: a["Value"] for a in v2.describe_load_balancer_attributes(LoadBalancerArn=arn)["Attributes"]}
check("ALB attributes with AWS's defaults",
      attrs.get("idle_timeout.timeout_seconds") == "60" and attrs.get("deletion_protection.enabled") == "false"
      and attrs.get("routing.http2.enabled") == "true", attrs)
check("a bad attribute value: ValidationError, nothing changed",
      (error(v2.modify_load_balancer_attributes, LoadBalancerArn=arn,
             Attributes=[{"Key": "idle_timeout.timeout_seconds", "Value": "5000"}]) or ("",))[0] == "ValidationError"
      and {a["Key"]: a["Value"] for a in v2.describe_load_balancer_attributes(LoadBalancerArn=arn)["Attributes"]}["idle_timeout.timeout_seconds"] == "60")
check("tags on the load balancer",
      v2.describe_tags(ResourceArns=[arn])["TagDescriptions"][0]["Tags"] == [{"Key": "team", "Value": "a"}])

# --- target group ---
tg = v2.create_target_group(Name="tg", Protocol="HTTP", Port=80, VpcId=vpc,
                            HealthCheckIntervalSeconds=5, HealthCheckTimeoutSeconds=2,
                            HealthyThresholdCount=2, UnhealthyThresholdCount=2)["TargetGroups"][0]
tga = tg["TargetGroupArn"]
check("target group: HTTP health check on traffic-port, path /, matcher 200, thresholds as given",
      tg["HealthCheckProtocol"] == "HTTP" and tg["HealthCheckPort"] == "traffic-port" and
      tg["HealthCheckPath"] == "/" and tg["Matcher"]["HttpCode"] == "200" and
      tg["HealthyThresholdCount"] == 2 and tg["TargetType"] == "instance", tg)
check("timeout not below the interval: ValidationError",
      (error(v2.create_target_group, Name="bad", Protocol="HTTP", Port=80, VpcId=vpc,
             HealthCheckIntervalSeconds=5, HealthCheckTimeoutSeconds=5) or ("",))[0] == "ValidationError")
check("same name, other port: DuplicateTargetGroupName",
      error(v2.create_target_group, Name="tg", Protocol="HTTP", Port=81, VpcId=vpc) ==
      ("DuplicateTargetGroupName", "A target group with the same name 'tg' exists, but with different settings"))
check("unknown target group: TargetGroupNotFound",
      error(v2.describe_target_groups, Names=["nope"]) ==
      ("TargetGroupNotFound", "One or more target groups not found"))
v2.modify_target_group_attributes(TargetGroupArn=tga, Attributes=[
    {"Key": "deregistration_delay.timeout_seconds", "Value": "30"}])

# --- an instance as a target, before the group is in use ---
inst = ec2.run_instances(ImageId="ami-0c02fb55956c7d316", MinCount=1, MaxCount=1,
                         InstanceType="t3.micro", Placement={"AvailabilityZone": "us-east-1a"})["Instances"][0]["InstanceId"]
wait(lambda: ec2.describe_instances(InstanceIds=[inst])["Reservations"][0]["Instances"][0]["State"]["Name"] == "running", 20)

def th(i=inst):
    d = v2.describe_target_health(TargetGroupArn=tga, Targets=[{"Id": i}])["TargetHealthDescriptions"][0]
    return d["TargetHealth"]

check("not registered: unused / Target.NotRegistered",
      th() == {"State": "unused", "Reason": "Target.NotRegistered",
               "Description": "Target is not registered to the target group"}, th())
v2.register_targets(TargetGroupArn=tga, Targets=[{"Id": inst}])
check("registered, no listener: unused / Target.NotInUse",
      th() == {"State": "unused", "Reason": "Target.NotInUse",
               "Description": "Target group is not configured to receive traffic from the load balancer"}, th())
check("an unknown instance: InvalidTarget",
      (error(v2.register_targets, TargetGroupArn=tga, Targets=[{"Id": "i-0123456789abcdef0"}]) or ("",))[0] == "InvalidTarget")

# --- listener and rule ---
ls = v2.create_listener(LoadBalancerArn=arn, Protocol="HTTP", Port=80,
                        DefaultActions=[{"Type": "forward", "TargetGroupArn": tga}])["Listeners"][0]
la = ls["ListenerArn"]
check("listener ARN listener/app/web/<lb id>/<id>",
      la.startswith(arn.replace(":loadbalancer/", ":listener/") + "/"), la)
first = th()
check("in use: initial (registration, then initial health checks)",
      first["State"] == "initial" and first["Reason"] in ("Elb.RegistrationInProgress", "Elb.InitialHealthChecking"), first)
h = wait(lambda: th()["State"] == "healthy" and th(), 20)
check("health checks of the instance process make it healthy", h == {"State": "healthy"}, th())
check("the target group names its load balancer",
      v2.describe_target_groups(TargetGroupArns=[tga])["TargetGroups"][0]["LoadBalancerArns"] == [arn])
check("second listener on port 80: DuplicateListener",
      error(v2.create_listener, LoadBalancerArn=arn, Protocol="HTTP", Port=80,
            DefaultActions=[{"Type": "fixed-response", "FixedResponseConfig": {"StatusCode": "404"}}]) ==
      ("DuplicateListener", f"A listener already exists on this port for this load balancer '{arn}'"))
rule = v2.create_rule(ListenerArn=la, Priority=10,
                      Conditions=[{"Field": "path-pattern", "PathPatternConfig": {"Values": ["/api/*"]}}],
                      Actions=[{"Type": "fixed-response",
                                "FixedResponseConfig": {"StatusCode": "200", "ContentType": "text/plain", "MessageBody": "api"}}])["Rules"][0]
check("rule: priority '10', its condition and action",
      rule["Priority"] == "10" and rule["Conditions"][0]["PathPatternConfig"]["Values"] == ["/api/*"]
      and rule["Actions"][0]["FixedResponseConfig"]["MessageBody"] == "api", rule)
check("the same priority again: PriorityInUse",
      error(v2.create_rule, ListenerArn=la, Priority=10,
            Conditions=[{"Field": "host-header", "Values": ["a.example.com"]}],
            Actions=[{"Type": "forward", "TargetGroupArn": tga}]) ==
      ("PriorityInUse", "Priority '10' is currently in use"))
rules = v2.describe_rules(ListenerArn=la)["Rules"]
check("DescribeRules: the rule, then the default rule",
      [r["Priority"] for r in rules] == ["10", "default"] and rules[1]["IsDefault"], rules)
check("a redirect to itself: InvalidLoadBalancerAction",
      (error(v2.create_rule, ListenerArn=la, Priority=20,
             Conditions=[{"Field": "path-pattern", "Values": ["/x"]}],
             Actions=[{"Type": "redirect", "RedirectConfig": {"StatusCode": "HTTP_301"}}]) or ("",))[0] == "InvalidLoadBalancerAction")
check("a target group in use cannot be deleted: ResourceInUse",
      error(v2.delete_target_group, TargetGroupArn=tga) ==
      ("ResourceInUse", f"Target group '{tga}' is currently in use by a listener or a rule"))
check("DescribeSSLPolicies has ELBSecurityPolicy-2016-08",
      any(p["Name"] == "ELBSecurityPolicy-2016-08" for p in v2.describe_ssl_policies()["SslPolicies"]))
lim = {l["Name"]: l["Max"] for l in v2.describe_account_limits()["Limits"]}
check("DescribeAccountLimits", lim.get("application-load-balancers") == "50" and lim.get("targets-per-target-group") == "1000", lim)

# --- draining (a target with a request in flight stays draining: test_alb_health.sh) ---
v2.modify_target_group_attributes(TargetGroupArn=tga, Attributes=[
    {"Key": "deregistration_delay.timeout_seconds", "Value": "600"}])
t0 = time.time()
v2.deregister_targets(TargetGroupArn=tga, Targets=[{"Id": inst}])
gone = wait(lambda: th()["Reason"] == "Target.NotRegistered", 10)
check("deregistered with nothing in flight: gone at once, not after the 600 s delay (10 s real)",
      gone and time.time() - t0 < 5, (th(), time.time() - t0))
v2.modify_target_group_attributes(TargetGroupArn=tga, Attributes=[
    {"Key": "deregistration_delay.timeout_seconds", "Value": "30"}])

# --- an Auto Scaling group with the target group ---
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-0c02fb55956c7d316",
                                InstanceType="t3.micro")
check("an unknown target group: ValidationError",
      error(asg.create_auto_scaling_group, AutoScalingGroupName="bad", LaunchConfigurationName="lc",
            MinSize=1, MaxSize=1, AvailabilityZones=["us-east-1a"],
            TargetGroupARNs=[tga.replace("/tg/", "/nope/")]) ==
      ("ValidationError", "Provided Target Groups may not be valid. Please ensure they exist and try again."))
asg.create_auto_scaling_group(AutoScalingGroupName="g", LaunchConfigurationName="lc", MinSize=1, DesiredCapacity=2,
                              MaxSize=4, AvailabilityZones=["us-east-1a", "us-east-1b"],
                              TargetGroupARNs=[tga], HealthCheckType="ELB",
                              HealthCheckGracePeriod=60)
g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g"])["AutoScalingGroups"][0]
check("DescribeAutoScalingGroups lists TargetGroupARNs", g["TargetGroupARNs"] == [tga], g["TargetGroupARNs"])

def healthy():
    d = v2.describe_target_health(TargetGroupArn=tga)["TargetHealthDescriptions"]
    return [x for x in d if x["TargetHealth"]["State"] == "healthy"]

check("the group's two instances become healthy targets", len(wait(lambda: len(healthy()) == 2 and healthy(), 40) or []) == 2,
      v2.describe_target_health(TargetGroupArn=tga)["TargetHealthDescriptions"])
ids = sorted(i["InstanceId"] for i in asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g"])["AutoScalingGroups"][0]["Instances"])
check("the targets are the group's instances", sorted(x["Target"]["Id"] for x in healthy()) == ids)
check("DescribeLoadBalancerTargetGroups: InService",
      asg.describe_load_balancer_target_groups(AutoScalingGroupName="g")["LoadBalancerTargetGroups"] ==
      [{"LoadBalancerTargetGroupARN": tga, "State": "InService"}])
ts = asg.describe_traffic_sources(AutoScalingGroupName="g", TrafficSourceType="elbv2")["TrafficSources"]
# (Debian's botocore predates the Identifier and Type members: it reads TrafficSource)
check("DescribeTrafficSources: the target group as elbv2, InService",
      [(t["TrafficSource"], t.get("Type", "elbv2"), t["State"]) for t in ts] == [(tga, "elbv2", "InService")], ts)

# scale in: the leaving instance drains first
asg.set_desired_capacity(AutoScalingGroupName="g", DesiredCapacity=1)
check("scale-in deregisters the leaving target (nothing in flight: no wait) and one is left",
      wait(lambda: len(v2.describe_target_health(TargetGroupArn=tga)["TargetHealthDescriptions"]) == 1, 30))
asg.detach_load_balancer_target_groups(AutoScalingGroupName="g", TargetGroupARNs=[tga])
check("detached: off the group's TargetGroupARNs at once",
      asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g"])["AutoScalingGroups"][0]["TargetGroupARNs"] == [])
# nothing in flight through the listener: the instance deregisters at once, the source goes
check("detached with nothing in flight: no longer described (Removing at most briefly)",
      wait(lambda: asg.describe_load_balancer_target_groups(AutoScalingGroupName="g")["LoadBalancerTargetGroups"] == [], 10),
      asg.describe_load_balancer_target_groups(AutoScalingGroupName="g"))

# Removing: the second target group is behind a Network Load Balancer's TCP listener; a
# connection held open through it to the group's instance keeps the detached source
# Removing (the target drains; its 600 s delay is 10 s real at x60); closed, it goes at once
import json, socket, urllib.request
def dataplane():
    with urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5) as r:
        return json.load(r)
nlb = v2.create_load_balancer(Name="tcp", Subnets=sub, Type="network")["LoadBalancers"][0]["LoadBalancerArn"]
free = v2.create_target_group(Name="free", Protocol="TCP", Port=80, VpcId=vpc,
                              HealthCheckIntervalSeconds=30, HealthCheckTimeoutSeconds=25,
                              HealthyThresholdCount=2)["TargetGroups"][0]["TargetGroupArn"]
v2.modify_target_group_attributes(TargetGroupArn=free, Attributes=[
    {"Key": "deregistration_delay.timeout_seconds", "Value": "600"}])
nlis = v2.create_listener(LoadBalancerArn=nlb, Protocol="TCP", Port=80,
                          DefaultActions=[{"Type": "forward", "TargetGroupArn": free}])["Listeners"][0]["ListenerArn"]
asg.attach_traffic_sources(AutoScalingGroupName="g", TrafficSources=[{"Identifier": free}])
def free_targets():
    return v2.describe_target_health(TargetGroupArn=free)["TargetHealthDescriptions"]
check("AttachTrafficSources: the instance becomes a healthy target of the second group",
      wait(lambda: [t["TargetHealth"]["State"] for t in free_targets()] == ["healthy"], 40), free_targets())
nport = wait(lambda: next((x["port"] for x in dataplane().get("alb_listeners", [])
                           if x["listener_arn"] == nlis), None), 5)
held = socket.create_connection(("127.0.0.1", nport or 1), timeout=5)
held.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
check("a connection through the NLB reaches the instance", held.recv(4096).startswith(b"HTTP/1.1 200"))
def free_state():
    ts = asg.describe_traffic_sources(AutoScalingGroupName="g", TrafficSourceType="elbv2")["TrafficSources"]
    return [t["State"] for t in ts if t["TrafficSource"] == free]
asg.detach_traffic_sources(AutoScalingGroupName="g", TrafficSources=[{"Identifier": free}])
check("DetachTrafficSources: the source is Removing while its instance drains",
      free_state() == ["Removing"] and free_targets()[0]["TargetHealth"]["State"] == "draining",
      (free_state(), free_targets()))
check("DescribeLoadBalancerTargetGroups lists it Removing too",
      asg.describe_load_balancer_target_groups(AutoScalingGroupName="g")["LoadBalancerTargetGroups"] ==
      [{"LoadBalancerTargetGroupARN": free, "State": "Removing"}])
check("TrafficSourceType elb does not list it",
      asg.describe_traffic_sources(AutoScalingGroupName="g", TrafficSourceType="elb")["TrafficSources"] == [])
time.sleep(3)
check("connection open: still Removing 3 s (180 s emulated) later", free_state() == ["Removing"], free_state())
held.close()
t0 = time.time()
gone = wait(lambda: free_state() == [], 8)
check("connection closed: deregistered and no longer described, before the delay's end",
      gone and free_targets() == [], (free_state(), time.time() - t0))

# CreateAutoScalingGroup's TrafficSources
def create_err(**kw):
    try:
        asg.create_auto_scaling_group(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
g2 = dict(AutoScalingGroupName="g2", LaunchConfigurationName="lc", MinSize=0, MaxSize=2,
          AvailabilityZones=["us-east-1a"])
# (Debian's botocore has no Type member: a name is a classic load balancer, an ARN elbv2)
check("CreateAutoScalingGroup with an unknown load balancer as traffic source: ValidationError, no group",
      create_err(TrafficSources=[{"Identifier": "nope"}], **g2) ==
      ("ValidationError", "Provided Load Balancers may not be valid. Please ensure they exist and try again.")
      and asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g2"])["AutoScalingGroups"] == [])
check("CreateAutoScalingGroup with an unknown target group as traffic source: ValidationError",
      create_err(TrafficSources=[{"Identifier": tga + "x"}], **g2) ==
      ("ValidationError", "Provided Target Groups may not be valid. Please ensure they exist and try again."))
asg.create_auto_scaling_group(TrafficSources=[{"Identifier": tga}], **g2)
check("CreateAutoScalingGroup's TrafficSources attach the target group",
      asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g2"])["AutoScalingGroups"][0]["TargetGroupARNs"] == [tga])
ts = asg.describe_traffic_sources(AutoScalingGroupName="g2", TrafficSourceType="elbv2")["TrafficSources"]
check("DescribeTrafficSources: no instances yet, so all (none) registered: Added",
      [(t["TrafficSource"], t["State"]) for t in ts] == [(tga, "Added")], ts)
sys.exit(tap.failed)
EOF

# the records from the state file, in a new emulator
dump='
import json, sys, boto3
v2 = boto3.client("elbv2", endpoint_url=sys.argv[1])
lb = v2.describe_load_balancers(Names=["web"])["LoadBalancers"][0]
ls = v2.describe_listeners(LoadBalancerArn=lb["LoadBalancerArn"])["Listeners"]
print(json.dumps([lb["LoadBalancerArn"], lb["DNSName"], ls,
                  v2.describe_rules(ListenerArn=ls[0]["ListenerArn"])["Rules"],
                  v2.describe_target_groups()["TargetGroups"]], sort_keys=True, default=str))'
python3 -c "$dump" "$EP" >"$TMP/before.json" || failed=1
kill -TERM "$LAST"
for _ in $(seq 50); do kill -0 "$LAST" 2>/dev/null || break; sleep 0.1; done
start_emu emu2 --quiet --time-scale 60 --state "$TMP/state.json"
python3 -c "$dump" "$EP" >"$TMP/after.json" || failed=1
if [ -s "$TMP/before.json" ] && cmp -s "$TMP/before.json" "$TMP/after.json"; then
    ok "load balancer, listener, rules and target group come back the same from the state file"
else
    notok "load balancer, listener, rules and target group come back the same from the state file"
    diff "$TMP/before.json" "$TMP/after.json" | sed 's/^/#   /' || true
fi
finish
