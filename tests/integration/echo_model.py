"""tests/integration/echo_model.py: exact echo, model-driven (issue 16 part 3; run by
test_echo_model.sh). For each create/update operation of Auto Scaling groups, launch
configurations, scaling policies, launch templates, classic load balancers and metric
alarms, every member of its input shape in the carried models (emulator/models/, read
with Debian's botocore) is set, one at a time, over a minimal valid request, to a value
built from its shape (enums, bounds and nested structures from the model; names, ids
and ARNs of real resources where the model cannot know them). A request the emulator
refuses is a member it does not accept (listed, with the error code). A request it
accepts is read back with the Describe call, and the member must come back with the
value sent (nested structures may carry more: AWS's defaults). A member accepted and not
returned, or returned otherwise, is a failure. Members AWS itself never returns (request
options such as ClientToken or SkipZonalShiftValidation, and members whose home is
another Describe) are named in INPUT_ONLY with where they show. TAP lines.

usage: python3 echo_model.py ENDPOINT MODELS_DIR"""
import base64
import datetime
import json
import os
import sys

import boto3
import botocore.model

import tap
from tap import check

EP, MODELS = sys.argv[1], sys.argv[2]
ZONE = "us-east-1a"
AMI = "ami-0c02fb55956c7d316"


def client(name):
    return boto3.client(name, endpoint_url=EP)


asg, ec2, elb, cw = client("autoscaling"), client("ec2"), client("elb"), client("cloudwatch")


def model(name):
    with open(os.path.join(MODELS, name + ".json")) as f:
        return botocore.model.ServiceModel(json.load(f), name)


# --- values from shapes --------------------------------------------------------------------


def gen(shape, path, over, depth=0):
    """A value for shape at path (dotted member names; list items add nothing): over[path]
    when given, else one built from the shape's type and constraints."""
    if path in over:
        return over[path]
    t = shape.type_name
    if t == "structure":
        out = {}
        if depth > 4:
            return out
        for name, m in shape.members.items():
            p = path + "." + name
            if p in over and over[p] is None:
                continue  # left out on purpose
            out[name] = gen(m, p, over, depth + 1)
        return out
    if t == "list":
        return [gen(shape.member, path, over, depth + 1)]
    if t == "map":
        return {"k1": gen(shape.value, path + ".value", over, depth + 1)}
    if t == "string":
        enum = shape.metadata.get("enum")
        if enum:
            return enum[0]
        n = max(shape.metadata.get("min", 1), 4)
        return ("echo" * 8)[:n]
    if t in ("integer", "long"):
        lo = shape.metadata.get("min", 1)
        return int(max(lo, 1))
    if t in ("double", "float"):
        return 1.5
    if t == "boolean":
        return True
    if t == "timestamp":
        return datetime.datetime(2027, 1, 1, tzinfo=datetime.timezone.utc)
    if t == "blob":
        return b"echo"
    raise ValueError(f"{path}: shape type {t}")


def same(sent, got):
    """sent comes back in got: equal scalars (numbers by value, timestamps by instant),
    lists of the same length item by item, structures member by member (got may have
    more members: defaults AWS fills). Returns None, or where they differ."""
    if isinstance(sent, dict):
        if not isinstance(got, dict):
            return f"{got!r} is not a structure"
        for k, v in sent.items():
            if k not in got:
                return f"{k} missing"
            d = same(v, got[k])
            if d:
                return f"{k}: {d}"
        return None
    if isinstance(sent, list):
        if not isinstance(got, list) or len(got) != len(sent):
            return f"{got!r} for {sent!r}"
        for i, (a, b) in enumerate(zip(sent, got)):
            d = same(a, b)
            if d:
                return f"[{i}]: {d}"
        return None
    if isinstance(sent, bool) or isinstance(got, bool):
        return None if sent is got else f"{got!r} for {sent!r}"
    if isinstance(sent, (int, float)) and isinstance(got, (int, float)):
        return None if float(sent) == float(got) else f"{got!r} for {sent!r}"
    if isinstance(sent, bytes) and isinstance(got, bytes):
        return None if sent == got else f"{got!r} for {sent!r}"
    return None if sent == got else f"{got!r} for {sent!r}"


# --- the cases -----------------------------------------------------------------------------

results = {"echoed": [], "refused": [], "input-only": [], "failed": []}
# what AWS returns for a value sent, where it is not the value itself: botocore base64s
# a launch configuration's UserData before sending it (its handler), the Describe returns
# that text
expect = {"CreateLaunchConfiguration.UserData": lambda v: base64.b64encode(v.encode()).decode()}


