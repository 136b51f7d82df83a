#!/usr/bin/env bash
# Lifecycle hooks, instance protection and scheduled actions through boto3 at --time-scale 60
# (docs/autoscaling.md sections 3 to 5), with instances as processes behind a classic ELB:
# a launch hook holds a new instance in Pending:Wait, out of the load balancer (requests
# through it answer 503, DescribeInstanceHealth lists nothing) until CompleteLifecycleAction;
# an abandoned launch is replaced (AWS's activity texts); a heartbeat extends the wait and the
# timeout applies the default result; a terminate hook waits after deregistration; the
# validation texts; a protected instance survives scale-in; a scheduled action fires at its
# time and on its recurrence; Ansible's amazon.aws.autoscaling_group_info (it calls
# DescribeLifecycleHooks). TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 60

python3 - "$EP" <<'EOF' || failed=1
import json, sys, time, urllib.error, urllib.request
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)

def group(name="g1"):
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=[name])["AutoScalingGroups"][0]

def states(name="g1"):
    return {i["InstanceId"]: i["LifecycleState"] for i in group(name)["Instances"]}

def in_state(state, name="g1"):
    return [i for i, s in states(name).items() if s == state]

def lb_instances():
    return [i["InstanceId"] for i in elb.describe_instance_health(LoadBalancerName="lb1")["InstanceStates"]]

def lb_port():
    with urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5) as r:
        for l in json.load(r)["listeners"]:
            if l["load_balancer"] == "lb1":
                return l["port"]
    return None

def status_through_lb():
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{lb_port()}/", timeout=5) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except Exception:
        return None

def activity(iid, name="g1"):
    for a in asg.describe_scaling_activities(AutoScalingGroupName=name)["Activities"]:
        if iid in a["Description"]:
            return a
    return None

def error_of(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

elb.create_load_balancer(LoadBalancerName="lb1", AvailabilityZones=["us-east-1a"], Listeners=[
    {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8080}])
elb.configure_health_check(LoadBalancerName="lb1", HealthCheck={
    "Target": "TCP:8080", "Interval": 5, "Timeout": 2, "UnhealthyThreshold": 2, "HealthyThreshold": 2})
asg.create_launch_configuration(LaunchConfigurationName="lc1", ImageId="ami-12345678",
                                InstanceType="m1.large",
                                UserData=json.dumps({"boot_s": 30, "workers": 4, "service_ms": 2}))
asg.create_auto_scaling_group(
    AutoScalingGroupName="g1", LaunchConfigurationName="lc1", MinSize=0, MaxSize=4,
    DesiredCapacity=0, AvailabilityZones=["us-east-1a"], LoadBalancerNames=["lb1"],
    LifecycleHookSpecificationList=[{"LifecycleHookName": "boot",
                            "LifecycleTransition": "autoscaling:EC2_INSTANCE_LAUNCHING",
                            "HeartbeatTimeout": 7200, "DefaultResult": "ABANDON"}])

# --- the hook ---------------------------------------------------------------------------------
hooks = asg.describe_lifecycle_hooks(AutoScalingGroupName="g1")["LifecycleHooks"]
check("LifecycleHookSpecificationList: the hook is described with AWS's GlobalTimeout (48 h cap)",
      [(h["LifecycleHookName"], h["HeartbeatTimeout"], h["GlobalTimeout"], h["DefaultResult"])
       for h in hooks] == [("boot", 7200, 172800, "ABANDON")], hooks)
asg.put_lifecycle_hook(AutoScalingGroupName="g1", LifecycleHookName="tmp",
                       LifecycleTransition="autoscaling:EC2_INSTANCE_TERMINATING")
h = asg.describe_lifecycle_hooks(AutoScalingGroupName="g1", LifecycleHookNames=["tmp"])["LifecycleHooks"]
check("PutLifecycleHook defaults: HeartbeatTimeout 3600, GlobalTimeout 172800, DefaultResult ABANDON",
      [(x["HeartbeatTimeout"], x["GlobalTimeout"], x["DefaultResult"]) for x in h] == [(3600, 172800, "ABANDON")], h)
asg.delete_lifecycle_hook(AutoScalingGroupName="g1", LifecycleHookName="tmp")
check("DeleteLifecycleHook removes it",
      [x["LifecycleHookName"] for x in asg.describe_lifecycle_hooks(AutoScalingGroupName="g1")["LifecycleHooks"]] == ["boot"])
types = asg.describe_lifecycle_hook_types()["LifecycleHookTypes"]
check("DescribeLifecycleHookTypes", sorted(types) == ["autoscaling:EC2_INSTANCE_LAUNCHING",
                                                     "autoscaling:EC2_INSTANCE_TERMINATING"], types)
e = error_of(asg.put_lifecycle_hook, AutoScalingGroupName="g1", LifecycleHookName="x",
             LifecycleTransition="autoscaling:EC2_INSTANCE_LAUNCHING", HeartbeatTimeout=10)
check("HeartbeatTimeout 10: ValidationError", e == ("ValidationError",
      "Heartbeat timeout must be between 30 and 7200 seconds, inclusive."), e)
e = error_of(asg.delete_lifecycle_hook, AutoScalingGroupName="g1", LifecycleHookName="nope")
check("deleting a missing hook: ValidationError No Lifecycle Hook found",
      e and e[0] == "ValidationError" and e[1].startswith("No Lifecycle Hook found"), e)

# --- a launch hook holds the instance out of service until completed -------------------------
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=1)
w = wait(lambda: in_state("Pending:Wait"), 10)
iid = w[0] if w else None
check("the new instance boots and waits in Pending:Wait", iid, states())
time.sleep(3)  # three emulated minutes: booted long ago (30 s), health checks every 5 s
check("still Pending:Wait three emulated minutes later, not registered with the load balancer",
      states() == {iid: "Pending:Wait"} and lb_instances() == [], (states(), lb_instances()))
