#!/usr/bin/env bash
# Auto Scaling notifications through boto3 and the aws CLI at --time-scale 60
# (docs/autoscaling.md section 9): PutNotificationConfiguration makes a TEST_NOTIFICATION,
# a launch and a termination make EC2_INSTANCE_LAUNCH / _TERMINATE and a launch past
# --max-instances EC2_INSTANCE_LAUNCH_ERROR, each on the event stream (jsonl) with AWS's
# message body and POSTed to a loopback webhook receiver as SNS would; Describe's paging;
# Delete; the validation texts; a dead webhook neither blocks the API nor logs more than one
# warning per interval; the configuration survives --state; DescribeAutoScalingGroups
# Filters (section 10). TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

spawn recv python3 "$HERE/webhook_recv.py" --port-file "$TMP/recv.port" --out "$TMP/recv.jsonl" \
    --max-seconds 300
wait_port recv "$LAST" || exit 1
RECV_PORT=$PORT
start_emu emu --quiet --time-scale 60 --max-instances 2 --state "$TMP/state.json" \
    --notify-webhook "http://127.0.0.1:$RECV_PORT/sns" || exit 1
EMU_PID=$LAST

python3 - "$EP" "$TMP/recv.jsonl" <<'EOF' || failed=1
import json, os, sys, urllib.request
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep, recv = sys.argv[1], sys.argv[2]
asg = boto3.client("autoscaling", endpoint_url=ep)
TOPIC = "arn:aws:sns:us-east-1:123456789012:asg-events"
ALL = ["autoscaling:EC2_INSTANCE_LAUNCH", "autoscaling:EC2_INSTANCE_LAUNCH_ERROR",
       "autoscaling:EC2_INSTANCE_TERMINATE", "autoscaling:EC2_INSTANCE_TERMINATE_ERROR",
       "autoscaling:TEST_NOTIFICATION"]
LAUNCH_KEYS = {"Origin", "Destination", "Progress", "AccountId", "Description", "RequestId",
               "EndTime", "AutoScalingGroupARN", "ActivityId", "StartTime", "Service", "Time",
               "EC2InstanceId", "StatusCode", "StatusMessage", "Details", "AutoScalingGroupName",
               "Cause", "Event"}

def events():
    with urllib.request.urlopen(ep + "/_scalelab/events?format=jsonl", timeout=5) as r:
        return [json.loads(l) for l in r.read().decode().splitlines() if l]

def notes(kind, group="g1"):
    return [e for e in events() if e["type"] == "notification"
            and e["notification_type"] == kind and e["group"] == group]

def posted(kind):
    out = []
    if os.path.exists(recv):
        for l in open(recv):
            r = json.loads(l)
            env = json.loads(r["body"])
            if json.loads(env["Message"]).get("Event") == kind:
                out.append((r, env))
    return out

