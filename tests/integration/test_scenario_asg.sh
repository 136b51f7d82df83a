#!/usr/bin/env bash
# `loadgen scenario` plays the Auto Scaling keys the simulator plays (docs/loadgen.md,
# step 6), on its own emulator at a high time scale, with shortened copies of the shipped
# scenarios (lifecycle-hooks.json, scheduled-actions.json, instance-refresh.json):
# - a launch hook's handler completes the action its `after` past the instance's
#   Pending:Wait: the time to InService is boot + after, not boot (nor the timeout); a
#   hook without a handler is left to its HeartbeatTimeout; a terminate hook's handler
#   ends Terminating:Wait after its `after`;
# - scheduled actions (one-time and recurrences read in their TimeZone on the scenario's
#   clock) change the capacity at their scenario times;
# - an instance refresh at its time replaces every instance with the new launch
#   configuration's, healthy capacity never below MinHealthyPercentage;
# - warm-pool-hooks.json: the terminate hook's handler answers for instances returning to
#   the warm pool (Warmed:Pending:Wait) and for the pool's surplus (Warmed:Terminating:Wait),
#   found through DescribeWarmPool; warm instance-hours in the observed summary;
# - launch-instances.json: the group made from a launch template; LaunchInstances at each
#   call's time with the run's ClientToken, the replies on the timeline as the simulator's
#   (instances, the same reply for a reused token, the MaxSize and zone refusals,
#   InsufficientInstanceCapacity in a zone taken down with the retry's capacity launched
#   elsewhere).
# Every emulator is loadgen's own (its process group, stopped by loadgen). TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
export TMPDIR=$TMP # loadgen's own emulators put their folders under it

check_flag() {
    local d=$1 c=$2
    shift 2
    if [ "$c" = 1 ]; then ok "$d"; else
        notok "$d"
        for f in "$@"; do [ -f "$f" ] && { echo "# $f:"; tail -n 30 "$f" | sed 's/^/#   /'; }; done
    fi
}

python3 - "$ROOT/scenarios" "$TMP" <<'EOF'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]

# lifecycle hooks: no load, boot 30 s, the launch handler after 3 minutes (heartbeat 600,
# ABANDON: without the handler nothing would be InService before 10 minutes), the
# terminate handler after 1 minute (heartbeat 300); a scheduled action empties the group
# at 5 minutes so that the instance goes through Terminating:Wait.
s = json.load(open(src + "/lifecycle-hooks.json"))
s["name"] = "hooks-short"
s["duration"] = "9m"
s["sample"] = "30s"
s.pop("load", None)
s["faults"] = []
inf = s["infrastructure"]
inf["policies"] = []
inf["alarms"] = []
inf["launch_configurations"][0]["app"]["boot_s"] = 30
g = inf["groups"][0]
g["min"] = 0
g["desired"] = 1
g["lifecycle_hooks"][0]["handler"] = {"after": "3m", "result": "CONTINUE"}
g["scheduled_actions"] = [{"name": "empty", "at": "5m", "desired": 0}]
s["expect"] = [
    {"name": "none InService before the launch handler's 3 minutes", "at": "3m",
     "group": "autoscleasg", "in_service": {"max": 0}},
    {"name": "InService once the handler completed (boot 30 s + 3 min)", "by": "270s",
     "group": "autoscleasg", "in_service": {"min": 1}}]
json.dump(s, open(tmp + "/hooks.json", "w"), indent=1)

# the same launch hook with no handler ("never"): the timeout (240 s, CONTINUE) decides
g["lifecycle_hooks"] = [{"name": "warm-cache", "transition": "launching",
                         "heartbeat_timeout": 240, "default_result": "CONTINUE"}]
g.pop("scheduled_actions")
s["name"] = "hooks-never"
s["duration"] = "7m"
s["expect"] = [
    {"name": "none InService before the heartbeat timeout", "at": "4m",
     "group": "autoscleasg", "in_service": {"max": 0}},
    {"name": "InService after the timeout's CONTINUE", "by": "6m",
     "group": "autoscleasg", "in_service": {"min": 1}}]
json.dump(s, open(tmp + "/never.json", "w"), indent=1)

