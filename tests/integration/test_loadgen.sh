#!/usr/bin/env bash
# loadgen against a tiny local server: ab's report line for line (diffed against Debian's
# ab), keep-alive, chunked, -e/-g files, wrk style, --rate, --json and
# merge, IPv6, HTTPS with session resumption.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

start_srv http
U="http://127.0.0.1:$PORT_http"

# --- ab's interface, flag by flag, against the real ab ----------------------------------
# stdout with numbers masked and runs of spaces squeezed; ab's data-dependent reliability
# warnings (two lines each, printed only when the figures call for them) dropped on both
# sides. The counts (lengths, complete, failed, non-2xx, keep-alive, bytes) compared as they
# are, and stderr (progress lines, messages) with numbers masked.
mask() { tail -n +4 "$1" | sed -E '/^(WARNING|ERROR): The median and mean/,+1d; s/[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g'; }
counts() { grep -E '^(Document Length|Complete requests|Failed requests|   \(Connect|Non-2xx|Keep-Alive requests|Total transferred|Total body sent|HTML transferred|Write errors)' "$1"; }
printf 'a=1&b=2' >"$TMP/post.txt"
HAVE_AB=0
need ab apache2-utils && HAVE_AB=1
# ab_vs NAME FLAGS...: loadgen's NAME.out/.err beside ab's NAME.ab/.aberr
ab_vs() {
    local name=$1
    shift
    lg "$name" "$@"
    if [ "$HAVE_AB" = 0 ]; then
        notok "same report as Debian's ab: $* (no ab)"
        return
    fi
    timeout 30 ab "$@" >"$TMP/$name.ab" 2>"$TMP/$name.aberr"
    echo $? >"$TMP/$name.abrc"
    local cnt=counts beat='^$'
    # timed runs: counts differ by nature, and so does how many "Completed N requests"
    # heartbeats (every 10% of -n) fit in the time
    case " $* " in *" -t "*) cnt=true beat='^Completed [0-9]+ requests$' ;; esac
    if diff <(mask "$TMP/$name.ab") <(mask "$TMP/$name.out") >"$TMP/$name.diff" &&
        diff <($cnt "$TMP/$name.ab") <($cnt "$TMP/$name.out") >>"$TMP/$name.diff" &&
        diff <(grep -Ev "$beat" "$TMP/$name.aberr" | sed -E 's/[0-9]+/N/g') \
            <(grep -Ev "$beat" "$TMP/$name.err" | sed -E 's/[0-9]+/N/g') >>"$TMP/$name.diff" &&
        [ "$(rc_of "$name")" = "$(cat "$TMP/$name.abrc")" ]; then
        ok "same report, counts, stderr and exit status as Debian's ab: $*"
    else
        notok "differs from Debian's ab: $* (rc $(rc_of "$name") vs $(cat "$TMP/$name.abrc"))"
        sed 's/^/#   /' "$TMP/$name.diff" | head -40
    fi
}
ab_vs ab_n300c3 -n 300 -c 3 "$U/ok"
ab_vs ab_kn300c3 -k -n 300 -c 3 "$U/ok"
ab_vs ab_kSd -k -n 40 -c 4 -S -d "$U/ok"
ab_vs ab_t -t 1 -c 2 "$U/ok"
ab_vs ab_kt -k -t 1 -n 400 -c 2 "$U/ok"
ab_vs ab_post -n 20 -c 2 -p "$TMP/post.txt" -T application/x-www-form-urlencoded "$U/ok"
ab_vs ab_kput -k -n 20 -c 2 -u "$TMP/post.txt" "$U/ok"
ab_vs ab_m -n 20 -c 2 -m PATCH "$U/ok"
ab_vs ab_i -n 20 -c 2 -i "$U/ok"
ab_vs ab_ki -k -n 20 -c 2 -i "$U/ok"
ab_vs ab_S -n 20 -c 2 -S "$U/ok"
ab_vs ab_qr -n 200 -c 2 -q -r "$U/ok"
ab_vs ab_l -n 20 -c 1 -l "$U/chunked"
ab_vs ab_kclose -k -n 20 -c 2 "$U/close"
ab_vs ab_kchunked -k -n 20 -c 2 "$U/chunked"
ab_vs ab_500 -n 20 -c 2 "$U/status?code=500"
ab_vs ab_k302 -k -n 20 -c 2 "$U/status?code=302"
ab_vs ab_ks -k -n 20 -c 2 -s 5 "$U/ok"
# the seed's SOAP run (../shared/seeds/ab-nohup-and-ec2-autoscaling-tutorial.txt), scaled down
printf '<soap:Envelope><soap:Body><multiply><a>6</a><b>7</b></multiply></soap:Body></soap:Envelope>' >"$TMP/request.xml"
ab_vs ab_soap -p "$TMP/request.xml" -n 400 -c 50 -k -H "SOAPAction: multiply" \
    -T "application/soap+xml; charset=UTF-8" "$U/ok"