def err_code(e):
    if type(e).__name__ == "ParamValidationError":
        return "this botocore does not know the member; the client refused it"
    return getattr(e, "response", {}).get("Error", {}).get("Code", type(e).__name__)


def run_case(svc, op, base, over, make, read, cleanup, skip, input_only, replaces=None):
    """Each member of op's input shape not in skip (members of the minimal request, or
    the name): make(request) creates, read() returns the described record, cleanup()
    removes it. replaces[member] lists base members the member stands in for."""
    shape = model(svc).operation_model(op).input_shape
    replaces = replaces or {}
    for name, m in shape.members.items():
        if name in skip:
            continue
        req = {k: v for k, v in base.items() if k not in replaces.get(name, ())}
        req[name] = gen(m, name, over)
        label = f"{op}.{name}"
        try:
            make(req)
        except Exception as e:  # botocore ClientError, or a parameter the client refused
            results["refused"].append(f"{label} ({err_code(e)})")
            cleanup()
            continue
        try:
            if name in input_only:
                results["input-only"].append(f"{label}: {input_only[name]}")
                continue
            got = read()
            if name not in got:
                results["failed"].append(f"{label}: accepted, not returned")
                continue
            d = same(expect.get(label, lambda v: v)(req[name]), got[name])
            if d:
                results["failed"].append(f"{label}: returned otherwise: {d}")
            else:
                results["echoed"].append(label)
        finally:
            cleanup()


def ignore(f, *a, **k):
    try:
        f(*a, **k)
    except Exception:
        pass


# the resources other requests name
subnet = ec2.describe_subnets(Filters=[{"Name": "availability-zone", "Values": [ZONE]}])["Subnets"][0]
sg = ec2.create_security_group(GroupName="echo-sg", Description="echo")["GroupId"]
elb.create_load_balancer(LoadBalancerName="echo-elb", AvailabilityZones=[ZONE],
                         Listeners=[{"Protocol": "HTTP", "LoadBalancerPort": 80,
                                     "InstanceProtocol": "HTTP", "InstancePort": 8080}])
asg.create_launch_configuration(LaunchConfigurationName="echo-lc", ImageId=AMI, InstanceType="t3.micro")
lt = ec2.create_launch_template(LaunchTemplateName="echo-lt", LaunchTemplateData={
    "ImageId": AMI, "InstanceType": "t3.micro"})["LaunchTemplate"]

# --- Auto Scaling groups -------------------------------------------------------------------

def group():
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["echo-g"])["AutoScalingGroups"][0]


def drop_group():
    ignore(asg.delete_auto_scaling_group, AutoScalingGroupName="echo-g", ForceDelete=True)


lt_spec = {"LaunchTemplateName": "echo-lt", "Version": "1"}
g_over = {
    "LaunchConfigurationName": "echo-lc",
    "LaunchTemplate": lt_spec,
    "MixedInstancesPolicy": {
        "LaunchTemplate": {"LaunchTemplateSpecification": lt_spec,
                           "Overrides": [{"InstanceType": "t3.small", "WeightedCapacity": "2"}]},
        "InstancesDistribution": {"OnDemandAllocationStrategy": "prioritized", "OnDemandBaseCapacity": 0,
                                  "OnDemandPercentageAboveBaseCapacity": 100,
                                  "SpotAllocationStrategy": "lowest-price", "SpotInstancePools": 2}},
    "InstanceId": "i-0123456789abcdef0",
    "MinSize": 0, "MaxSize": 3, "DesiredCapacity": 0, "DefaultCooldown": 120,
    "AvailabilityZones": [ZONE], "AvailabilityZoneIds": ["use1-az1"],
    "LoadBalancerNames": ["echo-elb"],
    "TargetGroupARNs": ["arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/echo/0123456789abcdef"],
    "HealthCheckType": "ELB", "HealthCheckGracePeriod": 60, "PlacementGroup": "echo-pg",
    "VPCZoneIdentifier": subnet["SubnetId"], "TerminationPolicies": ["OldestInstance"],
    "ServiceLinkedRoleARN": "arn:aws:iam::123456789012:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling_echo",
    "MaxInstanceLifetime": 86400, "DesiredCapacityType": "units", "DefaultInstanceWarmup": 60,
    "Tags": [{"Key": "k", "Value": "v", "PropagateAtLaunch": True, "ResourceId": "echo-g",
              "ResourceType": "auto-scaling-group"}],
    "TrafficSources": [{"Identifier": "echo-elb", "Type": "elb"}],
    "LifecycleHookSpecificationList": [{"LifecycleHookName": "echo-hook",
                                        "LifecycleTransition": "autoscaling:EC2_INSTANCE_LAUNCHING"}],
    "InstanceMaintenancePolicy": {"MinHealthyPercentage": 90, "MaxHealthyPercentage": 120},
}
g_base = {"AutoScalingGroupName": "echo-g", "LaunchConfigurationName": "echo-lc",
          "MinSize": 0, "MaxSize": 3, "AvailabilityZones": [ZONE]}
