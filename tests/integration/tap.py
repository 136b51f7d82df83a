"""tests/integration/tap.py: TAP lines and polling for the Python parts of the integration
tests (lib.sh puts this folder on PYTHONPATH). A script ends with sys.exit(tap.failed)."""
import time

failed = 0


def check(desc, cond, detail=""):
    """Prints "ok - desc" or "not ok - desc (detail)"; a failure sets tap.failed."""
    global failed
    print(("ok - " if cond else "not ok - ") + desc + (f" ({detail})" if detail != "" else ""))
    if not cond:
        failed = 1


def wait(pred, secs):
    """pred()'s first true value within secs (polled every 50 ms), else its last value."""
    end = time.time() + secs
    while time.time() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    return pred()


def check_nothing_left(ep, what):
    """The two checks after a tool's destroy (Terraform, Ansible): no group, launch
    configuration, policy, launch template, classic load balancer or alarm is left at ep,
    and every instance reaches terminated within 30 s."""
    import boto3

    asg = boto3.client("autoscaling", endpoint_url=ep)
    ec2 = boto3.client("ec2", endpoint_url=ep)
    elb = boto3.client("elb", endpoint_url=ep)
    cw = boto3.client("cloudwatch", endpoint_url=ep)
    v2 = boto3.client("elbv2", endpoint_url=ep)
    left = {
        "groups": [g["AutoScalingGroupName"] for g in asg.describe_auto_scaling_groups()["AutoScalingGroups"]],
        "launch configurations": [c["LaunchConfigurationName"]
                                  for c in asg.describe_launch_configurations()["LaunchConfigurations"]],
        "policies": [p["PolicyName"] for p in asg.describe_policies()["ScalingPolicies"]],
        "launch templates": [t["LaunchTemplateName"] for t in ec2.describe_launch_templates()["LaunchTemplates"]],
        "load balancers": [b["LoadBalancerName"] for b in elb.describe_load_balancers()["LoadBalancerDescriptions"]],
        "alarms": [a["AlarmName"] for a in cw.describe_alarms()["MetricAlarms"]],
        "ELBv2 load balancers": [b["LoadBalancerName"] for b in v2.describe_load_balancers()["LoadBalancers"]],
        "target groups": [t["TargetGroupName"] for t in v2.describe_target_groups()["TargetGroups"]],
        "notification configurations": asg.describe_notification_configurations()["NotificationConfigurations"],
    }
    check(f"{what} leaves no group, launch configuration, policy, template, load balancer "
          "(classic or ELBv2), target group, notification configuration or alarm",
          not any(left.values()), {k: v for k, v in left.items() if v})

    def all_gone():
        r = ec2.describe_instances()["Reservations"]
        return all(i["State"]["Name"] == "terminated" for x in r for i in x["Instances"])

    check("every instance terminated", wait(all_gone, 30))
