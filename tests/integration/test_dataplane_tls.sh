#!/usr/bin/env bash
# TLS on HTTPS and SSL listeners (docs/dataplane.md) through the AWS API with boto3: an
# HTTPS listener without SSLCertificateId is AWS's ValidationError; with one, the proxy
# terminates TLS (a self-signed certificate made at start), speaks HTTP to the instance
# with X-Forwarded-Proto https; an SSL listener passes the bytes; curl -k and loadgen
# https succeed; --tls-cert/--tls-key make the listeners present that certificate.
# TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need openssl openssl || finish

start_emu emu --quiet --time-scale 60
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 -subj /CN=scalelab.test \
    -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>/dev/null
EP1=$EP
start_emu emu2 --quiet --time-scale 60 --tls-cert "$TMP/cert.pem" --tls-key "$TMP/key.pem"
EP2=$EP
EP=$EP1

python3 - "$EP" "$EP2" "$TMP" "$ROOT/$BUILD/bin/loadgen" <<'EOF' || failed=1
import json, socket, ssl, subprocess, sys, time, urllib.request
import boto3

ep, ep2, tmp, loadgen = sys.argv[1:5]
import tap
from tap import check, wait

def listener_port(ep, lb, lb_port):
    with urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5) as r:
        for l in json.load(r)["listeners"]:
            if l["load_balancer"] == lb and l["load_balancer_port"] == lb_port:
                return l["port"], l["protocol"]
    return None, None

def curl(url, *args):
    r = subprocess.run(["curl", "-sk", "--max-time", "5", "-w", "\n%{http_code}", *args, url],
                       capture_output=True, text=True)
    body, _, code = r.stdout.rpartition("\n")
    return int(code or 0), body

def tls_info(port):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        with ctx.wrap_socket(s, server_hostname="localhost") as t:
            return t.version(), ssl.DER_cert_to_PEM_cert(t.getpeercert(binary_form=True))

def setup(ep, name):
    asg = boto3.client("autoscaling", endpoint_url=ep)
    elb = boto3.client("elb", endpoint_url=ep)
    elb.create_load_balancer(LoadBalancerName=name, AvailabilityZones=["us-east-1a"], Listeners=[
        {"Protocol": "HTTPS", "LoadBalancerPort": 443, "InstanceProtocol": "HTTP", "InstancePort": 8080,
         "SSLCertificateId": "arn:aws:iam::123456789012:server-certificate/scalelab"},
        {"Protocol": "SSL", "LoadBalancerPort": 444, "InstanceProtocol": "TCP", "InstancePort": 9090,
         "SSLCertificateId": "arn:aws:iam::123456789012:server-certificate/scalelab"}])
    elb.configure_health_check(LoadBalancerName=name, HealthCheck={
        "Target": "TCP:8080", "Interval": 5, "Timeout": 2, "UnhealthyThreshold": 2,
        "HealthyThreshold": 2})
    asg.create_launch_configuration(LaunchConfigurationName="lc-" + name, ImageId="ami-12345678",
                                    InstanceType="m1.small",
                                    UserData=json.dumps({"service_ms": 1, "workers": 16}))
    asg.create_auto_scaling_group(AutoScalingGroupName="g-" + name,
                                  LaunchConfigurationName="lc-" + name, MinSize=1, MaxSize=1,
                                  AvailabilityZones=["us-east-1a"], LoadBalancerNames=[name])
    def up():
        st = elb.describe_instance_health(LoadBalancerName=name)["InstanceStates"]
        return len(st) == 1 and st[0]["State"] == "InService"
    return elb, wait(up, 10)

elb = boto3.client("elb", endpoint_url=ep)
try:
    elb.create_load_balancer(LoadBalancerName="nocert", AvailabilityZones=["us-east-1a"], Listeners=[
        {"Protocol": "HTTPS", "LoadBalancerPort": 443, "InstanceProtocol": "HTTP", "InstancePort": 80}])
    check("HTTPS listener without SSLCertificateId is refused", False)
except Exception as e:
    code = e.response["Error"]["Code"] if hasattr(e, "response") else ""
    msg = e.response["Error"]["Message"] if hasattr(e, "response") else str(e)
    check("HTTPS listener without SSLCertificateId: AWS's ValidationError",
          code == "ValidationError" and msg == "Secure Listeners need to specify a SSLCertificateId",
          f"{code}: {msg}")

elb, up = setup(ep, "tls1")
check("the instance is InService behind the HTTPS/SSL load balancer", up)
d = elb.describe_load_balancers(LoadBalancerNames=["tls1"])["LoadBalancerDescriptions"][0]
certs = {l["Listener"]["Protocol"]: l["Listener"].get("SSLCertificateId") for l in d["ListenerDescriptions"]}
check("DescribeLoadBalancers keeps each listener's SSLCertificateId",
      certs == {"HTTPS": "arn:aws:iam::123456789012:server-certificate/scalelab",
                "SSL": "arn:aws:iam::123456789012:server-certificate/scalelab"}, certs)
p443, proto443 = listener_port(ep, "tls1", 443)
p444, proto444 = listener_port(ep, "tls1", 444)
check("the admin map lists the HTTPS and SSL listeners", proto443 == "HTTPS" and proto444 == "SSL",
      (proto443, proto444))
ver, pem = tls_info(p443)
check("the HTTPS listener speaks TLS 1.2 or 1.3", ver in ("TLSv1.2", "TLSv1.3"), ver)
code, body = curl(f"https://127.0.0.1:{p443}/_instance/echo")
check("curl -k through HTTPS: 200, the instance gets plain HTTP with X-Forwarded-Proto https",
      code == 200 and "X-Forwarded-Proto: https" in body and "X-Forwarded-Port: 443" in body,
      f"{code} {body[:200]!r}")
code, body = curl(f"https://127.0.0.1:{p444}/_instance/echo")
check("curl -k through SSL: 200, bytes passed as they are (no X-Forwarded headers)",
      code == 200 and body.startswith("GET /_instance/echo") and "X-Forwarded" not in body,
      f"{code} {body[:120]!r}")
big = "x" * 12000
code, body = curl(f"https://127.0.0.1:{p443}/", "-X", "POST", "--data-binary", big)
check("a 12 kB POST through HTTPS", code == 200, code)
code, _ = curl(f"http://127.0.0.1:{p443}/")
check("plain HTTP to the HTTPS listener gets no HTTP answer", code == 0, code)
for mode, port in (("HTTPS", p443), ("SSL", p444)):
    r = subprocess.run([loadgen, "-n", "3000", "-c", "20", "-k", f"https://127.0.0.1:{port}/"],
                       capture_output=True, text=True, timeout=60)
    done = [l for l in r.stdout.splitlines() if l.startswith("Complete requests:")]
    bad = [l for l in r.stdout.splitlines() if l.startswith("Failed requests:")]
    check(f"loadgen https through the {mode} listener: 3000 requests, none failed",
          r.returncode == 0 and done and done[0].split()[-1] == "3000" and bad and bad[0].split()[-1] == "0",
          (done, bad, r.stderr[-200:]))

# --tls-cert/--tls-key: the listener presents that certificate
elb2, up2 = setup(ep2, "tls2")
p2, _ = listener_port(ep2, "tls2", 443)
_, pem2 = tls_info(p2)
mine = open(f"{tmp}/cert.pem").read()
check("with --tls-cert/--tls-key the HTTPS listener presents that certificate",
      up2 and pem2.split() == mine.split() and pem2 != pem)
sys.exit(tap.failed)
EOF
finish
