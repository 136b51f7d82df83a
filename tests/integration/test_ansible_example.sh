#!/usr/bin/env bash
# examples/ansible/ as a user runs it (docs/ansible.md), with Debian's ansible (amazon.aws
# and community.aws; scripts/deps.sh installs it) against `emulator --time-scale 60`:
# site.yml builds the stack (changed on the first run), the same again reports changed=0
# for every task, the stack checked with boto3 (instances InService behind the ELB and
# healthy targets of the ALB's target group, the policies' Alarms, the scheduled action, the notifications, lt's launch hook holding a new instance in
# Pending:Wait until CompleteLifecycleAction), info.yml reads it back with the *_info
# modules, destroy.yml removes it and leaves no resource and no instance process. The calls the emulator answered
# with an error are listed as comments (the first run's lookups of what does not exist
# yet). TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

need ansible-playbook ansible || finish

start_emu emu --time-scale 60
EMU_PID=$LAST
export EP ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_LOCALHOST_WARNING=False
export ANSIBLE_INVENTORY_UNPARSED_WARNING=False ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_LOCAL_TEMP="$TMP/ansible-local" ANSIBLE_REMOTE_TEMP="$TMP/ansible-remote"
X="$ROOT/examples/ansible"
# play NAME FILE: runs the playbook; its output in $TMP/NAME.out
play() { timeout 600 ansible-playbook -i localhost, "$2" >"$TMP/$1.out" 2>&1; }
recap() { grep -E '^localhost +:' "$TMP/$1.out" | sed -E 's/ +/ /g'; }
show_play() { grep -E '^(TASK|changed|fatal|failed)|msg' "$TMP/$1.out" | tail -n 20 | sed 's/^/#   /'; }

if play site1 "$X/site.yml"; then
    ok "site.yml, first run: $(recap site1)"
else
    notok "site.yml, first run"; show_play site1; exit 1
fi
# every task changed but the lookup of the default subnets (the load balancer's security
# group is made by amazon.aws.ec2_security_group, which needs STS GetCallerIdentity)
lookups=$(grep -A1 '^TASK' "$TMP/site1.out" | grep -B1 '^ok:' | grep '^TASK' | sed -E 's/^TASK \[(.*)\].*/\1/' | tr '\n' ';')
n_ok=$(grep -oE 'ok=[0-9]+' "$TMP/site1.out" | cut -d= -f2)
n_changed=$(grep -oE 'changed=[0-9]+' "$TMP/site1.out" | cut -d= -f2)
if [ "$n_ok" -eq $((n_changed + 1)) ] && [ "$lookups" = "the default subnet of each zone;" ]; then
    ok "the first run changed every task but the lookup (the security group made)"
else
    notok "the first run changed every task but the lookup (ok=$n_ok changed=$n_changed, unchanged: $lookups)"
fi

check "the ALB's security group is the one site.yml made (web-alb-sg, HTTP 80 from anywhere)" python3 - "$EP" <<'PY'
import sys, boto3
ec2 = boto3.client("ec2", endpoint_url=sys.argv[1], region_name="us-east-1")
elbv2 = boto3.client("elbv2", endpoint_url=sys.argv[1], region_name="us-east-1")
sg = ec2.describe_security_groups(Filters=[{"Name": "group-name", "Values": ["web-alb-sg"]}])["SecurityGroups"]
alb = elbv2.describe_load_balancers(Names=["web-alb"])["LoadBalancers"][0]
perm = sg[0]["IpPermissions"] if sg else []
print("#", [g["GroupId"] for g in sg], alb["SecurityGroups"], perm)
sys.exit(0 if len(sg) == 1 and alb["SecurityGroups"] == [sg[0]["GroupId"]] and perm and perm[0]["FromPort"] == 80
         and perm[0]["IpRanges"][0]["CidrIp"] == "0.0.0.0/0" else 1)
