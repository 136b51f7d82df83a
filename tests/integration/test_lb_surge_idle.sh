#!/usr/bin/env bash
# Issue 19 finding 8, through `emulator proxy` (the listener code the emulator's load
# balancers run): a TCP listener queues connections past the per-backend limit in the surge
# queue (AWS: up to 1,024, then SpilloverCount and the connection closed), and pooled
# keep-alive connections to backends close after the idle timeout (AWS: the idle timeout
# applies to back-end connections too). docs/elb-metrics.md states the rules.
# 2,000 concurrent TCP connections at one backend (limit 512): 512 piped, 1,024 queued and
# piped in turn as earlier ones close, 464 closed (SpilloverCount 464, SurgeQueueLength
# 1,024); then an HTTP listener with a 1 s idle timeout after a burst of 40 keep-alive
# requests: its backend's established connections (ss) back to 0.
# Prints TAP lines; KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need ss iproute2 || finish

cat >"$TMP/echo.py" <<'EOF'
# A TCP echo backend on 127.0.0.1 (port 0, written to argv[1]).
import asyncio, os, sys

async def echo(r, w):
    try:
        while True:
            data = await r.read(65536)
            if not data:
                break
            w.write(data)
            await w.drain()
    except ConnectionError:
        pass
    w.close()

async def main():
    srv = await asyncio.start_server(echo, "127.0.0.1", 0, backlog=4096)
    port = srv.sockets[0].getsockname()[1]
    with open(sys.argv[1] + ".tmp", "w") as f:
        f.write(f"{port}\n")
    os.rename(sys.argv[1] + ".tmp", sys.argv[1])
    await srv.serve_forever()

asyncio.run(main())
EOF
spawn echo python3 "$TMP/echo.py" "$TMP/echo.port"
wait_port echo "$LAST"
ECHO=$PORT

spawn tcp "$EMU" proxy --tcp --listen 0 --port-file "$TMP/tcp.port" --metrics-file "$TMP/tcp.json" \
    --backend "127.0.0.1:$ECHO" --idle-timeout 60s --log-level warn
TPID=$LAST
wait_port tcp "$TPID"
TCP=$PORT

python3 - "$TPID" "$TMP/tcp.json" "$TCP" <<'EOF' || failed=1
import errno, json, os, resource, selectors, signal, socket, sys, time
import tap
from tap import check, wait

pid, path, port = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
N, LIMIT, QUEUE = 2000, 512, 1024
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))

def metrics():
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    os.kill(pid, signal.SIGUSR1)
    if not wait(lambda: os.path.exists(path) and os.path.getsize(path) > 0, 5):
        return {}
    return json.load(open(path))

sel = selectors.DefaultSelector()
conns = []
for i in range(N):
    s = socket.create_connection(("127.0.0.1", port))
    s.setblocking(False)
    msg = b"conn %d\n" % i
    c = {"s": s, "i": i, "msg": msg, "got": b"", "state": "wait"}
    conns.append(c)
    try:
        s.send(msg)
    except ConnectionError:
        # a spilled connection can be closed before its message goes out (a slow client:
        # ASan on a loaded machine); it is one of the closed ones the checks count
        c["state"] = "closed"
        continue
    sel.register(s, selectors.EVENT_READ, c)

def pump(until, secs):
    """Reads what arrives until until() or secs pass; a connection is 'echoed' once its
    message came back, 'closed' on EOF or reset."""
    end = time.monotonic() + secs
    while not until() and time.monotonic() < end:
        for key, _ in sel.select(0.1):
            c = key.data
            try:
                d = c["s"].recv(4096)
            except BlockingIOError:
                continue
            except ConnectionError:
                d = b""
            if not d:
                c["state"] = "closed"
                sel.unregister(c["s"])
                continue
            c["got"] += d
            if c["got"] == c["msg"]:
                c["state"] = "echoed"
    return until()

def count(state):
    return sum(1 for c in conns if c["state"] == state)

pump(lambda: count("echoed") == LIMIT and count("closed") == N - LIMIT - QUEUE, 20)
print(f"# after the burst: echoed {count('echoed')}, closed {count('closed')}, waiting {count('wait')}")
m = metrics()
check(f"{LIMIT} of {N} concurrent connections are piped to the backend (its limit)",
      count("echoed") == LIMIT, count("echoed"))
