output "elb_dns_name" {
  value = aws_elb.web.dns_name
}

output "alb_dns_name" {
  value = aws_lb.app.dns_name
}

output "web_target_group_arn" {
  value = aws_lb_target_group.web.arn
}

output "web_step_policy_arn" {
  value = aws_autoscaling_policy.web_out.arn
}
