#!/usr/bin/env bash
# Instance faults checked by the admin API before they reach the process (issue 19 finding
# 12: the fault string went into the instance's request line unchecked, so a CRLF in it
# smuggled a second request; `slow=-5` was ignored by the instance but answered 200;
# `slow=nan` made /_instance/status print invalid JSON): each bad value answers 400 naming
# the problem and the instance's faults do not change; a good one applies; the status
# stays valid JSON. docs/admin-api.md. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need python3 python3-boto3 || finish

start_emu emu --quiet --time-scale 60 || { notok "emulator starts"; finish; }

python3 - "$EP" <<'PY' || failed=1
import json, sys, urllib.error, urllib.request
import boto3
import tap
from tap import check, wait

ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                InstanceType="m1.small", UserData=json.dumps({"boot_s": 0}))
asg.create_auto_scaling_group(AutoScalingGroupName="g", LaunchConfigurationName="lc",
                              MinSize=1, MaxSize=1, AvailabilityZones=["us-east-1a"])


def port():
    for r in ec2.describe_instances()["Reservations"]:
        for i in r["Instances"]:
            for t in i.get("Tags", []):
                if t["Key"] == "scalelab:port" and i["State"]["Name"] == "running":
                    return i["InstanceId"], int(t["Value"])
    return None


got = wait(port, 20)
check("the group's instance runs and listens", got)
if not got:
    sys.exit(1)
iid, iport = got


def fault(f):
    body = json.dumps({"instance_id": iid, "fault": f}).encode()
    req = urllib.request.Request(ep + "/_scalelab/fault", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def status():
    with urllib.request.urlopen("http://127.0.0.1:%d/_instance/status" % iport, timeout=5) as r:
        return json.loads(r.read())  # raises on invalid JSON


for f, want in (("slow=-5", "slow must be a number from 0 to 1000, not '-5'"),
                ("slow=nan", "slow must be a number from 0 to 1000, not 'nan'"),
                ("slow=inf", "slow must be a number from 0 to 1000, not 'inf'"),
                ("slow=1001", "slow must be a number from 0 to 1000, not '1001'"),
                ("error_rate=1.5", "error_rate must be a number from 0 to 1, not '1.5'"),
                ("fail_health=2", "fail_health must be 0, 1, true or false, not '2'"),
                ("slow=", "slow must be a number from 0 to 1000, not ''"),
                ("explode=1", "unknown fault 'explode' (slow, error_rate, fail_health)"),
                ("slow=2 HTTP/1.1\r\nHost: x\r\n\r\nGET /_instance/fault?slow=500",
                 "fault holds byte 0x20 at 6: only kill, hang, resume, slow=K, fail_health=0|1, "
                 "error_rate=P"),
                ("slow=2\r\nGET /_instance/fault?slow=500",
                 "fault holds byte 0x0d at 6: only kill, hang, resume, slow=K, fail_health=0|1, "
                 "error_rate=P"),
                ("slow=2%0d%0a", "fault holds byte 0x25 at 6: only kill, hang, resume, slow=K, "
                 "fail_health=0|1, error_rate=P"),
                ("", "fault must be 1 to 200 bytes")):
    code, body = fault(f)
    check("fault %r: 400 naming the problem" % f, code == 400 and body.get("error") == want,
          "%d %r" % (code, body))
s = status()
check("after the refused faults the instance's slow, error_rate and fail_health are unchanged "
      "(no smuggled request applied)",
      (s["slow"], s["error_rate"], s["fail_health"]) == (1, 0, False), repr(s))
code, body = fault("slow=2.5&error_rate=0.25")
check("fault slow=2.5&error_rate=0.25: 200", code == 200 and body["status"] == "ok", repr(body))
s = wait(lambda: (lambda v: v if v["slow"] == 2.5 else None)(status()), 5)
check("the instance applies it and its status is valid JSON",
      s and s["slow"] == 2.5 and s["error_rate"] == 0.25, repr(s))
code, body = fault("slow=1&error_rate=0")
check("the fault lifted: 200", code == 200, repr(body))
sys.exit(tap.failed)
PY
finish