g_replaces = {"LaunchTemplate": ["LaunchConfigurationName"], "MixedInstancesPolicy": ["LaunchConfigurationName"],
              "InstanceId": ["LaunchConfigurationName"], "VPCZoneIdentifier": ["AvailabilityZones"],
              "AvailabilityZoneIds": ["AvailabilityZones"]}
g_input_only = {"SkipZonalShiftValidation": "a request option, not stored (AWS returns no such member)",
                "LifecycleHookSpecificationList": "read with DescribeLifecycleHooks"}
run_case("autoscaling", "CreateAutoScalingGroup", g_base, g_over,
         lambda r: asg.create_auto_scaling_group(**r), group, drop_group,
         {"AutoScalingGroupName"}, g_input_only, g_replaces)


def make_then_update(r):
    asg.create_auto_scaling_group(**g_base)
    asg.update_auto_scaling_group(**r)


# no instance may start: a force-deleted group with one waits for it (manual clock)
u_over = dict(g_over, MinSize=0, MaxSize=2, DesiredCapacity=0, DefaultCooldown=77)
run_case("autoscaling", "UpdateAutoScalingGroup", {"AutoScalingGroupName": "echo-g"}, u_over,
         make_then_update, group, drop_group, {"AutoScalingGroupName"}, g_input_only)

# --- launch configurations -----------------------------------------------------------------

def lc():
    return asg.describe_launch_configurations(LaunchConfigurationNames=["echo-lc2"])["LaunchConfigurations"][0]


lc_over = {"ImageId": AMI, "InstanceType": "t3.micro", "SecurityGroups": [sg],
           "ClassicLinkVPCId": None, "InstanceId": "i-0123456789abcdef0",
           "KernelId": "aki-12345678", "RamdiskId": "ari-12345678", "SpotPrice": "0.05",
           "IamInstanceProfile": "echo-profile", "UserData": "ZWNobw==",
           "BlockDeviceMappings": [{"DeviceName": "/dev/xvda", "Ebs": {"VolumeSize": 8, "VolumeType": "gp3",
                                                                      "DeleteOnTermination": True}}],
           "PlacementTenancy": "default",
           "MetadataOptions": {"HttpTokens": "required", "HttpPutResponseHopLimit": 2, "HttpEndpoint": "enabled"}}
lc_over.pop("ClassicLinkVPCId")
run_case("autoscaling", "CreateLaunchConfiguration",
         {"LaunchConfigurationName": "echo-lc2", "ImageId": AMI, "InstanceType": "t3.micro"}, lc_over,
         lambda r: asg.create_launch_configuration(**r), lc,
         lambda: ignore(asg.delete_launch_configuration, LaunchConfigurationName="echo-lc2"),
         {"LaunchConfigurationName", "ImageId", "InstanceType"},
         {"InstanceId": "the instance the configuration is derived from (AWS returns no such member)"},
         {"InstanceId": ["ImageId", "InstanceType"]})

# --- scaling policies ----------------------------------------------------------------------

asg.create_auto_scaling_group(**dict(g_base, AutoScalingGroupName="echo-pg-group"))


def pol():
    return asg.describe_policies(AutoScalingGroupName="echo-pg-group", PolicyNames=["echo-p"])["ScalingPolicies"][0]


p_over = {"AutoScalingGroupName": "echo-pg-group", "PolicyType": "SimpleScaling",
          "AdjustmentType": "PercentChangeInCapacity", "MinAdjustmentStep": 1, "MinAdjustmentMagnitude": 1,
          "ScalingAdjustment": 10, "Cooldown": 60, "MetricAggregationType": "Average",
          "StepAdjustments": [{"MetricIntervalLowerBound": 0.0, "ScalingAdjustment": 1}],
          "EstimatedInstanceWarmup": 30,
          "TargetTrackingConfiguration": {"PredefinedMetricSpecification": {"PredefinedMetricType": "ASGAverageCPUUtilization"},
                                          "TargetValue": 40.0, "DisableScaleIn": True},
          "Enabled": True}