PY
if play site2 "$X/site.yml"; then
    if grep -qE 'changed=0 ' "$TMP/site2.out"; then
        ok "site.yml again: every module reports changed=false ($(recap site2))"
    else
        notok "site.yml again: changed=0 ($(recap site2); changed: $(grep -A1 '^TASK' "$TMP/site2.out" | grep -B1 '^changed' | grep '^TASK' | tr -d '*' | tr '\n' ' '))"
    fi
else
    notok "site.yml, second run"; show_play site2
fi

python3 - "$EP" <<'EOF' || failed=1
import sys, boto3
import tap
from tap import check
ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
groups = {g["AutoScalingGroupName"]: g for g in asg.describe_auto_scaling_groups()["AutoScalingGroups"]}
check("three groups: lt, mixed and web", sorted(groups) == ["lt", "mixed", "web"], sorted(groups))
# waited for: web's weekday 08:00 scheduled action can launch an instance at x60 mid-run
elb = boto3.client("elb", endpoint_url=ep)
def elb_all_in_service():
    h = elb.describe_instance_health(LoadBalancerName="web-elb")["InstanceStates"]
    return h if h and all(x["State"] == "InService" for x in h) else None
check("web-elb has the web group's instances InService", tap.wait(elb_all_in_service, 60),
      elb.describe_instance_health(LoadBalancerName="web-elb")["InstanceStates"])
mip = groups["mixed"]["MixedInstancesPolicy"]["LaunchTemplate"]
check("mixed: the template by name and id, both instance types as overrides",
      mip["LaunchTemplateSpecification"].get("LaunchTemplateName") == "app-lt"
      and [o["InstanceType"] for o in mip["Overrides"]] == ["t3.small", "t3.micro"], mip)
pol = {p["PolicyName"]: p for p in asg.describe_policies()["ScalingPolicies"]}
check("the policies' Alarms name the alarms that act on them",
      [a["AlarmName"] for a in pol["web-step-out"]["Alarms"]] == ["web-high-cpu"]
      and [a["AlarmName"] for a in pol["web-simple-in"]["Alarms"]] == ["web-low-cpu"]
      and len(pol["mixed-cpu-50"]["Alarms"]) == 2,
      {k: [a["AlarmName"] for a in p["Alarms"]] for k, p in pol.items()})
v2 = boto3.client("elbv2", endpoint_url=ep)
tg = v2.describe_target_groups(Names=["web-tg"])["TargetGroups"][0]
check("web: behind web-tg as well", groups["web"]["TargetGroupARNs"] == [tg["TargetGroupArn"]],
      groups["web"]["TargetGroupARNs"])
def tg_healthy():
    live = sorted(i["InstanceId"] for i in asg.describe_auto_scaling_groups(
        AutoScalingGroupNames=["web"])["AutoScalingGroups"][0]["Instances"] if i["LifecycleState"] == "InService")
    d = v2.describe_target_health(TargetGroupArn=tg["TargetGroupArn"])["TargetHealthDescriptions"]
    return live and sorted(x["Target"]["Id"] for x in d if x["TargetHealth"]["State"] == "healthy") == live
check("DescribeTargetHealth: web's InService instances are web-tg's healthy targets", tap.wait(tg_healthy, 60),
      v2.describe_target_health(TargetGroupArn=tg["TargetGroupArn"])["TargetHealthDescriptions"])
label = "%s/%s" % (v2.describe_load_balancers(Names=["web-alb"])["LoadBalancers"][0]["LoadBalancerArn"]
                   .split(":loadbalancer/")[1], tg["TargetGroupArn"].split(":")[-1])
check("web-alb-requests tracks ALBRequestCountPerTarget of web-tg, with its two alarms",
      pol["web-alb-requests"]["TargetTrackingConfiguration"]["PredefinedMetricSpecification"]
      == {"PredefinedMetricType": "ALBRequestCountPerTarget", "ResourceLabel": label}
      and len(pol["web-alb-requests"]["Alarms"]) == 2, pol["web-alb-requests"])
