# examples/terraform/main.tf: an Auto Scaling setup as a user writes it, run unmodified
# against the emulator (docs/terraform.md walks through it):
#   - a launch configuration and a launch template;
#   - an Application Load Balancer in the default subnets of two zones: a target group
#     with an HTTP health check, a listener forwarding to it and a rule answering a path
#     itself;
#   - "web": a group on the launch configuration behind a classic load balancer and the
#     ALB's target group, with a step policy (scale out on high CPU) and a simple policy
#     (scale in on low CPU), each the action of a CloudWatch alarm, a target-tracking
#     policy on the ALB's requests per target, and a metric-math alarm on the ALB's 5xx
#     rate;
#   - "mixed": a group with a mixed instances policy (two weighted instance types of the
#     launch template, capacity rebalancing) and a target-tracking policy;
#   - "lt": a group on the launch template by name and version, with a warm pool of
#     stopped instances and a launch lifecycle hook;
#   - a scheduled action that raises web's desired capacity on weekday mornings;
#   - the groups' launch and terminate notifications to an SNS topic.

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
  # an SNS topic of the account (the emulator has no SNS: it keeps the ARN as AWS does)
  topic_arn = "arn:aws:sns:us-east-1:123456789012:scaling-events"
}

# the default subnet of each zone, and through it the default VPC
data "aws_subnet" "default" {
  for_each          = toset(local.zones)
  availability_zone = each.value
  default_for_az    = true
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

resource "aws_lb" "app" {
  name               = "web-alb"
  load_balancer_type = "application"
  subnets            = [for z in local.zones : data.aws_subnet.default[z].id]
  tags               = { app = "demo" }
}

resource "aws_lb_target_group" "web" {
  name                 = "web-tg"
  port                 = 8080
  protocol             = "HTTP"
  vpc_id               = data.aws_subnet.default[local.zones[0]].vpc_id
  deregistration_delay = 30

  health_check {
    path                = "/health"
    interval            = 10
    timeout             = 5
    healthy_threshold   = 2
    unhealthy_threshold = 2
    matcher             = "200"
  }
}

resource "aws_lb_listener" "http" {
  load_balancer_arn = aws_lb.app.arn
  port              = 80
  protocol          = "HTTP"

  default_action {
    type             = "forward"
    target_group_arn = aws_lb_target_group.web.arn
  }
}

# the load balancer answers /version itself
resource "aws_lb_listener_rule" "version" {
  listener_arn = aws_lb_listener.http.arn
  priority     = 10

  condition {
    path_pattern {
      values = ["/version"]
    }
  }
  action {
    type = "fixed-response"
    fixed_response {
      content_type = "text/plain"
      message_body = "v1"
      status_code  = "200"
    }
  }
}

resource "aws_autoscaling_group" "web" {
  name                      = "web"
  launch_configuration      = aws_launch_configuration.web.name
  availability_zones        = local.zones
  min_size                  = 1
  max_size                  = 4
  desired_capacity          = 2
  load_balancers            = [aws_elb.web.name]
  target_group_arns         = [aws_lb_target_group.web.arn]
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

# keep about 100 requests a minute per instance behind the ALB
resource "aws_autoscaling_policy" "web_requests" {
  name                      = "web-alb-requests"
  autoscaling_group_name    = aws_autoscaling_group.web.name
  policy_type               = "TargetTrackingScaling"
  estimated_instance_warmup = 60

  target_tracking_configuration {
    predefined_metric_specification {
      predefined_metric_type = "ALBRequestCountPerTarget"
      resource_label         = "${aws_lb.app.arn_suffix}/${aws_lb_target_group.web.arn_suffix}"
    }
    target_value = 100
  }
}

# metric math: the share of the ALB's requests its targets answered with a 5xx
resource "aws_cloudwatch_metric_alarm" "web_5xx" {
  alarm_name          = "web-5xx-rate"
  alarm_description   = "more than 5% of web's requests fail"
  comparison_operator = "GreaterThanThreshold"
  threshold           = 5
  evaluation_periods  = 3
  datapoints_to_alarm = 2
  treat_missing_data  = "notBreaching"
  alarm_actions       = [local.topic_arn]

  metric_query {
    id          = "rate"
    expression  = "100 * errors / requests"
    label       = "5xx rate (%)"
    return_data = true
  }
  metric_query {
    id = "errors"
    metric {
      namespace   = "AWS/ApplicationELB"
      metric_name = "HTTPCode_Target_5XX_Count"
      dimensions  = { LoadBalancer = aws_lb.app.arn_suffix }
      period      = 60
      stat        = "Sum"
    }
  }
  metric_query {
    id = "requests"
    metric {
      namespace   = "AWS/ApplicationELB"
      metric_name = "RequestCount"
      dimensions  = { LoadBalancer = aws_lb.app.arn_suffix }
      period      = 60
      stat        = "Sum"
    }
  }
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

# each new lt instance waits in Pending:Wait until a handler completes the action
# (CompleteLifecycleAction) or the heartbeat runs out (300 s: five seconds at --time-scale
# 60), then CONTINUE puts it in service
resource "aws_autoscaling_lifecycle_hook" "lt_launch" {
  name                   = "lt-launch"
  autoscaling_group_name = aws_autoscaling_group.lt.name
  lifecycle_transition   = "autoscaling:EC2_INSTANCE_LAUNCHING"
  heartbeat_timeout      = 300
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

# launches, terminations and their failures in web and lt, to the topic
resource "aws_autoscaling_notification" "events" {
  group_names = [aws_autoscaling_group.web.name, aws_autoscaling_group.lt.name]
  notifications = [
    "autoscaling:EC2_INSTANCE_LAUNCH",
    "autoscaling:EC2_INSTANCE_TERMINATE",
    "autoscaling:EC2_INSTANCE_LAUNCH_ERROR",
    "autoscaling:EC2_INSTANCE_TERMINATE_ERROR",
  ]
  topic_arn = local.topic_arn
}
