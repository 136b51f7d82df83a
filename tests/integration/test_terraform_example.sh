#!/usr/bin/env bash
# examples/terraform/ as a user runs it (docs/terraform.md), against `emulator --time-scale
# 60`: terraform init from the offline mirror, apply (timed), the stack checked with boto3
# (instances InService behind the ELB and healthy targets of the ALB's target group, the
# ALB's listener forwarding and its rule answering, the policies' Alarms including the
# ALBRequestCountPerTarget tracking pair, the metric-math alarm, CapacityRebalance, lt's
# warm pool and launch hook, web's scheduled action, the groups' notifications), `terraform
# plan -detailed-exitcode` straight after exits 0, an apply changing a desired capacity and
# an alarm threshold (through the provider's capacity waiter), kill -9 of an instance
# through the admin fault API heals from the warm pool, the replacement held in
# Pending:Wait by the hook until CompleteLifecycleAction, `terraform import` of a group
# made with the aws CLI
# plans with no diff but the provider's own import defaults, destroy leaves no resource
# and no instance process. The provider calls the emulator answered with an error are
# listed as comments. Skipped, with the reason, without terraform on PATH or without the
# hashicorp/aws provider in a filesystem mirror (lib.sh
# tf_setup finds it). Few provider runs on purpose (each is CPU heavy); still 10-17 minutes
# on a loaded 2-core machine, past run.sh's default 600 s, hence its own limit:
# suite-timeout: 1800
# TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

tf_setup || exit 0
AWS=/usr/bin/aws # Debian's aws CLI v2
need "$AWS" awscli || finish
export AWS_PAGER=""

start_emu emu --time-scale 60
EMU_PID=$LAST

# the example exactly as shipped, in a work folder of its own
cp "$ROOT"/examples/terraform/*.tf "$TMP/tf/"
export TF_VAR_endpoint="$EP"
tf() { (cd "$TMP/tf" && timeout 600 terraform "$@" -no-color) >"$TMP/tf.out" 2>&1; }
tail_out() { tail -n 30 "$TMP/tf.out" | sed 's/^/#   /'; cat "$TMP/tf.out" >>"$TMP/tf.log"; }
# plan_diff: the attributes and blocks a plan's text shows changing, one per line
plan_diff() { grep -E '^\s+[~+-] [a-z_"]' "$TMP/tf.out" | sed -E 's/^\s+[~+-] //; s/[ ={].*//' | sort -u; }
py() { python3 - "$EP" "$@"; }

if tf init -input=false; then ok "terraform init from the mirror ($MIRROR, aws $VERSION)"; else notok "terraform init"; tail_out; exit 1; fi

t0=${EPOCHREALTIME/./}
if tf apply -auto-approve -input=false; then
    secs=$(((${EPOCHREALTIME/./} - t0) / 1000000))
    ok "terraform apply of the example: $(grep -o 'Resources: [0-9]* added' "$TMP/tf.out") in ${secs} s"
else
    notok "terraform apply"; tail_out; exit 1
fi
cat "$TMP/tf.out" >>"$TMP/tf.log"

py <<'EOF' || failed=1
import sys, boto3
import tap
from tap import check
ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)
groups = {g["AutoScalingGroupName"]: g for g in asg.describe_auto_scaling_groups()["AutoScalingGroups"]}
check("three groups: web, mixed, lt", sorted(groups) == ["lt", "mixed", "web"], sorted(groups))
web = groups["web"]
v2 = boto3.client("elbv2", endpoint_url=ep)
tg = v2.describe_target_groups(Names=["web-tg"])["TargetGroups"][0]
check("web: on the launch configuration, behind web-elb and web-tg, ELB health checks",
      (web["LaunchConfigurationName"], web["LoadBalancerNames"], web["TargetGroupARNs"],
       web["HealthCheckType"]) == ("web-lc", ["web-elb"], [tg["TargetGroupArn"]], "ELB"),
      (web.get("LaunchConfigurationName"), web["LoadBalancerNames"], web["TargetGroupARNs"],
       web["HealthCheckType"]))
