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

# (loadgen's signed admin calls: test_scenario_run.sh runs a scenario against --auth sigv4)
finish
