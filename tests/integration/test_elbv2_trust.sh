#!/usr/bin/env bash
# ELBv2 trust stores, mutual TLS settings, capacity reservations, IPAM pools and resource
# policies through boto3 (docs/elbv2.md 14-15): the emulator's S3 is --s3-dir (bucket B,
# key K = DIR/B/K); CA bundles and CRLs made here by the openssl CLI are parsed and checked
# as AWS does (InvalidCaCertificatesBundle for a leaf or junk, CaCertificatesBundleNotFound,
# InvalidRevocationContent for a CRL of another CA); listeners in verify mode need an
# existing trust store, which then cannot be deleted (TrustStoreInUse); capacity
# reservations go pending -> provisioned on the emulated clock. Debian's botocore (1.29)
# predates these operations, so the clients get AWS's own model of them, botocore 1.43's
# (the copy in emulator/models/), through AWS_DATA_PATH. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need openssl

S3="$TMP/s3"
mkdir -p "$S3/certs"
(
    cd "$S3/certs"
    cat >ca.cnf <<'EOF'
[req]
distinguished_name = dn
[dn]
[v3_ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
[v3_leaf]
basicConstraints = CA:FALSE
EOF
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
        -out ca.pem -days 30 -subj /CN=scalelab-ca -config ca.cnf -extensions v3_ca 2>/dev/null
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca2.key \
        -out ca2.pem -days 30 -subj /CN=other-ca -config ca.cnf -extensions v3_ca 2>/dev/null
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout leaf.key \
        -out leaf.pem -days 30 -subj /CN=leaf -config ca.cnf -extensions v3_leaf 2>/dev/null
    cat ca.pem ca2.pem >both.pem
    echo "not a certificate" >junk.pem
    # a CRL of ca revoking one serial, and one of ca2
    for c in ca ca2; do
        mkdir -p "db-$c"
        : >"db-$c/index.txt"
        printf '1000\n' >"db-$c/crlnumber"
        cat >"crl-$c.cnf" <<EOF
[ca]
default_ca = d
[d]
database = db-$c/index.txt
crlnumber = db-$c/crlnumber
default_md = sha256
default_crl_days = 30
EOF
    done
    printf 'R\t300101000000Z\t260101000000Z\t0A\tunknown\t/CN=revoked\n' >db-ca/index.txt
    openssl ca -gencrl -config crl-ca.cnf -keyfile ca.key -cert ca.pem -out ca.crl 2>/dev/null
    openssl ca -gencrl -config crl-ca2.cnf -keyfile ca2.key -cert ca2.pem -out ca2.crl 2>/dev/null
)

mkdir -p "$TMP/models/elbv2/2015-12-01"
cp "$ROOT/emulator/models/elbv2.json" "$TMP/models/elbv2/2015-12-01/service-2.json"
export AWS_DATA_PATH="$TMP/models"

start_emu emu --quiet --clock manual --s3-dir "$S3"

python3 - "$EP" "$S3" <<'EOF' || failed=1
import json, sys, urllib.request
import boto3, botocore.exceptions
import tap
from tap import check

ep, s3dir = sys.argv[1], sys.argv[2]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)