# scheduled actions: a one-time action at 20 minutes; "up" at minute 50 of every New York
# hour (UTC-5: 00:50, 01:50 UTC); "down" at minute 10 of every Kolkata hour (UTC+5:30:
# 00:40, 01:40 UTC). The scenario starts 2026-01-01T00:00Z.
s = json.load(open(src + "/scheduled-actions.json"))
s["name"] = "sched-short"
s["duration"] = "105m"
s["sample"] = "5m"
s["load"] = []
inf = s["infrastructure"]
inf["launch_configurations"][0]["app"]["boot_s"] = 30
g = inf["groups"][0]
g["scheduled_actions"] = [
    {"name": "warm-up", "at": "20m", "desired": 2},
    {"name": "up", "recurrence": "50 * * * *", "time_zone": "America/New_York", "min": 1,
     "desired": 3},
    {"name": "down", "recurrence": "10 * * * *", "time_zone": "Asia/Kolkata", "min": 1,
     "desired": 1}]
s["expect"] = [
    {"name": "one before the one-time action", "at": "15m", "group": "autoscleasg",
     "desired": {"min": 1, "max": 1}},
    {"name": "two after the one-time action at 20m", "at": "35m", "group": "autoscleasg",
     "desired": {"min": 2, "max": 2}},
    {"name": "one after Kolkata's minute 10 (00:40 UTC)", "at": "45m", "group": "autoscleasg",
     "desired": {"min": 1, "max": 1}},
    {"name": "three InService after New York's minute 50 (00:50 UTC)", "by": "60m",
     "group": "autoscleasg", "in_service": {"min": 3}},
    {"name": "one again after 01:40 UTC", "at": "105m", "group": "autoscleasg",
     "desired": {"min": 1, "max": 1}}]
json.dump(s, open(tmp + "/sched.json", "w"), indent=1)

# instance refresh: two instances (ELB health checks every 5 s), at 5 minutes the group
# switches to web-v2 and a refresh starts with MinHealthyPercentage 50, warm-up 60 s.
s = json.load(open(src + "/instance-refresh.json"))
s["name"] = "refresh-short"
s["duration"] = "20m"
s["load"] = []
inf = s["infrastructure"]
for lc in inf["launch_configurations"]:
    lc["app"]["boot_s"] = 30
# the shipped HTTP:8080/ check waits for a request's service time (50 ms real), longer than
# its 3 s timeout at --time-scale 120 (25 ms real): the health path answers at once
inf["load_balancers"][0]["health_check"]["target"] = "HTTP:8080/health"
g = inf["groups"][0]
g.update({"min": 1, "max": 4, "desired": 2, "health_check_grace_period": 60})
g["instance_refresh"] = {"at": "5m", "launch_configuration": "web-v2",
                         "min_healthy_percentage": 50, "instance_warmup": "1m"}
s["expect"] = [
    {"name": "never fewer than 1 InService once up (50 % of 2)", "group": "web",
     "throughout": True, "from": "3m", "in_service": {"min": 1}},
    {"name": "two InService after the refresh", "at": "20m", "group": "web",
     "in_service": {"min": 2, "max": 2}}]
json.dump(s, open(tmp + "/refresh.json", "w"), indent=1)
EOF

# run NAME SCALE: plays $TMP/NAME.json on loadgen's own emulator; sets rc
run() {
    rc=0
    "$LG" scenario "$TMP/$1.json" --time-scale "$2" --quiet --json "$TMP/$1.out.json" \
        >"$TMP/$1.out" 2>"$TMP/$1.err" || rc=$?
}

# --- lifecycle hooks --------------------------------------------------------------------
run hooks "$(ts 120)"
check_flag "hooks: the scenario's expectations hold (rc $rc)" "$([ "$rc" = 0 ] && echo 1)" \
    "$TMP/hooks.out" "$TMP/hooks.err"
c=0
python3 - "$TMP/hooks.out.json" >"$TMP/hooks.py" 2>&1 <<'EOF' && c=1
import json, sys
d = json.load(open(sys.argv[1]))
acts = [e for e in d["timeline"] if e["type"] == "activity"]
launch = [a for a in acts if a["description"].startswith("Launching a new EC2 instance")]
term = [a for a in acts if a["description"].startswith("Terminating EC2 instance")]
assert len(launch) == 1 and len(term) == 1, acts
# boot 30 s, then Pending:Wait for the handler's 180 s (plus up to one hook poll, 12 s)
assert 200 <= launch[0]["end_s"] - launch[0]["t_s"] <= 260, launch
# the scheduled action at 300 s; Terminating:Wait for the handler's 60 s, not the 300 s
# heartbeat
assert 300 <= term[0]["t_s"] <= 330 and 355 <= term[0]["end_s"] <= 450, term
print("launch", launch[0]["t_s"], launch[0]["end_s"], "terminate", term[0]["t_s"], term[0]["end_s"])
EOF
check_flag "hooks: the launch handler's 3 minutes in the time to InService, the terminate handler's minute in the termination" \
    "$c" "$TMP/hooks.py" "$TMP/hooks.err"