# -v: 2 prints the request, each header read ("LOG: header received:") and non-2xx codes;
# 3 every response code; 4 adds nothing over 3 for http (ab's -v 4 dumps TLS records)
ab_vs ab_v1 -v 1 -n 2 -c 1 "$U/ok"
ab_vs ab_v2 -v 2 -n 2 -c 1 "$U/ok"
ab_vs ab_v3 -v 3 -n 2 -c 1 "$U/ok"
ab_vs ab_v4 -v 4 -k -n 3 -c 1 "$U/ok"
ab_vs ab_v2_404 -v 2 -k -n 2 -c 1 "$U/status?code=404"
ab_vs ab_v3_split -v 3 -k -n 2 -c 1 "$U/slowheader"
ab_vs ab_v3_chunked -v 3 -n 2 -c 1 "$U/chunked"
# the request's bytes, as -v 2 prints them: -C (the last counts), -A (each adds a line),
# -H (Host, User-Agent, Accept replace ab's own), -p/-T
ab_vs ab_v2_hdrs -v 2 -n 1 -p "$TMP/post.txt" -T text/x -C a=1 -C b=2 -A u:p -A x:y \
    -H "X-A: 1" -H "Host: example" -H "User-Agent: x" -H "Accept: y" "$U/ok"
check "-v 2 prints ab's request and 'LOG: header received:' with the response" \
    bash -c "grep -q 'be patient)...INFO: GET header == $' '$TMP/ab_v2.out' && grep -qx 'LOG: header received:' '$TMP/ab_v2.out' && grep -q '^Server: lgtest' '$TMP/ab_v2.out'"
check "-v 3 prints 'LOG: Response code = 200' for each response" \
    [ "$(grep -cx 'LOG: Response code = 200' "$TMP/ab_v3.out")" = 2 ]
check "-v 2 warns of non-2xx codes" [ "$(grep -cx 'WARNING: Response code not 2xx (404)' "$TMP/ab_v2_404.out")" = 2 ]
check "-n 300: 300 complete, 0 failed, length 2" \
    [ "$(field ab_n300c3 "Complete requests:")/$(field ab_n300c3 "Failed requests:")/$(field ab_n300c3 "Document Length:")" = "300/0/2" ]
check "-k: every response on a kept-alive connection" [ "$(field ab_kn300c3 "Keep-Alive requests:")" = 300 ]
check "progress: Completed 100 .. Finished 300" \
    bash -c "grep -qx 'Completed 100 requests' '$TMP/ab_n300c3.err' && grep -qx 'Finished 300 requests' '$TMP/ab_n300c3.err'"

# --- -e and -g ---------------------------------------------------------------------------
lg files -n 200 -c 2 -q -e "$TMP/p.csv" -g "$TMP/g.tsv" "$U/ok"
check "-e writes ab's CSV (header + 101 rows)" \
    bash -c "[ \"\$(head -1 '$TMP/p.csv')\" = 'Percentage served,Time in ms' ] && [ \$(wc -l <'$TMP/p.csv') -eq 102 ] && grep -qE '^100,[0-9]+\.[0-9]{3}$' '$TMP/p.csv'"
check "-g writes ab's TSV (header + one row per request)" \
    bash -c "[ \"\$(head -1 '$TMP/g.tsv')\" = \"\$(printf 'starttime\tseconds\tctime\tdtime\tttime\twait')\" ] && [ \$(wc -l <'$TMP/g.tsv') -eq 201 ] && sed -n 2p '$TMP/g.tsv' | grep -qE '^[A-Z][a-z]{2} [A-Z][a-z]{2} [0-9]{2} [0-9:]{8} [0-9]{4}	[0-9]+	'"

if [ "$HAVE_AB" = 1 ]; then
    timeout 30 ab -n 200 -c 2 -q -e "$TMP/ab.csv" -g "$TMP/ab.tsv" "$U/ok" >/dev/null 2>&1
    nums() { sed -E 's/^[A-Z][a-z]{2} [A-Z][a-z]{2} +[0-9]+ [0-9:]+ [0-9]{4}/DATE/; s/[0-9]+(\.[0-9]+)?/N/g' "$1"; }
    if diff <(nums "$TMP/ab.csv") <(nums "$TMP/p.csv") >/dev/null &&
        diff <(nums "$TMP/ab.tsv") <(nums "$TMP/g.tsv") >/dev/null; then
        ok "-e and -g files have ab's shape, line for line"
    else
        notok "-e or -g file differs from ab's"
    fi