def error(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

def code(fn, **kw):
    return (error(fn, **kw) or ("",))[0]

def advance(s):
    req = urllib.request.Request(ep + "/_scalelab/clock", data=json.dumps({"advance_s": s}).encode(),
                                 method="POST")
    urllib.request.urlopen(req).read()

# --- trust stores ---
ts = v2.create_trust_store(Name="clients", CaCertificatesBundleS3Bucket="certs",
                           CaCertificatesBundleS3Key="both.pem",
                           Tags=[{"Key": "team", "Value": "a"}])["TrustStores"][0]
tsa = ts["TrustStoreArn"]
check("CreateTrustStore: ACTIVE, two CA certificates, no revocations, ARN truststore/NAME/ID",
      ts["Status"] == "ACTIVE" and ts["NumberOfCaCertificates"] == 2 and ts["TotalRevokedEntries"] == 0
      and tsa.startswith("arn:aws:elasticloadbalancing:us-east-1:123456789012:truststore/clients/"), ts)
check("a missing object: CaCertificatesBundleNotFound",
      code(v2.create_trust_store, Name="x", CaCertificatesBundleS3Bucket="certs",
           CaCertificatesBundleS3Key="nope.pem") == "CaCertificatesBundleNotFound")
check("a key that leaves the bucket: CaCertificatesBundleNotFound",
      code(v2.create_trust_store, Name="x", CaCertificatesBundleS3Bucket="certs",
           CaCertificatesBundleS3Key="../certs/ca.pem") == "CaCertificatesBundleNotFound")
check("a leaf (CA:FALSE) certificate: InvalidCaCertificatesBundle",
      error(v2.create_trust_store, Name="x", CaCertificatesBundleS3Bucket="certs",
            CaCertificatesBundleS3Key="leaf.pem") ==
      ("InvalidCaCertificatesBundle", "The specified ca certificate bundle is in an invalid format, or corrupt."))
check("junk: InvalidCaCertificatesBundle",
      code(v2.create_trust_store, Name="x", CaCertificatesBundleS3Bucket="certs",
           CaCertificatesBundleS3Key="junk.pem") == "InvalidCaCertificatesBundle")
check("the same name again: DuplicateTrustStoreName",
      code(v2.create_trust_store, Name="clients", CaCertificatesBundleS3Bucket="certs",
           CaCertificatesBundleS3Key="ca.pem") == "DuplicateTrustStoreName")
check("a bad name: ValidationError",
      code(v2.create_trust_store, Name="bad--name", CaCertificatesBundleS3Bucket="certs",
           CaCertificatesBundleS3Key="ca.pem") == "ValidationError")
check("DescribeTrustStores by name and by ARN",
      v2.describe_trust_stores(Names=["clients"])["TrustStores"][0]["TrustStoreArn"] == tsa and
      v2.describe_trust_stores(TrustStoreArns=[tsa])["TrustStores"][0]["Name"] == "clients")
check("an unknown trust store: TrustStoreNotFound",
      code(v2.describe_trust_stores, Names=["nope"]) == "TrustStoreNotFound")
loc = v2.get_trust_store_ca_certificates_bundle(TrustStoreArn=tsa)["Location"]
check("GetTrustStoreCaCertificatesBundle: the object's location",
      loc.startswith("file://") and loc.endswith("/certs/both.pem"), loc)
check("tags on the trust store",
      v2.describe_tags(ResourceArns=[tsa])["TagDescriptions"][0]["Tags"] == [{"Key": "team", "Value": "a"}])

# --- revocations ---
rev = v2.add_trust_store_revocations(TrustStoreArn=tsa, RevocationContents=[
    {"S3Bucket": "certs", "S3Key": "ca.crl", "RevocationType": "CRL"}])["TrustStoreRevocations"]
check("AddTrustStoreRevocations: id 1, one revoked entry",
      len(rev) == 1 and rev[0]["RevocationId"] == 1 and rev[0]["NumberOfRevokedEntries"] == 1, rev)
check("TotalRevokedEntries counts it",
      v2.describe_trust_stores(TrustStoreArns=[tsa])["TrustStores"][0]["TotalRevokedEntries"] == 1)
check("a CRL that is missing: RevocationContentNotFound",
      code(v2.add_trust_store_revocations, TrustStoreArn=tsa,
           RevocationContents=[{"S3Bucket": "certs", "S3Key": "nope.crl"}]) == "RevocationContentNotFound")
check("a certificate given as a CRL: InvalidRevocationContent",
      code(v2.add_trust_store_revocations, TrustStoreArn=tsa,
           RevocationContents=[{"S3Bucket": "certs", "S3Key": "ca.pem"}]) == "InvalidRevocationContent")
ts1 = v2.create_trust_store(Name="only-ca", CaCertificatesBundleS3Bucket="certs",
                            CaCertificatesBundleS3Key="ca.pem")["TrustStores"][0]["TrustStoreArn"]
check("a CRL of a CA not in the store: InvalidRevocationContent",
      code(v2.add_trust_store_revocations, TrustStoreArn=ts1,
           RevocationContents=[{"S3Bucket": "certs", "S3Key": "ca2.crl"}]) == "InvalidRevocationContent")
check("DescribeTrustStoreRevocations lists it",
      [r["RevocationId"] for r in v2.describe_trust_store_revocations(TrustStoreArn=tsa)["TrustStoreRevocations"]] == [1])
check("GetTrustStoreRevocationContent: its location",
      v2.get_trust_store_revocation_content(TrustStoreArn=tsa, RevocationId=1)["Location"].endswith("/certs/ca.crl"))
check("an unknown revocation id: RevocationIdNotFound",
      code(v2.remove_trust_store_revocations, TrustStoreArn=tsa, RevocationIds=[7]) == "RevocationIdNotFound")
v2.remove_trust_store_revocations(TrustStoreArn=tsa, RevocationIds=[1])
check("RemoveTrustStoreRevocations: gone, total 0",
      v2.describe_trust_store_revocations(TrustStoreArn=tsa)["TrustStoreRevocations"] == [] and
      v2.describe_trust_stores(TrustStoreArns=[tsa])["TrustStores"][0]["TotalRevokedEntries"] == 0)
mod = v2.modify_trust_store(TrustStoreArn=tsa, CaCertificatesBundleS3Bucket="certs",
                            CaCertificatesBundleS3Key="ca.pem")["TrustStores"][0]
check("ModifyTrustStore: one CA certificate now", mod["NumberOfCaCertificates"] == 1, mod)
check("ModifyTrustStore with a leaf: InvalidCaCertificatesBundle, unchanged",
      code(v2.modify_trust_store, TrustStoreArn=tsa, CaCertificatesBundleS3Bucket="certs",
           CaCertificatesBundleS3Key="leaf.pem") == "InvalidCaCertificatesBundle" and
      v2.describe_trust_stores(TrustStoreArns=[tsa])["TrustStores"][0]["NumberOfCaCertificates"] == 1)

# --- listeners with mutual authentication ---
subnets = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
sub = [s["SubnetId"] for s in subnets[:2]]
vpc = subnets[0]["VpcId"]
lb = v2.create_load_balancer(Name="mtls", Subnets=sub)["LoadBalancers"][0]
lba = lb["LoadBalancerArn"]
tg = v2.create_target_group(Name="tg", Protocol="HTTP", Port=80, VpcId=vpc)["TargetGroups"][0]["TargetGroupArn"]
fwd = [{"Type": "forward", "TargetGroupArn": tg}]
cert = [{"CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/abc"}]
check("verify without a trust store: ValidationError",
      code(v2.create_listener, LoadBalancerArn=lba, Protocol="HTTPS", Port=443, Certificates=cert,
           DefaultActions=fwd, MutualAuthentication={"Mode": "verify"}) == "ValidationError")
check("verify with an unknown trust store: TrustStoreNotFound",
      code(v2.create_listener, LoadBalancerArn=lba, Protocol="HTTPS", Port=443, Certificates=cert,
           DefaultActions=fwd, MutualAuthentication={"Mode": "verify", "TrustStoreArn": tsa + "x"}) == "TrustStoreNotFound")
check("mutual authentication on an HTTP listener: InvalidConfigurationRequest",
      code(v2.create_listener, LoadBalancerArn=lba, Protocol="HTTP", Port=80, DefaultActions=fwd,
           MutualAuthentication={"Mode": "passthrough"}) == "InvalidConfigurationRequest")
li = v2.create_listener(LoadBalancerArn=lba, Protocol="HTTPS", Port=443, Certificates=cert, DefaultActions=fwd,
                        MutualAuthentication={"Mode": "verify", "TrustStoreArn": tsa})["Listeners"][0]
ma = li["MutualAuthentication"]
check("a verify listener reports its trust store, association active",
      ma["Mode"] == "verify" and ma["TrustStoreArn"] == tsa and ma["TrustStoreAssociationStatus"] == "active"
      and ma["IgnoreClientCertificateExpiry"] is False, ma)
plain = v2.create_listener(LoadBalancerArn=lba, Protocol="HTTPS", Port=8443, Certificates=cert,
                           DefaultActions=fwd)["Listeners"][0]
check("an HTTPS listener without it reports Mode off", plain["MutualAuthentication"] == {"Mode": "off"}, plain)
check("DescribeTrustStoreAssociations: the load balancer",
      v2.describe_trust_store_associations(TrustStoreArn=tsa)["TrustStoreAssociations"] == [{"ResourceArn": lba}])
check("DeleteTrustStore while a listener uses it: TrustStoreInUse",
      code(v2.delete_trust_store, TrustStoreArn=tsa) == "TrustStoreInUse")
check("DeleteSharedTrustStoreAssociation of the account's own store: DeleteAssociationSameAccount",
      code(v2.delete_shared_trust_store_association, TrustStoreArn=tsa, ResourceArn=lba) == "DeleteAssociationSameAccount")
check("... of a resource not associated: AssociationNotFound",
      code(v2.delete_shared_trust_store_association, TrustStoreArn=tsa, ResourceArn=lba + "x") == "AssociationNotFound")
ml = v2.modify_listener(ListenerArn=li["ListenerArn"], MutualAuthentication={"Mode": "passthrough"})["Listeners"][0]
check("ModifyListener to passthrough: no trust store", ml["MutualAuthentication"] == {"Mode": "passthrough"}, ml)
check("the trust store is free again: no associations",
      v2.describe_trust_store_associations(TrustStoreArn=tsa)["TrustStoreAssociations"] == [])
check("GetResourcePolicy of a trust store: no policy (not shared)",
      "Policy" not in v2.get_resource_policy(ResourceArn=tsa))
check("GetResourcePolicy of anything else: ResourceNotFound",
      code(v2.get_resource_policy, ResourceArn=lba) == "ResourceNotFound")
v2.delete_trust_store(TrustStoreArn=tsa)
check("DeleteTrustStore: gone", code(v2.describe_trust_stores, TrustStoreArns=[tsa]) == "TrustStoreNotFound")

# --- capacity reservation ---
# The decrease limit is per UTC day: start these checks just after a midnight, so four
# minutes of them never straddle one, whenever the suite runs.
clk = json.load(urllib.request.urlopen(ep + "/_scalelab/clock"))
advance((86400000 - clk["now_ms"] % 86400000) / 1000 + 60)
cr = v2.describe_capacity_reservation(LoadBalancerArn=lba)
check("no reservation yet: empty states, two decreases left",
      cr["CapacityReservationState"] == [] and cr["DecreaseRequestsRemaining"] == 2 and
      "MinimumLoadBalancerCapacity" not in cr, cr)
m = v2.modify_capacity_reservation(LoadBalancerArn=lba, MinimumLoadBalancerCapacity={"CapacityUnits": 100})
check("ModifyCapacityReservation: every zone pending",
      m["MinimumLoadBalancerCapacity"]["CapacityUnits"] == 100 and len(m["CapacityReservationState"]) == 2 and
      all(z["State"]["Code"] == "pending" for z in m["CapacityReservationState"]), m)
check("a second request while pending: CapacityReservationPending",
      code(v2.modify_capacity_reservation, LoadBalancerArn=lba,
           MinimumLoadBalancerCapacity={"CapacityUnits": 200}) == "CapacityReservationPending")
advance(61)
cr = v2.describe_capacity_reservation(LoadBalancerArn=lba)
check("a minute later: provisioned, 50 units in each of the two zones",
      all(z["State"]["Code"] == "provisioned" and z["EffectiveCapacityUnits"] == 50.0
          for z in cr["CapacityReservationState"]), cr)
check("over 15000 units: CapacityUnitsLimitExceeded",
      code(v2.modify_capacity_reservation, LoadBalancerArn=lba,
           MinimumLoadBalancerCapacity={"CapacityUnits": 15001}) == "CapacityUnitsLimitExceeded")
check("neither units nor reset: ValidationError",
      code(v2.modify_capacity_reservation, LoadBalancerArn=lba) == "ValidationError")
v2.modify_capacity_reservation(LoadBalancerArn=lba, MinimumLoadBalancerCapacity={"CapacityUnits": 50})
advance(61)
r = v2.modify_capacity_reservation(LoadBalancerArn=lba, ResetCapacityReservation=True)
check("two decreases (50, then reset): none left, no reservation",
      r["DecreaseRequestsRemaining"] == 0 and r["CapacityReservationState"] == [], r)
advance(61)
v2.modify_capacity_reservation(LoadBalancerArn=lba, MinimumLoadBalancerCapacity={"CapacityUnits": 10})
advance(61)
check("a third decrease that day: CapacityDecreaseRequestLimitExceeded",
      code(v2.modify_capacity_reservation, LoadBalancerArn=lba,
           MinimumLoadBalancerCapacity={"CapacityUnits": 5}) == "CapacityDecreaseRequestLimitExceeded")
check("an unknown load balancer: LoadBalancerNotFound",
      code(v2.describe_capacity_reservation, LoadBalancerArn=lba + "0") == "LoadBalancerNotFound")

# --- IPAM pools ---
p = v2.modify_ip_pools(LoadBalancerArn=lba, IpamPools={"Ipv4IpamPoolId": "ipam-pool-0123abcd"})
check("ModifyIpPools sets the pool", p["IpamPools"] == {"Ipv4IpamPoolId": "ipam-pool-0123abcd"}, p)
check("DescribeLoadBalancers shows it",
      v2.describe_load_balancers(LoadBalancerArns=[lba])["LoadBalancers"][0].get("IpamPools") ==
      {"Ipv4IpamPoolId": "ipam-pool-0123abcd"})
check("a bad pool id: ValidationError",
      code(v2.modify_ip_pools, LoadBalancerArn=lba, IpamPools={"Ipv4IpamPoolId": "pool-1"}) == "ValidationError")
v2.modify_ip_pools(LoadBalancerArn=lba, RemoveIpamPools=["ipv4"])
check("RemoveIpamPools ipv4: gone",
      "IpamPools" not in v2.describe_load_balancers(LoadBalancerArns=[lba])["LoadBalancers"][0])
sys.exit(tap.failed)
EOF

# the aws CLI reads the same records
if command -v aws >/dev/null 2>&1; then
    export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_DEFAULT_REGION=us-east-1
    check "aws elbv2 describe-trust-stores lists only-ca" \
        sh -c "aws --endpoint-url '$EP' elbv2 describe-trust-stores --names only-ca --query 'TrustStores[0].NumberOfCaCertificates' --output text | grep -qx 1"
fi

# --- --state: trust stores, revocations, MutualAuthentication and capacity reservations
# survive kill -9 (docs/state.md) ---
start_emu st --quiet --clock manual --s3-dir "$S3" --state "$TMP/state.json"
ST_PID=$LAST
python3 - "$EP" "$TMP/before.json" <<'EOF' || failed=1
import json, sys
import boto3
ep, out = sys.argv[1], sys.argv[2]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
sub = [s["SubnetId"] for s in sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])[:2]]
lba = v2.create_load_balancer(Name="keep", Subnets=sub)["LoadBalancers"][0]["LoadBalancerArn"]
tga = v2.create_target_group(Name="keep", Protocol="HTTP", Port=80, VpcId=vpc)["TargetGroups"][0]["TargetGroupArn"]
tsa = v2.create_trust_store(Name="keep", CaCertificatesBundleS3Bucket="certs", CaCertificatesBundleS3Key="both.pem",
                            Tags=[{"Key": "team", "Value": "a"}])["TrustStores"][0]["TrustStoreArn"]
