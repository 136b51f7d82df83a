#!/usr/bin/env bash
# loadgen's bad input and faults: a clear message, correct counts, and the run ends.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

start_srv http
U="http://127.0.0.1:$PORT_http"

lg badurl -n 1 "ftp://127.0.0.1/"
check "bad URL: exit 2 with a reason" bash -c "[ $(rc_of badurl) = 2 ] && grep -q 'invalid URL' '$TMP/badurl.err' && grep -q 'try' '$TMP/badurl.err'"
lg nohost -n 1 "http://no-such-host.invalid/"
check "unresolvable host: exit 1, 'cannot resolve'" bash -c "[ $(rc_of nohost) = 1 ] && grep -q 'cannot resolve' '$TMP/nohost.err'"
lg badhdr -n 1 -H "NoColonHere" "$U/ok"
check "invalid header: exit 2 with a reason" bash -c "[ $(rc_of badhdr) = 2 ] && grep -q 'invalid header' '$TMP/badhdr.err'"
lg nc -n 5 -c 10 "$U/ok"
check "-n smaller than -c: ab's message, exit 2" bash -c "[ $(rc_of nc) = 2 ] && grep -q 'Cannot use concurrency level greater than total number of requests' '$TMP/nc.err'"

# a port nothing listens on: bound, not listening, by a process of the test's own, so that
# connecting is refused and no other process can take the port meanwhile
spawn dead python3 -c '
import os, signal, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
signal.pause()' "$TMP/dead.port"
wait_port dead "$LAST" || exit 1
DEAD=$PORT
lg refused -n 100 -c 4 "http://127.0.0.1:$DEAD/"
check "refused: ab's abort after 10 failures, exit 1, quickly" \
    bash -c "[ $(rc_of refused) = 1 ] && grep -q 'Connection refused' '$TMP/refused.err' && grep -q 'Test aborted after 10 failures' '$TMP/refused.err' && grep -q 'Connect: ' '$TMP/refused.out'"
check "refused: under 5 s" secs_below refused 5
lg refusedwrk --duration 1s --connections 2 "http://127.0.0.1:$DEAD/"
check "refused (wrk style): connect errors counted, exit 1" \
    bash -c "[ $(rc_of refusedwrk) = 1 ] && grep -qE 'Socket errors: connect [0-9]+' '$TMP/refusedwrk.out'"

lg garbage -n 10 -c 2 "$U/garbage"
check "non-HTTP reply: counted as Exceptions, message says so" \
    bash -c "grep -q 'Exceptions: 10)' '$TMP/garbage.out' && grep -q 'reply is not HTTP' '$TMP/garbage.err' && [ $(rc_of garbage) = 0 ]"
lg trunc -n 10 -c 2 "$U/truncate"
check "server closing mid-response: counted as Length failures" \
    bash -c "grep -q 'Length: 10' '$TMP/trunc.out' && grep -q 'middle of a response' '$TMP/trunc.err'"
# -s: as ab, a request that passes it stops the run with ab's message, exit non-zero;
# --count-timeouts counts it (Exceptions) and goes on
lg never -n 3 -c 3 -s 1 "$U/never"
check "server that never answers: -s 1 stops the run with ab's message, exit 1" \
    bash -c "[ $(rc_of never) = 1 ] && grep -qx 'apr_pollset_poll: The timeout specified has expired (70007)' '$TMP/never.err' && grep -q 'Exceptions: [1-3])' '$TMP/never.out'"
check "server that never answers: under 5 s" secs_below never 5
if need ab apache2-utils; then
    timeout 30 ab -n 3 -c 3 -s 1 "$U/never" >"$TMP/abnever.out" 2>"$TMP/abnever.err"
    abrc=$?
    check "ab too stops on -s with the same line (ab exit $abrc, loadgen $(rc_of never))" \
        bash -c "[ $abrc != 0 ] && grep -qx 'apr_pollset_poll: The timeout specified has expired (70007)' '$TMP/abnever.err'"
fi
lg nevercount -n 6 -c 2 -s 1 --count-timeouts "$U/never"
check "--count-timeouts: each request times out, counted as Exceptions, exit 0" \
    bash -c "[ $(rc_of nevercount) = 0 ] && grep -q 'Exceptions: 6)' '$TMP/nevercount.out' && grep -q 'timed out' '$TMP/nevercount.err'"
check "--count-timeouts: 3 rounds of 1 s, under 6 s" secs_below nevercount 6
lg neverwrk --duration 3s --timeout 500ms --connections 2 "$U/never"
check "never answers (wrk style): timeouts counted, run ends on time" \
    bash -c "grep -qE 'timeout [1-9]' '$TMP/neverwrk.out'" 
check "never answers (wrk style): under 6 s" secs_below neverwrk 6
lg neverrate --rate 20 --duration 1s --timeout 300ms --connections 2 "$U/never"
check "never answers (--rate): the run ends" secs_below neverrate 5

# a connection reset before the reply: without -r ab's line and exit 1; with -r each one
# a Receive failure, the run goes on; -r -v 1 prints ab's line for each (ab also counts
# them as complete requests and as Exceptions: loadgen does not)
lg reset -n 4 -c 1 "$U/reset"
check "reset without -r: ab's line (apr_socket_recv: Connection reset by peer (104)), exit 1" \
    bash -c "[ $(rc_of reset) = 1 ] && grep -qx 'apr_socket_recv: Connection reset by peer (104)' '$TMP/reset.err'"
lg resetr -r -v 1 -n 4 -c 1 "$U/reset"
check "reset with -r -v 1: 4 Receive failures, ab's line for each, exit 0" \
    bash -c "[ $(rc_of resetr) = 0 ] && grep -q 'Receive: 4,' '$TMP/resetr.out' && [ \$(grep -cx 'apr_socket_recv: Connection reset by peer (104)' '$TMP/resetr.err') = 4 ]"

lg s500 -n 10 -c 2 "$U/status?code=500"
check "5xx: Non-2xx responses 10, not failures" \
    bash -c "[ \"$(field s500 "Non-2xx responses:")/$(field s500 "Failed requests:")\" = 10/0 ]"
lg vary -n 10 -c 1 "$U/vary"
check "varying length: Length failures as ab (9 of 10)" bash -c "grep -q 'Length: 9' '$TMP/vary.out'"
lg varyl -n 10 -c 1 -l "$U/vary"
check "-l: Document Length Variable, no failures" \
    bash -c "grep -q 'Document Length:        Variable' '$TMP/varyl.out' && [ \"$(field varyl "Failed requests:")\" = 0 ]"

# SIGINT mid-run: the report of what was done, exit 1 (as ab). The signal goes once the run
# is under way: loadgen holds a connection to the server (it sets its handler before).
# connected PORT: an established TCP connection to 127.0.0.1:PORT (/proc/net/tcp)
connected() { awk -v p="$(printf ':%04X' "$1")" '$3 ~ p "$" && $4 == "01" { f = 1 } END { exit !f }' /proc/net/tcp; }
( timeout -k 5 30 "$LG" -k -n 100000000 -c 2 -q "$U/delay?ms=5" >"$TMP/int.out" 2>"$TMP/int.err" & p=$!
  wait_for 10 connected "$PORT_http" || true; kill -INT $p; wait $p; echo $? >"$TMP/int.rc" )
check "SIGINT: prints the report so far, exit 1" bash -c "[ \"\$(cat '$TMP/int.rc')\" = 1 ] && grep -q '^Complete requests:' '$TMP/int.out'"

finish