check("requests through the load balancer find no instance (503)", status_through_lb() == 503,
      status_through_lb())
a = activity(iid)
check("its launch activity is MidLifecycleAction", a and a["StatusCode"] == "MidLifecycleAction", a)
e = error_of(asg.complete_lifecycle_action, AutoScalingGroupName="g1", LifecycleHookName="boot",
             LifecycleActionResult="CONTINUE", InstanceId="i-0123456789abcdef0")
check("CompleteLifecycleAction for another instance: AWS's text",
      e == ("ValidationError", "No active Lifecycle Action found with instance ID i-0123456789abcdef0"), e)
asg.complete_lifecycle_action(AutoScalingGroupName="g1", LifecycleHookName="boot",
                              LifecycleActionResult="CONTINUE", InstanceId=iid)
check("CONTINUE: InService and registered", wait(lambda: states() == {iid: "InService"} and lb_instances() == [iid], 5),
      (states(), lb_instances()))
check("requests through the load balancer now reach it (200)", wait(lambda: status_through_lb() == 200, 10),
      status_through_lb())
e = error_of(asg.complete_lifecycle_action, AutoScalingGroupName="g1", LifecycleHookName="boot",
             LifecycleActionResult="CONTINUE", InstanceId=iid)
check("a second complete: no active action", e and e[1].startswith("No active Lifecycle Action found"), e)

# --- an abandoned hook replaces the instance -------------------------------------------------
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=2)
w = wait(lambda: in_state("Pending:Wait"), 10)
victim = w[0] if w else None
asg.complete_lifecycle_action(AutoScalingGroupName="g1", LifecycleHookName="boot",
                              LifecycleActionResult="ABANDON", InstanceId=victim)
a = wait(lambda: (lambda x: x if x and x["StatusCode"] == "Cancelled" else None)(activity(victim)), 5)
check("ABANDON: the launch activity is Cancelled with AWS's reason",
      a and a["StatusMessage"].startswith("Instance failed to complete user's Lifecycle Action: Lifecycle Action with token ")
      and a["StatusMessage"].endswith(" was abandoned: Lifecycle Action Completed with ABANDON Result")
      and a["Description"].startswith(f"Launching a new EC2 instance: {victim}.  Status Reason: "), a)
repl = wait(lambda: [i for i in in_state("Pending:Wait") if i != victim] and victim not in states() and
            [i for i in in_state("Pending:Wait") if i != victim], 10)
check("the abandoned instance goes and a replacement launches (and waits)", repl, states())
check("the abandoned instance never entered the load balancer", victim not in lb_instances())

# --- a heartbeat extends the wait; the timeout applies DefaultResult ---------------------------
asg.put_lifecycle_hook(AutoScalingGroupName="g1", LifecycleHookName="boot", HeartbeatTimeout=300,
                       DefaultResult="CONTINUE")
asg.complete_lifecycle_action(AutoScalingGroupName="g1", LifecycleHookName="boot",
                              LifecycleActionResult="CONTINUE", InstanceId=repl[0])
wait(lambda: states().get(repl[0]) == "InService", 5)
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=3)
w = wait(lambda: in_state("Pending:Wait"), 10)
hb = w[0] if w else None
t0 = time.time()
for _ in range(3):  # every 3 s (3 emulated minutes) for 9 s: past the 300 s (5 s) timeout
    time.sleep(3)
    asg.record_lifecycle_action_heartbeat(AutoScalingGroupName="g1", LifecycleHookName="boot",
                                          InstanceId=hb)
