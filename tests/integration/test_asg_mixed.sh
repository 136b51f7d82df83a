#!/usr/bin/env bash
# A group with a mixed instances policy through boto3 at --time-scale 60
# (docs/autoscaling.md): a launch template made with EC2 CreateLaunchTemplate, a group of two
# weighted overrides described back field by field with AWS's defaults, desired capacity in
# units filled by the prioritized type (instances, their types and weights in
# DescribeAutoScalingGroups, DescribeAutoScalingInstances and EC2), scale-in by weight, the
# validation texts, lowest-price picking the cheapest per unit after an update that also
# re-weighs a running instance, the policy surviving a restart from --state; and a launch
# configuration and a group made from an EC2 instance (InstanceId, docs/autoscaling.md 15),
# also through the aws CLI v2. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 60 --state "$TMP/state.json"

python3 - "$EP" <<'EOF' || failed=1
import sys, time
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)

lt = ec2.create_launch_template(
    LaunchTemplateName="mixed-lt",
    LaunchTemplateData={"ImageId": "ami-0c02fb55956c7d316", "InstanceType": "t3.micro"},
)["LaunchTemplate"]
lt_id = lt["LaunchTemplateId"]

policy = {
    "LaunchTemplate": {
        "LaunchTemplateSpecification": {"LaunchTemplateName": "mixed-lt"},
        "Overrides": [
            {"InstanceType": "t3.small", "WeightedCapacity": "2"},
            {"InstanceType": "t3.micro", "WeightedCapacity": "1"},
        ],
    },
    "InstancesDistribution": {"OnDemandPercentageAboveBaseCapacity": 100},
}
asg.create_auto_scaling_group(AutoScalingGroupName="mixed", MixedInstancesPolicy=policy,
                              MinSize=0, MaxSize=10, DesiredCapacity=0,
                              AvailabilityZones=["us-east-1a", "us-east-1b"])

def group():
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=["mixed"])["AutoScalingGroups"][0]

g = group()
mip = g.get("MixedInstancesPolicy", {})
spec = mip.get("LaunchTemplate", {}).get("LaunchTemplateSpecification")
check("the policy's template comes back with its id and name, no Version (none sent)",
      spec == {"LaunchTemplateId": lt_id, "LaunchTemplateName": "mixed-lt"}, spec)
check("the overrides come back as sent",
      mip.get("LaunchTemplate", {}).get("Overrides") == policy["LaunchTemplate"]["Overrides"],
      mip.get("LaunchTemplate", {}).get("Overrides"))
want = {"OnDemandAllocationStrategy": "prioritized", "OnDemandBaseCapacity": 0,
        "OnDemandPercentageAboveBaseCapacity": 100, "SpotAllocationStrategy": "lowest-price",
        "SpotInstancePools": 2}
check("InstancesDistribution with AWS's defaults (no SpotMaxPrice)",
      mip.get("InstancesDistribution") == want, mip.get("InstancesDistribution"))
check("no top-level LaunchTemplate or LaunchConfigurationName",
      "LaunchTemplate" not in g and "LaunchConfigurationName" not in g)

# desired 3 units: prioritized launches the first type, 2 x weight 2 = 4 (overage 1)
asg.set_desired_capacity(AutoScalingGroupName="mixed", DesiredCapacity=3)

def in_service(n):
    g = group()
    ins = [i for i in g["Instances"] if i["LifecycleState"] == "InService"]
    return g if len(ins) == n and len(g["Instances"]) == n else None

g = wait(lambda: in_service(2), 30)
check("desired 3 units: two instances InService", g is not None,
      [(i["InstanceType"], i["LifecycleState"]) for i in group()["Instances"]])
g = g or group()
types = sorted(i.get("InstanceType") for i in g["Instances"])
check("both are the first override, t3.small", types == ["t3.small", "t3.small"], types)
check("each shows WeightedCapacity 2",
      [i.get("WeightedCapacity") for i in g["Instances"]] == ["2", "2"],
      [i.get("WeightedCapacity") for i in g["Instances"]])
check("each shows the policy's template (id and name)",
      all(i.get("LaunchTemplate") == {"LaunchTemplateId": lt_id, "LaunchTemplateName": "mixed-lt"}
          for i in g["Instances"]), [i.get("LaunchTemplate") for i in g["Instances"]])
