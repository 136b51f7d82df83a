#!/usr/bin/env bash
# ELBv2 health-check reason codes and the early end of deregistration (docs/elbv2.md 7)
# through boto3 at --time-scale 20, against ip targets on a server this test controls: a
# status the matcher does not take is Target.ResponseCodeMismatch with the code in the
# description, a target that accepts but never answers Target.Timeout, a refused connection
# or a closed one Target.FailedHealthChecks, a 204 passes a 200-299 matcher; a Network
# Load Balancer's group reports a wrong status (404) as Target.FailedHealthChecks; a draining
# target with a request in flight stays draining until the request ends, then goes at once,
# long before its 300 s delay. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --time-scale 20

python3 - "$EP" <<'EOF' || failed=1
import http.server, json, socket, socketserver, sys, threading, time, urllib.request
import boto3
import tap
from tap import check, wait

ep = sys.argv[1]
v2 = boto3.client("elbv2", endpoint_url=ep)
ec2 = boto3.client("ec2", endpoint_url=ep)

# targets: one server per behaviour, each on its own loopback port
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def do_GET(self):
        mode = self.server.mode
        if self.path.startswith("/slow"):
            time.sleep(min(float(self.path.split("=")[-1]), 20))
            mode = "200"
        if mode == "hang":
            time.sleep(8)  # past every check's timeout (bounded)
            return
        if mode == "close":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        body = b"" if mode == "204" else b"ok\n"
        self.send_response(int(mode))
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

class S(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    def handle_error(self, *a):
        pass  # the "close" target's own shutdown

def server(mode):
    s = S(("127.0.0.1", 0), H)
    s.mode = mode
    threading.Thread(target=s.serve_forever, daemon=True).start()
    return s

srv = {m: server(m) for m in ("200", "404", "204", "hang", "close")}
free = socket.socket()
free.bind(("127.0.0.1", 0))
refused_port = free.getsockname()[1]  # bound, never listening: connections are refused

vpc = ec2.describe_vpcs(Filters=[{"Name": "is-default", "Values": ["true"]}])["Vpcs"][0]["VpcId"]
subnets = sorted(ec2.describe_subnets()["Subnets"], key=lambda s: s["AvailabilityZone"])
sub = [s["SubnetId"] for s in subnets[:2]]
lba = v2.create_load_balancer(Name="hc", Subnets=sub)["LoadBalancers"][0]["LoadBalancerArn"]
# checks every 1.5 s real, a 1 s timeout (the machine may be loaded)
hc = dict(VpcId=vpc, TargetType="ip", HealthCheckIntervalSeconds=30, HealthCheckTimeoutSeconds=20,
          HealthyThresholdCount=2, UnhealthyThresholdCount=2)
tg = v2.create_target_group(Name="hc", Protocol="HTTP", Port=80, **hc)["TargetGroups"][0]["TargetGroupArn"]
ok2xx = v2.create_target_group(Name="hc2xx", Protocol="HTTP", Port=80, Matcher={"HttpCode": "200-299"},
                               **hc)["TargetGroups"][0]["TargetGroupArn"]
v2.create_listener(LoadBalancerArn=lba, Protocol="HTTP", Port=80,
                   DefaultActions=[{"Type": "forward", "TargetGroupArn": tg}])
v2.create_listener(LoadBalancerArn=lba, Protocol="HTTP", Port=81,
                   DefaultActions=[{"Type": "forward", "TargetGroupArn": ok2xx}])
ports = {m: s.server_address[1] for m, s in srv.items()}
ports["refused"] = refused_port
v2.register_targets(TargetGroupArn=tg, Targets=[{"Id": "127.0.0.1", "Port": ports[m]}
                                                for m in ("200", "404", "hang", "close", "refused")])
v2.register_targets(TargetGroupArn=ok2xx, Targets=[{"Id": "127.0.0.1", "Port": ports["204"]}])

def health(arn):
    d = v2.describe_target_health(TargetGroupArn=arn)["TargetHealthDescriptions"]
    return {x["Target"]["Port"]: x["TargetHealth"] for x in d}

def settled(arn, n):
    h = health(arn)
    return len(h) == n and all(x["State"] in ("healthy", "unhealthy") for x in h.values()) and h

h = wait(lambda: settled(tg, 5), 40) or health(tg)
by = lambda m: h.get(ports[m], {})
check("a target answering 200: healthy", by("200").get("State") == "healthy", by("200"))
check("a status the matcher (200) does not take: Target.ResponseCodeMismatch with the code",
      by("404") == {"State": "unhealthy", "Reason": "Target.ResponseCodeMismatch",
                    "Description": "Health checks failed with these codes: [404]"}, by("404"))
check("a target that never answers within the timeout: Target.Timeout, Request timed out",
      by("hang") == {"State": "unhealthy", "Reason": "Target.Timeout",
                     "Description": "Request timed out"}, by("hang"))
check("a target that closes the connection without a reply: Target.FailedHealthChecks",
      by("close") == {"State": "unhealthy", "Reason": "Target.FailedHealthChecks",
                      "Description": "Health checks failed"}, by("close"))
check("a refused connection: Target.FailedHealthChecks",
      by("refused") == {"State": "unhealthy", "Reason": "Target.FailedHealthChecks",
                        "Description": "Health checks failed"}, by("refused"))
h2 = wait(lambda: settled(ok2xx, 1), 40) or health(ok2xx)
check("a 204 passes a 200-299 matcher", h2.get(ports["204"], {}).get("State") == "healthy", h2)

# the matcher changes: the 404 target turns healthy once 404 is taken
v2.modify_target_group(TargetGroupArn=tg, Matcher={"HttpCode": "200,404"})
check("ModifyTargetGroup's matcher takes 404: that target becomes healthy",
      wait(lambda: health(tg).get(ports["404"], {}).get("State") == "healthy", 30),
      health(tg).get(ports["404"]))

# a Network Load Balancer's group: a wrong status is a plain failure (Target.Timeout and
# Target.ResponseCodeMismatch are the ALB's)
nlb = v2.create_load_balancer(Name="hcn", Subnets=sub, Type="network")["LoadBalancers"][0]["LoadBalancerArn"]
ntg = v2.create_target_group(Name="hcn", Protocol="TCP", Port=80, HealthCheckProtocol="HTTP",
                             HealthCheckPath="/", **hc)["TargetGroups"][0]["TargetGroupArn"]
v2.create_listener(LoadBalancerArn=nlb, Protocol="TCP", Port=82,
                   DefaultActions=[{"Type": "forward", "TargetGroupArn": ntg}])
v2.register_targets(TargetGroupArn=ntg, Targets=[{"Id": "127.0.0.1", "Port": ports["404"]},
                                                 {"Id": "127.0.0.1", "Port": ports["hang"]}])
hn = wait(lambda: settled(ntg, 2), 40) or health(ntg)
check("NLB target group: a 404 and a timeout are both Target.FailedHealthChecks",
      all(hn.get(ports[m], {}).get("Reason") == "Target.FailedHealthChecks" for m in ("404", "hang")),
      hn)

# early end of deregistration: the delay stays 300 s (100 s real at x20)
def alb_port(lport):
    for x in json.load(urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5)).get("alb_listeners", []):
        if x["load_balancer_arn"] == lba and x["listener_port"] == lport:
            return x["port"]
