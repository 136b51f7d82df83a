#!/usr/bin/env bash
# bench/bench_loadgen.sh: loadgen's bars, each measured beside its peer in the same run
# (through $SHARED_BENCH/loadgen-vs-wrk.sh where a peer exists), printing the figures and
# whether each bar holds:
#   1. one thread vs wrk -t1 (same nginx, same connections): rps ratio >= 1.00 and client
#      CPU us/request <= wrk's
#   2. --threads 2 vs wrk -t2, clients on both cores: uses both cores (client CPU > 1 core)
#   3. ab mode -k vs ab -k: rps ratio >= 1.00 and us/request <= ab's
#   4. ab mode without -k vs ab: rps ratio >= 1.00
#   5. memory per open connection (RSS with 10,000 idle connections vs 10) < 8 KiB
#   6. latency accuracy: fixed 10 ms server, fixed rate: p50 within 0.2 ms of 10 ms
# Env: RUNS [3] DUR [10] CONNS [50] SHARED_BENCH, BUILD, ONLY (list of bar numbers).
# Self-checks of the harness land within +-5%: a ratio in [0.95, 1.00) is reported as a
# tie, not as a hold.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${BUILD:-build}
LG="$ROOT/$BUILD/bin/loadgen"
SB=${SHARED_BENCH:-$ROOT/../shared/bench}
[ -d "$SB" ] || SB=/work/shared/bench
H="$SB/loadgen-vs-wrk.sh"
export RUNS=${RUNS:-3} DUR=${DUR:-10} CONNS=${CONNS:-50}
ONLY=${ONLY:-1 2 3 4 5 6}
[ -x "$LG" ] || { echo "loadgen not built ($LG)"; exit 1; }
[ -f "$H" ] || { echo "harness not found: $H"; exit 1; }
. "$SB/lib.sh"
bench_init
SUMMARY=()

# own_nginx: one static nginx (1 worker on SERVER_CPUS) allowing 12,000 connections; MPORT
own_nginx() {
    [ -n "${MPORT:-}" ] && return 0
    alloc_port MPORT
    mem_conf() {
        nginx_static_conf "$1" "$2" 1 mem | sed -e 's/worker_connections 8192/worker_connections 12000/' \
            -e 's/worker_rlimit_nofile 16384/worker_rlimit_nofile 24000/'
    }
    start_nginx mem "$SERVER_CPUS" mem_conf "$MPORT"
    wait_port "$MPORT" || bench_die "nginx (own) did not start"
}
want() { case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }
verdict() { # NAME HOLDS(0/1/2=tie) TEXT
    local v=HOLDS
    [ "$2" = 1 ] && v="DOES NOT HOLD"
    [ "$2" = 2 ] && v="TIE (within the harness's +-5% noise)"
    SUMMARY+=("bar $1: $v -- $3")
    echo "bar $1: $v -- $3"
}
# med FIELD LINE: the median from "field=min/med/max"
med() { awk -v k="$1=" '{ for (i = 1; i <= NF; i++) if (index($i, k) == 1) { v = substr($i, length(k) + 1); n = split(v, a, "/"); print (n == 3) ? a[2] : a[1] } }' <<<"$2"; }
harness() { # OUTFILE TEMPLATE (env passes through)
    local out=$1
    shift
    bash "$H" "$1" 2>&1 | tee "$out" | sed 's/^/  /'
}
ratio_bar() { # NAME OUTFILE CHECK_CPU(0/1) REF_NAME
    local name=$1 f=$2 cpu=$3 ref=$4 r wl cl wc cc h
    r=$(sed -n 's/^ratio=//p' "$f" | tail -1)
    wl=$(grep '^wrk:' "$f"); cl=$(grep '^candidate:' "$f")
    wc=$(med client_us/req "$wl"); cc=$(med client_us/req "$cl")
    h=$(awk -v r="${r:-0}" 'BEGIN { print (r >= 1.0) ? 0 : (r >= 0.95) ? 2 : 1 }')
    if [ "$cpu" = 1 ] && ! awk -v a="$cc" -v b="$wc" 'BEGIN { exit !(a + 0 <= b + 0) }'; then
        h=1
    fi
    verdict "$name" "$h" "ratio=$r ($ref rps $(med rps "$wl"), loadgen rps $(med rps "$cl")); client us/req: loadgen $cc vs $ref $wc"
}

if want 1; then
    echo "== 1. one thread vs wrk -t1 (c=$CONNS, ${DUR}s x $RUNS)"
    harness "$BENCH_TMP/b1" "$LG --threads 1 --connections {c} --duration {d}s --latency {url}"
    ratio_bar "1 (1 thread vs wrk)" "$BENCH_TMP/b1" 1 wrk