def error_of(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

asg.create_launch_configuration(LaunchConfigurationName="lc1", ImageId="ami-12345678",
                                InstanceType="m1.small", UserData=json.dumps({"boot_s": 20}))
asg.create_auto_scaling_group(AutoScalingGroupName="g1", LaunchConfigurationName="lc1",
                              MinSize=0, MaxSize=4, DesiredCapacity=0,
                              AvailabilityZones=["us-east-1a"])

types = asg.describe_auto_scaling_notification_types()["AutoScalingNotificationTypes"]
check("DescribeAutoScalingNotificationTypes: AWS's five", types == ALL, types)

asg.put_notification_configuration(AutoScalingGroupName="g1", TopicARN=TOPIC, NotificationTypes=ALL)
t = wait(lambda: notes("autoscaling:TEST_NOTIFICATION"), 10)
m = t[0]["message"] if t else {}
check("Put: a TEST_NOTIFICATION event with AWS's body",
      t and set(m) == {"AccountId", "RequestId", "AutoScalingGroupARN", "AutoScalingGroupName",
                       "Service", "Event", "Time"}
      and m["Service"] == "AWS Auto Scaling" and m["AutoScalingGroupName"] == "g1"
      and t[0]["topic_arn"] == TOPIC and t[0]["subject"] == 'Auto Scaling: test notification for group "g1"', t)
p = wait(lambda: posted("autoscaling:TEST_NOTIFICATION"), 10)
check("Put: the TEST_NOTIFICATION POSTed to the webhook as SNS posts it",
      p and p[0][0]["path"] == "/sns" and p[0][0]["headers"].get("x-amz-sns-message-type") == "Notification"
      and p[0][0]["headers"].get("x-amz-sns-topic-arn") == TOPIC and p[0][1]["Type"] == "Notification"
      and p[0][1]["TopicArn"] == TOPIC and json.loads(p[0][1]["Message"]) == m, p)

d = asg.describe_notification_configurations(AutoScalingGroupNames=["g1"])
check("Describe: one item per type, in AWS's type order",
      [(c["AutoScalingGroupName"], c["TopicARN"], c["NotificationType"]) for c in d["NotificationConfigurations"]]
      == [("g1", TOPIC, x) for x in ALL] and "NextToken" not in d, d)
page1 = asg.describe_notification_configurations(MaxRecords=2)
page2 = asg.describe_notification_configurations(MaxRecords=2, NextToken=page1["NextToken"])
page3 = asg.describe_notification_configurations(MaxRecords=2, NextToken=page2["NextToken"])
check("Describe pages with MaxRecords and NextToken",
      [c["NotificationType"] for p_ in (page1, page2, page3) for c in p_["NotificationConfigurations"]] == ALL
      and "NextToken" not in page3, (page1, page2, page3))
check("Describe: a NextToken not issued is InvalidNextToken",
      (error_of(asg.describe_notification_configurations, NextToken="bogus") or ("",))[0] == "InvalidNextToken")

asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=1)
l = wait(lambda: notes("autoscaling:EC2_INSTANCE_LAUNCH"), 30)
m = l[0]["message"] if l else {}
inst = [i["InstanceId"] for i in asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g1"])["AutoScalingGroups"][0]["Instances"]]
check("a launch: EC2_INSTANCE_LAUNCH with AWS's field set once the instance is InService",
      l and set(m) == LAUNCH_KEYS and m["EC2InstanceId"] == inst[0] == l[0]["instance_id"]
      and m["Description"] == "Launching a new EC2 instance: " + inst[0]
      and m["StatusCode"] == "InProgress" and m["Progress"] == 50
      and m["Origin"] == "EC2" and m["Destination"] == "AutoScalingGroup"
      and m["Details"] == {"Availability Zone": "us-east-1a"} and m["EndTime"] == m["Time"]
      and "changing the desired capacity from 0 to 1" in m["Cause"], l)
check("a launch: POSTed to the webhook with subject 'Auto Scaling: launch for group \"g1\"'",
      wait(lambda: [e for _, e in posted("autoscaling:EC2_INSTANCE_LAUNCH")
                    if e["Subject"] == 'Auto Scaling: launch for group "g1"'], 10))

asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=0)
t = wait(lambda: notes("autoscaling:EC2_INSTANCE_TERMINATE"), 30)
m = t[0]["message"] if t else {}
check("a scale-in: EC2_INSTANCE_TERMINATE, Origin AutoScalingGroup, Destination EC2",
      t and set(m) == LAUNCH_KEYS and m["EC2InstanceId"] == inst[0]
      and m["Description"] == "Terminating EC2 instance: " + inst[0]
      and m["Origin"] == "AutoScalingGroup" and m["Destination"] == "EC2", t)
check("a scale-in: POSTed to the webhook",
      wait(lambda: [e for _, e in posted("autoscaling:EC2_INSTANCE_TERMINATE")
                    if e["Subject"] == 'Auto Scaling: termination for group "g1"'], 10))

# --max-instances 2: the third launch fails (InsufficientInstanceCapacity)
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=3)
e = wait(lambda: notes("autoscaling:EC2_INSTANCE_LAUNCH_ERROR"), 30)
m = e[0]["message"] if e else {}
check("a failed launch: EC2_INSTANCE_LAUNCH_ERROR, StatusCode Failed, the reason, no instance",
      e and set(m) == LAUNCH_KEYS and m["StatusCode"] == "Failed" and m["Progress"] == 100
      and m["EC2InstanceId"] == "" and m["StatusMessage"]
      and m["Description"].startswith("Launching a new EC2 instance.  Status Reason: ")
      and e[0]["subject"] == 'Auto Scaling: failed launch for group "g1"', e)
asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=0)

# only the types configured
asg.create_auto_scaling_group(AutoScalingGroupName="g2", LaunchConfigurationName="lc1",
                              MinSize=0, MaxSize=1, AvailabilityZones=["us-east-1a"])
asg.put_notification_configuration(AutoScalingGroupName="g2", TopicARN=TOPIC,
                                   NotificationTypes=["autoscaling:EC2_INSTANCE_TERMINATE"])
check("a Put whose types leave out TEST_NOTIFICATION still sends the test notification",
      wait(lambda: notes("autoscaling:TEST_NOTIFICATION", "g2"), 10))