port = wait(lambda: alb_port(81), 5)
res = {}
def slow():
    c = urllib.request.urlopen(f"http://127.0.0.1:{port}/slow?s=4", timeout=15)
    res["status"] = c.status
    c.read()
t = threading.Thread(target=slow)
t.start()
time.sleep(1.0)  # the request is in flight on the only target
v2.deregister_targets(TargetGroupArn=ok2xx, Targets=[{"Id": "127.0.0.1", "Port": ports["204"]}])
time.sleep(1.0)
st = health(ok2xx).get(ports["204"], {})
check("a draining target with a request in flight stays draining",
      st.get("State") == "draining" and st.get("Reason") == "Target.DeregistrationInProgress", st)
t.join(20)
t_end = time.time()
gone = wait(lambda: ports["204"] not in health(ok2xx), 10)
check("the in-flight request completes through the draining target", res.get("status") == 200, res)
check("once nothing is in flight the deregistration completes at once (not after 300 s)",
      gone and time.time() - t_end < 10, (health(ok2xx), time.time() - t_end))
t0 = time.time()
v2.deregister_targets(TargetGroupArn=tg, Targets=[{"Id": "127.0.0.1", "Port": ports["200"]}])
gone = wait(lambda: ports["200"] not in health(tg), 10)
check("an idle target's deregistration completes without waiting for the delay",
      gone and time.time() - t0 < 10, health(tg).get(ports["200"]))
sys.exit(tap.failed)
EOF
finish
