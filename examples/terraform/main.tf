# examples/terraform/main.tf: an Auto Scaling setup as a user writes it, run unmodified
# against the emulator (docs/terraform.md walks through it):
#   - a launch configuration and a launch template;
#   - "web": a group on the launch configuration behind a classic load balancer, with a
#     step policy (scale out on high CPU) and a simple policy (scale in on low CPU), each
#     the action of a CloudWatch alarm;
#   - "mixed": a group with a mixed instances policy (two weighted instance types of the
#     launch template, capacity rebalancing) and a target-tracking policy;
#   - "lt": a group on the launch template by name and version, with a warm pool of
#     stopped instances and a launch lifecycle hook;
#   - a scheduled action that raises web's desired capacity on weekday mornings.

variable "lt_desired" {
  description = "Desired capacity of the \"lt\" group (no policies: Terraform owns it)"
  type        = number
  default     = 1
}

variable "high_cpu_threshold" {
  description = "CPU percent at which web-high-cpu scales the web group out"
  type        = number
  default     = 70
}

locals {
  zones = ["us-east-1a", "us-east-1b"]
}

resource "aws_launch_configuration" "web" {
  name          = "web-lc"
  image_id      = "ami-0c02fb55956c7d316"
  instance_type = "t3.micro"
  # the emulated instance's application profile (docs/dataplane.md)
  user_data = jsonencode({ boot_s = 30, workers = 8, service_ms = 20 })
}

resource "aws_launch_template" "app" {
  name          = "app-lt"
  image_id      = "ami-0c02fb55956c7d316"
  instance_type = "t3.micro"
  tag_specifications {
    resource_type = "instance"
    tags          = { app = "demo" }
  }
}

resource "aws_elb" "web" {
  name               = "web-elb"
  availability_zones = local.zones

  listener {
    lb_port           = 80
    lb_protocol       = "http"
    instance_port     = 8080
    instance_protocol = "http"
  }

  health_check {
    target              = "HTTP:8080/health"
    interval            = 10
    timeout             = 5
    healthy_threshold   = 2
    unhealthy_threshold = 2
  }

  cross_zone_load_balancing   = true
  connection_draining         = true
  connection_draining_timeout = 30
  tags                        = { app = "demo" }
}

resource "aws_autoscaling_group" "web" {
  name                      = "web"
  launch_configuration      = aws_launch_configuration.web.name
  availability_zones        = local.zones
  min_size                  = 1
  max_size                  = 4
  desired_capacity          = 2
  load_balancers            = [aws_elb.web.name]
  health_check_type         = "ELB"
  health_check_grace_period = 60
  default_cooldown          = 120
  termination_policies      = ["OldestInstance", "Default"]
  enabled_metrics           = ["GroupDesiredCapacity", "GroupInServiceInstances"]
  # the provider waits until this many instances are InService behind the load balancer
  min_elb_capacity = 1

  tag {
    key                 = "app"
    value               = "demo"
    propagate_at_launch = true
  }

  # its policies move the desired capacity (web-low-cpu takes an idle group down to
  # min_size within minutes, and --time-scale 60 makes minutes seconds): Terraform sets it
  # at creation and leaves it to the policies after, as with AWS
  lifecycle {
    ignore_changes = [desired_capacity]
  }
}

resource "aws_autoscaling_policy" "web_out" {
  name                      = "web-step-out"
  autoscaling_group_name    = aws_autoscaling_group.web.name
  policy_type               = "StepScaling"
  adjustment_type           = "ChangeInCapacity"
  metric_aggregation_type   = "Average"
  estimated_instance_warmup = 60

  step_adjustment {
    metric_interval_lower_bound = 0
    metric_interval_upper_bound = 20
    scaling_adjustment          = 1
  }
  step_adjustment {
    metric_interval_lower_bound = 20
    scaling_adjustment          = 2
  }
}