simple = {"AutoScalingGroupName": "echo-pg-group", "PolicyName": "echo-p", "PolicyType": "SimpleScaling",
          "AdjustmentType": "ChangeInCapacity", "ScalingAdjustment": 1}
p_replaces = {"StepAdjustments": ["PolicyType", "ScalingAdjustment"], "MetricAggregationType": ["PolicyType", "ScalingAdjustment"],
              "EstimatedInstanceWarmup": ["PolicyType", "ScalingAdjustment"],
              "TargetTrackingConfiguration": ["PolicyType", "AdjustmentType", "ScalingAdjustment"]}


def make_policy(r):
    if "MinAdjustmentStep" in r or "MinAdjustmentMagnitude" in r:
        r["AdjustmentType"] = "PercentChangeInCapacity"
    if "StepAdjustments" in r or "MetricAggregationType" in r or "EstimatedInstanceWarmup" in r:
        r.setdefault("PolicyType", "StepScaling")
        r.setdefault("StepAdjustments", p_over["StepAdjustments"])
    if "TargetTrackingConfiguration" in r:
        r["PolicyType"] = "TargetTrackingScaling"
    asg.put_scaling_policy(**r)


run_case("autoscaling", "PutScalingPolicy", simple, p_over, make_policy, pol,
         lambda: ignore(asg.delete_policy, AutoScalingGroupName="echo-pg-group", PolicyName="echo-p"),
         {"AutoScalingGroupName", "PolicyName", "PolicyType"}, {}, p_replaces)

# --- launch templates (LaunchTemplateData member by member) --------------------------------

def ltv():
    return ec2.describe_launch_template_versions(LaunchTemplateName="echo-lt2")["LaunchTemplateVersions"][0]["LaunchTemplateData"]


ec2m = model("ec2")
data_shape = ec2m.shape_for("RequestLaunchTemplateData")
lt_over = {"ImageId": AMI, "InstanceType": "t3.micro", "SecurityGroupIds": [sg], "SecurityGroups": ["echo-sg"],
           "KernelId": "aki-12345678", "RamDiskId": "ari-12345678", "UserData": "ZWNobw==",
           "KeyName": "echo-key", "InstanceInitiatedShutdownBehavior": "terminate",
           "IamInstanceProfile": {"Name": "echo-profile"},
           "BlockDeviceMappings": [{"DeviceName": "/dev/xvda", "Ebs": {"VolumeSize": 8, "VolumeType": "gp3",
                                                                      "DeleteOnTermination": True}}],
           "NetworkInterfaces": [{"DeviceIndex": 0, "AssociatePublicIpAddress": True, "Groups": [sg],
                                  "SubnetId": subnet["SubnetId"]}],
           "Placement": {"AvailabilityZone": ZONE, "Tenancy": "default"},
           "TagSpecifications": [{"ResourceType": "instance", "Tags": [{"Key": "k", "Value": "v"}]}],
           "MetadataOptions": {"HttpTokens": "required", "HttpPutResponseHopLimit": 2},
           "CpuOptions": {"CoreCount": 1, "ThreadsPerCore": 2},
           "CreditSpecification": {"CpuCredits": "standard"},
           "InstanceMarketOptions": {"MarketType": "spot", "SpotOptions": {"MaxPrice": "0.05"}}}
skip_lt = set()
for name, m in data_shape.members.items():
    label = f"LaunchTemplateData.{name}"
    req = {"ImageId": AMI, "InstanceType": "t3.micro"}
    req[name] = gen(m, name, lt_over)
    try:
        ec2.create_launch_template(LaunchTemplateName="echo-lt2", LaunchTemplateData=req)
    except Exception as e:
        results["refused"].append(f"CreateLaunchTemplate.{label} ({err_code(e)})")
        continue
    try:
        got = ltv()
        if name not in got:
            results["failed"].append(f"CreateLaunchTemplate.{label}: accepted, not returned")
        else:
            d = same(req[name], got[name])
            results["failed" if d else "echoed"].append(
                f"CreateLaunchTemplate.{label}" + (f": returned otherwise: {d}" if d else ""))
    finally:
        ignore(ec2.delete_launch_template, LaunchTemplateName="echo-lt2")