# waited for: web's weekday 08:00 scheduled action can launch an instance at x60 mid-run
def elb_all_in_service():
    h = elb.describe_instance_health(LoadBalancerName="web-elb")["InstanceStates"]
    return h if h and all(x["State"] == "InService" for x in h) else None
check("the ELB has the web group's instances InService", tap.wait(elb_all_in_service, 60),
      elb.describe_instance_health(LoadBalancerName="web-elb")["InstanceStates"])
check("web-tg: HTTP 8080, its health check as written (/health every 10 s, 2/2, matcher 200)",
      (tg["Protocol"], tg["Port"], tg["HealthCheckPath"], tg["HealthCheckIntervalSeconds"],
       tg["HealthyThresholdCount"], tg["UnhealthyThresholdCount"], tg["Matcher"])
      == ("HTTP", 8080, "/health", 10, 2, 2, {"HttpCode": "200"}), tg)
def tg_health():
    live = sorted(i["InstanceId"] for i in asg.describe_auto_scaling_groups(
        AutoScalingGroupNames=["web"])["AutoScalingGroups"][0]["Instances"]
        if i["LifecycleState"] == "InService")
    d = v2.describe_target_health(TargetGroupArn=tg["TargetGroupArn"])["TargetHealthDescriptions"]
    healthy = sorted(x["Target"]["Id"] for x in d if x["TargetHealth"]["State"] == "healthy")
    return (live and healthy == live, d)
check("DescribeTargetHealth: web's InService instances are web-tg's healthy targets (port 8080)",
      tap.wait(lambda: tg_health()[0], 60), tg_health()[1])
import json, urllib.request
dp = json.load(urllib.request.urlopen(ep + "/_scalelab/dataplane"))
alb = [l for l in dp["alb_listeners"] if "/app/web-alb/" in l["load_balancer_arn"]]
def get(path):
    try:
        r = urllib.request.urlopen("http://127.0.0.1:%d%s" % (alb[0]["port"], path), timeout=10)
        return r.status, r.read()
    except Exception as e:  # noqa: BLE001 (the check prints it)
        return None, repr(e)
check("web-alb's listener forwards / to a web instance (200)", alb and get("/")[0] == 200, alb and get("/"))
check("web-alb's rule answers /version itself (fixed response v1)", alb and get("/version") == (200, b"v1"),
      alb and get("/version"))
cw = boto3.client("cloudwatch", endpoint_url=ep)
m = cw.describe_alarms(AlarmNames=["web-5xx-rate"])["MetricAlarms"]
check("web-5xx-rate: the metric-math alarm's three queries and its topic action as sent",
      m and sorted(((q["Id"], q.get("Expression"), q.get("MetricStat", {}).get("Metric", {}).get("MetricName"),
                     q["ReturnData"]) for q in m[0]["Metrics"]), key=str) == sorted(
      [("rate", "100 * errors / requests", None, True), ("errors", None, "HTTPCode_Target_5XX_Count", False),
       ("requests", None, "RequestCount", False)], key=str)
      and m[0]["AlarmActions"] == ["arn:aws:sns:us-east-1:123456789012:scaling-events"], m)
nc = asg.describe_notification_configurations()["NotificationConfigurations"]
check("the notification configuration: web and lt, the four launch/terminate types, the topic",
      sorted((n["AutoScalingGroupName"], n["NotificationType"].split(":")[1]) for n in nc) ==
      sorted((g, t) for g in ("web", "lt") for t in ("EC2_INSTANCE_LAUNCH", "EC2_INSTANCE_LAUNCH_ERROR",
                                                       "EC2_INSTANCE_TERMINATE", "EC2_INSTANCE_TERMINATE_ERROR"))
      and {n["TopicARN"] for n in nc} == {"arn:aws:sns:us-east-1:123456789012:scaling-events"}, nc)