v2.add_trust_store_revocations(TrustStoreArn=tsa, RevocationContents=[
    {"S3Bucket": "certs", "S3Key": "ca.crl", "RevocationType": "CRL"}])
la = v2.create_listener(LoadBalancerArn=lba, Protocol="HTTPS", Port=443,
                        Certificates=[{"CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/keep"}],
                        MutualAuthentication={"Mode": "verify", "TrustStoreArn": tsa,
                                              "IgnoreClientCertificateExpiry": True},
                        DefaultActions=[{"Type": "forward", "TargetGroupArn": tga}])["Listeners"][0]["ListenerArn"]
v2.modify_capacity_reservation(LoadBalancerArn=lba, MinimumLoadBalancerCapacity={"CapacityUnits": 100})
cr = v2.describe_capacity_reservation(LoadBalancerArn=lba)
cr.pop("ResponseMetadata", None)
view = {"ts": v2.describe_trust_stores(TrustStoreArns=[tsa])["TrustStores"],
        "tags": v2.describe_tags(ResourceArns=[tsa])["TagDescriptions"],
        "revs": v2.describe_trust_store_revocations(TrustStoreArn=tsa)["TrustStoreRevocations"],
        "bundle": v2.get_trust_store_ca_certificates_bundle(TrustStoreArn=tsa)["Location"],
        "assoc": v2.describe_trust_store_associations(TrustStoreArn=tsa)["TrustStoreAssociations"],
        "mtls": v2.describe_listeners(ListenerArns=[la])["Listeners"][0].get("MutualAuthentication"),
        "cap": json.loads(json.dumps(cr, default=str))}