else
    notok "-e and -g files have ab's shape (no ab)"
fi

# --- bodies --------------------------------------------------------------------------------
lg chunked -k -n 60 -c 3 "$U/chunked"
check "chunked bodies: 60 complete, 0 failed, all kept alive" \
    [ "$(field chunked "Complete requests:")/$(field chunked "Failed requests:")/$(field chunked "Keep-Alive requests:")" = "60/0/60" ]
lg closebody -n 30 -c 3 "$U/close"
check "bodies ended by the server's close: 30 complete, length 11" \
    [ "$(field closebody "Complete requests:")/$(field closebody "Failed requests:")/$(field closebody "Document Length:")" = "30/0/11" ]
lg slow -k -n 6 -c 2 "$U/slowheader"
check "a status line split over three reads parses" [ "$(field slow "Complete requests:")/$(field slow "Failed requests:")" = "6/0" ]
lg head -k -n 10 -c 1 -i "$U/ok"
check "-i sends HEAD: no body" [ "$(field head "HTML transferred:")" = 0 ]
lg post -n 10 -c 2 -p "$TMP/post.txt" -T application/x-www-form-urlencoded "$U/ok"
check "-p: Total body sent and kb/s sent lines" bash -c "grep -q '^Total body sent:' '$TMP/post.out' && grep -q 'kb/s sent' '$TMP/post.out'"

# --- wrk style --------------------------------------------------------------------------
lg wrk --duration 1s --threads 2 --connections 4 --latency "$U/ok"
check "wrk style: report with Requests/sec and the distribution" \
    bash -c "grep -q '^Requests/sec:' '$TMP/wrk.out' && grep -q 'Latency Distribution' '$TMP/wrk.out' && grep -q '2 threads and 4 connections' '$TMP/wrk.out'"
check "wrk style: no live line when piped" bash -c "! grep -q 'req/s' '$TMP/wrk.err'"

lg rate --rate 200 --duration 1s --connections 4 "$U/ok"
n=$(awk '/requests in/ {print $1}' "$TMP/rate.out")
check "--rate 200 for 1s sends about 200 requests (got $n)" bash -c "[ ${n:-0} -ge 180 ] && [ ${n:-0} -le 201 ]"
check "--rate prints the uncorrected figures too" has rate "Uncorrected Latency Distribution"

# a stalled server: one connection (the pool held), 200 ms per reply, 50 requests/s demanded. Latency from
# the intended send time grows with the backlog; from the actual send it stays ~200 ms.
lg co --rate 50 --duration 2s --connections 1 --max-connections 1 --timeout 5s "$U/delay?ms=200"
read -r corr unc <<<"$(awk '$1 == "50%" {print $2}' "$TMP/co.out" | while read -r v; do
    awk -v v="$v" 'BEGIN { n = v + 0; if (v ~ /us$/) n /= 1000; else if (v ~ /[0-9]s$/) n *= 1000; printf "%s ", n }'; done)"
check "coordinated omission: corrected p50 ($corr ms) well above uncorrected ($unc ms)" \
    awk -v c="${corr:-0}" -v u="${unc:-0}" 'BEGIN { exit !(u >= 190 && u < 400 && c > 2 * u) }'

# live progress line: on a terminal only
if need script bsdutils; then
    timeout 30 script -qfec "$LG --duration 2200ms --connections 2 $U/ok" "$TMP/tty.log" >/dev/null 2>&1 </dev/null
    check "live progress line on a TTY (elapsed, req/s, p99, errors)" \
        bash -c "grep -qE '[0-9.]+s +[0-9]+ req/s +p99 [0-9.]+(us|ms) +errors 0' '$TMP/tty.log'"
fi

lg j1 --rate 100 --duration 1s --connections 2 --json "$U/ok"
lg j2 -k -n 150 -c 3 --json "$U/ok"
check "--json prints one compact line" [ "$(wc -l <"$TMP/j1.out")" -eq 1 ]
cp "$TMP/j1.out" "$TMP/a.json"; cp "$TMP/j2.out" "$TMP/b.json"
lg merge merge --json "$TMP/a.json" "$TMP/b.json"
sum=$(python3 -c "import json,sys; a,b,m=(json.load(open(f)) for f in sys.argv[1:]); print(int(m['done']==a['done']+b['done'] and m['latency']['total']==a['latency']['total']+b['latency']['total'] and m['latency']['max']==max(a['latency']['max'],b['latency']['max'])))" "$TMP/a.json" "$TMP/b.json" "$TMP/merge.out")
check "merge adds counts and histograms exactly" [ "$sum" = 1 ]
lg mergetext merge "$TMP/a.json" "$TMP/b.json"
check "merge prints a report" has mergetext "Requests/sec:"

