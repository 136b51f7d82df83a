#!/usr/bin/env bash
# Classic ELB after creation (docs/elb-classic.md 6) through boto3 and the aws CLI:
# ApplySecurityGroupsToLoadBalancer replaces the groups and SourceSecurityGroup,
# Attach/DetachLoadBalancerToSubnets change the zones DescribeLoadBalancers reports,
# SetLoadBalancerListenerSSLCertificate replaces the HTTPS listener's certificate (the one
# openssl s_client reads from the listener changes with it) with AWS's errors for the rest, DescribeAccountLimits gives AWS's three limits. TAP lines;
# KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet

python3 - "$EP" <<'EOF' || failed=1
import json, subprocess, sys, urllib.request
import boto3, botocore.exceptions
import tap
from tap import check, wait

ep = sys.argv[1]
elb = boto3.client("elb", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)

def code(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"]
    return ""

subnets = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
vpc = subnets[0]["VpcId"]
cert = "arn:aws:iam::123456789012:server-certificate/a"
elb.create_load_balancer(LoadBalancerName="web", Subnets=[subnets[0]["SubnetId"], subnets[1]["SubnetId"]],
                         Listeners=[{"Protocol": "HTTP", "LoadBalancerPort": 80, "InstancePort": 80},
                                    {"Protocol": "HTTPS", "LoadBalancerPort": 443, "InstancePort": 80,
                                     "SSLCertificateId": cert}])
def desc():
    return elb.describe_load_balancers(LoadBalancerNames=["web"])["LoadBalancerDescriptions"][0]

g1 = ec2.create_security_group(GroupName="front", Description="f", VpcId=vpc)["GroupId"]
g2 = ec2.create_security_group(GroupName="back", Description="b", VpcId=vpc)["GroupId"]
r = elb.apply_security_groups_to_load_balancer(LoadBalancerName="web", SecurityGroups=[g1, g2])
d = desc()
check("ApplySecurityGroupsToLoadBalancer: reply and DescribeLoadBalancers show the two groups",
      r["SecurityGroups"] == [g1, g2] and d["SecurityGroups"] == [g1, g2], (r, d["SecurityGroups"]))
check("SourceSecurityGroup: the first group's name, the account as owner",
      d["SourceSecurityGroup"] == {"OwnerAlias": "123456789012", "GroupName": "front"}, d["SourceSecurityGroup"])
eni = ec2.describe_network_interfaces(Filters=[{"Name": "description", "Values": ["ELB web"]}])["NetworkInterfaces"]
check("the load balancer's network interfaces carry the new groups",
      eni and all(sorted(g["GroupId"] for g in n["Groups"]) == sorted([g1, g2]) for n in eni), eni)
check("an unknown group: InvalidSecurityGroup, nothing changed",
      code(elb.apply_security_groups_to_load_balancer, LoadBalancerName="web",
           SecurityGroups=["sg-0123456789abcdef0"]) == "InvalidSecurityGroup" and desc()["SecurityGroups"] == [g1, g2])
check("an unknown load balancer: LoadBalancerNotFound",
      code(elb.apply_security_groups_to_load_balancer, LoadBalancerName="nope", SecurityGroups=[g1])
      in ("LoadBalancerNotFound", "AccessPointNotFound"))

r = elb.attach_load_balancer_to_subnets(LoadBalancerName="web", Subnets=[subnets[2]["SubnetId"]])
d = desc()
check("AttachLoadBalancerToSubnets: three subnets, the third zone enabled",
      len(r["Subnets"]) == 3 and subnets[2]["AvailabilityZone"] in d["AvailabilityZones"], (r, d["AvailabilityZones"]))
check("an unknown subnet: SubnetNotFound",
      code(elb.attach_load_balancer_to_subnets, LoadBalancerName="web",
           Subnets=["subnet-0123456789abcdef0"]) == "SubnetNotFound")
other = ec2.create_subnet(VpcId=vpc, CidrBlock="172.31.250.0/24",
                          AvailabilityZone=subnets[0]["AvailabilityZone"])["Subnet"]["SubnetId"]
check("a second subnet in an attached zone: InvalidConfigurationRequest",
      code(elb.attach_load_balancer_to_subnets, LoadBalancerName="web", Subnets=[other]) == "InvalidConfigurationRequest")
r = elb.detach_load_balancer_from_subnets(LoadBalancerName="web", Subnets=[subnets[0]["SubnetId"]])
d = desc()
check("DetachLoadBalancerFromSubnets: two left, that zone disabled",
      len(r["Subnets"]) == 2 and subnets[0]["AvailabilityZone"] not in d["AvailabilityZones"], (r, d["AvailabilityZones"]))
check("detaching every subnet: InvalidConfigurationRequest",
      code(elb.detach_load_balancer_from_subnets, LoadBalancerName="web", Subnets=r["Subnets"]) == "InvalidConfigurationRequest")

def served():
    """The subject of the certificate the HTTPS listener serves (openssl s_client)."""
    d = json.load(urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5))
    port = next((x["port"] for x in d.get("listeners", []) if x.get("load_balancer") == "web"
                 and x.get("load_balancer_port") == 443), None)
    if not port:
        return ""
    pem = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}"], input="",
                         capture_output=True, text=True, timeout=10).stdout
    return subprocess.run(["openssl", "x509", "-noout", "-subject", "-nameopt", "RFC2253"], input=pem,
                          capture_output=True, text=True).stdout.strip()