ids = [i["InstanceId"] for i in g["Instances"]]
d = asg.describe_auto_scaling_instances(InstanceIds=ids)["AutoScalingInstances"]
check("DescribeAutoScalingInstances: t3.small, weight 2, the template",
      sorted((x["InstanceType"], x.get("WeightedCapacity"), x["LaunchTemplate"]["LaunchTemplateName"])
             for x in d) == [("t3.small", "2", "mixed-lt")] * 2, d)
r = ec2.describe_instances(InstanceIds=ids)["Reservations"]
etypes = sorted(i["InstanceType"] for res in r for i in res["Instances"])
check("EC2 launched t3.small", etypes == ["t3.small", "t3.small"], etypes)
check("the group stays at desired 3 with 4 units (no scale-in below desired)",
      group()["DesiredCapacity"] == 3 and len(group()["Instances"]) == 2)

# desired 2: one weight-2 instance goes
asg.set_desired_capacity(AutoScalingGroupName="mixed", DesiredCapacity=2)
g = wait(lambda: in_service(1), 30)
check("desired 2 units: one t3.small left", g is not None and
      [i["InstanceType"] for i in g["Instances"]] == ["t3.small"],
      [(i["InstanceType"], i["LifecycleState"]) for i in group()["Instances"]])

def error(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

def mixed(overrides, **dist):
    p = {"LaunchTemplate": {"LaunchTemplateSpecification": {"LaunchTemplateId": lt_id},
                            "Overrides": overrides}}
    if dist:
        p["InstancesDistribution"] = dist
    return p

base = dict(MinSize=0, MaxSize=2, AvailabilityZones=["us-east-1a"])
asg.create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-0c02fb55956c7d316",
                                InstanceType="t3.micro")
cases = [
    ("a launch configuration and a mixed instances policy",
     dict(LaunchConfigurationName="lc", MixedInstancesPolicy=mixed([{"InstanceType": "t3.micro"}])),
     "Valid requests must contain either LaunchTemplate, LaunchConfigurationName, InstanceId or MixedInstancesPolicy parameter."),
    ("41 overrides",
     dict(MixedInstancesPolicy=mixed([{"InstanceType": "t%d.x" % k} for k in range(41)])),
     "1 validation error detected: Value at 'mixedInstancesPolicy.launchTemplate.overrides' failed to satisfy constraint: Member must have length less than or equal to 40"),
    ("WeightedCapacity 1000",
     dict(MixedInstancesPolicy=mixed([{"InstanceType": "t3.micro", "WeightedCapacity": "1000"}])),
     "The value 1000 for WeightedCapacity is invalid. Weighted capacity must be an integer between 1 and 999."),
    ("an instance type twice",
     dict(MixedInstancesPolicy=mixed([{"InstanceType": "t3.micro"}, {"InstanceType": "t3.micro"}])),
     "Duplicate instance type t3.micro in the launch template overrides."),
    ("a weight on one override only",
     dict(MixedInstancesPolicy=mixed([{"InstanceType": "t3.micro", "WeightedCapacity": "2"},
                                      {"InstanceType": "t3.small"}])),
     "If you specify WeightedCapacity for one instance type, you must specify it for all of them."),
    ("both the template id and name",
     dict(MixedInstancesPolicy={"LaunchTemplate": {"LaunchTemplateSpecification":
                                                   {"LaunchTemplateId": lt_id, "LaunchTemplateName": "mixed-lt"}}}),
     "Valid requests must contain either launchTemplateId or LaunchTemplateName"),
]
for i, (desc, kw, text) in enumerate(cases):
    got = error(asg.create_auto_scaling_group, AutoScalingGroupName="bad%d" % i, **base, **kw)
    check("refused: " + desc, got == ("ValidationError", text), got)
check("nothing was created by the refused calls",
      [x["AutoScalingGroupName"] for x in asg.describe_auto_scaling_groups()["AutoScalingGroups"]] == ["mixed"])

# weights for a running type left out of the overrides
got = error(asg.update_auto_scaling_group, AutoScalingGroupName="mixed",
            MixedInstancesPolicy=mixed([{"InstanceType": "m5.large", "WeightedCapacity": "2"},
                                        {"InstanceType": "t3.micro", "WeightedCapacity": "1"}]))
check("refused: weights while a t3.small (not in the new overrides) runs",
      got == ("ValidationError", "Cannot configure weights because instance type [t3.small] is not in the overrides but is currently running in the group. Add [t3.small] to the overrides, specify a weight, and try again."), got)