check("mixed: CapacityRebalance comes back true", groups["mixed"].get("CapacityRebalance") is True,
      groups["mixed"].get("CapacityRebalance"))
lt = groups["lt"]["LaunchTemplate"]
check("lt: the launch template by id and name, version as sent",
      lt.get("LaunchTemplateName") == "app-lt" and lt.get("LaunchTemplateId", "").startswith("lt-")
      and lt.get("Version") == "$Default", lt)
pol = {p["PolicyName"]: p for p in asg.describe_policies()["ScalingPolicies"]}
check("web-step-out lists web-high-cpu in its Alarms (the alarm's action is the policy)",
      [a["AlarmName"] for a in pol["web-step-out"]["Alarms"]] == ["web-high-cpu"],
      pol["web-step-out"]["Alarms"])
check("web-simple-in lists web-low-cpu in its Alarms",
      [a["AlarmName"] for a in pol["web-simple-in"]["Alarms"]] == ["web-low-cpu"],
      pol["web-simple-in"]["Alarms"])
check("mixed-cpu-50 lists its two target-tracking alarms",
      [a["AlarmName"].split("-")[2] for a in pol["mixed-cpu-50"]["Alarms"]] == ["AlarmHigh", "AlarmLow"],
      [a["AlarmName"] for a in pol["mixed-cpu-50"]["Alarms"]])
tt = {a["AlarmName"]: a for a in cw.describe_alarms(
    AlarmNames=[a["AlarmName"] for a in pol["web-alb-requests"]["Alarms"]])["MetricAlarms"]}
label = "%s/%s" % (v2.describe_load_balancers(Names=["web-alb"])["LoadBalancers"][0]["LoadBalancerArn"]
                   .split(":loadbalancer/")[1], tg["TargetGroupArn"].split(":")[-1])
check("web-alb-requests (ALBRequestCountPerTarget, label as sent) has its two alarms on "
      "RequestCountPerTarget of web-tg",
      pol["web-alb-requests"]["TargetTrackingConfiguration"]["PredefinedMetricSpecification"].get("ResourceLabel")
      == label and len(tt) == 2 and all(a["MetricName"] == "RequestCountPerTarget" and
      a["Dimensions"] == [{"Name": "TargetGroup", "Value": tg["TargetGroupArn"].split(":")[-1]}]
      for a in tt.values()), (label, pol["web-alb-requests"], list(tt.values())))
import time
for _ in range(60):  # a warm instance boots (Warmed:Pending) before it is stopped
    wp = asg.describe_warm_pool(AutoScalingGroupName="lt")
    if wp["Instances"] and all(i["LifecycleState"] == "Warmed:Stopped" for i in wp["Instances"]):
        break
    time.sleep(0.5)
conf = wp.get("WarmPoolConfiguration", {})
check("lt: the warm pool as written (Stopped, min 1, max prepared 2, reuse on scale-in)",
      (conf.get("PoolState"), conf.get("MinSize"), conf.get("MaxGroupPreparedCapacity"),
       conf.get("InstanceReusePolicy")) == ("Stopped", 1, 2, {"ReuseOnScaleIn": True}), conf)
check("lt: its warm instances are Warmed:Stopped, none counted in the group",
      wp["Instances"] and all(i["LifecycleState"] == "Warmed:Stopped" for i in wp["Instances"]) and
      not any(i["LifecycleState"].startswith("Warmed:") for i in groups["lt"]["Instances"]),
      [i["LifecycleState"] for i in wp["Instances"]])
hooks = asg.describe_lifecycle_hooks(AutoScalingGroupName="lt")["LifecycleHooks"]
check("lt: the launch hook (300 s heartbeat, CONTINUE, global timeout 100 x heartbeat)",
      [(h["LifecycleHookName"], h["LifecycleTransition"], h["HeartbeatTimeout"], h["DefaultResult"],
        h["GlobalTimeout"]) for h in hooks] ==
      [("lt-launch", "autoscaling:EC2_INSTANCE_LAUNCHING", 300, "CONTINUE", 30000)], hooks)
