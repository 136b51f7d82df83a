#!/usr/bin/env bash
# Out of file descriptors, the emulator degrades and never spins (issue 19 finding 3): it
# raises its soft RLIMIT_NOFILE to the hard limit at start; with every fd taken (a low
# `ulimit -n` and a flood of idle clients) its API and its listener proxies stop accepting
# for a back-off interval (emulator/accept_guard.h) and log one line at most per second,
# so it burns almost no CPU; once the clients go the API answers again. TAP lines;
# KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

# the soft limit goes up to the hard one
spawn raise bash -c "ulimit -S -n 512; exec \"$EMU\" --port 0 --port-file \"$TMP/raise.port\""
RPID=$LAST
wait_port raise "$RPID" || notok "emulator under ulimit -S -n 512 starts"
hard=$(ulimit -H -n)
soft=$(awk '/Max open files/ { print $4 }' /proc/"$RPID"/limits)
[ "$soft" = "$hard" ] && grep -q "fd limit $hard)" "$TMP/raise.log" &&
    ok "started with a soft fd limit of 512: raised to the hard limit ($hard), logged" ||
    notok "soft fd limit $soft (hard $hard)"
kill -TERM -- "-$RPID"

# 200 fds in all (soft = hard: nothing to raise)
spawn emu bash -c "ulimit -n 200; exec \"$EMU\" --port 0 --port-file \"$TMP/emu.port\" --time-scale 60"
EPID=$LAST
wait_port emu "$EPID" || { notok "emulator under ulimit -n 200 starts"; finish; }
EP="http://127.0.0.1:$PORT"

python3 - "$EP" "$EPID" "$TMP/emu.log" <<'EOF' || failed=1
import socket, sys, time, json, urllib.request
import boto3
from botocore.config import Config
import tap
from tap import check, wait

ep, pid, log = sys.argv[1], int(sys.argv[2]), sys.argv[3]
port = int(ep.rsplit(":", 1)[1])
cfg = Config(read_timeout=5, connect_timeout=3, retries={"max_attempts": 1, "mode": "standard"})
elb = boto3.client("elb", endpoint_url=ep, config=cfg)

def cpu_s():
    f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / 100.0

def lines(word):
    return sum(1 for l in open(log) if word in l)

def flood(p, n):
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.settimeout(2)
        try:
            s.connect(("127.0.0.1", p))
        except OSError:
            s.close()
            break
        socks.append(s)
    return socks

def api_ok():
    try:
        return urllib.request.urlopen(ep + "/_scalelab/health", timeout=2).status == 200
    except OSError:
        return False

elb.create_load_balancer(LoadBalancerName="web", AvailabilityZones=["us-east-1a"],
                         Listeners=[{"Protocol": "HTTP", "LoadBalancerPort": 8080, "InstancePort": 80}])
def lb_port():
    st = json.load(urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=2))
    for l in st.get("listeners", []):
        return l.get("port")
lp = wait(lb_port, 10)

for name, p in (("the API", port), ("a listener proxy", lp)):
    before_log = lines("Too many open files")
    socks = flood(p, 400)   # more than the 200 fds: the kernel's backlog takes the rest
    time.sleep(0.5)         # the emulator has run out by now
    c0, t0 = cpu_s(), time.monotonic()
    time.sleep(3)
    used = cpu_s() - c0
    paused = lines("Too many open files") - before_log
    check(f"{name}: with every fd taken ({len(socks)} clients) the emulator uses {used:.2f} CPU-s in 3 s",
          used < 0.6, f"{used:.2f}")
    check(f"{name}: out of fds logged at most once a second ({paused} lines in 3.5 s)", 1 <= paused <= 5,
          paused)
    for s in socks:
        s.close()
    check(f"{name}: the clients gone, the API answers again", wait(api_ok, 5) is True)
check("ELB DescribeLoadBalancers answers after both floods",
      elb.describe_load_balancers()["LoadBalancerDescriptions"][0]["LoadBalancerName"] == "web")
sys.exit(tap.failed)
EOF
finish
