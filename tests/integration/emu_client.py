#!/usr/bin/env python3
"""Client-side checks for tests/integration/test_emulator.sh with boto3 (Debian's, as the
tests run it: CloudWatch, Auto Scaling and EC2 over query). CloudWatch over JSON 1.0 and
RPC v2 CBOR, and gzip request bodies, are checked with the AWS SDK for JavaScript v3
(js/cloudwatch.mjs).

    emu_client.py ENDPOINT CHECK
Prints "ok" on success, else a reason, exit 1."""
import sys
import time

import boto3
from botocore.exceptions import ClientError

EP = sys.argv[1]
CHECK = sys.argv[2]


def client(svc, region="us-east-1", **kw):
    import os
    return boto3.client(svc, endpoint_url=EP, region_name=region,
                        aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "testing"),
                        aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "testing"),
                        **kw)


def expect_error(fn, code, text=None):
    try:
        fn()
    except ClientError as e:
        got = e.response["Error"]["Code"]
        msg = e.response["Error"].get("Message", "")
        if got != code:
            raise SystemExit("want %s, got %s: %s" % (code, got, msg))
        if text and text not in msg:
            raise SystemExit("message %r lacks %r" % (msg, text))
        return e
    raise SystemExit("no error, want %s" % code)


def signed_post(body, service="monitoring", region="us-east-1", auth_cls=None, extra=None,
                send_body=None):
    """POSTs a form body signed with botocore's SigV4Auth (or a subclass of it); returns
    (status, error code, error message) of the reply (code and message None on success)."""
    import os
    import urllib.error
    import urllib.request
    import xml.etree.ElementTree as ET
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials

    headers = {"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}
    headers.update(extra or {})
    r = AWSRequest(method="POST", url=EP + "/", data=body, headers=headers)
    creds = Credentials(os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"])
    (auth_cls or SigV4Auth)(creds, service, region).add_auth(r)
    data = (send_body if send_body is not None else body).encode()
    q = urllib.request.Request(EP + "/", data=data, headers=dict(r.headers.items()), method="POST")
    try:
        with urllib.request.urlopen(q, timeout=10) as resp:
            return resp.status, None, None
    except urllib.error.HTTPError as e:
        text = {}
        for el in ET.fromstring(e.read()).iter():
            text.setdefault(el.tag.rsplit("}", 1)[-1], el.text)  # tags without xmlns
        return e.code, text.get("Code"), text.get("Message")


def expect_refused(got, status, code, message):
    if got != (status, code, message):
        raise SystemExit("want %r, got %r" % ((status, code, message), got))


def main():
    if CHECK == "sigv4-strict":
        # SigV4 as AWS verifies it for CloudWatch's query endpoint (--auth sigv4)
        from botocore.auth import SigV4Auth

        class NoHost(SigV4Auth):
            def headers_to_sign(self, request):
                h = super().headers_to_sign(request)
                del h["host"]
                return h

        class Unsigned(SigV4Auth):
            def payload(self, request):
                return "UNSIGNED-PAYLOAD"

        alarms = "Action=DescribeAlarms&Version=2010-08-01"
        put = ("Action=PutMetricAlarm&Version=2010-08-01&AlarmName=replayed&MetricName=m"
               "&Namespace=n&Statistic=Average&Period=60&EvaluationPeriods=1&Threshold=1"
               "&ComparisonOperator=GreaterThanThreshold")
        assert signed_post(alarms) == (200, None, None)
        # 100 signed headers: every one is read, not the first 64
        many = {"X-Extra-%03d" % i: "v%d" % i for i in range(100)}
        assert signed_post(alarms, extra=many) == (200, None, None)
        expect_refused(signed_post(alarms, service="s3"), 403, "SignatureDoesNotMatch",
                       "Credential should be scoped to correct service: 'monitoring'. ")
        expect_refused(signed_post(alarms, region="xx-fake-9"), 403, "SignatureDoesNotMatch",
                       "Credential should be scoped to a valid region, not 'xx-fake-9'. ")
        expect_refused(signed_post(alarms, auth_cls=NoHost), 403, "SignatureDoesNotMatch",
                       "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
        mismatch = ("The request signature we calculated does not match the signature you "
                    "provided. Check your AWS Secret Access Key and signing method. Consult the "
                    "service documentation for details.")
        unsigned = {"X-Amz-Content-SHA256": "UNSIGNED-PAYLOAD"}
        expect_refused(signed_post(alarms, auth_cls=Unsigned, extra=unsigned), 403,
                       "SignatureDoesNotMatch", mismatch)
        # a DescribeAlarms signature replayed with a PutMetricAlarm body creates nothing
        expect_refused(signed_post(alarms, auth_cls=Unsigned, extra=unsigned, send_body=put),
                       403, "SignatureDoesNotMatch", mismatch)
        names = [a["AlarmName"] for a in client("cloudwatch").describe_alarms()["MetricAlarms"]]
        assert "replayed" not in names, names
    elif CHECK == "boto3-autoscaling":
        r = client("autoscaling").describe_scaling_process_types()
        names = [p["ProcessName"] for p in r["Processes"]]
        assert "AlarmNotification" in names and len(names) == 9, names
        asg = client("autoscaling")
        asg.create_launch_configuration(LaunchConfigurationName="lc-b3", ImageId="ami-12345678",
                                        InstanceType="t3.micro")
        for n in ("pg-a", "pg-b", "pg-c"):
            asg.create_auto_scaling_group(AutoScalingGroupName=n, LaunchConfigurationName="lc-b3",
                                          MinSize=0, MaxSize=2, AvailabilityZones=["us-east-1a"])
        p1 = asg.describe_auto_scaling_groups(MaxRecords=2)
        assert [g["AutoScalingGroupName"] for g in p1["AutoScalingGroups"]] == ["pg-a", "pg-b"], p1
        p2 = asg.describe_auto_scaling_groups(MaxRecords=2, NextToken=p1["NextToken"])
        assert [g["AutoScalingGroupName"] for g in p2["AutoScalingGroups"]] == ["pg-c"], p2
        assert "NextToken" not in p2, p2
        assert p2["AutoScalingGroups"][0]["Instances"] == [], p2
        expect_error(lambda: asg.describe_auto_scaling_groups(NextToken="garbage"),
                     "InvalidNextToken")
        expect_error(lambda: asg.create_auto_scaling_group(
            AutoScalingGroupName="pg-a", LaunchConfigurationName="lc-b3", MinSize=0, MaxSize=1,
            AvailabilityZones=["us-east-1a"]), "AlreadyExists")
        expect_error(lambda: asg.update_auto_scaling_group(AutoScalingGroupName="pg-a", MinSize=5,
                                                           MaxSize=3),
                     "ValidationError", "Max bound, 3, must be greater than or equal to min bound, 5")
        for n in ("pg-a", "pg-b", "pg-c"):
            asg.delete_auto_scaling_group(AutoScalingGroupName=n)
        expect_error(lambda: client("autoscaling").describe_lifecycle_hooks(
            AutoScalingGroupName="x"), "ValidationError",
            "AutoScalingGroup name not found - AutoScalingGroup: x not found")
        # served since issue 13 part 6; every botocore has the call
        got = client("autoscaling").describe_notification_configurations()
        assert got["NotificationConfigurations"] == [], got
    elif CHECK == "boto3-ec2":
        ec2 = client("ec2", region="eu-west-1")
        zones = [z["ZoneName"] for z in ec2.describe_availability_zones()["AvailabilityZones"]]
        assert zones == ["eu-west-1a", "eu-west-1b", "eu-west-1c"], zones
        # the profile boots at once (the default boot_s is 60)
        r = ec2.run_instances(ImageId="ami-12345678", MinCount=1, MaxCount=3, InstanceType="t3.micro",
                              UserData='{"boot_s": 0}')
        ids = [i["InstanceId"] for i in r["Instances"]]
        assert len(ids) == 3 and all(i["State"]["Name"] == "pending" for i in r["Instances"]), r
        lt = r["Instances"][0]["LaunchTime"]
        assert lt.year >= 2026, lt
        d = ec2.describe_instances(InstanceIds=ids)
        got = [i["InstanceId"] for res in d["Reservations"] for i in res["Instances"]]
        assert sorted(got) == sorted(ids), got
        # boot_s 0 is running once its process listens: a moment, longer under a sanitizer
        for _ in range(100):
            first = ec2.describe_instances(InstanceIds=ids[:1])["Reservations"][0]["Instances"][0]
            if first["State"]["Name"] == "running":
                break
            time.sleep(0.1)
        t = ec2.terminate_instances(InstanceIds=ids[:1])["TerminatingInstances"][0]
        assert t["CurrentState"]["Name"] == "shutting-down" and t["PreviousState"]["Code"] == 16, t
        expect_error(lambda: ec2.terminate_instances(InstanceIds=["i-bogus"]),
                     "InvalidInstanceID.Malformed")
        # another region keeps its own records
        other = client("ec2", region="us-west-2").describe_instances()["Reservations"]
        assert other == [], other
    elif CHECK == "boto3-cloudwatch":
        cw = client("cloudwatch")
        expect_error(lambda: cw.set_alarm_state(AlarmName="a", StateValue="INVALID", StateReason="r"),
                     "ValidationError",
                     "1 validation error detected: Value 'INVALID' at 'stateValue' failed to "
                     "satisfy constraint: Member must satisfy enum value set: [")
        e = expect_error(lambda: cw.describe_alarms(AlarmNames=["x" * 300]), "ValidationError",
                         "Member must have length less than or equal to 255")
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        assert e.response["ResponseMetadata"]["RequestId"], e.response
    else:
        raise SystemExit("unknown check " + CHECK)
    print("ok")


main()