# lowest-price, t3.small re-weighed to 1: the running one now counts 1 of the 2 units, and
# the next launch is the cheapest per unit (t3.micro 0.0104 < t3.small 0.0208 < m5.large 0.048)
asg.update_auto_scaling_group(AutoScalingGroupName="mixed", MixedInstancesPolicy=mixed(
    [{"InstanceType": "m5.large", "WeightedCapacity": "2"},
     {"InstanceType": "t3.small", "WeightedCapacity": "1"},
     {"InstanceType": "t3.micro", "WeightedCapacity": "1"}],
    OnDemandAllocationStrategy="lowest-price"))
g = wait(lambda: in_service(2), 30)
check("lowest-price: the re-weighed t3.small plus one t3.micro",
      g is not None and sorted(i["InstanceType"] for i in g["Instances"]) == ["t3.micro", "t3.small"],
      [(i["InstanceType"], i.get("WeightedCapacity"), i["LifecycleState"]) for i in group()["Instances"]])
g = group()
check("the update kept the distribution's other members and replaced the template spec",
      g["MixedInstancesPolicy"]["InstancesDistribution"]["OnDemandAllocationStrategy"] == "lowest-price"
      and g["MixedInstancesPolicy"]["InstancesDistribution"]["OnDemandPercentageAboveBaseCapacity"] == 100
      and g["MixedInstancesPolicy"]["LaunchTemplate"]["LaunchTemplateSpecification"]
      == {"LaunchTemplateId": lt_id, "LaunchTemplateName": "mixed-lt"},
      g["MixedInstancesPolicy"])
sys.exit(tap.failed)
EOF

# --- a launch configuration and a group from an instance (docs/autoscaling.md 15) ---
python3 - "$EP" "$TMP/src_id" <<'EOF' || failed=1
import sys
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)

src = ec2.run_instances(ImageId="ami-0c02fb55956c7d316", InstanceType="t3.small", MinCount=1,
                        MaxCount=1, KeyName="kp-src", UserData="echo hi",
                        Placement={"AvailabilityZone": "us-east-1b"})["Instances"][0]
sid = src["InstanceId"]
open(sys.argv[2], "w").write(sid)

asg.create_launch_configuration(LaunchConfigurationName="from-i", InstanceId=sid)
lc = asg.describe_launch_configurations(
    LaunchConfigurationNames=["from-i"])["LaunchConfigurations"][0]
check("CreateLaunchConfiguration InstanceId: image, type and key from the instance",
      (lc["ImageId"], lc["InstanceType"], lc["KeyName"])
      == ("ami-0c02fb55956c7d316", "t3.small", "kp-src"), lc)
asg.create_launch_configuration(LaunchConfigurationName="from-i-micro", InstanceId=sid,
                                InstanceType="t3.micro")
lc = asg.describe_launch_configurations(
    LaunchConfigurationNames=["from-i-micro"])["LaunchConfigurations"][0]
check("an InstanceType given with InstanceId wins over the instance's",
      (lc["ImageId"], lc["InstanceType"]) == ("ami-0c02fb55956c7d316", "t3.micro"), lc)

def err(f, **kw):
    try:
        f(**kw)
        return None
    except botocore.exceptions.ClientError as e:
        return (e.response["Error"]["Code"], e.response["Error"]["Message"])

got = err(asg.create_launch_configuration, LaunchConfigurationName="nope",
          InstanceId="i-0123456789abcdef0")
check("an unknown InstanceId: ValidationError, EC2's text",
      got == ("ValidationError", "The instance ID 'i-0123456789abcdef0' does not exist"), got)
check("nothing stored for it", asg.describe_launch_configurations(
    LaunchConfigurationNames=["nope"])["LaunchConfigurations"] == [])

asg.create_auto_scaling_group(AutoScalingGroupName="from-inst", InstanceId=sid, MinSize=1,
                              MaxSize=3, DesiredCapacity=2)
g = asg.describe_auto_scaling_groups(
    AutoScalingGroupNames=["from-inst"])["AutoScalingGroups"][0]
lc = asg.describe_launch_configurations(
    LaunchConfigurationNames=["from-inst"])["LaunchConfigurations"]
check("CreateAutoScalingGroup InstanceId: the group on a launch configuration named after it",
      g.get("LaunchConfigurationName") == "from-inst" and len(lc) == 1
      and lc[0]["InstanceType"] == "t3.small", (g.get("LaunchConfigurationName"), lc))
