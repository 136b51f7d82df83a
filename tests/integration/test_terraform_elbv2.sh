#!/usr/bin/env bash
# Terraform's ELBv2 resources against the emulator at --time-scale 60 (docs/elbv2.md):
# aws_lb, aws_lb_target_group, aws_lb_listener, aws_lb_listener_rule and an
# aws_autoscaling_group with target_group_arns: `terraform apply`, the group's instances
# healthy targets (boto3), `terraform plan -detailed-exitcode` straight after exits 0 (no
# drift), and `terraform destroy` leaves no load balancer, target group, group or
# configuration. Skipped, with the reason, without terraform on PATH or without the
# hashicorp/aws provider in a filesystem mirror (lib.sh tf_setup). TAP lines;
# KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

tf_setup || exit 0

start_emu emu --quiet --time-scale 60

# the default VPC and two of its subnets (the provider's aws_vpc data source reads
# DescribeVpcAttribute, which the emulator does not serve)
read -r VPC S1 S2 < <(python3 - "$EP" <<'EOF'
import sys, boto3
ec2 = boto3.client("ec2", endpoint_url=sys.argv[1])
vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subs = sorted(ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc]}])["Subnets"],
              key=lambda s: s["AvailabilityZone"])
print(vpc, subs[0]["SubnetId"], subs[1]["SubnetId"])
EOF
)

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
    elbv2       = "$EP"
  }
}

resource "aws_lb" "web" {
  name               = "tf-web"
  load_balancer_type = "application"
  subnets            = ["$S1", "$S2"]
  tags = {
    team = "web"
  }
}

resource "aws_lb_target_group" "app" {
  name     = "tf-app"
  port     = 80
  protocol = "HTTP"
  vpc_id   = "$VPC"

  deregistration_delay = 30
  health_check {
    path                = "/"
    interval            = 5
    timeout             = 2
    healthy_threshold   = 2
    unhealthy_threshold = 2
    matcher             = "200"
  }
}

resource "aws_lb_listener" "http" {
  load_balancer_arn = aws_lb.web.arn
  port              = 80
  protocol          = "HTTP"

  default_action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.app.arn
  }
}

resource "aws_lb_listener_rule" "api" {
  listener_arn = aws_lb_listener.http.arn
  priority     = 10

  condition {
    path_pattern {
      values = ["/api/*"]
    }
  }
  action {
    type = "fixed-response"
    fixed_response {
      content_type = "text/plain"
      message_body = "api"
      status_code  = "200"
    }
  }
}

resource "aws_launch_configuration" "lc" {
  name          = "tf-web-lc"
  image_id      = "ami-0c02fb55956c7d316"
  instance_type = "t3.micro"
}

resource "aws_autoscaling_group" "web" {
  name                 = "tf-web"
  min_size             = 2
  max_size             = 4
  launch_configuration = aws_launch_configuration.lc.name
  availability_zones   = ["us-east-1a", "us-east-1b"]
  target_group_arns    = [aws_lb_target_group.app.arn]
  health_check_type    = "ELB"
}
EOF

tf() { (cd "$TMP/tf" && timeout 600 terraform "$@" -no-color) >>"$TMP/tf.log" 2>&1; }
tail_log() { tail -n 30 "$TMP/tf.log" | sed 's/^/#   /'; }

if tf init -input=false; then ok "terraform init from the mirror ($MIRROR, aws $VERSION)"; else notok "terraform init"; tail_log; exit 1; fi
if tf apply -auto-approve -input=false; then
    ok "terraform apply: aws_lb, aws_lb_target_group, aws_lb_listener, aws_lb_listener_rule, aws_autoscaling_group"
else
    notok "terraform apply"; tail_log; exit 1
fi

python3 - "$EP" <<'EOF' || failed=1
import sys, boto3
import tap
from tap import check, wait
ep = sys.argv[1]
v2 = boto3.client("elbv2", endpoint_url=ep)
asg = boto3.client("autoscaling", endpoint_url=ep)
tg = v2.describe_target_groups(Names=["tf-app"])["TargetGroups"][0]
attrs = {a["Key"]: a["Value"] for a in v2.describe_target_group_attributes(TargetGroupArn=tg["TargetGroupArn"])["Attributes"]}
check("the provider's deregistration_delay reached the target group",
      attrs["deregistration_delay.timeout_seconds"] == "30", attrs)
def healthy():
    d = v2.describe_target_health(TargetGroupArn=tg["TargetGroupArn"])["TargetHealthDescriptions"]
    return len([x for x in d if x["TargetHealth"]["State"] == "healthy"])
check("the group's two instances are healthy targets", wait(lambda: healthy() == 2, 40), healthy())
g = asg.describe_auto_scaling_groups(AutoScalingGroupNames=["tf-web"])["AutoScalingGroups"][0]
check("the group carries the target group", g["TargetGroupARNs"] == [tg["TargetGroupArn"]], g["TargetGroupARNs"])
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
    grep -E '^\s+[~+-] |must be replaced|will be updated|Error' "$TMP/tf.log" | head -n 40 | sed 's/^/#   /'
fi

if tf destroy -auto-approve -input=false; then ok "terraform destroy"; else notok "terraform destroy"; tail_log; fi
python3 - "$EP" <<'EOF' || failed=1
import sys, boto3
import tap
from tap import check
ep = sys.argv[1]
v2 = boto3.client("elbv2", endpoint_url=ep)
asg = boto3.client("autoscaling", endpoint_url=ep)
left = (v2.describe_load_balancers()["LoadBalancers"], v2.describe_target_groups()["TargetGroups"],
        asg.describe_auto_scaling_groups()["AutoScalingGroups"],
        asg.describe_launch_configurations()["LaunchConfigurations"])
check("nothing left: no load balancer, target group, group or launch configuration",
      left == ([], [], [], []), left)
sys.exit(tap.failed)
EOF
finish
