#!/usr/bin/env bash
# loadgen --rate is never silently short: against a server that answers every request
# 20 ms after it arrives (tests/integration/loadgen_delay_srv.c, a thread per connection),
# 300 requests/s need ~6 connections at once. With the pool held at 2 (--max-connections 2)
# the run falls short: stderr says so, --json says so, exit 4. By default the pool grows
# from its 1 connection and the run reaches its rate, exit 0. merge reports the achieved
# rates and warns when the results ran against different URLs.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

need cc gcc
cc -O2 -pthread -o "$TMP/delay_srv" "$HERE/loadgen_delay_srv.c" || {
    notok "cannot build loadgen_delay_srv.c"
    finish
}
spawn delay "$TMP/delay_srv" 20000 "$TMP/delay.port" 120
wait_port delay "$LAST" || exit 1
U="http://127.0.0.1:$PORT"
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(d$2)" "$TMP/$1.out"; }

# held at 2 connections: at most 2 / 20 ms = 100 requests/s of the 300 asked
lg short --rate 300 --duration 2s --max-connections 2 --json "$U/"
check "a short run exits 4 (got $(rc_of short))" [ "$(rc_of short)" = 4 ]
check "a short run says so on stderr, with the rates and the cap" \
    grep -qE '^loadgen: short of the requested rate: sent [0-9.]+ req/s of 300.0 req/s \([0-9.]+ % short\) on 2 connections \(cap 2\): the pool reached its cap' "$TMP/short.err"
got=$(j short "['short'], d['requested_rate'], d['achieved_rate'] < 150, d['pool_connections']")
check "a short run says so in --json (short, requested 300, achieved < 150, 2 connections: $got)" \
    [ "$got" = "True 300.0 True 2" ]
lg shorttext --rate 300 --duration 1s --max-connections 1 "$U/"
check "a short run's report exits 4 too (got $(rc_of shorttext))" [ "$(rc_of shorttext)" = 4 ]

# the default: the pool grows from 1 connection and the run keeps its rate
lg grown --rate 300 --duration 3s --json "$U/"
read -r s req ach pool sent <<<"$(j grown "['short'], d['requested_rate'], d['achieved_rate'], d['pool_connections'], d['sent']")"
check "the default run reaches its rate: exit 0 (got $(rc_of grown); $(head -c 300 "$TMP/grown.err"))" [ "$(rc_of grown)" = 0 ]
check "--json: not short, achieved $ach of $req req/s ($sent sent)" \
    awk -v s="$s" -v r="${req:-0}" -v a="${ach:-0}" 'BEGIN { exit !(s == "False" && r == 300 && a >= 0.99 * r) }'
check "the pool grew past its 1 connection (to $pool), below its cap 512" \
    awk -v p="${pool:-0}" 'BEGIN { exit !(p > 1 && p < 512) }'
check "nothing said on stderr" [ ! -s "$TMP/grown.err" ]
lg growntext --rate 300 --duration 1s "$U/"
check "the report says the pool grew" grep -qE '^  connection pool grew from 1 to [0-9]+ \(cap 512' "$TMP/growntext.out"
lg badcap --rate 10 --connections 4 --max-connections 2 --duration 1s "$U/"
check "--max-connections below --connections: usage error" [ "$(rc_of badcap)" = 2 ]

# merge: each run's rates, their sums, a warning on mixed URLs
lg other --rate 50 --duration 1s --json "$U/other"
cp "$TMP/short.out" "$TMP/a.json"
cp "$TMP/grown.out" "$TMP/b.json"
cp "$TMP/other.out" "$TMP/c.json"
lg merged merge --json "$TMP/a.json" "$TMP/b.json"
read -r mreq mach mshort <<<"$(j merged "['requested_rate'], d['achieved_rate'], d['short']")"
check "merge: requested rates add up ($mreq), achieved below them ($mach), short" \
    awk -v r="${mreq:-0}" -v a="${mach:-0}" -v s="$mshort" 'BEGIN { exit !(r == 600 && a < 500 && a > 300 && s == "True") }'
check "merge of one URL: no warning" [ ! -s "$TMP/merged.err" ]
lg mixed merge "$TMP/a.json" "$TMP/c.json"
check "merge of different URLs warns" grep -q "^loadgen: merge: warning: .*c.json ran against $U/other, not $U/" "$TMP/mixed.err"
check "merge prints each run's achieved rate and the sum" \
    bash -c "grep -qE 'a.json: requested 300.0 req/s, achieved [0-9.]+ req/s \\(short\\)' '$TMP/mixed.out' && grep -qE '^Rate: requested 350.0 req/s, achieved [0-9.]+ req/s \\(sent\\); a run fell short' '$TMP/mixed.out'"
finish
