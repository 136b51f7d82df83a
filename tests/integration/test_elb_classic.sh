#!/usr/bin/env bash
# Classic ELB as Terraform's aws_elb / aws_security_group and Ansible's elb_classic_lb use
# it (docs/elb-classic.md), through Debian's aws CLI v2 (/usr/bin/aws) and boto3: the
# default_elb_<id> group and SourceSecurityGroup, the lookups Terraform makes, EC2 security
# groups with AWS's errors, the load balancer's network interfaces, policies, Ansible's
# elb_classic_lb play (Debian's ansible, which scripts/deps.sh installs), and all of it across a restart
# with --state. Prints TAP lines. KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

AWS=/usr/bin/aws # Debian's aws CLI v2
need "$AWS" awscli || finish
export AWS_PAGER=""
# fails: the command must fail with this error code in its output
fails() { local code=$1; shift; if "$@" >"$TMP/err" 2>&1; then return 1; fi; grep -q "($code)" "$TMP/err" || { cat "$TMP/err"; return 1; }; }
a() { "$AWS" --endpoint-url "$EP" --output text "$@"; }

start_emu emu --quiet --clock manual --state "$TMP/state.json"

# --- the load balancer's security group and SourceSecurityGroup ---
check "create-load-balancer in the default VPC without groups" \
    a elb create-load-balancer --load-balancer-name web \
    --listeners Protocol=HTTP,LoadBalancerPort=80,InstanceProtocol=HTTP,InstancePort=8080 \
    --availability-zones us-east-1a us-east-1b
SSG=$(a elb describe-load-balancers --load-balancer-names web \
    --query 'LoadBalancerDescriptions[0].SourceSecurityGroup.[OwnerAlias,GroupName]')
check "SourceSecurityGroup is the account and the default_elb_<id> group" \
    bash -c "echo '$SSG' | grep -Eq '^123456789012[[:space:]]+default_elb_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'"
