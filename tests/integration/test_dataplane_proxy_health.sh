#!/usr/bin/env bash
# `emulator proxy`'s health checks follow libscaler's threshold rule (sc_elb_health_step,
# ELB's): a new backend is in service on its first passing check; one whose first
# UnhealthyThreshold checks fail is out and needs HealthyThreshold consecutive passes.
# Two `emulator instance` backends this test starts, one stopped (SIGSTOP: its HTTP check
# times out) before the proxy starts; read through the proxy's log (each "backend in
# service" line says after how many consecutive passes) and --metrics-file (SIGUSR1).
# Prints TAP lines; KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

# instance NAME: starts `emulator instance`, sets PORT and LAST
instance() {
    rm -f "$TMP/$1.port"
    spawn "$1" "$EMU" instance --port 0 --port-file "$TMP/$1.port" --profile '{"boot_s": 0, "service_ms": 1}'
    wait_port "$1" "$LAST"
}

instance fresh
FRESH=$PORT
instance failing
FAILING=$PORT
FPID=$LAST
kill -STOP "$FPID"

rm -f "$TMP/proxy.port"
spawn proxy "$EMU" proxy --listen 0 --port-file "$TMP/proxy.port" --metrics-file "$TMP/m.json" \
    --backend "127.0.0.1:$FRESH" --backend "127.0.0.1:$FAILING" --health-check HTTP:/health \
    --interval 200ms --timeout 100ms --unhealthy 2 --healthy 10 --log-level info
PPID_=$LAST
wait_port proxy "$PPID_"

python3 - "$PPID_" "$TMP/m.json" "$TMP/proxy.log" "$FPID" "$FRESH" "$FAILING" <<'EOF' || failed=1
import json, os, re, signal, sys
import tap
from tap import check, wait

pid, path, log, fpid = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4])
ids = {"fresh": f"127.0.0.1:{sys.argv[5]}", "failing": f"127.0.0.1:{sys.argv[6]}"}

def came_in(name):
    """passes= of the backend's "in service" log line, the consecutive passes it took."""
    m = re.search(r"backend in service " + re.escape(ids[name]) + r" passes=(\d+)",
                  open(log).read())
    return int(m.group(1)) if m else None

def backend(name):
    """A fresh --metrics-file snapshot's entry for the backend."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    os.kill(pid, signal.SIGUSR1)
    if not wait(lambda: os.path.exists(path) and os.path.getsize(path) > 0, 5):
        return None
    for b in json.load(open(path))["Backends"]:
        if b["id"] == ids[name]:
            return b
    return None

n = wait(lambda: came_in("fresh"), 10)
check("a new backend is in service on its first pass", n == 1, f"after {n} passes")
out = wait(lambda: (lambda b: b if b and b["failures"] >= 2 else None)(backend("failing")), 10)
check("a backend whose first UnhealthyThreshold checks fail stays out",
      out and out["healthy"] == 0 and came_in("failing") is None, out)
os.kill(fpid, signal.SIGCONT)
n = wait(lambda: came_in("failing"), 15)
check("after failing first it needs HealthyThreshold (10) consecutive passes", n == 10,
      f"after {n} passes")
b = backend("failing")
check("then it is in service", b and b["healthy"] == 1, b)
sys.exit(tap.failed)
EOF
finish
