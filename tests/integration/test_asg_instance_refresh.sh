#!/usr/bin/env bash
# Instance refresh through boto3 at --time-scale 60 (docs/autoscaling.md section 8), with
# instances as processes behind a classic ELB whose health checks decide when a replacement
# counts: a group of 4 on launch template version 1, version 2 made, StartInstanceRefresh
# MinHealthyPercentage 50 replaces every instance by version-2 processes while the instances
# healthy at the load balancer never fall below 2; a second start answers AWS's
# InstanceRefreshInProgress; Cancel stops a refresh half way (Cancelling, Cancelled, the
# group's template kept); SkipMatching leaves the matching instances alone; the errors.
# TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 60

python3 - "$EP" <<'EOF' || failed=1
import json, os, sys, time, urllib.error, urllib.parse, urllib.request
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)

def group():
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["web"])["AutoScalingGroups"][0]

def members():
    return {i["InstanceId"]: i for i in group()["Instances"]}

def versions():
    return {i: m.get("LaunchTemplate", {}).get("Version") for i, m in members().items()}

def lb_healthy():
    hs = elb.describe_instance_health(LoadBalancerName="lb1")["InstanceStates"]
    return {h["InstanceId"] for h in hs if h["State"] == "InService"}

def healthy_in_service():
    ms = members()
    return len([i for i in lb_healthy() if ms.get(i, {}).get("LifecycleState") == "InService"])

def refresh(rid=None):
    kw = {"InstanceRefreshIds": [rid]} if rid else {}
    rs = asg.describe_instance_refreshes(AutoScalingGroupName="web", **kw)["InstanceRefreshes"]
    return rs[0] if rs else None

def processes():
    with urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5) as r:
        return {p["id"]: p["pid"] for p in json.load(r)["instances"]}

def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False