# --- sweep ---------------------------------------------------------------------------------
lg sweep sweep --low-rate 10 --high-rate 20 --rate-step 10 --num-conns 10 --num-calls 3 --timeout 2 \
    --quiet --file "$TMP/sweep.tsv" --svg "$TMP/sweep.svg" "$U/ok"
check "sweep: autobench's TSV header and one row per rate" \
    bash -c "head -1 '$TMP/sweep.tsv' | grep -q \"^dem_req_rate	req_rate_127.0.0.1	con_rate_127.0.0.1	min_rep_rate_127.0.0.1	avg_rep_rate_127.0.0.1	max_rep_rate_127.0.0.1	stddev_rep_rate_127.0.0.1	resp_time_127.0.0.1	net_io_127.0.0.1	errors_127.0.0.1\$\" && [ \$(wc -l <'$TMP/sweep.tsv') -eq 3 ] && awk 'NR==2 && \$1==30 && \$10==0 {f=1} END {exit !f}' '$TMP/sweep.tsv'"
check "sweep: the SVG plot is written" bash -c "grep -q '<svg' '$TMP/sweep.svg' && grep -q 'avg_rep_rate' '$TMP/sweep.svg'"
lg sweepbad sweep --low-rate 10 "$U/ok"
check "sweep: missing rates is a usage error" [ "$(rc_of sweepbad)" = 2 ]

# --- IPv6 ----------------------------------------------------------------------------------
if python3 -c 'import socket; s=socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
    start_srv v6 --ipv6
    lg v6 -k -n 20 -c 2 "http://[::1]:$PORT_v6/ok"
    check "IPv6: 20 complete over [::1]" [ "$(field v6 "Complete requests:")/$(field v6 "Failed requests:")" = "20/0" ]
else
    skip "IPv6: no IPv6 loopback (::1) on this machine"
fi

# --- HTTPS ---------------------------------------------------------------------------------
if need openssl openssl && openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/key.pem" -out "$TMP/cert.pem" \
    -days 1 -subj /CN=localhost >/dev/null 2>&1; then
    start_srv tls --tls "$TMP/cert.pem" "$TMP/key.pem"
    lg tls -k -n 40 -c 2 "https://localhost:$PORT_tls/ok"
    check "HTTPS: 40 complete and the SSL/TLS Protocol line" \
        bash -c "[ \"$(field tls "Complete requests:")\" = 40 ] && grep -q '^SSL/TLS Protocol:' '$TMP/tls.out'"
    ab_vs ab_tls -k -n 20 -c 2 "https://localhost:$PORT_tls/ok"
    check "HTTPS: ab's SSL/TLS Protocol, Server Temp Key and TLS Server Name lines" \
        bash -c "grep -qE '^SSL/TLS Protocol:       TLSv1\.[23],[A-Z0-9_-]+,2048,[0-9]+$' '$TMP/ab_tls.out' && grep -q '^Server Temp Key:' '$TMP/ab_tls.out' && grep -qx 'TLS Server Name:        localhost' '$TMP/ab_tls.out'"
    lg tlsv4 -v 4 -k -n 2 -c 1 "https://localhost:$PORT_tls/ok"
    check "HTTPS -v 2..4: peer certificate (stdout), cipher, handshake states, record dumps (stderr)" \
        bash -c "grep -qx 'Peer certificate' '$TMP/tlsv4.out' && grep -q '^The subject name is /CN=localhost' '$TMP/tlsv4.out' && grep -q '^Cipher Suite Name       :' '$TMP/tlsv4.err' && grep -q '^SSL/TLS State \[connect\]' '$TMP/tlsv4.err' && grep -qE '^write to 0x[0-9a-f]+ \[0x[0-9a-f]+\] \([0-9]+ bytes => [0-9]+' '$TMP/tlsv4.err' && grep -qx 'LOG: Response code = 200' '$TMP/tlsv4.out'"
    lg tlsres -n 10 -c 1 --json "https://127.0.0.1:$PORT_tls/ok"
    res=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['tls_handshakes'], j['tls_resumed'])" "$TMP/tlsres.out" 2>/dev/null)
    check "HTTPS: sessions resumed on new connections (handshakes, resumed: $res)" [ "$res" = "10 9" ]
else
    notok "HTTPS: a certificate from the openssl CLI"
fi

finish