sa = asg.describe_scheduled_actions(AutoScalingGroupName="web")["ScheduledUpdateGroupActions"]
check("web-morning: desired 3 at 08:00 UTC on weekdays",
      [(a["ScheduledActionName"], a.get("Recurrence"), a.get("TimeZone"), a.get("DesiredCapacity")) for a in sa]
      == [("web-morning", "0 8 * * MON-FRI", "Etc/UTC", 3)], sa)
nc = asg.describe_notification_configurations()["NotificationConfigurations"]
check("web and lt notify the topic of the four launch/terminate types",
      sorted((n["AutoScalingGroupName"], n["NotificationType"]) for n in nc) ==
      sorted((g, "autoscaling:" + t) for g in ("web", "lt") for t in (
          "EC2_INSTANCE_LAUNCH", "EC2_INSTANCE_LAUNCH_ERROR", "EC2_INSTANCE_TERMINATE",
          "EC2_INSTANCE_TERMINATE_ERROR"))
      and {n["TopicARN"] for n in nc} == {"arn:aws:sns:us-east-1:123456789012:scaling-events"}, nc)
hooks = asg.describe_lifecycle_hooks(AutoScalingGroupName="lt")["LifecycleHooks"]
check("lt-launch as written (300 s heartbeat, CONTINUE)",
      [(h["LifecycleHookName"], h["LifecycleTransition"], h["HeartbeatTimeout"], h["DefaultResult"])
       for h in hooks] == [("lt-launch", "autoscaling:EC2_INSTANCE_LAUNCHING", 300, "CONTINUE")], hooks)
# a scale-out of lt: the hook holds the new instance in Pending:Wait until it is completed
asg.set_desired_capacity(AutoScalingGroupName="lt", DesiredCapacity=2)
def lt():
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["lt"])["AutoScalingGroups"][0]["Instances"]
held = tap.wait(lambda: [i["InstanceId"] for i in lt() if i["LifecycleState"] == "Pending:Wait"], 60)
check("lt-launch holds the new instance in Pending:Wait", held, [i["LifecycleState"] for i in lt()])
if held:
    asg.complete_lifecycle_action(AutoScalingGroupName="lt", LifecycleHookName="lt-launch",
                                  InstanceId=held[0], LifecycleActionResult="CONTINUE")
    check("CompleteLifecycleAction CONTINUE puts it InService",
          tap.wait(lambda: [i for i in lt() if i["InstanceId"] == held[0] and i["LifecycleState"] == "InService"], 30),
          [i["LifecycleState"] for i in lt()])
sys.exit(tap.failed)
EOF

if play info "$X/info.yml"; then
    ok "info.yml: the *_info modules read the stack back ($(recap info))"
else
    notok "info.yml"; show_play info
fi

if play destroy "$X/destroy.yml"; then
    ok "destroy.yml: $(recap destroy)"
else
    notok "destroy.yml"; show_play destroy
fi
check "destroy.yml deleted web-alb-sg" python3 -c '
import sys, boto3
ec2 = boto3.client("ec2", endpoint_url=sys.argv[1], region_name="us-east-1")
sys.exit(0 if ec2.describe_security_groups(Filters=[{"Name": "group-name", "Values": ["web-alb-sg"]}])["SecurityGroups"] == [] else 1)' "$EP"
python3 -c 'import sys, tap; tap.check_nothing_left(sys.argv[1], sys.argv[2]); sys.exit(tap.failed)' "$EP" "destroy.yml" ||
    failed=1
check "no instance process left under the emulator" wait_for 15 bash -c "! pgrep -P $EMU_PID >/dev/null"

grep ' req ' "$TMP/emu.log" | grep -v 'status=200' | grep -oE 'service=[^ ]+ action=[^ ]+ status=[0-9]+( code=[^ ]+)?' |
    sort | uniq -c | sed 's/^/# error answered: /' || true
finish
