#!/usr/bin/env bash
# The data plane without the AWS API: `emulator proxy` over `emulator instance` children
# (started by the proxy itself with --instances, or by this script). Instances start and
# serve; the proxy spreads load, adds X-Forwarded-*, answers 503/504 itself; kill -9 of a
# backend is counted and the other serves; a hung instance fails its HTTP health check;
# fds stay flat over 10,000 proxied connections; no zombies; SIGTERM ends every child;
# SIGKILL of the parent ends them too (PDEATHSIG). Prints TAP lines. KEEP_TMP=1 keeps tmp.
# Every profile says boot_s 0: these tools have no emulated clock, so the default boot_s
# (60) would be a real minute.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need ab apache2-utils || finish
need pgrep procps || finish

# proxy NAME ARGS...: starts `emulator proxy` (spawn), waits for its port; sets PORT and LAST.
proxy() {
    local name=$1
    shift
    rm -f "$TMP/$name.port"
    spawn "$name" "$EMU" proxy --listen 0 --port-file "$TMP/$name.port" --metrics-file "$TMP/$name.json" "$@"
    wait_port "$name" "$LAST"
}

# metrics NAME PID: fresh metrics JSON of a proxy (SIGUSR1)
metrics() {
    rm -f "$TMP/$1.json"
    kill -USR1 "$2"
    wait_for 5 test -s "$TMP/$1.json"
    cat "$TMP/$1.json"
}
jget() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {}, {"d": d}))' "$@"; }
kids() { pgrep -P "$1" | tr '\n' ' '; }
zombies() { ps -o stat= --ppid "$1" | grep -c '^Z' || true; }
healthy_is() { metrics "$1" "$2" >/dev/null && [ "$(jget "$TMP/$1.json" 'd["Healthy"]')" = "$3" ]; }
# no_clients NAME PID: the proxy holds no client connection (its metrics say)
no_clients() { metrics "$1" "$2" >/dev/null && [ "$(jget "$TMP/$1.json" 'd["OpenClientConnections"]')" = 0 ]; }

# --- 1. instances start and serve; the proxy spreads load ------------------------------
proxy a --instances 2 --profile '{"boot_s": 0, "service_ms": 1, "workers": 4}' --health-check HTTP:/health \
    --interval 100ms --timeout 80ms --unhealthy 2 --healthy 2
PA=$LAST
PORT_A=$PORT
check "two instances start, pass health checks and serve through the proxy" \
    wait_for 10 healthy_is a "$PA" "[1, 1]"
for i in $(seq 40); do curl -s "http://127.0.0.1:$PORT_A/_instance/status"; echo; done >"$TMP/ids"
n1=$(grep -c '"id":"i-00000000000000001"' "$TMP/ids" || true)
n2=$(grep -c '"id":"i-00000000000000002"' "$TMP/ids" || true)
check "requests spread over both instances (least outstanding, ties in turn: $n1/$n2)" \
    test "$n1" -ge 15 -a "$n2" -ge 15
check "the SOAP adder answers 260 bytes through the proxy" bash -c \
    "[ \$(curl -s -X POST -H 'Content-Type: application/soap+xml' --data '<a>2</a><b>40</b>' http://127.0.0.1:$PORT_A/services/HelloService | tee $TMP/soap | wc -c) = 260 ] && grep -q '<ns:return>42</ns:return>' $TMP/soap"
curl -s -H 'X-Forwarded-For: 10.1.2.3' "http://127.0.0.1:$PORT_A/_instance/echo" >"$TMP/echo"
check "X-Forwarded-For appended, -Proto and -Port set" bash -c \
    "grep -q 'X-Forwarded-For: 10.1.2.3, 127.0.0.1' $TMP/echo && grep -q 'X-Forwarded-Proto: http' $TMP/echo && grep -q 'X-Forwarded-Port: $PORT_A' $TMP/echo"
check "Expect: 100-continue is answered by the proxy" bash -c \
    "curl -sv -H 'Expect: 100-continue' --data-binary @$ROOT/Makefile http://127.0.0.1:$PORT_A/x 2>&1 | grep -q '< HTTP/1.1 100 Continue'"
check "keep-alive: 200 requests over one client connection" bash -c \
    "ab -k -n 200 -c 1 http://127.0.0.1:$PORT_A/ 2>&1 | grep -qE '^Keep-Alive requests: +200'"

# --- 2. fd count stable across 10,000 proxied connections ---------------------------------
# warm up at the same concurrency first: the keep-alive pool to the backends grows to
# the concurrency and then stays; a leak grows with the number of connections
# the connections of a run counted once the proxy has closed every client connection
ab -n 1000 -c 20 "http://127.0.0.1:$PORT_A/" >/dev/null 2>&1 || true
wait_for 5 no_clients a "$PA" || true
fd0=$(ls /proc/"$PA"/fd | wc -l)
ab -n 10000 -c 20 "http://127.0.0.1:$PORT_A/" >"$TMP/ab10k" 2>&1 || true
wait_for 5 no_clients a "$PA" || true
fd1=$(ls /proc/"$PA"/fd | wc -l)
check "10,000 connections all answered" grep -qE '^Complete requests: +10000' "$TMP/ab10k"
check "10,000 connections: no failed request" grep -qE '^Failed requests: +0' "$TMP/ab10k"
check "fd count stable across 10,000 proxied connections ($fd0 -> $fd1)" test "$fd1" -le $((fd0 + 2))