check("without zones or subnets: the instance's zone and subnet",
      g["AvailabilityZones"] == ["us-east-1b"] and g["VPCZoneIdentifier"] == src["SubnetId"],
      (g["AvailabilityZones"], g["VPCZoneIdentifier"], src.get("SubnetId")))

def in_service():
    g = asg.describe_auto_scaling_groups(
        AutoScalingGroupNames=["from-inst"])["AutoScalingGroups"][0]
    ins = [i for i in g["Instances"] if i["LifecycleState"] == "InService"]
    return ins if len(ins) == 2 else None

ins = wait(in_service, 30)
check("the group launches its two instances InService", ins is not None,
      asg.describe_auto_scaling_groups(AutoScalingGroupNames=["from-inst"])["AutoScalingGroups"])
ids = [i["InstanceId"] for i in ins or []]
check("the source instance is not in the group", sid not in ids, ids)
if ids:
    d = ec2.describe_instances(InstanceIds=ids)["Reservations"]
    got = sorted((i["ImageId"], i["InstanceType"], i.get("KeyName"), i["State"]["Name"])
                 for r in d for i in r["Instances"])
    check("its instances: the instance's image, type and key pair, running",
          got == [("ami-0c02fb55956c7d316", "t3.small", "kp-src", "running")] * 2, got)

got = err(asg.create_auto_scaling_group, AutoScalingGroupName="bad-inst", InstanceId=sid,
          MinSize=5, MaxSize=1)
check("a refused group from an instance", got is not None and got[0] == "ValidationError", got)
check("leaves no launch configuration behind", asg.describe_launch_configurations(
    LaunchConfigurationNames=["bad-inst"])["LaunchConfigurations"] == [])
asg.delete_auto_scaling_group(AutoScalingGroupName="from-inst", ForceDelete=True)
check("the group from the instance force-deleted", wait(lambda: not asg.describe_auto_scaling_groups(
    AutoScalingGroupNames=["from-inst"])["AutoScalingGroups"], 30))
sys.exit(tap.failed)
EOF

if need aws awscli; then
    sid=$(cat "$TMP/src_id" 2>/dev/null || true)
    if [ -n "$sid" ] && aws --endpoint-url "$EP" autoscaling create-launch-configuration \
        --launch-configuration-name cli-from-i --instance-id "$sid" &&
        [ "$(aws --endpoint-url "$EP" autoscaling describe-launch-configurations \
            --launch-configuration-names cli-from-i \
            --query 'LaunchConfigurations[0].[ImageId,InstanceType]' --output text)" = \
            "$(printf 'ami-0c02fb55956c7d316\tt3.small')" ]; then
        ok "aws autoscaling create-launch-configuration --instance-id: the instance's image and type"
    else
        notok "aws autoscaling create-launch-configuration --instance-id: the instance's image and type"
    fi
fi

# the policy from the state file, in a new emulator
python3 - "$EP" >"$TMP/before.json" <<'EOF' || failed=1
import json, sys, boto3
g = boto3.client("autoscaling", endpoint_url=sys.argv[1]).describe_auto_scaling_groups(
    AutoScalingGroupNames=["mixed"])["AutoScalingGroups"][0]
print(json.dumps(g["MixedInstancesPolicy"], sort_keys=True))
EOF
kill -TERM "$LAST"
for _ in $(seq 50); do kill -0 "$LAST" 2>/dev/null || break; sleep 0.1; done
start_emu emu2 --quiet --time-scale 60 --state "$TMP/state.json"
python3 - "$EP" >"$TMP/after.json" <<'EOF' || failed=1
import json, sys, boto3
g = boto3.client("autoscaling", endpoint_url=sys.argv[1]).describe_auto_scaling_groups(
    AutoScalingGroupNames=["mixed"])["AutoScalingGroups"][0]
print(json.dumps(g["MixedInstancesPolicy"], sort_keys=True))
EOF
if [ -s "$TMP/before.json" ] && cmp -s "$TMP/before.json" "$TMP/after.json"; then
    ok "the mixed instances policy comes back the same from the state file"
else
    notok "the mixed instances policy comes back the same from the state file"
    diff "$TMP/before.json" "$TMP/after.json" | sed 's/^/#   /' || true
fi
finish