resource "aws_autoscaling_policy" "web_in" {
  name                   = "web-simple-in"
  autoscaling_group_name = aws_autoscaling_group.web.name
  policy_type            = "SimpleScaling"
  adjustment_type        = "ChangeInCapacity"
  scaling_adjustment     = -1
  cooldown               = 180
}

resource "aws_cloudwatch_metric_alarm" "web_high_cpu" {
  alarm_name          = "web-high-cpu"
  alarm_description   = "scale web out when its CPU is high"
  namespace           = "AWS/EC2"
  metric_name         = "CPUUtilization"
  dimensions          = { AutoScalingGroupName = aws_autoscaling_group.web.name }
  statistic           = "Average"
  period              = 60
  evaluation_periods  = 2
  datapoints_to_alarm = 2
  comparison_operator = "GreaterThanOrEqualToThreshold"
  threshold           = var.high_cpu_threshold
  treat_missing_data  = "notBreaching"
  alarm_actions       = [aws_autoscaling_policy.web_out.arn]
}

resource "aws_cloudwatch_metric_alarm" "web_low_cpu" {
  alarm_name          = "web-low-cpu"
  namespace           = "AWS/EC2"
  metric_name         = "CPUUtilization"
  dimensions          = { AutoScalingGroupName = aws_autoscaling_group.web.name }
  statistic           = "Average"
  period              = 300
  evaluation_periods  = 1
  comparison_operator = "LessThanThreshold"
  threshold           = 20
  alarm_actions       = [aws_autoscaling_policy.web_in.arn]
}

resource "aws_autoscaling_group" "mixed" {
  name               = "mixed"
  availability_zones = local.zones
  min_size           = 0
  max_size           = 8
  desired_capacity   = 3
  capacity_rebalance = true

  mixed_instances_policy {
    instances_distribution {
      on_demand_base_capacity                  = 0
      on_demand_percentage_above_base_capacity = 100
    }
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.app.id
        version            = "$Latest"
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

  # target tracking owns the desired capacity once the group exists
  lifecycle {
    ignore_changes = [desired_capacity]
  }
}

resource "aws_autoscaling_policy" "mixed_cpu" {
  name                      = "mixed-cpu-50"
  autoscaling_group_name    = aws_autoscaling_group.mixed.name
  policy_type               = "TargetTrackingScaling"
  estimated_instance_warmup = 60

  target_tracking_configuration {
    predefined_metric_specification {
      predefined_metric_type = "ASGAverageCPUUtilization"
    }
    target_value = 50
  }
}

resource "aws_autoscaling_group" "lt" {
  name               = "lt"
  availability_zones = local.zones
  min_size           = 1
  max_size           = 3
  desired_capacity   = var.lt_desired

  launch_template {
    name    = aws_launch_template.app.name
    version = "$Default"
  }

  # instances booted ahead and kept stopped: a scale-out starts one instead of booting
  # (docs/autoscaling.md section 7)
  warm_pool {
    pool_state                  = "Stopped"
    min_size                    = 1
    max_group_prepared_capacity = 2
    instance_reuse_policy {
      reuse_on_scale_in = true
    }
  }
}

# each new lt instance waits in Pending:Wait until a handler completes the action or the
# heartbeat runs out (60 s: one second at --time-scale 60), then CONTINUE puts it in service
resource "aws_autoscaling_lifecycle_hook" "lt_launch" {
  name                   = "lt-launch"
  autoscaling_group_name = aws_autoscaling_group.lt.name
  lifecycle_transition   = "autoscaling:EC2_INSTANCE_LAUNCHING"
  heartbeat_timeout      = 60
  default_result         = "CONTINUE"
}

# web's policies own its desired capacity; this raises it before the working day, and the
# policies take it from there
resource "aws_autoscaling_schedule" "web_morning" {
  scheduled_action_name  = "web-morning"
  autoscaling_group_name = aws_autoscaling_group.web.name
  recurrence             = "0 8 * * MON-FRI"
  time_zone              = "Etc/UTC"
  min_size               = -1
  max_size               = -1
  desired_capacity       = 3
}