# --- 3. kill -9 of a backend -------------------------------------------------------------
metrics a "$PA" >/dev/null
K1=$(jget "$TMP/a.json" '[b["pid"] for b in d["Backends"] if b["id"].endswith("1")][0]')
kill -KILL "$K1"
codes=$(for i in $(seq 30); do curl -s -o /dev/null -w '%{http_code}\n' "http://127.0.0.1:$PORT_A/"; done | sort | uniq -c | tr '\n' ' ')
check "kill -9 of one instance: the other serves ($codes)" bash -c "echo '$codes' | grep -qE '[0-9]+ 200'"
check "the dead instance is reaped, no zombie left" wait_for 5 bash -c \
    "[ \$(ps -o stat= --ppid $PA | grep -c '^Z') = 0 ] && [ \$(pgrep -P $PA | wc -l) = 1 ]"
check "kill -9: health checks take it out of service" wait_for 5 healthy_is a "$PA" "[0, 1]"
metrics a "$PA" >/dev/null
check "kill -9: connection errors counted ($(jget "$TMP/a.json" 'd["BackendConnectionErrors"] + d["HealthCheckConnectionErrors"]'))" \
    test "$(jget "$TMP/a.json" 'd["BackendConnectionErrors"] + d["HealthCheckConnectionErrors"]')" -gt 0
check "kill -9: the proxy keeps answering 200" bash -c \
    "[ \$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT_A/) = 200 ]"

# --- 4. hang (SIGSTOP) -> HTTP health check times out ----------------------------------------
K2=$(jget "$TMP/a.json" '[b["pid"] for b in d["Backends"] if b["id"].endswith("2")][0]')
kill -STOP "$K2"
check "hang: the HTTP health check times out and takes it out" wait_for 5 healthy_is a "$PA" "[0, 0]"
check "no instance in service: 503 from the proxy" bash -c \
    "[ \$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT_A/) = 503 ]"
kill -CONT "$K2"
check "resumed: back in service after HealthyThreshold passes" wait_for 5 healthy_is a "$PA" "[0, 1]"
metrics a "$PA" >/dev/null
check "ELB 5XX counted for the 503 ($(jget "$TMP/a.json" 'd["HTTPCode_ELB_5XX"]'))" \
    test "$(jget "$TMP/a.json" 'd["ELB_503"]')" -ge 1

# --- 5. SIGTERM stops every child ------------------------------------------------------------
KIDS=$(kids "$PA")
kill -TERM "$PA"
check "SIGTERM: the proxy exits 0" bash -c "for i in \$(seq 100); do kill -0 $PA 2>/dev/null || exit 0; sleep 0.05; done; exit 1"
wait "$PA" 2>/dev/null; rc=$?
check "SIGTERM: exit status 0 (got $rc)" test "$rc" = 0
check "SIGTERM: every instance is gone ($KIDS)" bash -c "for p in $KIDS; do kill -0 \$p 2>/dev/null && exit 1; done; exit 0"

# --- 6. SIGKILL of the parent -> children exit (PDEATHSIG) ------------------------------------
proxy b --instances 3 --profile '{"boot_s": 0, "service_ms": 0}'
PB=$LAST
wait_for 5 bash -c "[ \$(pgrep -P $PB | wc -l) = 3 ]" || true
KIDS=$(kids "$PB")
check "three children started" test "$(echo $KIDS | wc -w)" = 3
kill -KILL "$PB"
check "SIGKILL of the parent: every child exits (PDEATHSIG)" wait_for 5 bash -c \
    "for p in $KIDS; do [ -d /proc/\$p ] && ! grep -q '^State:.*Z' /proc/\$p/status && exit 1; done; exit 0"

# --- 7. the proxy's own answers: 503, 504 ----------------------------------------------------
proxy c --backend 127.0.0.1:1 --health-check TCP --interval 100ms --timeout 50ms
check "no backend in service: 503" bash -c \
    "[ \$(curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/) = 503 ]"
rm -f "$TMP/slow.port"
spawn slow "$EMU" instance --port 0 --port-file "$TMP/slow.port" --profile '{"boot_s": 0, "service_ms": 3000, "workers": 2}'
wait_port slow "$LAST"
proxy d --backend "127.0.0.1:$PORT" --idle-timeout 300ms
check "idle timeout: 504 when the backend does not answer in time" bash -c \
    "[ \$(curl -s -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:$PORT/) = 504 ]"

# --- 8. TCP listener: round robin byte pipe -------------------------------------------------
proxy e --tcp --instances 2 --profile '{"boot_s": 0, "service_ms": 0}'
PE=$LAST
wait_for 5 bash -c "curl -s http://127.0.0.1:$PORT/health | grep -q ok"
for i in $(seq 10); do curl -s "http://127.0.0.1:$PORT/_instance/status"; echo; done >"$TMP/tcpids"
check "TCP listener pipes bytes, round robin over both instances" bash -c \
    "[ \$(grep -c 'i-00000000000000001' $TMP/tcpids) = 5 ] && [ \$(grep -c 'i-00000000000000002' $TMP/tcpids) = 5 ]"
check "TCP listener adds no X-Forwarded-For (a byte pipe)" bash -c \
    "! curl -s http://127.0.0.1:$PORT/_instance/echo | grep -q X-Forwarded-For"
kill -TERM "$PE"
wait "$PE" 2>/dev/null || true
wait "$PB" 2>/dev/null || true # SIGKILLed above: bash reaps it here

echo "# zombies check: none under this shell"
check "no zombie children anywhere under this test" test "$(zombies $$)" = 0
finish