sa = asg.describe_scheduled_actions(AutoScalingGroupName="web")["ScheduledUpdateGroupActions"]
check("web-morning: desired 3 at 08:00 UTC on weekdays, min and max left alone",
      [(a["ScheduledActionName"], a.get("Recurrence"), a.get("TimeZone"), a.get("DesiredCapacity"),
        "MinSize" in a, "MaxSize" in a) for a in sa] ==
      [("web-morning", "0 8 * * MON-FRI", "Etc/UTC", 3, False, False)], sa)
sys.exit(tap.failed)
EOF

set +e
tf plan -detailed-exitcode -input=false
rc=$?
set -e
if [ "$rc" -eq 0 ]; then
    ok "terraform plan -detailed-exitcode straight after apply exits 0 (no changes)"
else
    notok "terraform plan -detailed-exitcode straight after apply exits 0 (got $rc; changes: $(plan_diff | tr '\n' ' '))"
    grep -E '^\s+[~+-] |must be replaced|will be updated|Error' "$TMP/tf.out" | head -n 30 | sed 's/^/#   /'
fi
cat "$TMP/tf.out" >>"$TMP/tf.log"

# a change a user makes: the lt group to 2 instances, the alarm's threshold to 80
if tf apply -auto-approve -input=false -var lt_desired=2 -var high_cpu_threshold=80; then
    ok "terraform apply of desired capacity 2 and threshold 80: $(grep -o 'Resources: .*destroyed' "$TMP/tf.out")"
else
    notok "terraform apply of the change"; tail_out
fi
cat "$TMP/tf.out" >>"$TMP/tf.log"
py <<'EOF' || failed=1
import sys, boto3
import tap
from tap import check
ep = sys.argv[1]
g = boto3.client("autoscaling", endpoint_url=ep).describe_auto_scaling_groups(
    AutoScalingGroupNames=["lt"])["AutoScalingGroups"][0]
ins = [i["LifecycleState"] for i in g["Instances"]]
check("the provider's capacity waiter returned with 2 InService in lt",
      g["DesiredCapacity"] == 2 and ins.count("InService") == 2, ins)
a = boto3.client("cloudwatch", endpoint_url=ep).describe_alarms(AlarmNames=["web-high-cpu"])["MetricAlarms"][0]
check("web-high-cpu's threshold is 80", a["Threshold"] == 80.0, a["Threshold"])
sys.exit(tap.failed)
EOF

# kill -9 of an instance (docs/dataplane.md's fault API): the group replaces it with a warm
# instance, which the launch hook holds in Pending:Wait until CompleteLifecycleAction
py <<'EOF' || failed=1
import json, sys, time, urllib.request, boto3
import tap
from tap import check
ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
def group():
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["lt"])["AutoScalingGroups"][0]
def warm_stopped():
    return [i["InstanceId"] for i in asg.describe_warm_pool(AutoScalingGroupName="lt")["Instances"]
            if i["LifecycleState"] == "Warmed:Stopped"]
warm = tap.wait(warm_stopped, 60) or []
victim = [i["InstanceId"] for i in group()["Instances"] if i["LifecycleState"] == "InService"][0]
req = urllib.request.Request(ep + "/_scalelab/fault", method="POST",
                             data=json.dumps({"instance_id": victim, "fault": "kill"}).encode())
check("the admin fault API kills " + victim, json.load(urllib.request.urlopen(req))["status"] == "ok")
def waiting():
    return [i["InstanceId"] for i in group()["Instances"] if i["LifecycleState"] == "Pending:Wait"]
held = tap.wait(waiting, 60) or []
check("the replacement comes from the warm pool and lt-launch holds it in Pending:Wait",
      len(held) == 1 and held[0] in warm, (held, warm))
