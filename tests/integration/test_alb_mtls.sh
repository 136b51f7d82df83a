#!/usr/bin/env bash
# Mutual TLS in the Application Load Balancer's data plane (docs/elbv2.md 14.1) with curl
# --cert and openssl-made certificates: an HTTPS listener in verify mode admits a client
# certificate of the trust store's CA and gives the target the X-Amzn-Mtls-Clientcert-
# Serial-Number/-Issuer/-Subject/-Validity/-Leaf headers (a client's own copy dropped);
# refuses the handshake without a certificate, with another CA's, an expired one (admitted
# once IgnoreClientCertificateExpiry is set) and one on the store's revocation list, each
# with its connection-log status in the emulator's log; passthrough sends the chain in
# X-Amzn-Mtls-Clientcert and admits anyone; off asks for nothing; a handshake that SNI
# moves to a listed certificate is verified the same. The target is an
# `emulator instance` (its /_instance/echo shows the request it got) as an ip target on
# loopback. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need openssl
need curl

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
[ca]
default_ca = d
[d]
database = index.txt
new_certs_dir = .
serial = serial
crlnumber = crlnumber
default_md = sha256
default_crl_days = 30
policy = any
x509_extensions = v3_leaf
copy_extensions = none
[any]
commonName = supplied
organizationName = optional
[v3_leaf]
basicConstraints = CA:FALSE
keyUsage = digitalSignature
extendedKeyUsage = clientAuth
EOF
    : >index.txt
    printf '1000\n' >crlnumber
    printf '02\n' >serial
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout ca.key \
        -out ca.pem -days 30 -subj "/O=Lab/CN=lab-ca" -config ca.cnf -extensions v3_ca 2>/dev/null
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout other.key \
        -out other.pem -days 30 -subj /CN=other-ca -config ca.cnf -extensions v3_ca 2>/dev/null
    # leaf NAME DN [ca options...]: a client certificate of lab-ca
    leaf() {
        local n=$1 dn=$2
        shift 2
        openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$n.key" \
            -out "$n.csr" -subj "$dn" 2>/dev/null
        openssl ca -batch -config ca.cnf -keyfile ca.key -cert ca.pem -in "$n.csr" -out "$n.pem" \
            -notext "$@" 2>/dev/null
    }
    leaf good "/O=Lab/CN=client-1" -days 10                                   # serial 02
    leaf expired "/CN=client-old" -startdate 20200101000000Z -enddate 20210101000000Z # 03
    leaf revoked "/CN=client-revoked" -days 10                                # 04
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout stranger.key \
        -out stranger.pem -days 10 -subj /CN=stranger -config ca.cnf -extensions v3_leaf 2>/dev/null
    openssl ca -config ca.cnf -keyfile ca.key -cert ca.pem -revoke revoked.pem 2>/dev/null
    openssl ca -gencrl -config ca.cnf -keyfile ca.key -cert ca.pem -out ca.crl 2>/dev/null
)

mkdir -p "$TMP/models/elbv2/2015-12-01"
cp "$ROOT/emulator/models/elbv2.json" "$TMP/models/elbv2/2015-12-01/service-2.json"
export AWS_DATA_PATH="$TMP/models"

spawn target "$EMU" instance --port 0 --port-file "$TMP/target.port" --boot-ms 0 --id i-target
wait_port target "$LAST" || exit 1
TPORT=$PORT
start_emu emu --time-scale 60 --s3-dir "$S3"

python3 - "$EP" "$TPORT" "$S3/certs" "$TMP/emu.log" <<'EOF' || failed=1
import re, subprocess, sys, time, urllib.parse
import boto3
import tap
from tap import check, wait

ep, tport, certs, log = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subs = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
lba = v2.create_load_balancer(Name="mtls", Subnets=[s["SubnetId"] for s in subs[:2]])["LoadBalancers"][0]["LoadBalancerArn"]
tga = v2.create_target_group(Name="echo", Protocol="HTTP", Port=tport, VpcId=vpc, TargetType="ip",
                             HealthCheckPath="/health")["TargetGroups"][0]["TargetGroupArn"]
v2.register_targets(TargetGroupArn=tga, Targets=[{"Id": "127.0.0.1", "Port": tport}])
tsa = v2.create_trust_store(Name="clients", CaCertificatesBundleS3Bucket="certs",
                            CaCertificatesBundleS3Key="ca.pem")["TrustStores"][0]["TrustStoreArn"]
cert = [{"CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/mtls-1"}]
fwd = [{"Type": "forward", "TargetGroupArn": tga}]
lis = v2.create_listener(LoadBalancerArn=lba, Protocol="HTTPS", Port=8443, Certificates=cert,
                         DefaultActions=fwd, MutualAuthentication={"Mode": "verify", "TrustStoreArn": tsa})
lia = lis["Listeners"][0]["ListenerArn"]

def port_of():
    import json, urllib.request
    d = json.load(urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5))
    for x in d.get("alb_listeners", []):
        if x.get("listener_arn") == lia or x.get("arn") == lia:
            return x.get("port")
    return None
port = wait(port_of, 10)
check("the HTTPS listener listens", port, port)

def curl(who, path="/_instance/echo", extra=()):
    args = ["curl", "-sk", "-m", "5", "-o", "-", "-w", "\n%{http_code}"]
    if who:
        args += ["--cert", f"{certs}/{who}.pem", "--key", f"{certs}/{who}.key"]
    r = subprocess.run(args + list(extra) + [f"https://127.0.0.1:{port}{path}"],
                       capture_output=True, text=True)
    body, _, code = r.stdout.rpartition("\n")
    return code, body

def logged(status):
    return status in open(log).read()

