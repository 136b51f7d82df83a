#!/usr/bin/env bash
# The admin API under --auth sigv4 (issue 19 finding 4: /_scalelab/state, reset, fault and
# /moto-api/reset answered without credentials): every admin request is SigV4-verified with
# the emulator's keys for the signing name "scalelab" (docs/auth.md); unsigned, badly signed
# or signed for another service it answers AWS's 403 in query XML and changes nothing;
# curl --aws-sigv4 (an independent signer) gets through.
# TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need curl curl || finish

printf 'AKIDADMIN secretadmin\n' >"$TMP/creds"
start_emu emu --auth sigv4 --credentials "$TMP/creds" || { notok "emulator starts"; finish; }
SIG=(--aws-sigv4 aws:amz:us-east-1:scalelab --user AKIDADMIN:secretadmin)

# a group to lose if a reset got through
curl -sf --aws-sigv4 aws:amz:us-east-1:autoscaling --user AKIDADMIN:secretadmin \
    -d 'Action=CreateLaunchConfiguration&Version=2011-01-01&LaunchConfigurationName=lc&ImageId=ami-12345678&InstanceType=m1.small' \
    "$EP/" >/dev/null || notok "CreateLaunchConfiguration (signed)"
lcs() {
    curl -s --aws-sigv4 aws:amz:us-east-1:autoscaling --user AKIDADMIN:secretadmin \
        -d 'Action=DescribeLaunchConfigurations&Version=2011-01-01' "$EP/" | grep -c '<LaunchConfigurationName>lc<' || true
}

# status code and error code of one admin request: ask METHOD PATH [CURL ARGS...]
ask() {
    local m=$1 p=$2
    shift 2
    curl -s -o "$TMP/body" -w '%{http_code}' -X "$m" "$@" "$EP$p"
    printf ' %s\n' "$(sed -n 's:.*<Code>\(.*\)</Code>.*:\1:p' "$TMP/body")"
}
for req in "GET /_scalelab/health" "GET /_scalelab/state" "POST /_scalelab/reset" \
    "POST /moto-api/reset" "GET /_scalelab/dataplane" "POST /_scalelab/clock"; do
    set -- $req
    got=$(ask "$1" "$2")
    [ "$got" = "403 MissingAuthenticationToken" ] && grep -q '<ErrorResponse' "$TMP/body" &&
        grep -q 'Request is missing Authentication Token' "$TMP/body" &&
        ok "unsigned $req: 403 MissingAuthenticationToken (XML)" || notok "unsigned $req: $got"
done
got=$(ask POST /_scalelab/fault -H 'Content-Type: application/json' -d '{"instance_id":"i-0","fault":"kill"}')
[ "$got" = "403 MissingAuthenticationToken" ] && ok "unsigned POST /_scalelab/fault: 403" || notok "unsigned fault: $got"
got=$(ask POST /_scalelab/reset --aws-sigv4 aws:amz:us-east-1:scalelab --user AKIDADMIN:wrong)
[ "$got" = "403 SignatureDoesNotMatch" ] && ok "a wrong secret: 403 SignatureDoesNotMatch" || notok "wrong secret: $got"
got=$(ask POST /_scalelab/reset --aws-sigv4 aws:amz:us-east-1:scalelab --user AKIDNOBODY:secretadmin)
[ "$got" = "403 InvalidClientTokenId" ] && ok "an unknown key: 403 InvalidClientTokenId" || notok "unknown key: $got"
got=$(ask POST /_scalelab/reset --aws-sigv4 aws:amz:us-east-1:autoscaling --user AKIDADMIN:secretadmin)
[ "$got" = "403 SignatureDoesNotMatch" ] && grep -q 'scoped to correct service: .*scalelab' "$TMP/body" &&
    ok "signed for autoscaling: 403 naming the scalelab service" || notok "other service: $got"
[ "$(lcs)" = 1 ] && ok "after the refused resets the launch configuration is still there" ||
    notok "a refused reset changed the state"

got=$(ask GET /_scalelab/health "${SIG[@]}")
[ "${got% *}" = 200 ] && grep -q '"status": *"ok"' "$TMP/body" && ok "signed (curl --aws-sigv4 ...:scalelab) GET /_scalelab/health: 200" ||
    notok "signed health: $got $(head -c 200 "$TMP/body")"
got=$(ask GET /_scalelab/state "${SIG[@]}")
[ "${got% *}" = 200 ] && ok "signed GET /_scalelab/state: 200" || notok "signed state: $got"
got=$(ask POST /moto-api/reset "${SIG[@]}")
[ "${got% *}" = 200 ] && [ "$(lcs)" = 0 ] && ok "signed POST /moto-api/reset: 200, the state is reset" ||
    notok "signed reset: $got, launch configurations $(lcs)"