check("heartbeats hold it past its 5 emulated-minute timeout", states().get(hb) == "Pending:Wait",
      f"{states().get(hb)} after {time.time() - t0:.1f} s")
check("then the timeout's CONTINUE puts it InService",
      wait(lambda: states().get(hb) == "InService", 8), f"{states().get(hb)} after {time.time() - t0:.1f} s")

# --- a terminate hook waits after deregistration --------------------------------------------
asg.put_lifecycle_hook(AutoScalingGroupName="g1", LifecycleHookName="bye", HeartbeatTimeout=3600,
                       LifecycleTransition="autoscaling:EC2_INSTANCE_TERMINATING")
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=2)
w = wait(lambda: in_state("Terminating:Wait"), 20)
gone = w[0] if w else None
check("scale-in: the chosen instance waits in Terminating:Wait, already out of the load balancer",
      gone and gone not in lb_instances(), (states(), lb_instances()))
asg.complete_lifecycle_action(AutoScalingGroupName="g1", LifecycleHookName="bye",
                              LifecycleActionResult="CONTINUE", InstanceId=gone)
check("CONTINUE: it terminates", wait(lambda: gone not in states(), 10), states())
asg.delete_lifecycle_hook(AutoScalingGroupName="g1", LifecycleHookName="bye")
asg.delete_lifecycle_hook(AutoScalingGroupName="g1", LifecycleHookName="boot")

# --- a protected instance survives scale-in ---------------------------------------------------
two = wait(lambda: (lambda ids: ids if len(ids) == 2 and len(states()) == 2 else None)(in_state("InService")), 10)
keep = two[0] if two else None
asg.set_instance_protection(AutoScalingGroupName="g1", InstanceIds=[keep], ProtectedFromScaleIn=True)
prot = {i["InstanceId"]: i["ProtectedFromScaleIn"] for i in group()["Instances"]}
check("SetInstanceProtection: ProtectedFromScaleIn described", prot.get(keep) is True and
      list(prot.values()).count(True) == 1, prot)
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=1)
check("scale-in to 1 terminates the unprotected instance, the protected one stays",
      wait(lambda: list(states()) == [keep], 10), states())
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=0)
time.sleep(2)
check("all protected: desired goes to 0, the instance stays InService",
      group()["DesiredCapacity"] == 0 and states() == {keep: "InService"}, (group()["DesiredCapacity"], states()))
e = error_of(asg.set_instance_protection, AutoScalingGroupName="g1", InstanceIds=["i-0123456789abcdef0"],
             ProtectedFromScaleIn=False)
check("SetInstanceProtection of a non-member: ValidationError",
      e == ("ValidationError", "The instance i-0123456789abcdef0 is not part of Auto Scaling group g1."), e)
asg.set_instance_protection(AutoScalingGroupName="g1", InstanceIds=[keep], ProtectedFromScaleIn=False)
check("protection removed: it goes", wait(lambda: states() == {}, 10), states())

# --- scheduled actions: at a time, then on a recurrence ---------------------------------------
from datetime import datetime, timedelta, timezone
def emu_now():
    with urllib.request.urlopen(ep + "/_scalelab/clock", timeout=5) as r:
        return datetime.fromtimestamp(json.load(r)["now_ms"] / 1000, timezone.utc)

asg.create_auto_scaling_group(AutoScalingGroupName="g2", LaunchConfigurationName="lc1", MinSize=0,
                              MaxSize=4, DesiredCapacity=0, AvailabilityZones=["us-east-1a"])
now = emu_now()
e = error_of(asg.put_scheduled_update_group_action, AutoScalingGroupName="g2",
             ScheduledActionName="past", StartTime=now - timedelta(hours=1), DesiredCapacity=1)
check("a StartTime in the past: AWS's text", e == ("ValidationError", "Given start time is in the past"), e)
e = error_of(asg.put_scheduled_update_group_action, AutoScalingGroupName="g2",
             ScheduledActionName="bad", Recurrence="0 9 * * ?", DesiredCapacity=1)
check("a recurrence that does not parse: AWS's text",
      e == ("ValidationError", "Given recurrence string: 0 9 * * ? is invalid"), e)
e = error_of(asg.put_scheduled_update_group_action, AutoScalingGroupName="g2",
             ScheduledActionName="tz", Recurrence="0 9 * * *", TimeZone="Mars/Olympus", DesiredCapacity=1)