check_flag "hooks: every CompleteLifecycleAction accepted" \
    "$(! grep -q 'CompleteLifecycleAction' "$TMP/hooks.err" && echo 1)" "$TMP/hooks.err"

run never "$(ts 120)"
c=0
python3 - "$TMP/never.out.json" >"$TMP/never.py" 2>&1 <<'EOF' && c=1
import json, sys
d = json.load(open(sys.argv[1]))
launch = [e for e in d["timeline"] if e["type"] == "activity"
          and e["description"].startswith("Launching a new EC2 instance")]
# boot 30 s, then the heartbeat timeout's 240 s
assert len(launch) == 1 and 260 <= launch[0]["end_s"] - launch[0]["t_s"] <= 300, launch
EOF
check_flag "hooks: a hook without a handler is left to its heartbeat timeout (rc $rc)" \
    "$([ "$rc" = 0 ] && [ "$c" = 1 ] && echo 1)" "$TMP/never.py" "$TMP/never.err"

# --- scheduled actions ------------------------------------------------------------------
"$LG" scenario "$TMP/sched.json" --dry-run --prefix t >"$TMP/sched.plan"
check_flag "scheduled: the plan has the one-time action and each recurrence run at its scenario time" \
    "$(grep -q "ScheduledActionName=warm-up 'StartTime={at:1200000}' DesiredCapacity=2" "$TMP/sched.plan" &&
        grep -q "ScheduledActionName=up-1 'StartTime={at:3000000}' MinSize=1 DesiredCapacity=3" "$TMP/sched.plan" &&
        grep -q "ScheduledActionName=down-1 'StartTime={at:2400000}'" "$TMP/sched.plan" &&
        grep -q "ScheduledActionName=down-2 'StartTime={at:6000000}'" "$TMP/sched.plan" &&
        [ "$(grep -c PutScheduledUpdateGroupAction "$TMP/sched.plan")" = 4 ] && echo 1)" \
    "$TMP/sched.plan"
run sched 300
c=0
python3 - "$TMP/sched.out.json" >"$TMP/sched.py" 2>&1 <<'EOF' && c=1
import json, sys
d = json.load(open(sys.argv[1]))
des = {e["t_s"] // 60: e["groups"][0]["desired"] for e in d["timeline"] if e["type"] == "sample"}
want = {15: 1, 20: 1, 25: 2, 35: 2, 40: 2, 45: 1, 55: 3, 95: 3, 100: 3, 105: 1}
# a sample at the very minute of an action may see it or not
assert all(des[m] == v or m in (20, 40, 100) for m, v in want.items()), des
assert des[25] == 2 and des[45] == 1 and des[55] == 3 and des[105] == 1, des
EOF
check_flag "scheduled: the capacity changes at each action's scenario time (rc $rc)" \
    "$([ "$rc" = 0 ] && [ "$c" = 1 ] && echo 1)" "$TMP/sched.py" "$TMP/sched.out" "$TMP/sched.err"

# --- instance refresh -------------------------------------------------------------------
"$LG" scenario "$TMP/refresh.json" --dry-run --prefix t >"$TMP/refresh.plan"
check_flag "refresh: the plan switches the launch configuration, then starts the refresh at 300 s" \
    "$(grep -q '^@300 autoscaling UpdateAutoScalingGroup AutoScalingGroupName=t-web LaunchConfigurationName=t-web-v2$' "$TMP/refresh.plan" &&
        grep -q '^@300 autoscaling StartInstanceRefresh AutoScalingGroupName=t-web Preferences.MinHealthyPercentage=50 Preferences.InstanceWarmup=60$' "$TMP/refresh.plan" && echo 1)" \
    "$TMP/refresh.plan"
