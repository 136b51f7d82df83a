# examples/terraform/provider.tf: the hashicorp/aws provider pointed at a scalelab emulator
# (docs/terraform.md). Nothing here reaches AWS: every service the stack uses has its
# endpoint set to the emulator, and the provider's calls to STS, IAM and the instance
# metadata service are skipped.
terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.100"
    }
  }
}

variable "endpoint" {
  description = "The emulator's URL (emulator --port 4566: http://127.0.0.1:4566)"
  type        = string
  default     = "http://127.0.0.1:4566"
}

provider "aws" {
  region     = "us-east-1"
  access_key = "testing"
  secret_key = "testing"

  # the emulator is not AWS: no STS GetCallerIdentity, no IAM lookups of the account,
  # no EC2 metadata service, any region name
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  skip_region_validation      = true

  endpoints {
    autoscaling = var.endpoint
    cloudwatch  = var.endpoint
    ec2         = var.endpoint
    elb         = var.endpoint
    elbv2       = var.endpoint
    iam         = var.endpoint
    sts         = var.endpoint
  }
}