# the console token (docs/auth.md "The console under --auth sigv4"): --console-token gives
# it; the start line prints the URL; the URL sets an HttpOnly SameSite=Strict cookie with a
# 303 to the page without the token; the cookie or X-Scalelab-Token opens the admin API
TOK=scalelab-test-token-0123456789
printf 'AKIDADMIN secretadmin\n' >"$TMP/creds2"
start_emu tok --auth sigv4 --credentials "$TMP/creds2" --console-token "$TOK" || { notok "emulator with --console-token starts"; finish; }
wait_for 10 grep -q "emulator: console: http://127.0.0.1:$PORT/?token=$TOK " "$TMP/tok.log" &&
    ok "the start line gives the console URL with the token" || notok "no console line: $(grep console "$TMP/tok.log")"
code() { curl -s -o "$TMP/body" -D "$TMP/hdrs" -w '%{http_code}' "$@"; }
got=$(code "$EP/_scalelab/overview")
[ "$got" = 403 ] && grep -q MissingAuthenticationToken "$TMP/body" && ok "no token, no signature: 403" || notok "no token: $got"
got=$(code -H 'Accept: text/html' "$EP/")
[ "$got" = 403 ] && grep -q 'a token is needed' "$TMP/body" && grep -q -- '--console-token' "$TMP/body" &&
    ok "the page without the token: 403 text/html saying how to get in" || notok "page without token: $got"
got=$(code -H 'Accept: text/html' "$EP/?token=$TOK")
[ "$got" = 303 ] && grep -qi '^Location: /\s*$' "$TMP/hdrs" &&
    grep -qi "^Set-Cookie: scalelab_console_$PORT=$TOK; Path=/; HttpOnly; SameSite=Strict" "$TMP/hdrs" &&
    ok "the console URL: 303 to / with an HttpOnly SameSite=Strict cookie" || notok "exchange: $got $(cat "$TMP/hdrs")"
got=$(code "$EP/_scalelab/ui?token=${TOK}x")
[ "$got" = 403 ] && grep -q "not this emulator's" "$TMP/body" && ok "a wrong token in the URL: 403" || notok "wrong URL token: $got"
got=$(code -b "scalelab_console_$PORT=$TOK" "$EP/_scalelab/overview")
[ "$got" = 200 ] && grep -q '"worlds"' "$TMP/body" && ok "with the cookie: GET /_scalelab/overview 200" || notok "cookie: $got"
got=$(code -b "other=1; scalelab_console_$PORT=$TOK" -H 'Accept: text/html' "$EP/")
[ "$got" = 200 ] && grep -q 'scalelab console' "$TMP/body" && ok "with the cookie: the page 200" || notok "cookie page: $got"
got=$(code -b "scalelab_console_$PORT=$TOK" "$EP/_scalelab/events?format=jsonl")
[ "$got" = 200 ] && ok "with the cookie: the event log 200" || notok "cookie events: $got"
got=$(code -H "X-Scalelab-Token: $TOK" -X POST "$EP/_scalelab/reset")
[ "$got" = 200 ] && ok "with X-Scalelab-Token: POST /_scalelab/reset 200" || notok "header: $got"
got=$(code -b "scalelab_console_$PORT=${TOK}0" "$EP/_scalelab/overview")
[ "$got" = 403 ] && grep -q '<Code>AccessDenied</Code>' "$TMP/body" && grep -q 'The console token (cookie or X-Scalelab-Token) is not this emulator' "$TMP/body" &&
    ok "a stale cookie: 403 AccessDenied naming the console token" || notok "stale cookie: $got"
got=$(code -b "scalelab_console_$PORT=${TOK}0" "${SIG[@]}" "$EP/_scalelab/health")
[ "$got" = 200 ] && ok "a stale cookie with a signature: 200 (the signature counts)" || notok "stale+signed: $got"
got=$(code -H "X-Scalelab-Token: $TOK" "$EP/?Action=DescribeAutoScalingGroups&Version=2011-01-01")
[ "$got" = 403 ] && ok "the token does not open the AWS API (403)" || notok "token on the AWS API: $got"
[ "$(grep -c -- "$TOK" "$TMP/tok.log")" = 1 ] && ok "the token is logged once, in the start line" ||
    notok "the token in the log $(grep -c -- "$TOK" "$TMP/tok.log") times"
out=$("$EMU" --console-token short 2>&1 || true)
case $out in *"the console token must be 16 to 128 bytes, not 5"*) ok "--console-token too short: usage error" ;; *) notok "short token: $out" ;; esac
out=$("$EMU" --auth sigv4 --console-token 'abcdefghijklmnop q' 2>&1; echo "rc=$?")
case $out in *"holds byte 0x20 at 16"*rc=2) ok "--console-token with a space: exit 2 naming the byte" ;; *) notok "bad token: $out" ;; esac
out=$("$EMU" --console-token abcdefghijklmnopq 2>&1; echo "rc=$?")
case $out in *"--console-token needs --auth sigv4"*rc=2) ok "--console-token without --auth sigv4: exit 2" ;; *) notok "token without sigv4: $out" ;; esac

# (loadgen's signed admin calls: test_scenario_run.sh runs a scenario against --auth sigv4)
finish