check("an unknown TimeZone is refused", e and e[0] == "ValidationError", e)
start = (emu_now() + timedelta(minutes=3)).replace(second=30, microsecond=0)
asg.put_scheduled_update_group_action(AutoScalingGroupName="g2", ScheduledActionName="once",
                                      StartTime=start, DesiredCapacity=1)
asg.put_scheduled_update_group_action(AutoScalingGroupName="g2", ScheduledActionName="ny",
                                      Recurrence="0 9 * * 1-5", TimeZone="America/New_York", MinSize=0)
sa = {a["ScheduledActionName"]: a for a in asg.describe_scheduled_actions(AutoScalingGroupName="g2")["ScheduledUpdateGroupActions"]}
ny = sa.get("ny", {}).get("StartTime")
check("DescribeScheduledActions: StartTime as sent, a recurrence's next run at 9:00 New York time (13:00 or 14:00 UTC)",
      sa.get("once", {}).get("StartTime") == start and ny and ny.minute == 0 and
      ny.astimezone(timezone.utc).hour in (13, 14), sa)
check("the one-time action fires at its time", wait(lambda: group("g2")["DesiredCapacity"] == 1, 10),
      group("g2")["DesiredCapacity"])
acts = asg.describe_scaling_activities(AutoScalingGroupName="g2")["Activities"]
check("its activity's cause names the scheduled action's update",
      acts and "a scheduled action update of AutoScalingGroup constraints to min: 0, max: 4, desired: 1 changing the desired capacity from 0 to 1" in acts[0]["Cause"],
      acts[0]["Cause"] if acts else acts)
names = [a["ScheduledActionName"] for a in asg.describe_scheduled_actions(AutoScalingGroupName="g2")["ScheduledUpdateGroupActions"]]
check("a one-time action does not persist once run", names == ["ny"], names)
asg.delete_scheduled_action(AutoScalingGroupName="g2", ScheduledActionName="ny")
asg.put_scheduled_update_group_action(AutoScalingGroupName="g2", ScheduledActionName="every-minute",
                                      Recurrence="* * * * *", DesiredCapacity=2,
                                      EndTime=emu_now() + timedelta(hours=2))
check("the recurring action fires", wait(lambda: group("g2")["DesiredCapacity"] == 2, 10),
      group("g2")["DesiredCapacity"])
asg.set_desired_capacity(AutoScalingGroupName="g2", DesiredCapacity=0)
check("and again on its recurrence (the next minute)", wait(lambda: group("g2")["DesiredCapacity"] == 2, 10),
      group("g2")["DesiredCapacity"])
r = asg.batch_put_scheduled_update_group_action(AutoScalingGroupName="g2", ScheduledUpdateGroupActions=[
    {"ScheduledActionName": "b1", "StartTime": emu_now() + timedelta(days=1), "DesiredCapacity": 1},
    {"ScheduledActionName": "b2", "Recurrence": "61 * * * *", "DesiredCapacity": 1}])
check("BatchPut: the bad one listed as failed with its code, the good one made",
      [(f["ScheduledActionName"], f["ErrorCode"]) for f in r["FailedScheduledUpdateGroupActions"]] == [("b2", "ValidationError")]
      and "b1" in [a["ScheduledActionName"] for a in asg.describe_scheduled_actions(AutoScalingGroupName="g2")["ScheduledUpdateGroupActions"]], r)
r = asg.batch_delete_scheduled_action(AutoScalingGroupName="g2", ScheduledActionNames=["b1", "every-minute", "nope"])
check("BatchDelete: the missing one listed as failed",
      [f["ScheduledActionName"] for f in r["FailedScheduledActions"]] == ["nope"] and
      asg.describe_scheduled_actions(AutoScalingGroupName="g2")["ScheduledUpdateGroupActions"] == [], r)

# for the Ansible play below
asg.create_auto_scaling_group(
    AutoScalingGroupName="hooks-info", LaunchConfigurationName="lc1", MinSize=0, MaxSize=1,
    AvailabilityZones=["us-east-1a"],
    LifecycleHookSpecificationList=[{"LifecycleHookName": "boot",
                                     "LifecycleTransition": "autoscaling:EC2_INSTANCE_LAUNCHING"}])

sys.exit(tap.failed)
EOF

# --- Ansible's autoscaling_group_info (it calls DescribeLifecycleHooks) ---
if need ansible-playbook ansible; then
    check "ansible amazon.aws.autoscaling_group_info: the group and its lifecycle hook" env EP="$EP" \
        ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_LOCALHOST_WARNING=False \
        ANSIBLE_INVENTORY_UNPARSED_WARNING=False ANSIBLE_NOCOLOR=1 \
        timeout 300 ansible-playbook -i localhost, "$ROOT/tests/integration/ansible_asg_info.yml"
fi

finish