def raw(action, **params):
    """A Query request by hand (Debian's botocore predates MaxHealthyPercentage): status, body."""
    body = urllib.parse.urlencode(dict(Action=action, Version="2011-01-01", **params)).encode()
    req = urllib.request.Request(ep + "/", data=body, headers={
        "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/autoscaling/aws4_request, "
                         "SignedHeaders=host, Signature=0"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()

def error_of(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

def run_refresh(rid, secs):
    """Polls until the refresh ends; the lowest healthy count and the statuses seen."""
    low, seen, end = 99, [], time.time() + secs
    while time.time() < end:
        r = refresh(rid)
        if not seen or seen[-1] != r["Status"]:
            seen.append(r["Status"])
        low = min(low, healthy_in_service())
        if r["Status"] in ("Successful", "Failed", "Cancelled", "RollbackSuccessful", "RollbackFailed"):
            return low, seen, r
        time.sleep(0.1)
    return low, seen, refresh(rid)

elb.create_load_balancer(LoadBalancerName="lb1", AvailabilityZones=["us-east-1a"], Listeners=[
    {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8080}])
elb.configure_health_check(LoadBalancerName="lb1", HealthCheck={
    "Target": "HTTP:8080/", "Interval": 10, "Timeout": 5, "UnhealthyThreshold": 10, "HealthyThreshold": 2})
data = {"ImageId": "ami-12345678", "InstanceType": "t3.micro",
        "UserData": json.dumps({"boot_s": 30, "workers": 4, "service_ms": 2})}
lt = ec2.create_launch_template(LaunchTemplateName="web-lt", LaunchTemplateData=data)["LaunchTemplate"]
lt_id = lt["LaunchTemplateId"]
asg.create_auto_scaling_group(
    AutoScalingGroupName="web", LaunchTemplate={"LaunchTemplateId": lt_id, "Version": "1"},
    MinSize=0, MaxSize=8, DesiredCapacity=4, AvailabilityZones=["us-east-1a"],
    LoadBalancerNames=["lb1"], HealthCheckType="ELB", HealthCheckGracePeriod=120)
check("four version-1 instances InService and healthy at the load balancer",
      wait(lambda: len(members()) == 4 and healthy_in_service() == 4, 30), (members().keys(), lb_healthy()))
first = set(members())
first_pids = {i: p for i, p in processes().items() if i in first}
check("each is a running process", len(first_pids) == 4 and all(alive(p) for p in first_pids.values()),
      first_pids)

e = error_of(asg.cancel_instance_refresh, AutoScalingGroupName="web")
check("CancelInstanceRefresh with none active: ActiveInstanceRefreshNotFound",
      e == ("ActiveInstanceRefreshNotFound",
            "No in progress or pending Instance Refresh found for Auto Scaling group web"), e)
e = error_of(asg.start_instance_refresh, AutoScalingGroupName="nope")
check("an unknown group: ValidationError",
      e == ("ValidationError", "AutoScalingGroup name not found - AutoScalingGroup: nope not found"), e)
st, body = raw("StartInstanceRefresh", AutoScalingGroupName="web",
               **{"Preferences.MinHealthyPercentage": "10", "Preferences.MaxHealthyPercentage": "200"})
check("Max - Min above 100: ValidationError",
      st == 400 and "<Code>ValidationError</Code>" in body and
      "The difference between MaxHealthyPercentage and MinHealthyPercentage cannot be greater than 100." in body,
      (st, body))
e = error_of(asg.start_instance_refresh, AutoScalingGroupName="web",
             Preferences={"CheckpointPercentages": [50, 20]})
check("CheckpointPercentages out of order: ValidationError",
      e and e[0] == "ValidationError", e)
check("nothing stored on an error", refresh() is None, refresh())

# --- version 2, every instance replaced, healthy capacity >= 50% -------------------------------
data2 = dict(data, UserData=json.dumps({"boot_s": 30, "workers": 4, "service_ms": 3}))
v2 = ec2.create_launch_template_version(LaunchTemplateId=lt_id, LaunchTemplateData=data2)
check("CreateLaunchTemplateVersion: version 2",
      v2["LaunchTemplateVersion"]["VersionNumber"] == 2, v2["LaunchTemplateVersion"])
rid = asg.start_instance_refresh(
    AutoScalingGroupName="web",
    DesiredConfiguration={"LaunchTemplate": {"LaunchTemplateId": lt_id, "Version": "2"}},
    Preferences={"MinHealthyPercentage": 50, "InstanceWarmup": 30})["InstanceRefreshId"]
check("StartInstanceRefresh answers an id", len(rid) == 36, rid)
e = error_of(asg.start_instance_refresh, AutoScalingGroupName="web")
check("a second start while one runs: AWS's InstanceRefreshInProgress",
      e == ("InstanceRefreshInProgress",
            "An Instance Refresh is already in progress and blocks the execution of this Instance Refresh."), e)
r = refresh(rid)
check("described: Pending or InProgress, 4 to update, the preferences with defaults",
      r["Status"] in ("Pending", "InProgress") and r["InstancesToUpdate"] in (4, 3, 2) and
      r["Preferences"]["MinHealthyPercentage"] == 50 and
      r["Preferences"]["InstanceWarmup"] == 30 and r["Preferences"]["SkipMatching"] is False and
      r["DesiredConfiguration"]["LaunchTemplate"] == {"LaunchTemplateId": lt_id,
                                                      "LaunchTemplateName": "web-lt", "Version": "2"}, r)
st, body = raw("DescribeInstanceRefreshes", AutoScalingGroupName="web")
check("the XML carries AWS's newer members: MaxHealthyPercentage 100, ScaleInProtectedInstances Wait",
      st == 200 and "<MaxHealthyPercentage>100</MaxHealthyPercentage>" in body and
      "<ScaleInProtectedInstances>Wait</ScaleInProtectedInstances>" in body and
      "<Strategy>Rolling</Strategy>" in body, body)
t0 = time.time()
low, seen, r = run_refresh(rid, 90)
took = time.time() - t0
check("the refresh ends Successful with PercentageComplete 100, InstancesToUpdate 0",
      r["Status"] == "Successful" and r["PercentageComplete"] == 100 and r["InstancesToUpdate"] == 0
      and "EndTime" in r, (seen, r))
check("it went InProgress before Successful", "InProgress" in seen, seen)
check("healthy InService instances never below 2 (MinHealthyPercentage 50 of 4)", low >= 2,
      f"lowest {low}")
vs = versions()
check("every instance replaced by a version-2 instance",
      len(vs) == 4 and set(vs.values()) == {"2"} and not (set(vs) & first), vs)
pids = processes()
check("the replacements are running processes, the old ones are gone",
      all(i in pids and alive(pids[i]) for i in vs) and
      not any(alive(p) for p in first_pids.values()), (pids, first_pids))
check("all four healthy at the load balancer", wait(lambda: healthy_in_service() == 4, 10), lb_healthy())
check("the group now describes version 2", group()["LaunchTemplate"].get("Version") == "2",
      group()["LaunchTemplate"])
print(f"# refresh of 4 took {took:.1f} s real ({took:.0f} emulated minutes), lowest healthy {low}")

# --- cancel half way ------------------------------------------------------------------------------
rid2 = asg.start_instance_refresh(
    AutoScalingGroupName="web",
    DesiredConfiguration={"LaunchTemplate": {"LaunchTemplateId": lt_id, "Version": "1"}},
    Preferences={"MinHealthyPercentage": 50, "InstanceWarmup": 900})["InstanceRefreshId"]
two = wait(lambda: (lambda v: v if list(v.values()).count("1") == 2 else None)(versions()), 20)
check("a refresh back to version 1 replaces the first two", two, versions())
c = asg.cancel_instance_refresh(AutoScalingGroupName="web")
check("CancelInstanceRefresh answers its id", c["InstanceRefreshId"] == rid2, c)
check("Cancelling (the replacements warming), then Cancelled",
      refresh(rid2)["Status"] in ("Cancelling", "Cancelled") and
      wait(lambda: refresh(rid2)["Status"] == "Cancelled", 40), refresh(rid2))
vs = versions()
check("after the cancel: two on version 1, two still on version 2",
      sorted(vs.values()) == ["1", "1", "2", "2"], vs)
check("the group keeps version 2", group()["LaunchTemplate"].get("Version") == "2",
      group()["LaunchTemplate"])

# --- skip matching ---------------------------------------------------------------------------------
keep = {i for i, v in versions().items() if v == "2"}
rid3 = asg.start_instance_refresh(
    AutoScalingGroupName="web",
    DesiredConfiguration={"LaunchTemplate": {"LaunchTemplateId": lt_id, "Version": "2"}},
    Preferences={"MinHealthyPercentage": 50, "InstanceWarmup": 30, "SkipMatching": True})["InstanceRefreshId"]
# read once the step has counted it (right after the start, instances still warming from the
# cancelled refresh may count as in flight)
check("SkipMatching: two to update", wait(lambda: refresh(rid3)["InstancesToUpdate"] == 2, 10),
      refresh(rid3))
low, seen, r = run_refresh(rid3, 90)
vs = versions()
check("SkipMatching: Successful, the version-2 instances left alone, the others replaced",
      r["Status"] == "Successful" and keep <= set(vs) and set(vs.values()) == {"2"} and len(vs) == 4,
      (r, vs, keep))
check("SkipMatching: healthy never below 2", low >= 2, f"lowest {low}")
rs = asg.describe_instance_refreshes(AutoScalingGroupName="web")["InstanceRefreshes"]
check("DescribeInstanceRefreshes: all three, newest first",
      [x["InstanceRefreshId"] for x in rs] == [rid3, rid2, rid] and
      [x["Status"] for x in rs] == ["Successful", "Cancelled", "Successful"], [(x["InstanceRefreshId"], x["Status"]) for x in rs])
p = asg.describe_instance_refreshes(AutoScalingGroupName="web", MaxRecords=1)
check("MaxRecords 1: one and a NextToken", len(p["InstanceRefreshes"]) == 1 and "NextToken" in p, p)
st, body = raw("RollbackInstanceRefresh", AutoScalingGroupName="web")
check("RollbackInstanceRefresh with none active: ActiveInstanceRefreshNotFound",
      st == 400 and "<Code>ActiveInstanceRefreshNotFound</Code>" in body, (st, body))

asg.delete_auto_scaling_group(AutoScalingGroupName="web", ForceDelete=True)
check("the group deleted, its processes stop", wait(lambda: not processes(), 20), processes())
sys.exit(tap.failed)
EOF

finish