json.dump({"arns": [lba, tsa, la], "view": view}, open(out, "w"), sort_keys=True)
EOF
kill -KILL "$ST_PID" 2>/dev/null || true
wait "$ST_PID" 2>/dev/null || true
start_emu st2 --quiet --clock manual --s3-dir "$S3" --state "$TMP/state.json"
python3 - "$EP" "$TMP/before.json" <<'EOF' || failed=1
import json, sys
import boto3, botocore.exceptions
import tap
from tap import check
ep = sys.argv[1]
before = json.load(open(sys.argv[2]))
lba, tsa, la = before["arns"]
b = before["view"]
v2 = boto3.client("elbv2", endpoint_url=ep)
ts = v2.describe_trust_stores(TrustStoreArns=[tsa])["TrustStores"]
check("after kill -9: the trust store as it was (ARN, two CAs, revoked entries, tags)",
      ts == b["ts"] and ts[0]["NumberOfCaCertificates"] == 2 and ts[0]["TotalRevokedEntries"] >= 1 and
      v2.describe_tags(ResourceArns=[tsa])["TagDescriptions"] == b["tags"], (ts, b["ts"]))
check("after kill -9: its revocation list and bundle location",
      v2.describe_trust_store_revocations(TrustStoreArn=tsa)["TrustStoreRevocations"] == b["revs"] != [] and
      v2.get_trust_store_ca_certificates_bundle(TrustStoreArn=tsa)["Location"] == b["bundle"], b["revs"])