wait(lambda: curl("good")[0] == "200", 15)
code, body = curl("good", extra=["-H", "X-Amzn-Mtls-Clientcert-Subject: CN=forged"])
check("verify: a certificate of the store's CA is admitted", code == "200", (code, body))
hdr = dict((k.lower(), v.strip()) for k, _, v in (l.partition(":") for l in body.splitlines()) if v)
check("verify: Serial-Number is the leaf's serial in hex", hdr.get("x-amzn-mtls-clientcert-serial-number") == "02", hdr)
check("verify: Issuer and Subject in RFC 2253 (the client's forged Subject dropped)",
      hdr.get("x-amzn-mtls-clientcert-issuer") == "CN=lab-ca,O=Lab" and
      hdr.get("x-amzn-mtls-clientcert-subject") == "O=Lab,CN=client-1" and body.count("CN=forged") == 0, hdr)
check("verify: Validity NotBefore=...Z;NotAfter=...Z",
      re.fullmatch(r"NotBefore=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ;NotAfter=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
                   hdr.get("x-amzn-mtls-clientcert-validity", "")), hdr)
leaf = hdr.get("x-amzn-mtls-clientcert-leaf", "")
check("verify: Leaf is the URL-encoded PEM of the client's certificate (+=/ kept)",
      urllib.parse.unquote(leaf) == open(f"{certs}/good.pem").read() and "%0A" in leaf and "%20" in leaf, leaf[:80])
code, _ = curl(None)
check("verify: no client certificate: the handshake fails", code == "000", code)
check("  connection log Failed:ClientCertMissing", wait(lambda: logged("Failed:ClientCertMissing"), 5))
code, _ = curl("stranger")
check("verify: another CA's certificate: refused", code == "000", code)
check("  connection log Failed:ClientCertUntrusted", wait(lambda: logged("Failed:ClientCertUntrusted"), 5))
code, _ = curl("expired")
check("verify: an expired certificate: refused", code == "000", code)
check("  connection log Failed:ClientCertExpired", wait(lambda: logged("Failed:ClientCertExpired"), 5))
check("verify: the revoked certificate is admitted while the store has no revocation list",
      curl("revoked")[0] == "200")
v2.add_trust_store_revocations(TrustStoreArn=tsa, RevocationContents=[
    {"S3Bucket": "certs", "S3Key": "ca.crl", "RevocationType": "CRL"}])
check("verify: after AddTrustStoreRevocations the revoked certificate is refused",
      wait(lambda: curl("revoked")[0] == "000", 10))
check("  connection log Failed:ClientCertRevoked", wait(lambda: logged("Failed:ClientCertRevoked"), 5))
check("  the good certificate still passes", curl("good")[0] == "200")
# a certificate list (docs/elbv2.md 10.6): a handshake switched to another certificate's
# context by SNI keeps the listener's verification
def curl_sni(who):
    args = ["curl", "-sk", "-v", "-m", "5", "-o", "/dev/null", "-w", "%{http_code}",
            "--resolve", f"localhost:{port}:127.0.0.1"]
    if who:
        args += ["--cert", f"{certs}/{who}.pem", "--key", f"{certs}/{who}.key"]
    r = subprocess.run(args + [f"https://localhost:{port}/_instance/echo"], capture_output=True, text=True)
    return r.stdout, "OU=mtls-sni" in r.stderr or "OU = mtls-sni" in r.stderr
v2.add_listener_certificates(ListenerArn=lia, Certificates=[
    {"CertificateArn": "arn:aws:acm:us-east-1:123456789012:certificate/mtls-sni"}])
check("verify with SNI: the listed certificate for localhost is served, the good client admitted",
      wait(lambda: curl_sni("good") == ("200", True), 10), curl_sni("good"))
check("  no client certificate: refused", curl_sni(None)[0] == "000", curl_sni(None))
check("  the revoked certificate: refused", curl_sni("revoked")[0] == "000", curl_sni("revoked"))
check("  without SNI the default certificate, the good client admitted", curl("good")[0] == "200")
v2.modify_listener(ListenerArn=lia, MutualAuthentication={
    "Mode": "verify", "TrustStoreArn": tsa, "IgnoreClientCertificateExpiry": True})
check("IgnoreClientCertificateExpiry: the expired certificate is admitted",
      wait(lambda: curl("expired")[0] == "200", 10))
check("  the other CA's still is not", curl("stranger")[0] == "000")
v2.modify_listener(ListenerArn=lia, MutualAuthentication={"Mode": "passthrough"})
code, body = wait(lambda: (lambda r: r if r[0] == "200" else None)(curl("stranger")), 10) or ("", "")
chain = dict((k.lower(), v.strip()) for k, _, v in (l.partition(":") for l in body.splitlines()) if v)
check("passthrough: any certificate is admitted, the chain in X-Amzn-Mtls-Clientcert",
      code == "200" and urllib.parse.unquote(chain.get("x-amzn-mtls-clientcert", "")) == open(f"{certs}/stranger.pem").read(),
      (code, body[:200]))
check("passthrough: no verify headers", "x-amzn-mtls-clientcert-leaf" not in chain)
code, body = curl(None)
check("passthrough: no certificate: admitted, no header", code == "200" and "mtls" not in body.lower(), (code, body[:200]))
v2.modify_listener(ListenerArn=lia, MutualAuthentication={"Mode": "off"})
code, body = wait(lambda: (lambda r: r if "mtls" not in r[1].lower() else None)(curl("good")), 10) or ("", "")
check("off: no client certificate asked for, no header", code == "200" and "mtls" not in body.lower(), (code, body[:200]))
sys.exit(tap.failed)
EOF
finish