fi
if want 2; then
    echo "== 2. --threads 2 vs wrk -t2, clients on CPUs 0,1"
    WRK_THREADS=2 CLIENT_CPUS=0,1 harness "$BENCH_TMP/b2" \
        "$LG --threads 2 --connections {c} --duration {d}s --latency {url}"
    r=$(sed -n 's/^ratio=//p' "$BENCH_TMP/b2" | tail -1)
    own_nginx
    timed "$BENCH_TMP/t2" 0,1 $((DUR + 30)) "$LG" --threads 2 --connections "$CONNS" \
        --duration "${DUR}s" --json "http://127.0.0.1:$MPORT/ok"
    read -r c0 c1 seen rps2 <<<"$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); t=j["thread_cpu_us"]; print(t[0]/1e6, t[1]/1e6, j["cpus_seen"], round(j["requests_per_sec"]))' "$BENCH_TMP/t2.out")"
    echo "  --threads 2 on CPUs 0,1: thread CPU ${c0}s and ${c1}s over ${DUR}s, CPUs seen $seen, $rps2 requests/s"
    h=$(awk -v a="$c0" -v b="$c1" -v s="$seen" 'BEGIN { print (a > 0.05 && b > 0.05 && s >= 2) ? 0 : 1 }')
    verdict "2 (--threads 2 uses both cores)" "$h" "threads used ${c0}s and ${c1}s of CPU on $seen CPUs; ratio vs wrk -t2 = $r"
fi
if want 3; then
    echo "== 3. ab mode -k vs ab -k"
    WRK_CMD="ab -k -q -c {c} -t {d} -n 5000000 {url}" harness "$BENCH_TMP/b3" \
        "$LG -k -q -c {c} -t {d} -n 5000000 {url}"
    ratio_bar "3 (-k vs ab -k)" "$BENCH_TMP/b3" 1 "ab -k"
fi
if want 4; then
    echo "== 4. ab mode without -k vs ab"
    WRK_CMD="ab -q -c {c} -t {d} -n 5000000 {url}" harness "$BENCH_TMP/b4" \
        "$LG -q -c {c} -t {d} -n 5000000 {url}"
    ratio_bar "4 (no -k vs ab)" "$BENCH_TMP/b4" 0 ab
fi
if want 5; then
    echo "== 5. memory per open connection (10,000 idle vs 10)"
    own_nginx
    rss() { # CONNS -> max RSS in KiB of an idle run holding CONNS connections
        (sleep 3; ss -Htn state established "dport = :$MPORT" | wc -l >"$BENCH_TMP/estab$1") &
        local sampler=$!
        timed "$BENCH_TMP/mem$1" "$CLIENT_CPUS" 60 "$LG" --rate 1 --connections "$1" --duration 4s \
            --timeout 10s "http://127.0.0.1:$MPORT/ok"
        wait "$sampler"
        awk '{print $4}' "$BENCH_TMP/mem$1.time"
    }
    r10=$(rss 10)
    r10k=$(rss 10000)
    errs=$(grep -o 'connect [0-9]*' "$BENCH_TMP/mem10000.out" | awk '{print $2}')
    echo "  established connections seen 3 s in: $(cat "$BENCH_TMP/estab10") and $(cat "$BENCH_TMP/estab10000")"
    per=$(awk -v a="$r10" -v b="$r10k" 'BEGIN { printf "%.2f", (b - a) / 9990 }')
    echo "  RSS: 10 connections ${r10} KiB, 10,000 connections ${r10k} KiB, connect errors ${errs:-0}"
    h=$(awk -v p="$per" 'BEGIN { print (p < 8) ? 0 : 1 }')
    verdict "5 (memory per connection < 8 KiB)" "$h" "$per KiB per open connection"
fi
if want 6; then
    echo "== 6. latency accuracy: 10 ms server, --rate 200 for ${DUR}s"
    cc -O2 -pthread -o "$BENCH_TMP/delay_srv" "$ROOT/tests/integration/loadgen_delay_srv.c" ||
        bench_die "cannot build the delay server"
    start_bg delay "$SERVER_CPUS" "$BENCH_TMP/delay_srv" 10000 "$BENCH_TMP/delay.port" $((DUR * RUNS + 60))
    for i in $(seq 1 50); do [ -s "$BENCH_TMP/delay.port" ] && break; sleep 0.1; done
    DPORT=$(cat "$BENCH_TMP/delay.port")
    for i in $(seq 1 "$RUNS"); do
        timed "$BENCH_TMP/lat$i" "$CLIENT_CPUS" $((DUR + 30)) "$LG" --rate 200 --connections 8 \
            --duration "${DUR}s" --latency "http://127.0.0.1:$DPORT/"
        p50=$(to_ms "$(awk '$1 == "50%" {print $2; exit}' "$BENCH_TMP/lat$i.out")")
        echo "$p50" >>"$BENCH_TMP/lat.p50"
        echo "  run $i: p50_ms=$p50 (corrected), uncorrected $(to_ms "$(awk '$1 == "50%" {n++} n == 2 {print $2; exit}' "$BENCH_TMP/lat$i.out")")"
    done
    p=$(median <"$BENCH_TMP/lat.p50")
    h=$(awk -v p="$p" 'BEGIN { d = p - 10; if (d < 0) d = -d; print (d <= 0.2) ? 0 : 1 }')
    verdict "6 (p50 within 0.2 ms of 10 ms)" "$h" "median p50 $p ms over $RUNS runs"
fi
echo "== summary"
printf '%s\n' "${SUMMARY[@]}"