m = v2.describe_listeners(ListenerArns=[la])["Listeners"][0].get("MutualAuthentication")
check("after kill -9: the listener's MutualAuthentication (verify, the trust store, expiry ignored)",
      m == b["mtls"] and m["Mode"] == "verify" and m["TrustStoreArn"] == tsa and
      m.get("IgnoreClientCertificateExpiry") is True, (m, b["mtls"]))
check("after kill -9: the store is still associated with the listener",
      v2.describe_trust_store_associations(TrustStoreArn=tsa)["TrustStoreAssociations"] == b["assoc"] != [])
try:
    v2.delete_trust_store(TrustStoreArn=tsa)
    code = ""
except botocore.exceptions.ClientError as e:
    code = e.response["Error"]["Code"]
check("after kill -9: DeleteTrustStore of the store in use: TrustStoreInUse", code == "TrustStoreInUse", code)
cr = v2.describe_capacity_reservation(LoadBalancerArn=lba)
cr.pop("ResponseMetadata", None)
check("after kill -9: the capacity reservation (100 units, pending, the same decreases left)",
      json.loads(json.dumps(cr, default=str)) == b["cap"] and
      cr["MinimumLoadBalancerCapacity"]["CapacityUnits"] == 100, (cr, b["cap"]))
sys.exit(tap.failed)
EOF
finish
