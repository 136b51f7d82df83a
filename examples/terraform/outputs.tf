output "elb_dns_name" {
  value = aws_elb.web.dns_name
}

output "web_step_policy_arn" {
  value = aws_autoscaling_policy.web_out.arn
}
