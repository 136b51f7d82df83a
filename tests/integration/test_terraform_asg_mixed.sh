#!/usr/bin/env bash
# Terraform's aws_autoscaling_group with a mixed_instances_policy against the emulator at
# --time-scale 60 (issue 16; docs/autoscaling.md): `terraform apply` of a launch template
# and a group of two weighted overrides (through the provider's capacity waiter, which
# counts WeightedCapacity), the instances checked with boto3, `terraform plan
# -detailed-exitcode` straight after must exit 0 (no drift), then `terraform destroy`
# leaves no group and no template. Skipped, with the reason, without terraform on PATH or
# without the hashicorp/aws provider in a filesystem mirror (lib.sh tf_setup: TF_PLUGIN_MIRROR,
# else /opt/tf-plugins, /usr/share/terraform/plugins, ~/.terraform.d/plugins). Offline: the
# provider comes only from the mirror. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

tf_setup || exit 0

start_emu emu --quiet --time-scale 60

cat >"$TMP/tf/main.tf" <<EOF
terraform {
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "$VERSION"
    }
  }
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "testing"
  secret_key                  = "testing"
  skip_credentials_validation = true
  skip_metadata_api_check     = true
  skip_requesting_account_id  = true
  skip_region_validation      = true
  endpoints {
    autoscaling = "$EP"
    ec2         = "$EP"
  }
}

resource "aws_launch_template" "lt" {
  name          = "tf-mixed-lt"
  image_id      = "ami-0c02fb55956c7d316"
  instance_type = "t3.micro"
}

resource "aws_autoscaling_group" "mixed" {
  name               = "tf-mixed"
  min_size           = 0
  max_size           = 6
  desired_capacity   = 3
  availability_zones = ["us-east-1a", "us-east-1b"]

  mixed_instances_policy {
    instances_distribution {
      on_demand_percentage_above_base_capacity = 100
    }
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.lt.id
      }
      override {
        instance_type     = "t3.small"
        weighted_capacity = "2"
      }
      override {
        instance_type     = "t3.micro"
        weighted_capacity = "1"
      }
    }
  }
}
EOF

tf() { (cd "$TMP/tf" && timeout 600 terraform "$@" -no-color) >>"$TMP/tf.log" 2>&1; }
tail_log() { tail -n 30 "$TMP/tf.log" | sed 's/^/#   /'; }

if tf init -input=false; then ok "terraform init from the mirror ($MIRROR, aws $VERSION)"; else notok "terraform init"; tail_log; exit 1; fi
if tf apply -auto-approve -input=false; then
    ok "terraform apply: launch template and mixed group (through the capacity waiter)"
else
    notok "terraform apply"; tail_log; exit 1
fi

python3 - "$EP" <<'EOF' || failed=1
import sys, boto3
import tap
from tap import check
asg = boto3.client("autoscaling", endpoint_url=sys.argv[1])
g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["tf-mixed"])["AutoScalingGroups"][0]
ins = [(i["InstanceType"], i.get("WeightedCapacity"), i["LifecycleState"]) for i in g["Instances"]]
check("the applied group: desired 3 units as two t3.small of weight 2, InService",
      sorted(ins) == [("t3.small", "2", "InService")] * 2, ins)
mip = g["MixedInstancesPolicy"]
check("the provider's \"$Default\" version comes back as sent",
      mip["LaunchTemplate"]["LaunchTemplateSpecification"].get("Version") == "$Default", mip)
check("no SpotMaxPrice although the provider sent an empty one",
      "SpotMaxPrice" not in mip["InstancesDistribution"], mip["InstancesDistribution"])
sys.exit(tap.failed)
EOF

set +e
tf plan -detailed-exitcode -input=false
rc=$?
set -e
if [ "$rc" -eq 0 ]; then
    ok "terraform plan -detailed-exitcode right after apply exits 0 (no changes)"
else
    notok "terraform plan -detailed-exitcode right after apply exits 0 (got $rc)"
    grep -E '^\s+[~+-] |must be replaced|will be updated' "$TMP/tf.log" | head -n 30 | sed 's/^/#   /'
fi

if tf destroy -auto-approve -input=false; then ok "terraform destroy"; else notok "terraform destroy"; tail_log; fi
python3 - "$EP" <<'EOF' || failed=1
import sys, boto3
import tap
from tap import check
ep = sys.argv[1]
groups = boto3.client("autoscaling", endpoint_url=ep).describe_auto_scaling_groups()["AutoScalingGroups"]
lts = boto3.client("ec2", endpoint_url=ep).describe_launch_templates()["LaunchTemplates"]
check("nothing left: no group, no launch template",
      groups == [] and lts == [], ([g["AutoScalingGroupName"] for g in groups], lts))
sys.exit(tap.failed)
EOF
finish