check(f"{QUEUE} wait in the surge queue, open (SurgeQueueLength {QUEUE})",
      count("wait") == QUEUE and m.get("SurgeQueueNow") == QUEUE and m.get("SurgeQueueLength") == QUEUE,
      (count("wait"), m.get("SurgeQueueNow"), m.get("SurgeQueueLength")))
check(f"the {N - LIMIT - QUEUE} past the queue are closed and counted in SpilloverCount",
      count("closed") == N - LIMIT - QUEUE and m.get("SpilloverCount") == N - LIMIT - QUEUE,
      (count("closed"), m.get("SpilloverCount")))

# closing the piped ones lets the queued ones through, in turn
served = 0
for rnd in range(4):
    done = [c for c in conns if c["state"] == "echoed"]
    for c in done:
        sel.unregister(c["s"])
        c["s"].close()
        c["state"] = "done"
        served += 1
    pump(lambda: count("wait") == 0 or count("echoed") >= LIMIT, 20)
print(f"# served {served}, still waiting {count('wait')}, closed {count('closed')}")
check(f"every queued connection is piped once earlier ones close (none of the {LIMIT + QUEUE} refused)",
      served == LIMIT + QUEUE and count("wait") == 0 and count("closed") == N - LIMIT - QUEUE,
      (served, count("wait"), count("closed")))
m = metrics()
check("the queue is empty afterwards", m.get("SurgeQueueNow") == 0, m.get("SurgeQueueNow"))
for c in conns:
    if c["state"] != "done":
        c["s"].close()
sys.exit(tap.failed)
EOF

# --- idle backend pool -------------------------------------------------------------------------
rm -f "$TMP/web.port"
spawn web "$EMU" instance --port 0 --port-file "$TMP/web.port" --profile '{"boot_s": 0, "service_ms": 200}'
wait_port web "$LAST"
WEB=$PORT
spawn http "$EMU" proxy --listen 0 --port-file "$TMP/http.port" --metrics-file "$TMP/http.json" \
    --backend "127.0.0.1:$WEB" --idle-timeout 1s --log-level warn
HPID=$LAST
wait_port http "$HPID"
HTTP=$PORT

python3 - "$HPID" "$TMP/http.json" "$HTTP" "$WEB" <<'EOF' || failed=1
import json, os, signal, socket, subprocess, sys, threading, time
import tap
from tap import check, wait

pid, path, port, web = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
N = 40

def metrics():
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    os.kill(pid, signal.SIGUSR1)
    if not wait(lambda: os.path.exists(path) and os.path.getsize(path) > 0, 5):
        return {}
    return json.load(open(path))

def backend_conns():
    """Established connections to the backend's port, counted by ss (the kernel's view)."""
    out = subprocess.run(["ss", "-Htn", "state", "established", f"dport = :{web}"],
                         capture_output=True, text=True).stdout
    return len([l for l in out.splitlines() if l.strip()])

# N clients each send one request at once and keep their connection: N backend connections
socks = [socket.create_connection(("127.0.0.1", port)) for _ in range(N)]
for s in socks:
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
for s in socks:
    s.settimeout(5)
    buf = b""
    while b"\r\n\r\n" not in buf:
        d = s.recv(4096)
        if not d:
            break
        buf += d
t_done = time.monotonic()
for s in socks:
    s.close()
m = metrics()
n0, k0 = m.get("IdleBackendConnections"), backend_conns()
print(f"# after the burst: IdleBackendConnections {n0}, backend connections (ss) {k0}")
check("a burst leaves pooled backend connections", n0 is not None and n0 > 1 and k0 > 1, (n0, k0))
gone = wait(lambda: backend_conns() == 0 and metrics().get("IdleBackendConnections") == 0, 10)
dt = time.monotonic() - t_done
print(f"# pool back to 0 {dt:.2f} s after the last response (idle timeout 1 s)")
check("the idle pool is back to 0 after the idle timeout (1 s), not before 1 s",
      gone and dt >= 1.0 and dt < 5.0, (backend_conns(), round(dt, 2)))
sys.exit(tap.failed)
EOF
finish