GNAME=$(echo "$SSG" | awk '{print $2}')
VPC=$(a ec2 describe-vpcs --filters Name=is-default,Values=true --query 'Vpcs[0].VpcId')
check "Terraform's lookup: describe-security-groups by group-name and vpc-id" bash -c "
    [ \"\$('$AWS' --endpoint-url $EP --output text ec2 describe-security-groups \
        --filters Name=group-name,Values=$GNAME Name=vpc-id,Values=$VPC \
        --query 'SecurityGroups[0].[GroupId,IpPermissions[0].FromPort]')\" = \
      \"\$('$AWS' --endpoint-url $EP --output text elb describe-load-balancers \
        --load-balancer-names web --query 'LoadBalancerDescriptions[0].SecurityGroups[0]')	80\" ]"
check "the default_elb group's description" bash -c "
    a() { '$AWS' --endpoint-url $EP --output text \"\$@\"; }
    a ec2 describe-security-groups --group-names $GNAME --query 'SecurityGroups[0].Description' |
    grep -qx 'ELB created security group used when no security group is specified during ELB creation - modifications could impact traffic to future ELBs'"

# --- network interfaces ---
check "DescribeNetworkInterfaces by attachment.instance-owner-id and description (2 subnets)" bash -c "
    [ \$('$AWS' --endpoint-url $EP --output text ec2 describe-network-interfaces \
        --filters Name=attachment.instance-owner-id,Values=amazon-elb 'Name=description,Values=ELB web' \
        --query 'length(NetworkInterfaces)') = 2 ]"
check "DescribeNetworkInterfaces unknown id: InvalidNetworkInterfaceID.NotFound" \
    fails InvalidNetworkInterfaceID.NotFound a ec2 describe-network-interfaces \
    --network-interface-ids eni-0123456789abcdef0

# --- EC2 security groups, as Terraform's aws_security_group drives them ---
SG=$(a ec2 create-security-group --group-name tf-web --description "Managed by Terraform" \
    --tag-specifications 'ResourceType=security-group,Tags=[{Key=Name,Value=tf-web}]' --query GroupId)
check "create-security-group returns sg-" bash -c "echo '$SG' | grep -Eq '^sg-0[0-9a-f]{16}$'"
check "a new group has the all-traffic egress rule" bash -c "
    '$AWS' --endpoint-url $EP --output text ec2 describe-security-groups --group-ids $SG \
    --query 'SecurityGroups[0].IpPermissionsEgress[0].[IpProtocol,IpRanges[0].CidrIp]' | grep -qx '\-1	0.0.0.0/0'"
check "revoke the default egress rule (Terraform's first step)" \
    a ec2 revoke-security-group-egress --group-id "$SG" \
    --ip-permissions 'IpProtocol=-1,FromPort=0,ToPort=0,IpRanges=[{CidrIp=0.0.0.0/0}]'
check "revoking it again: InvalidPermission.NotFound" \
    fails InvalidPermission.NotFound a ec2 revoke-security-group-egress --group-id "$SG" \
    --ip-permissions 'IpProtocol=-1,IpRanges=[{CidrIp=0.0.0.0/0}]'
check "authorize ingress (--protocol/--port/--cidr)" \
    a ec2 authorize-security-group-ingress --group-id "$SG" --protocol tcp --port 443 --cidr 0.0.0.0/0
check "the same rule again: InvalidPermission.Duplicate with AWS's words" bash -c "
    if '$AWS' --endpoint-url $EP ec2 authorize-security-group-ingress --group-id $SG \
        --protocol tcp --port 443 --cidr 0.0.0.0/0 2>$TMP/dup; then exit 1; fi
    grep -qF 'the specified rule \"peer: 0.0.0.0/0, TCP, from port: 443, to port: 443, ALLOW\" already exists' $TMP/dup"
check "create-security-group twice: InvalidGroup.Duplicate" \
    fails InvalidGroup.Duplicate a ec2 create-security-group --group-name tf-web --description x
check "delete-security-group malformed id: InvalidGroupId.Malformed" \
    fails InvalidGroupId.Malformed a ec2 delete-security-group --group-id not-a-group
check "the VPC's default group cannot go: CannotDelete" bash -c "
    D=\$('$AWS' --endpoint-url $EP --output text ec2 describe-security-groups --group-names default \
        --query 'SecurityGroups[0].GroupId')
    ! '$AWS' --endpoint-url $EP ec2 delete-security-group --group-id \$D 2>$TMP/cd && grep -q CannotDelete $TMP/cd"
check "a load balancer with the group" \
    a elb create-load-balancer --load-balancer-name api --security-groups "$SG" \
    --listeners Protocol=HTTP,LoadBalancerPort=80,InstanceProtocol=HTTP,InstancePort=8080 \
    --availability-zones us-east-1a
check "its SourceSecurityGroup names that group" bash -c "
    '$AWS' --endpoint-url $EP --output text elb describe-load-balancers --load-balancer-names api \
    --query 'LoadBalancerDescriptions[0].SourceSecurityGroup.GroupName' | grep -qx tf-web"
check "a group a load balancer uses: DependencyViolation" \
    fails DependencyViolation a ec2 delete-security-group --group-id "$SG"
check "an unknown group for a load balancer: InvalidSecurityGroup" \
    fails InvalidSecurityGroup a elb create-load-balancer --load-balancer-name bad \
    --security-groups sg-0123456789abcdef0 --availability-zones us-east-1a \
    --listeners Protocol=HTTP,LoadBalancerPort=80,InstanceProtocol=HTTP,InstancePort=8080

# --- policies, as Ansible's elb_classic_lb uses them ---
check "describe-load-balancer-policies of a load balancer (none yet)" bash -c "
    [ \"\$('$AWS' --endpoint-url $EP --output text elb describe-load-balancer-policies \
        --load-balancer-name web --query 'length(PolicyDescriptions)')\" = 0 ]"
check "describe-load-balancer-policies without a name: the predefined ones" bash -c "
    '$AWS' --endpoint-url $EP --output text elb describe-load-balancer-policies \
    --query 'PolicyDescriptions[].PolicyName' | grep -q ELBSecurityPolicy-TLS-1-2-2017-01"
check "describe-load-balancer-policy-types lists six" bash -c "
    [ \$('$AWS' --endpoint-url $EP --output text elb describe-load-balancer-policy-types \
        --query 'length(PolicyTypeDescriptions)') = 6 ]"
check "create an LB cookie stickiness policy and set it on the listener" bash -c "
    a() { '$AWS' --endpoint-url $EP --output text \"\$@\"; }
    a elb create-lb-cookie-stickiness-policy --load-balancer-name web --policy-name ec2-elb-lb-LBCookieStickinessPolicyType --cookie-expiration-period 60 &&
    a elb set-load-balancer-policies-of-listener --load-balancer-name web --load-balancer-port 80 --policy-names ec2-elb-lb-LBCookieStickinessPolicyType &&
    a elb describe-load-balancers --load-balancer-names web \
      --query 'LoadBalancerDescriptions[0].[ListenerDescriptions[0].PolicyNames[0],Policies.LBCookieStickinessPolicies[0].CookieExpirationPeriod]' |
    grep -qx 'ec2-elb-lb-LBCookieStickinessPolicyType	60'"
check "a ProxyProtocol policy on the back-end port" bash -c "
    a() { '$AWS' --endpoint-url $EP --output text \"\$@\"; }
    a elb create-load-balancer-policy --load-balancer-name web --policy-name ProxyProtocol-policy \
      --policy-type-name ProxyProtocolPolicyType --policy-attributes AttributeName=ProxyProtocol,AttributeValue=true &&
    a elb set-load-balancer-policies-for-backend-server --load-balancer-name web --instance-port 8080 --policy-names ProxyProtocol-policy &&
    a elb describe-load-balancers --load-balancer-names web \
      --query 'LoadBalancerDescriptions[0].BackendServerDescriptions[0].[InstancePort,PolicyNames[0]]' | grep -qx '8080	ProxyProtocol-policy'"
check "ProxyProtocol on a listener: InvalidConfigurationRequest" \
    fails InvalidConfigurationRequest a elb set-load-balancer-policies-of-listener \
    --load-balancer-name web --load-balancer-port 80 --policy-names ProxyProtocol-policy
check "a policy the load balancer lacks: PolicyNotFound" \
    fails PolicyNotFound a elb set-load-balancer-policies-of-listener --load-balancer-name web \
    --load-balancer-port 80 --policy-names ELBSecurityPolicy-TLS-1-2-2017-01
check "an enabled policy cannot be deleted" \
    fails InvalidConfigurationRequest a elb delete-load-balancer-policy --load-balancer-name web \
    --policy-name ProxyProtocol-policy
check "duplicate policy name: DuplicatePolicyName" \
    fails DuplicatePolicyName a elb create-load-balancer-policy --load-balancer-name web \
    --policy-name ProxyProtocol-policy --policy-type-name ProxyProtocolPolicyType \
    --policy-attributes AttributeName=ProxyProtocol,AttributeValue=true
check "unknown policy type: PolicyTypeNotFound" \
    fails PolicyTypeNotFound a elb describe-load-balancer-policy-types --policy-type-names NoType
check "an HTTPS listener gets ELBSecurityPolicy-2016-08" bash -c "
    a() { '$AWS' --endpoint-url $EP --output text \"\$@\"; }
    a elb create-load-balancer-listeners --load-balancer-name web \
      --listeners Protocol=HTTPS,LoadBalancerPort=443,InstanceProtocol=HTTP,InstancePort=8080,SSLCertificateId=arn:aws:iam::123456789012:server-certificate/x &&
    a elb describe-load-balancers --load-balancer-names web \
      --query 'LoadBalancerDescriptions[0].ListenerDescriptions[?Listener.LoadBalancerPort==\`443\`].PolicyNames[0]' |
    grep -qx ELBSecurityPolicy-2016-08"

# --- boto3 (Debian's python3-boto3) reads the same ---
check "boto3: the policies and groups as Ansible and Terraform read them" /usr/bin/python3 - "$EP" <<'EOF'
import sys, boto3
ep = sys.argv[1]
elb = boto3.client("elb", endpoint_url=ep, region_name="us-east-1")
ec2 = boto3.client("ec2", endpoint_url=ep, region_name="us-east-1")
pol = elb.describe_load_balancer_policies(LoadBalancerName="web")["PolicyDescriptions"]
names = {p["PolicyName"]: p for p in pol}
assert names["ProxyProtocol-policy"]["PolicyAttributeDescriptions"] == [
    {"AttributeName": "ProxyProtocol", "AttributeValue": "true"}], names
lb = elb.describe_load_balancers(LoadBalancerNames=["web"])["LoadBalancerDescriptions"][0]
g = ec2.describe_security_groups(Filters=[
    {"Name": "group-name", "Values": [lb["SourceSecurityGroup"]["GroupName"]]},
    {"Name": "vpc-id", "Values": [lb["VPCId"]]}])["SecurityGroups"]
assert [x["GroupId"] for x in g] == lb["SecurityGroups"], (g, lb)
assert "ELBSecurityPolicy-2016-08" in lb["Policies"]["OtherPolicies"], lb["Policies"]
EOF

# --- Ansible's elb_classic_lb (amazon.aws: Debian's ansible carries it) ---
if need ansible-playbook ansible; then
    check "ansible elb_classic_lb: create, the same again unchanged, delete" env EP="$EP" \
        ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_LOCALHOST_WARNING=False \
        ANSIBLE_INVENTORY_UNPARSED_WARNING=False ANSIBLE_NOCOLOR=1 \
        timeout 300 ansible-playbook -i localhost, "$ROOT/tests/integration/ansible_elb_classic.yml"
fi

# --- --state keeps it all; the interfaces come back ---
kill -TERM "$LAST"
wait "$LAST" 2>/dev/null || true
start_emu emu2 --quiet --clock manual --state "$TMP/state.json"
check "after a restart: policies, listener sets and SourceSecurityGroup" bash -c "
    '$AWS' --endpoint-url $EP --output text elb describe-load-balancers --load-balancer-names web \
      --query 'LoadBalancerDescriptions[0].[SourceSecurityGroup.GroupName,ListenerDescriptions[0].PolicyNames[0],BackendServerDescriptions[0].InstancePort]' |
    grep -qx '$GNAME	ec2-elb-lb-LBCookieStickinessPolicyType	8080'"
check "after a restart: the security groups and their rules" bash -c "
    '$AWS' --endpoint-url $EP --output text ec2 describe-security-groups --group-ids $SG \
      --query 'SecurityGroups[0].[IpPermissions[0].FromPort,length(IpPermissionsEgress)]' | grep -qx '443	0'"
check "after a restart: the network interfaces" bash -c "
    [ \$('$AWS' --endpoint-url $EP --output text ec2 describe-network-interfaces \
        --filters 'Name=description,Values=ELB web' --query 'length(NetworkInterfaces)') = 2 ]"
check "delete the load balancers, then the group" bash -c "
    a() { '$AWS' --endpoint-url $EP --output text \"\$@\"; }
    a elb delete-load-balancer --load-balancer-name api && a elb delete-load-balancer --load-balancer-name web &&
    [ \$(a ec2 describe-network-interfaces --query 'length(NetworkInterfaces)') = 0 ] &&
    a ec2 delete-security-group --group-id $SG"

finish
