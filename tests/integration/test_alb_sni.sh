#!/usr/bin/env bash
# SNI on an Application Load Balancer's HTTPS listener (docs/elbv2.md 10.6) with
# openssl-made certificates given to `emulator --certificate ARN=CERT,KEY`: the listener's
# default certificate is a.example.test's; AddListenerCertificates adds *.b.example.test
# (EC), an RSA *.b.example.test and an ARN without files (a self-signed localhost one);
# openssl s_client shows which certificate each server name gets: an exact name, a
# wildcard (one label only), none (the default), an unknown one (the default), two
# matches (ECDSA before RSA; RSA for a client that verifies RSA only), and, after
# RemoveListenerCertificates, the default again on the live listener; an NLB TLS listener
# chooses the same way. A classic HTTPS
# listener serves its SSLCertificateId's files. Bad --certificate files stop the emulator
# at start naming the file. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need openssl openssl || finish

C="$TMP/certs"
mkdir -p "$C"
# cert NAME SAN KEYOPTS...: a self-made certificate NAME.pem with its key NAME.key
cert() {
    local n=$1 san=$2
    shift 2
    openssl req -x509 "$@" -nodes -days 5 -subj "/O=sni-test/CN=$n" -addext "subjectAltName=$san" \
        -keyout "$C/$n.key" -out "$C/$n.pem" 2>/dev/null
}
cert a DNS:a.example.test -newkey ec -pkeyopt ec_paramgen_curve:P-256
cert b DNS:*.b.example.test -newkey ec -pkeyopt ec_paramgen_curve:P-256
cert brsa DNS:*.b.example.test -newkey rsa:2048

ACM=arn:aws:acm:us-east-1:123456789012:certificate
# bad files: the emulator stops at start, naming the file at fault
set +e
"$EMU" --port 0 --certificate "$ACM/x=$C/missing.pem,$C/a.key" >"$TMP/bad1.out" 2>&1
rc1=$?
"$EMU" --port 0 --certificate "$ACM/x=$C/a.pem,$C/b.key" >"$TMP/bad2.out" 2>&1
rc2=$?
"$EMU" --port 0 --certificate "$ACM/x=$C/a.pem" >"$TMP/bad3.out" 2>&1
rc3=$?
set -e
if [ "$rc1" = 2 ] && grep -q "bad --certificate $ACM/x: cannot read $C/missing.pem" "$TMP/bad1.out"; then
    ok "a missing --certificate file stops the emulator at start, naming it"
else
    notok "a missing --certificate file stops the emulator at start, naming it ($rc1: $(head -c 300 "$TMP/bad1.out"))"
fi
if [ "$rc2" = 2 ] && grep -q "the TLS key $C/b.key does not match the certificate $C/a.pem" "$TMP/bad2.out"; then
    ok "a key that is not the certificate's stops the emulator at start, naming both files"
else
    notok "a key that is not the certificate's stops the emulator at start ($rc2: $(head -c 300 "$TMP/bad2.out"))"
fi
if [ "$rc3" = 2 ] && grep -q "bad --certificate (ARN=CERT,KEY" "$TMP/bad3.out"; then
    ok "--certificate without a key file is a usage error"
else
    notok "--certificate without a key file is a usage error ($rc3: $(head -c 300 "$TMP/bad3.out"))"
fi

start_emu emu --quiet --time-scale 60 \
    --certificate "$ACM/a=$C/a.pem,$C/a.key" \
    --certificate "$ACM/b=$C/b.pem,$C/b.key" \
    --certificate "$ACM/brsa=$C/brsa.pem,$C/brsa.key"

python3 - "$EP" "$C" "$ACM" <<'EOF' || failed=1
import json, re, subprocess, sys, urllib.request
import boto3
import tap
from tap import check, wait

ep, cdir, acm = sys.argv[1:4]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)
vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subs = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
lba = v2.create_load_balancer(Name="sni", Subnets=[s["SubnetId"] for s in subs[:2]])["LoadBalancers"][0]["LoadBalancerArn"]
lia = v2.create_listener(LoadBalancerArn=lba, Protocol="HTTPS", Port=8443,
                         Certificates=[{"CertificateArn": acm + "/a"}],
                         DefaultActions=[{"Type": "fixed-response", "FixedResponseConfig": {
                             "StatusCode": "200", "ContentType": "text/plain",
                             "MessageBody": "sni"}}])["Listeners"][0]["ListenerArn"]

def port_of():
    d = json.load(urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5))
    for x in d.get("alb_listeners", []):
        if x.get("listener_arn") == lia or x.get("arn") == lia:
            return x.get("port")
    return None
port = wait(port_of, 10)
check("the HTTPS listener listens", port, port)

def pem_of(path):
    return "".join(open(path).read().split())

mine = {n: pem_of(f"{cdir}/{n}.pem") for n in ("a", "b", "brsa")}

def served(name, *extra):
    """(which of mine, subject) the listener presents to a client sending server name name
    (None: no SNI)."""
    args = ["openssl", "s_client", "-connect", f"127.0.0.1:{port}"]
    args += ["-noservername"] if name is None else ["-servername", name]
    r = subprocess.run(args + list(extra), input="", capture_output=True, text=True, timeout=10)
    m = re.search(r"-----BEGIN CERTIFICATE-----.*?-----END CERTIFICATE-----", r.stdout, re.S)
    if not m:
        return None, r.stderr[-200:]
    got = "".join(m.group(0).split())
    subj = subprocess.run(["openssl", "x509", "-noout", "-subject"], input=m.group(0),
                          capture_output=True, text=True).stdout.strip()
    return next((n for n, p in mine.items() if p == got), "other"), subj

