# shellcheck shell=bash
# tests/integration/lib.sh: what every integration test sources, after its own `set -euo
# pipefail` (or `set -uo pipefail` where the test reads exit statuses itself).
#
# Paths: ROOT, BUILD, EMU (the emulator), LG (loadgen), HERE (this folder), and TMP, a temp
# dir removed at exit (kept, and its path printed, with KEEP_TMP=1).
# Clients: Debian's come first on PATH (/usr/bin/python3 with python3-boto3 and
# python3-botocore, /usr/bin/aws the aws CLI v2, node and npm), whatever a machine image or
# pip put earlier on it, so that a count means the same on every machine; need CMD PACKAGE
# fails the test, naming the Debian package, where a tool scripts/deps.sh installs is
# missing (such a tool is never a reason to skip); credentials and config that reach no
# real AWS account; tap.py (check, wait) importable from Python.
# TAP: ok DESC, notok DESC (sets `failed`), skip REASON ("ok - # SKIP REASON"), check DESC
# CMD..., check_job DESC CMD..., js_check DESC SCRIPT ARGS..., finish (exit 1 if anything
# failed).
# Processes: spawn NAME CMD... starts CMD under setsid (its own session and process group,
# pid = pgid), output appended to $TMP/NAME.log; wait_port NAME PID waits for the port file
# it writes; start_emu NAME ARGS... does both for the emulator, start_srv NAME ARGS... for
# loadgen_srv.py; wait_for SECS CMD... polls. loadgen runs: lg NAME ARGS... and what reads
# its results (rc_of, field, has, secs_below, show). js_deps: the JavaScript SDK's packages.
# At exit (or SIGTERM/SIGINT): every process the test started, whatever its process group,
# is stopped by process group (SIGTERM, up to 5 s, SIGKILL; tests/procs.sh); if something
# failed, the tail of each $TMP/*.log is printed; under ASAN=1 a sanitizer report in a
# $TMP/*.log or *.err is a failure.
ROOT=${SCALELAB_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
EMU="$ROOT/$BUILD/bin/emulator"
LG="$ROOT/$BUILD/bin/loadgen"
HERE="$ROOT/tests/integration"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/scalelab-test.XXXXXX")
failed=0
. "$ROOT/tests/procs.sh"
# tests/run.sh gives each suite an id; a test run alone makes its own
export SCALELAB_SUITE_ID=${SCALELAB_SUITE_ID:-$(basename "$0" .sh)-$$-$RANDOM}

export PATH="/usr/bin:/bin:$PATH"
export PYTHONPATH="$HERE${PYTHONPATH:+:$PYTHONPATH}" PYTHONDONTWRITEBYTECODE=1
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_MAX_ATTEMPTS=1

ok() { echo "ok - $*"; }
notok() {
    echo "not ok - $*"
    failed=$((failed + 1))
}
skip() { echo "ok - # SKIP $*"; }
finish() { exit $((failed == 0 ? 0 : 1)); }

# need CMD PACKAGE: CMD is on PATH; else not ok naming the Debian package scripts/deps.sh
# installs it from, and returns 1.
# ts N: the --time-scale for a check bound to emulated timings; under ASAN=1 a quarter of N
# (at least 1): sanitized processes start and answer several times slower, and at xN every
# real ms late is N/1000 emulated seconds.
ts() {
    if [ "${ASAN:-0}" = 1 ]; then
        echo $(($1 / 4 > 1 ? $1 / 4 : 1))
    else
        echo "$1"
    fi
}

need() {
    command -v "$1" >/dev/null 2>&1 && return 0
    notok "$1 is installed (scripts/deps.sh installs Debian's $2)"
    return 1
}

# check DESC CMD...: ok if CMD succeeds, else not ok and the tail of what CMD printed.
check() {
    local d=$1
    shift
    if "$@" >"$TMP/check.out" 2>&1; then ok "$d"; else
        notok "$d"
        tail -n 15 "$TMP/check.out" | sed 's/^/#   /'
    fi
}

# check_job DESC CMD...: check, with CMD run as a background job and waited for: inside an
# `if` bash ignores errexit, so a shell function's failing steps would pass unnoticed; a job
# keeps `set -e` in force. The ok line ends with the last line CMD printed.
check_job() {
    local d=$1
    shift
    "$@" >"$TMP/check.out" 2>&1 &
    if wait $!; then ok "$d: $(tail -n 1 "$TMP/check.out")"; else
        notok "$d"
        tail -n 15 "$TMP/check.out" | sed 's/^/#   /'
    fi
}

# wait_for SECS CMD...: polls CMD (quiet) every 50 ms until it succeeds (0) or SECS pass (1).
wait_for() {
    local end=$((${EPOCHREALTIME/./} + $1 * 1000000))
    shift
    while ! "$@" >/dev/null 2>&1; do
        [ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
        sleep 0.05
    done
}

# alive PID: the process exists and is not a zombie.
alive() {
    local line
    read -r line 2>/dev/null </proc/"$1"/stat || return 1
    line=${line##*) }
    [ "${line%% *}" != Z ]
}

# spawn NAME CMD...: starts CMD under setsid, stdin /dev/null, stdout and stderr appended to
# $TMP/NAME.log; sets LAST to its pid (also its process group).
spawn() {
    local name=$1
    shift
    setsid "$@" </dev/null >>"$TMP/$name.log" 2>&1 &
    LAST=$!
}

# wait_port NAME PID [SECS]: waits up to SECS (10) for PID to write its port to
# $TMP/NAME.port; sets PORT. Returns 1, with the log's tail, if PID dies or time runs out.
wait_port() {
    local name=$1 pid=$2 end=$((${EPOCHREALTIME/./} + ${3:-10} * 1000000))
    while [ ! -s "$TMP/$name.port" ]; do
        if ! alive "$pid"; then
            echo "# $name (pid $pid) died before writing its port:"
            tail -n 20 "$TMP/$name.log" 2>/dev/null | sed 's/^/#   /'
            return 1
        fi
        if [ "${EPOCHREALTIME/./}" -ge "$end" ]; then
            echo "# $name (pid $pid) wrote no port in ${3:-10} s:"
            tail -n 20 "$TMP/$name.log" 2>/dev/null | sed 's/^/#   /'
            return 1
        fi
        sleep 0.05
    done
    PORT=
    read -r PORT <"$TMP/$name.port" || [ -n "$PORT" ] # (no final newline)
}

# start_emu NAME [ARGS...]: the emulator on 127.0.0.1, port 0 (--port-file $TMP/NAME.port),
# log $TMP/NAME.log, ready once the port is written; sets LAST (pid and process group), PORT
# and EP. Returns 1 if it did not start.
start_emu() {
    local name=$1
    shift
    rm -f "$TMP/$name.port"
    spawn "$name" "$EMU" --port 0 --port-file "$TMP/$name.port" "$@"
    wait_port "$name" "$LAST" || return 1
    EP="http://127.0.0.1:$PORT"
}

# start_srv NAME [ARGS...]: tests/integration/loadgen_srv.py (at most 300 s) on port 0;
# sets PORT_<NAME>. Ends the test (exit 1) if it does not start.
start_srv() {
    local name=$1
    shift
    rm -f "$TMP/$name.port"
    spawn "$name" python3 "$HERE/loadgen_srv.py" --port-file "$TMP/$name.port" --max-seconds 300 "$@"
    wait_port "$name" "$LAST" || exit 1
    printf -v "PORT_$name" '%s' "$PORT"
}

# lg NAME ARGS...: runs loadgen (at most 60 s); stdout NAME.out, stderr NAME.err, exit
# status NAME.rc, wall seconds NAME.secs. Under ASAN=1 a sanitizer report is a failure.
lg() {
    local name=$1 t0 t1 rc=0
    shift
    t0=${EPOCHREALTIME/./}
    timeout -k 5 60 "$LG" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" </dev/null || rc=$?
    t1=${EPOCHREALTIME/./}
    echo "$rc" >"$TMP/$name.rc"
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", (b - a) / 1e6 }' >"$TMP/$name.secs"
    if [ "${ASAN:-0}" = 1 ] && grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer' "$TMP/$name.err"; then
        notok "$name: sanitizer report"
        sed 's/^/#   /' "$TMP/$name.err" | head -30
    fi
}
rc_of() { cat "$TMP/$1.rc"; }
# field NAME "Label:": the first number after the label in NAME.out
field() { awk -v l="$2" 'index($0, l) == 1 { s = substr($0, length(l) + 1); sub(/^[ \t]+/, "", s); split(s, a, /[ \t]/); print a[1]; exit }' "$TMP/$1.out"; }
# has NAME TEXT [out|err]: NAME.out (or .err) contains TEXT
has() { grep -qF -- "$2" "$TMP/$1.${3:-out}"; }
secs_below() { awk -v s="$(cat "$TMP/$1.secs")" -v m="$2" 'BEGIN { exit !(s < m) }'; }
show() { echo "# $1 (rc $(rc_of "$1")):"; sed 's/^/#   /' "$TMP/$1.out" "$TMP/$1.err" | head -60; }

# js_deps: the AWS SDK for JavaScript v3 pinned in js/package-lock.json, installed by npm ci
# into $BUILD/js/node_modules (again only when the lock file changed), with the js/*.mjs
# scripts beside it; sets JS to that folder. Returns 1 with the reason if node or npm is
# missing or npm ci fails.
js_deps() {
    JS="$ROOT/$BUILD/js"
    command -v node >/dev/null || { echo "node not found (scripts/deps.sh installs Debian's nodejs)"; return 1; }
    command -v npm >/dev/null || { echo "npm not found (scripts/deps.sh installs Debian's npm)"; return 1; }
    mkdir -p "$JS"
    if [ ! -d "$JS/node_modules" ] || ! cmp -s "$HERE/js/package-lock.json" "$JS/package-lock.json"; then
        cp "$HERE/js/package.json" "$HERE/js/package-lock.json" "$JS/"
        if ! (cd "$JS" && npm ci --no-audit --no-fund --loglevel=error) >"$TMP/npm.out" 2>&1; then
            rm -f "$JS/package-lock.json" # so that the next run tries again
            echo "npm ci in $JS failed:"
            head -n 8 "$TMP/npm.out"
            return 1
        fi
    fi
    cp "$HERE"/js/*.mjs "$JS/"
}

# js_check DESC SCRIPT ARGS...: check_job DESC with node running $JS/SCRIPT ARGS..., once
# js_deps has installed the SDK (the first call runs it); if that failed, not ok and why.
js_check() {
    local d=$1 script=$2
    shift 2
    if [ -z "${JS_STATUS:-}" ]; then
        if js_deps >"$TMP/js_deps.out" 2>&1; then JS_STATUS=ok; else JS_STATUS=failed; fi
    fi
    if [ "$JS_STATUS" != ok ]; then
        notok "$d"
        sed 's/^/#   /' "$TMP/js_deps.out"
        return 0
    fi
    check_job "$d" node --no-warnings "$JS/$script" "$@"
}

# tf_setup: Terraform with the hashicorp/aws provider from a filesystem mirror only
# (TF_PLUGIN_MIRROR, else the usual folders): sets MIRROR and VERSION (the newest there),
# writes $TMP/cli.tfrc (the mirror, no direct installs), makes $TMP/tf and exports
# TF_CLI_CONFIG_FILE, TF_DATA_DIR, CHECKPOINT_DISABLE, TF_IN_AUTOMATION and TF_INPUT.
# Without terraform on PATH or the provider: the skip line with its reason, and returns 1
# (callers `tf_setup || exit 0`).
tf_setup() {
    local d
    if ! command -v terraform >/dev/null 2>&1; then
        skip "terraform not on PATH (not installable from Debian)"
        return 1
    fi
    MIRROR=
    for d in ${TF_PLUGIN_MIRROR:-} /opt/tf-plugins /usr/share/terraform/plugins "$HOME/.terraform.d/plugins"; do
        if [ -d "$d/registry.terraform.io/hashicorp/aws" ]; then MIRROR=$d; break; fi
    done
    if [ -z "$MIRROR" ]; then
        skip "no hashicorp/aws provider in a filesystem mirror (set TF_PLUGIN_MIRROR)"
        return 1
    fi
    VERSION=$(ls "$MIRROR/registry.terraform.io/hashicorp/aws" | sort -V | tail -n 1)
    mkdir -p "$TMP/tf"
    cat >"$TMP/cli.tfrc" <<EOF
provider_installation {
  filesystem_mirror {
    path = "$MIRROR"
  }
  direct {
    exclude = ["*/*"]
  }
}
EOF
    export TF_CLI_CONFIG_FILE="$TMP/cli.tfrc" TF_DATA_DIR="$TMP/tf/.terraform" CHECKPOINT_DISABLE=1
    export TF_IN_AUTOMATION=1 TF_INPUT=0
}

lib_cleanup() {
    local rc=$? f
    set +e # whatever fails here, the test's own exit status stands
    stop_suite "$SCALELAB_SUITE_ID"
    if [ "${ASAN:-0}" = 1 ]; then
        for f in "$TMP"/*.log "$TMP"/*.err; do
            [ -f "$f" ] && grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer' "$f" || continue
            notok "sanitizer report in $(basename "$f")"
            grep -E 'AddressSanitizer|runtime error:|LeakSanitizer' "$f" | head -n 10 | sed 's/^/#   /'
        done
    fi
    if [ "$failed" -ne 0 ] || [ "$rc" -ne 0 ]; then
        for f in "$TMP"/*.log; do
            [ -s "$f" ] || continue
            echo "# $(basename "$f") (last 20 lines):"
            tail -n 20 "$f" | sed 's/^/#   /'
        done
    fi
    if [ "${KEEP_TMP:-0}" = 1 ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap lib_cleanup EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
trap 'exit 129' HUP