run refresh 120
c=0
python3 - "$TMP/refresh.out.json" >"$TMP/refresh.py" 2>&1 <<'EOF' && c=1
import json, sys
d = json.load(open(sys.argv[1]))
acts = [e for e in d["timeline"] if e["type"] == "activity"]
# the group's first two launch at the start; the refresh's at 300 s (the endpoint's clock
# against loadgen's may put its first a second earlier); nothing else launches
launches = [a for a in acts if a["description"].startswith("Launching")]
old = {a["description"].split(": ")[1] for a in launches if a["t_s"] < 150}
new = {a["description"].split(": ")[1] for a in launches if a["t_s"] >= 290}
gone = {a["description"].split(": ")[1] for a in acts
        if a["description"].startswith("Terminating") and "instance refresh" in a["cause"]}
assert len(launches) == 4 and len(old) == 2 and gone == old and len(new) == 2, (old, new, gone)
EOF
check_flag "refresh: both instances replaced by the refresh, InService never below 1 (rc $rc)" \
    "$([ "$rc" = 0 ] && [ "$c" = 1 ] && ! grep -q refused "$TMP/refresh.err" && echo 1)" \
    "$TMP/refresh.py" "$TMP/refresh.out" "$TMP/refresh.err"

# --- warm pool: reuse on scale-in with a terminate hook (docs/autoscaling.md 7.2) -------
cp "$ROOT/scenarios/warm-pool-hooks.json" "$TMP/warmhooks.json"
run warmhooks 120
c=0
python3 - "$TMP/warmhooks.out.json" >"$TMP/warmhooks.py" 2>&1 <<'EOF' && c=1
import json, sys
d = json.load(open(sys.argv[1]))
acts = [e for e in d["timeline"] if e["type"] == "activity"]
moved = [a for a in acts if a["description"].startswith("Moving EC2 instance to warm pool")]
term = [a for a in acts if a["description"].startswith("Terminating EC2 instance")]
# the scale-in at 1200 s: both wait in Warmed:Pending:Wait for the handler's 120 s (plus up
# to one hook poll, 12 s, and the deregistration), not the 300 s heartbeat
assert len(moved) == 2 and all(120 <= a["end_s"] - a["t_s"] <= 200 for a in moved), moved
# MaxSize 2 at 1800 s: the pool's surplus waits in Warmed:Terminating:Wait for the handler
assert len(term) == 1 and 1800 <= term[0]["t_s"] <= 1830, term
assert 120 <= term[0]["end_s"] - term[0]["t_s"] <= 200, term
g = d["summary"]["groups"][0]
assert g.get("warm_instance_hours", 0) > 0 and g["instance_hours"] > g["warm_instance_hours"], g
print("moved", [(a["t_s"], a["end_s"]) for a in moved], "terminated", term[0]["t_s"],
      term[0]["end_s"], "warm h", g["warm_instance_hours"])
EOF
check_flag "warm pool: the expectations hold; the returning instances wait for the terminate hook's handler (Warmed:Pending:Wait), the pool's surplus too (Warmed:Terminating:Wait); warm instance-hours counted (rc $rc)" \
    "$([ "$rc" = 0 ] && [ "$c" = 1 ] && echo 1)" "$TMP/warmhooks.py" "$TMP/warmhooks.out" "$TMP/warmhooks.err"
check_flag "warm pool: every CompleteLifecycleAction accepted (DescribeWarmPool tells launches from returns)" \
    "$(! grep -q 'CompleteLifecycleAction' "$TMP/warmhooks.err" && echo 1)" "$TMP/warmhooks.err"

# --- LaunchInstances (docs/autoscaling.md 11, docs/scenarios.md launch_instances) --------
python3 - "$ROOT/scenarios" "$TMP" <<'EOF'
import json, sys
src, tmp = sys.argv[1], sys.argv[2]
# no load, boot 30 s; the shipped file's calls at 3..8 minutes, us-east-1b down from 7
s = json.load(open(src + "/launch-instances.json"))
s["name"] = "launch-short"
s["duration"] = "16m"
s["sample"] = "30s"
s["load"] = []
inf = s["infrastructure"]
inf["launch_templates"][0]["app"]["boot_s"] = 30
g = inf["groups"][0]
g["health_check_grace_period"] = 60
g["launch_instances"] = [
    {"at": "3m", "requested_capacity": 3, "zone": "us-east-1a", "client_token": "burst-1"},
    {"at": "4m", "requested_capacity": 3, "zone": "us-east-1a", "client_token": "burst-1"},
    {"at": "5m", "requested_capacity": 4, "zone": "us-east-1a"},
    {"at": "6m", "requested_capacity": 1},
    {"at": "8m", "requested_capacity": 2, "zone": "us-east-1b",
     "retry_strategy": "retry-with-group-configuration"}]