check("no certificate list: every name gets the default (a)",
      all(served(n)[0] == "a" for n in ("a.example.test", "x.b.example.test", None)))
v2.add_listener_certificates(ListenerArn=lia, Certificates=[
    {"CertificateArn": acm + "/b"}, {"CertificateArn": acm + "/plain"}])
got = wait(lambda: served("x.b.example.test")[0] == "b", 10)
check("AddListenerCertificates acts on the live listener: x.b.example.test gets *.b", got,
      served("x.b.example.test"))
d = v2.describe_listener_certificates(ListenerArn=lia)["Certificates"]
check("DescribeListenerCertificates lists the default and the two added",
      sorted((c["CertificateArn"].rsplit("/", 1)[1], c.get("IsDefault", False)) for c in d)
      == [("a", True), ("b", False), ("plain", False)], d)
for name, want, why in (
        ("a.example.test", "a", "the exact name: a"),
        ("A.Example.Test", "a", "the exact name in capitals: a"),
        ("q.b.example.test", "b", "a wildcard's one label: *.b"),
        ("b.example.test", "a", "the wildcard's parent: the default"),
        ("y.x.b.example.test", "a", "two labels under the wildcard: the default"),
        ("unknown.example.test", "a", "an unknown name: the default"),
        (None, "a", "no SNI: the default")):
    who, subj = served(name)
    check(f"SNI {name}: {why}", who == want, (who, subj))
who, subj = served("localhost")
check("an added ARN without --certificate files: a self-signed localhost certificate, its id "
      "in the OU", who == "other" and "OU = plain" in subj and "CN = localhost" in subj, subj)

v2.add_listener_certificates(ListenerArn=lia, Certificates=[{"CertificateArn": acm + "/brsa"}])
wait(lambda: served("z.b.example.test", "-sigalgs", "RSA-PSS+SHA256:RSA+SHA256")[0] == "brsa", 10)
who, subj = served("z.b.example.test")
check("two certificates match: the ECDSA one before the RSA one", who == "b", (who, subj))
who, subj = served("z.b.example.test", "-sigalgs", "RSA-PSS+SHA256:RSA+SHA256")
check("two match, the client verifies RSA only: the RSA one", who == "brsa", (who, subj))
who, subj = served("z.b.example.test", "-tls1_2", "-sigalgs", "ECDSA+SHA256:RSA+SHA256")
check("two match over TLS 1.2: the ECDSA one", who == "b", (who, subj))

v2.remove_listener_certificates(ListenerArn=lia, Certificates=[
    {"CertificateArn": acm + "/b"}, {"CertificateArn": acm + "/brsa"}])
got = wait(lambda: served("x.b.example.test")[0] == "a", 10)
check("after RemoveListenerCertificates x.b.example.test gets the default", got,
      served("x.b.example.test"))
check("a.example.test still gets a", served("a.example.test")[0] == "a")

r = subprocess.run(["curl", "-sk", "-m", "5", "--resolve", f"q.b.example.test:{port}:127.0.0.1",
                    f"https://q.b.example.test:{port}/"], capture_output=True, text=True)
check("requests still go through the listener", r.stdout == "sni", (r.returncode, r.stdout[:80]))

# a Network Load Balancer's TLS listener shares the choice
nlb = v2.create_load_balancer(Name="sni-nlb", Type="network",
                              Subnets=[s["SubnetId"] for s in subs[:2]])["LoadBalancers"][0]["LoadBalancerArn"]
# the target: the emulator's own API port (the pipe needs somewhere to connect to)
api_port = int(ep.rsplit(":", 1)[1])
tcp = v2.create_target_group(Name="sni-tcp", Protocol="TCP", Port=api_port, VpcId=vpc,
                             TargetType="ip")["TargetGroups"][0]["TargetGroupArn"]
v2.register_targets(TargetGroupArn=tcp, Targets=[{"Id": "127.0.0.1", "Port": api_port}])
nla = v2.create_listener(LoadBalancerArn=nlb, Protocol="TLS", Port=8444,
                         Certificates=[{"CertificateArn": acm + "/a"}],
                         DefaultActions=[{"Type": "forward", "TargetGroupArn": tcp}])["Listeners"][0]["ListenerArn"]
v2.add_listener_certificates(ListenerArn=nla, Certificates=[{"CertificateArn": acm + "/b"}])
lia = nla
port = wait(port_of, 10)
check("NLB TLS listener: x.b.example.test gets *.b, no SNI the default",
      port and wait(lambda: served("x.b.example.test")[0] == "b", 10) and served(None)[0] == "a",
      (served("x.b.example.test"), served(None)) if port else "no port")

# classic ELB: one certificate, the SSLCertificateId's files
elb = boto3.client("elb", endpoint_url=ep)
elb.create_load_balancer(LoadBalancerName="clb", AvailabilityZones=["us-east-1a"], Listeners=[
    {"Protocol": "HTTPS", "LoadBalancerPort": 443, "InstanceProtocol": "HTTP", "InstancePort": 8080,
     "SSLCertificateId": acm + "/b"}])

def classic_port():
    d = json.load(urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5))
    for x in d["listeners"]:
        if x["load_balancer"] == "clb" and x["load_balancer_port"] == 443:
            return x["port"]
    return None
port = wait(classic_port, 10)
check("a classic HTTPS listener serves its SSLCertificateId's --certificate files",
      port and served(None)[0] == "b", served(None) if port else "no port")
sys.exit(tap.failed)
EOF
finish