check("the HTTPS listener serves a certificate for its SSLCertificateId (OU the id's name)",
      wait(lambda: "OU=a," in served(), 10), served())
new = "arn:aws:acm:us-east-1:123456789012:certificate/12345678-aaaa-bbbb-cccc-123456789012"
elb.set_load_balancer_listener_ssl_certificate(LoadBalancerName="web", LoadBalancerPort=443, SSLCertificateId=new)
check("SetLoadBalancerListenerSSLCertificate: the listener now serves the new certificate",
      wait(lambda: "OU=12345678-aaaa-bbbb-cccc-123456789012" in served(), 10), served())
ls = {l["Listener"]["LoadBalancerPort"]: l["Listener"] for l in desc()["ListenerDescriptions"]}
check("SetLoadBalancerListenerSSLCertificate: the HTTPS listener has the new certificate",
      ls[443]["SSLCertificateId"] == new, ls[443])
check("a port without a listener: ListenerNotFound",
      code(elb.set_load_balancer_listener_ssl_certificate, LoadBalancerName="web", LoadBalancerPort=8443,
           SSLCertificateId=new) == "ListenerNotFound")
check("the HTTP listener: InvalidConfigurationRequest",
      code(elb.set_load_balancer_listener_ssl_certificate, LoadBalancerName="web", LoadBalancerPort=80,
           SSLCertificateId=new) == "InvalidConfigurationRequest")
check("an id that is no IAM/ACM certificate: CertificateNotFound, unchanged",
      code(elb.set_load_balancer_listener_ssl_certificate, LoadBalancerName="web", LoadBalancerPort=443,
           SSLCertificateId="my-cert") == "CertificateNotFound" and
      {l["Listener"]["LoadBalancerPort"]: l["Listener"] for l in desc()["ListenerDescriptions"]}[443]["SSLCertificateId"] == new)
lim = {l["Name"]: l["Max"] for l in elb.describe_account_limits()["Limits"]}
check("DescribeAccountLimits: AWS's three limits",
      lim == {"classic-load-balancers": "20", "classic-listeners": "100", "classic-registered-instances": "1000"}, lim)
sys.exit(tap.failed)
EOF

export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
check "aws elb describe-account-limits: classic-listeners 100" \
    sh -c "aws --endpoint-url '$EP' elb describe-account-limits --query \"Limits[?Name=='classic-listeners'].Max\" --output text | grep -qx 100"
finish