# --- classic load balancers ----------------------------------------------------------------

def lb():
    return elb.describe_load_balancers(LoadBalancerNames=["echo-lb2"])["LoadBalancerDescriptions"][0]


listener = {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8080}
lb_base = {"LoadBalancerName": "echo-lb2", "Listeners": [listener], "AvailabilityZones": [ZONE]}
lb_over = {"Listeners": [listener], "AvailabilityZones": [ZONE], "Subnets": [subnet["SubnetId"]],
           "SecurityGroups": [sg], "Scheme": "internal", "Tags": [{"Key": "k", "Value": "v"}]}
lb_input_only = {"Tags": "read with DescribeTags", "Listeners": None}
lb_input_only.pop("Listeners")


def make_lb(r):
    elb.create_load_balancer(**r)


def check_lb_tags():
    t = elb.describe_tags(LoadBalancerNames=["echo-lb2"])["TagDescriptions"][0]["Tags"]
    return t == [{"Key": "k", "Value": "v"}]


shape = model("elb").operation_model("CreateLoadBalancer").input_shape
for name, m in shape.members.items():
    if name == "LoadBalancerName":
        continue
    req = {k: v for k, v in lb_base.items() if not (name == "Subnets" and k == "AvailabilityZones")}
    req[name] = gen(m, name, lb_over)
    label = f"CreateLoadBalancer.{name}"
    try:
        make_lb(req)
    except Exception as e:
        results["refused"].append(f"{label} ({err_code(e)})")
        continue
    try:
        got = lb()
        if name == "Tags":
            results["echoed" if check_lb_tags() else "failed"].append(label + ("" if check_lb_tags() else ": DescribeTags differs"))
        elif name == "Listeners":
            d = same(req[name], [x["Listener"] for x in got["ListenerDescriptions"]])
            results["failed" if d else "echoed"].append(label + (f": {d}" if d else ""))
        elif name not in got:
            results["failed"].append(f"{label}: accepted, not returned")
        else:
            d = same(req[name], got[name])
            results["failed" if d else "echoed"].append(label + (f": returned otherwise: {d}" if d else ""))
    finally:
        ignore(elb.delete_load_balancer, LoadBalancerName="echo-lb2")

# --- metric alarms -------------------------------------------------------------------------

def alarm():
    return cw.describe_alarms(AlarmNames=["echo-a"])["MetricAlarms"][0]


a_base = {"AlarmName": "echo-a", "MetricName": "CPUUtilization", "Namespace": "AWS/EC2",
          "Statistic": "Average", "Period": 60, "EvaluationPeriods": 2, "Threshold": 50.0,
          "ComparisonOperator": "GreaterThanThreshold"}
arn = "arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:0:autoScalingGroupName/echo-pg-group:policyName/x"
a_over = dict(a_base, AlarmDescription="echo", ActionsEnabled=False, OKActions=[arn], AlarmActions=[arn],
              InsufficientDataActions=[arn], ExtendedStatistic="p90",
              Dimensions=[{"Name": "AutoScalingGroupName", "Value": "echo-pg-group"}], Unit="Percent",
              DatapointsToAlarm=1, TreatMissingData="breaching", EvaluateLowSampleCountPercentile="ignore",
              Tags=[{"Key": "k", "Value": "v"}], ThresholdMetricId=None, Metrics=None)
a_over = {k: v for k, v in a_over.items() if v is not None}
def make_alarm(r):
    if "EvaluateLowSampleCountPercentile" in r and "ExtendedStatistic" not in r:
        r["ExtendedStatistic"] = "p90"
        r.pop("Statistic", None)
    cw.put_metric_alarm(**r)


run_case("cloudwatch", "PutMetricAlarm", a_base, a_over, make_alarm, alarm,
         lambda: ignore(cw.delete_alarms, AlarmNames=["echo-a"]),
         {"AlarmName"}, {"Tags": "read with ListTagsForResource"},
         {"ExtendedStatistic": ["Statistic"], "EvaluateLowSampleCountPercentile": ["Statistic"]})

# --- the report ----------------------------------------------------------------------------
for k in ("refused", "input-only"):
    for line in results[k]:
        print(f"# {k}: {line}")
check(f"{len(results['echoed'])} members accepted come back as sent", results["echoed"] != [])
for line in results["failed"]:
    check(line, False)
if not results["failed"]:
    check("no member accepted and not returned (or returned otherwise)", True)
sys.exit(tap.failed)