if held:
    asg.complete_lifecycle_action(AutoScalingGroupName="lt", LifecycleHookName="lt-launch",
                                  InstanceId=held[0], LifecycleActionResult="CONTINUE")
def healed():
    ins = group()["Instances"]
    live = [i["InstanceId"] for i in ins if i["LifecycleState"] == "InService"]
    return len(live) == 2 and victim not in live and live
live = tap.wait(healed, 60)
check("lt heals: 2 InService again, without " + victim, bool(live),
      [(i["InstanceId"], i["LifecycleState"]) for i in group()["Instances"]])
sys.exit(tap.failed)
EOF

# terraform import of a group made with the aws CLI
if "$AWS" --endpoint-url "$EP" autoscaling create-auto-scaling-group --auto-scaling-group-name cli-made \
    --launch-template 'LaunchTemplateName=app-lt,Version=$Default' --min-size 0 --max-size 2 \
    --desired-capacity 1 --availability-zones us-east-1a >"$TMP/cli.out" 2>&1; then
    ok "aws autoscaling create-auto-scaling-group cli-made"
else
    notok "aws autoscaling create-auto-scaling-group cli-made"; sed 's/^/#   /' "$TMP/cli.out"
fi
cat >"$TMP/tf/imported.tf" <<'EOF'
resource "aws_autoscaling_group" "cli" {
  name               = "cli-made"
  min_size           = 0
  max_size           = 2
  desired_capacity   = 1
  availability_zones = ["us-east-1a"]
  # the API's default (the provider's is 300)
  health_check_grace_period = 0
  launch_template {
    name    = "app-lt"
    version = "$Default"
  }
}
EOF
export TF_VAR_lt_desired=2 TF_VAR_high_cpu_threshold=80
if tf import -input=false aws_autoscaling_group.cli cli-made; then ok "terraform import aws_autoscaling_group.cli cli-made"; else notok "terraform import"; tail_out; fi
cat "$TMP/tf.out" >>"$TMP/tf.log"
set +e
tf plan -detailed-exitcode -input=false
rc=$?
set -e
cat "$TMP/tf.out" >>"$TMP/tf.log"
# what import cannot read back is the provider's own (not in any API reply): its
# defaults force_delete, force_delete_warm_pool, ignore_failed_scaling_activities and
# wait_for_capacity_timeout
unexpected=$(plan_diff | grep -vxE 'resource|update|force_delete|force_delete_warm_pool|ignore_failed_scaling_activities|wait_for_capacity_timeout' || true)
if [ "$rc" -eq 0 ] || { [ "$rc" -eq 2 ] && [ -z "$unexpected" ] && grep -q '1 to change' "$TMP/tf.out"; }; then
    ok "plan after the import: no diff but the provider's import defaults ($(plan_diff | grep -vxE 'resource|update' | tr '\n' ' '))"
else
    notok "plan after the import: unexpected changes (rc $rc): $unexpected"
    grep -E '^\s+[~+-] |must be replaced|will be updated|Error' "$TMP/tf.out" | head -n 30 | sed 's/^/#   /'
fi

if tf destroy -auto-approve -input=false; then
    ok "terraform destroy: $(grep -o 'Resources: [0-9]* destroyed' "$TMP/tf.out")"
else
    notok "terraform destroy"; tail_out
fi
cat "$TMP/tf.out" >>"$TMP/tf.log"
python3 -c 'import sys, tap; tap.check_nothing_left(sys.argv[1], sys.argv[2]); sys.exit(tap.failed)' "$EP" "destroy" ||
    failed=1
check "no instance process left under the emulator" wait_for 15 bash -c "! pgrep -P $EMU_PID >/dev/null"

# the provider calls the emulator answered with an error (docs/terraform.md lists them)
grep ' req ' "$TMP/emu.log" | grep -v 'status=200' | grep -oE 'service=[^ ]+ action=[^ ]+ status=[0-9]+' |
    sort | uniq -c | sed 's/^/# error answered: /' || true
finish