wait(lambda: asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g1"])["AutoScalingGroups"][0]["Instances"] == [], 40)
asg.set_desired_capacity(AutoScalingGroupName="g2", DesiredCapacity=1)
wait(lambda: [i for i in asg.describe_auto_scaling_groups(AutoScalingGroupNames=["g2"])["AutoScalingGroups"][0]["Instances"]
              if i["LifecycleState"] == "InService"], 30)
check("a type not configured is not sent (g2's launch)", notes("autoscaling:EC2_INSTANCE_LAUNCH", "g2") == [])

# validation (nothing changes)
check("unknown group: AWS's text",
      error_of(asg.put_notification_configuration, AutoScalingGroupName="nope", TopicARN=TOPIC,
               NotificationTypes=ALL) == ("ValidationError", "AutoScalingGroup name not found - null"))
err = error_of(asg.put_notification_configuration, AutoScalingGroupName="g1", TopicARN=TOPIC,
               NotificationTypes=["autoscaling:EC2_INSTANCE_REBOOT"])
check("unknown notification type: ValidationError naming it",
      err and err[0] == "ValidationError" and "autoscaling:EC2_INSTANCE_REBOOT" in err[1], err)
err = error_of(asg.put_notification_configuration, AutoScalingGroupName="g1",
               TopicARN="arn:aws:sqs:us-east-1:123456789012:q", NotificationTypes=ALL)
check("a topic ARN that is not an SNS topic's: ValidationError", err and err[0] == "ValidationError", err)
for i in range(9):
    asg.put_notification_configuration(AutoScalingGroupName="g1", TopicARN=TOPIC + str(i),
                                       NotificationTypes=["autoscaling:EC2_INSTANCE_LAUNCH"])
err = error_of(asg.put_notification_configuration, AutoScalingGroupName="g1", TopicARN=TOPIC + "x",
               NotificationTypes=ALL)
check("an eleventh topic: LimitExceeded", err and err[0] == "LimitExceeded", err)
for i in range(9):
    asg.delete_notification_configuration(AutoScalingGroupName="g1", TopicARN=TOPIC + str(i))
check("Describe after the errors: g1 still has its one topic",
      {c["TopicARN"] for c in asg.describe_notification_configurations(AutoScalingGroupNames=["g1"])["NotificationConfigurations"]} == {TOPIC})
err = error_of(asg.delete_notification_configuration, AutoScalingGroupName="g1", TopicARN=TOPIC + "x")
check("Delete of a topic not configured: ValidationError", err and err[0] == "ValidationError", err)

# DescribeAutoScalingGroups Filters (docs/autoscaling.md section 10)
asg.create_or_update_tags(Tags=[
    {"ResourceId": "g1", "ResourceType": "auto-scaling-group", "Key": "env", "Value": "prod", "PropagateAtLaunch": False},
    {"ResourceId": "g2", "ResourceType": "auto-scaling-group", "Key": "env", "Value": "dev", "PropagateAtLaunch": False},
    {"ResourceId": "g2", "ResourceType": "auto-scaling-group", "Key": "team", "Value": "prod", "PropagateAtLaunch": False}])
def names(**kw):
    return sorted(g["AutoScalingGroupName"] for g in asg.describe_auto_scaling_groups(**kw)["AutoScalingGroups"])
check("Filters tag:env=prod: g1 only", names(Filters=[{"Name": "tag:env", "Values": ["prod"]}]) == ["g1"])
check("Filters values OR'd: tag:env in (prod, dev)", names(Filters=[{"Name": "tag:env", "Values": ["prod", "dev"]}]) == ["g1", "g2"])
check("Filters tag-key=team: g2", names(Filters=[{"Name": "tag-key", "Values": ["team"]}]) == ["g2"])
check("Filters AND'd, each on its own: tag-key=env and tag-value=prod match both",
      names(Filters=[{"Name": "tag-key", "Values": ["env"]}, {"Name": "tag-value", "Values": ["prod"]}]) == ["g1", "g2"])
check("Filters with AutoScalingGroupNames: both hold",
      names(AutoScalingGroupNames=["g1"], Filters=[{"Name": "tag-key", "Values": ["team"]}]) == [])
check("Filters are case-sensitive", names(Filters=[{"Name": "tag:env", "Values": ["Prod"]}]) == [])
err = error_of(asg.describe_auto_scaling_groups, Filters=[{"Name": "instance-type", "Values": ["m1.small"]}])
check("an unknown filter name: ValidationError", err and err[0] == "ValidationError" and "instance-type" in err[1], err)
sys.exit(tap.failed)
EOF

# --- the aws CLI ---
if need aws awscli; then
    check "aws CLI put-notification-configuration" aws --endpoint-url "$EP" autoscaling \
        put-notification-configuration --auto-scaling-group-name g2 \
        --topic-arn arn:aws:sns:us-east-1:123456789012:cli-topic \
        --notification-types autoscaling:EC2_INSTANCE_LAUNCH autoscaling:EC2_INSTANCE_TERMINATE
    out=$(aws --endpoint-url "$EP" autoscaling describe-notification-configurations \
        --auto-scaling-group-names g2 --query 'NotificationConfigurations[?TopicARN==`arn:aws:sns:us-east-1:123456789012:cli-topic`].NotificationType' --output text)
    check "aws CLI describe-notification-configurations lists both types" \
        test "$out" = "autoscaling:EC2_INSTANCE_LAUNCH	autoscaling:EC2_INSTANCE_TERMINATE"
    check "aws CLI: its TEST_NOTIFICATION on the event stream" sh -c \
        "curl -s '$EP/_scalelab/events?format=jsonl' | grep -q '\"topic_arn\": *\"arn:aws:sns:us-east-1:123456789012:cli-topic\"'"
    out=$(aws --endpoint-url "$EP" autoscaling describe-auto-scaling-groups \
        --filters Name=tag:env,Values=prod --query 'AutoScalingGroups[].AutoScalingGroupName' --output text)
    check "aws CLI describe-auto-scaling-groups --filters Name=tag:env,Values=prod" test "$out" = g1
    check "aws CLI delete-notification-configuration" aws --endpoint-url "$EP" autoscaling \
        delete-notification-configuration --auto-scaling-group-name g2 \
        --topic-arn arn:aws:sns:us-east-1:123456789012:cli-topic
fi

# --- --state: the configurations come back ---
kill -TERM -- "-$EMU_PID"
wait "$EMU_PID" 2>/dev/null || true
start_emu emu2 --quiet --state "$TMP/state.json" || exit 1
check "--state: the configurations are saved and loaded" python3 -c "
import boto3, sys
a = boto3.client('autoscaling', endpoint_url='$EP')
c = a.describe_notification_configurations()['NotificationConfigurations']
sys.exit(0 if ('g1', 'arn:aws:sns:us-east-1:123456789012:asg-events', 'autoscaling:TEST_NOTIFICATION') in
         [(x['AutoScalingGroupName'], x['TopicARN'], x['NotificationType']) for x in c]
         and ('g2', 'arn:aws:sns:us-east-1:123456789012:asg-events', 'autoscaling:EC2_INSTANCE_TERMINATE') in
         [(x['AutoScalingGroupName'], x['TopicARN'], x['NotificationType']) for x in c] else 1)"

# --- a dead webhook and a slow one: the API answers at once, one warning per interval ---
PUTS='
import boto3, sys, time
a = boto3.client("autoscaling", endpoint_url=sys.argv[1])
a.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-1", InstanceType="m1.small")
a.create_auto_scaling_group(AutoScalingGroupName="d", LaunchConfigurationName="lc", MinSize=0, MaxSize=1, AvailabilityZones=["us-east-1a"])
worst = 0
for i in range(30):
    t = time.monotonic()
    a.put_notification_configuration(AutoScalingGroupName="d", TopicARN="arn:aws:sns:us-east-1:123456789012:t", NotificationTypes=["autoscaling:TEST_NOTIFICATION"])
    worst = max(worst, time.monotonic() - t)
print("slowest Put %.3f s" % worst)
sys.exit(0 if worst < 2 else 1)
'
start_emu emu3 --time-scale 60 --notify-webhook "http://127.0.0.1:1/dead" || exit 1
check "a dead webhook: each of 30 Puts (30 failed posts) answers within 2 s" python3 -c "$PUTS" "$EP"
sleep 1
check "a dead webhook: one warning for the 30 failures" test "$(grep -c 'W webhook:' "$TMP/emu3.log")" -eq 1
spawn slow python3 "$HERE/webhook_recv.py" --port-file "$TMP/slow.port" --out "$TMP/slow.jsonl" \
    --delay-ms 30000 --max-seconds 120
wait_port slow "$LAST" || exit 1
start_emu emu4 --time-scale 60 --notify-webhook "http://127.0.0.1:$PORT/slow" || exit 1
check "a slow webhook (answers after 30 s): each of 30 Puts answers within 2 s" python3 -c "$PUTS" "$EP"
wait_for 15 grep -q 'W webhook:' "$TMP/emu4.log" || true
check "a slow webhook: the posts time out (5 s) with one warning" test "$(grep -c 'W webhook:' "$TMP/emu4.log")" -eq 1

if [ "$failed" != 0 ]; then tail -n 30 "$TMP/emu.log" | sed 's/^/# emu: /'; fi
finish