s["faults"] = [{"at": "7m", "az_outage": {"zone": "us-east-1b", "for": "8m"}}]
s["expect"] = [
    {"name": "five after the first call", "at": "210s", "group": "web",
     "desired": {"min": 5, "max": 5}},
    {"name": "seven after the retried call", "at": "9m", "group": "web",
     "desired": {"min": 7, "max": 7}},
    {"name": "seven InService in the zone still up", "by": "14m", "group": "web",
     "in_service": {"min": 7}}]
json.dump(s, open(tmp + "/launch.json", "w"), indent=1)
EOF
"$LG" scenario "$TMP/launch.json" --dry-run --prefix t >"$TMP/launch.plan"
check_flag "launch: the plan makes the launch template, the group from it, each LaunchInstances at its second with the prefixed ClientToken, and deletes the template" \
    "$(grep -q '^ec2 CreateLaunchTemplate LaunchTemplateName=t-web-lt LaunchTemplateData.ImageId=ami-0c02fb55956c7d316 LaunchTemplateData.InstanceType=m5.large LaunchTemplateData.UserData=' "$TMP/launch.plan" &&
        grep -q '^autoscaling CreateAutoScalingGroup AutoScalingGroupName=t-web LaunchTemplate.LaunchTemplateName=t-web-lt MinSize=2' "$TMP/launch.plan" &&
        grep -q '^@180 autoscaling LaunchInstances AutoScalingGroupName=t-web RequestedCapacity=3 ClientToken=t-burst-1 AvailabilityZones.member.1=us-east-1a$' "$TMP/launch.plan" &&
        grep -q '^@360 autoscaling LaunchInstances AutoScalingGroupName=t-web RequestedCapacity=1 ClientToken=t-web-launch-4$' "$TMP/launch.plan" &&
        grep -q '^@480 autoscaling LaunchInstances AutoScalingGroupName=t-web RequestedCapacity=2 ClientToken=t-web-launch-5 AvailabilityZones.member.1=us-east-1b RetryStrategy=retry-with-group-configuration$' "$TMP/launch.plan" &&
        grep -q '^ec2 DeleteLaunchTemplate LaunchTemplateName=t-web-lt$' "$TMP/launch.plan" && echo 1)" \
    "$TMP/launch.plan"
run launch "$(ts 120)"
c=0
python3 - "$TMP/launch.out.json" >"$TMP/launch.py" 2>&1 <<'EOF' && c=1
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["timeline"] if e["type"] == "launch"]
assert [e["status"] for e in ev] == ["Successful", "Successful", "ValidationError",
                                     "ValidationError", "Failed"], ev
assert [e["t_s"] for e in ev] == [180, 240, 300, 360, 480], ev
first = ev[0]["instances"]
assert len(first) == 1 and first[0]["availability_zone"] == "us-east-1a" and \
    len(first[0]["instance_ids"]) == 3, ev[0]
# the reused token: its first reply, nothing launched again
assert ev[1]["instances"] == first and ev[1]["name"] == ev[0]["name"], ev[1]
assert ev[2]["description"] == ("New SetDesiredCapacity value 9 is above max value 8 for the "
                                "AutoScalingGroup."), ev[2]
assert ev[3]["description"].startswith("Either AvailabilityZones, AvailabilityZoneIds or "
                                       "SubnetIds must be specified"), ev[3]
assert ev[4]["instances"] == [] and ev[4]["errors"][0]["error_code"] == \
    "InsufficientInstanceCapacity", ev[4]
# the first call's instances are the group's launches at 180 s
acts = [e for e in d["timeline"] if e["type"] == "activity"
        and e["description"].startswith("Launching a new EC2 instance: ")]
launched = {a["description"].split(": ")[1] for a in acts if 175 <= a["t_s"] <= 185}
assert launched == set(first[0]["instance_ids"]), (launched, first)
print("launch events", [(e["t_s"], e["status"]) for e in ev])
EOF
check_flag "launch: the expectations hold; each call's reply or refusal on the timeline as the simulator's (rc $rc)" \
    "$([ "$rc" = 0 ] && [ "$c" = 1 ] && echo 1)" "$TMP/launch.py" "$TMP/launch.out" "$TMP/launch.err"
check_flag "launch: the teardown deleted the launch template (no refusal on stderr)" \
    "$(! grep -qi 'refused\|DeleteLaunchTemplate' "$TMP/launch.err" && echo 1)" "$TMP/launch.err"

finish
