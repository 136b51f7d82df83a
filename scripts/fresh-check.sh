#!/usr/bin/env bash
# scripts/fresh-check.sh [OUTDIR]: the README's two commands on a fresh Debian 12 (`make
# fresh-check`). Builds a minimal Debian 12 root with debootstrap (variant minbase, plus make,
# git and ca-certificates: what a person needs to clone the project and type `make`), clones
# this repository's committed HEAD into it, and runs `make test` then `make demo` in a chroot,
# exactly as the README says. Prints the failing suites, the skips with their reasons, the
# demo's last lines and, last, one line:
#   fresh-check test_rc=R passed=P failed=F skipped=S demo_rc=D test_s=T demo_s=U (logs in OUTDIR)
# OUTDIR (default build/fresh-check) keeps debootstrap.log, test.log and demo.log.
# Needs root; installs debootstrap with apt-get when it is missing. The chroot shares this
# machine's network (loopback for the tests, the Debian mirror and the npm registry for the
# installs). Takes 25-30 minutes on 2 cores. SUITE_TIMEOUT (per suite, default 600 s) and
# TEST_TIMEOUT (the whole make test, default 3000 s) pass into the chroot for a busy machine.
# Exit status: 0 when test_rc and demo_rc are 0.
set -u
cd "$(dirname "$0")/.." || exit 2
SRC=$(pwd)
OUT=${1:-$SRC/build/fresh-check}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)

[ "$(id -u)" -eq 0 ] || { echo "fresh-check: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
if ! command -v debootstrap >/dev/null; then
    echo "fresh-check: installing debootstrap" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >&2 ||
        { echo "fresh-check: apt-get install debootstrap failed" >&2; exit 2; }
fi
# the mirror this machine's apt uses
MIRROR=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
[ -n "$MIRROR" ] || MIRROR=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list 2>/dev/null)
[ -n "$MIRROR" ] || { echo "fresh-check: no Debian mirror configured" >&2; exit 2; }

R=$(mktemp -d /tmp/fresh-check.XXXXXX)
cleanup() {
    local p
    # processes still running inside the root (an interrupted run) are ours: end them
    for p in /proc/[0-9]*; do
        [ "$(readlink "$p/root" 2>/dev/null)" = "$R" ] && kill -KILL "${p#/proc/}" 2>/dev/null
    done
    for m in dev/pts dev proc sys; do umount "$R/$m" 2>/dev/null; done
    mount | grep -q " $R/" || rm -rf "$R"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

echo "fresh-check: debootstrap bookworm into $R" >&2
debootstrap --variant=minbase bookworm "$R" "$MIRROR" >"$OUT/debootstrap.log" 2>&1 || {
    tail -5 "$OUT/debootstrap.log"
    echo "fresh-check debootstrap failed (logs in $OUT)"
    exit 1
}
mount --bind /proc "$R/proc"
mount --bind /dev "$R/dev"
mount --bind /dev/pts "$R/dev/pts"
mount --bind /sys "$R/sys"
cp /etc/resolv.conf "$R/etc/" 2>/dev/null
# What every installed Debian has and debootstrap leaves out: /etc/hosts naming localhost
# (the tests reach servers as https://localhost:PORT), and this machine's own additions to
# the trust store (a proxy's CA, as on networks that inspect TLS: npm ci goes through it),
# added once ca-certificates is installed (update-ca-certificates in run.sh).
printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$R/etc/hosts"
mkdir -p "$R/usr/local/share/ca-certificates"
cp /usr/local/share/ca-certificates/*.crt "$R/usr/local/share/ca-certificates/" 2>/dev/null
git clone -q "$SRC" "$R/root/project"
# a busy machine (other builds and tests beside this one) may need longer bounds; they only
# bound, they never make a failing check pass
printf 'export SUITE_TIMEOUT=%d TEST_TIMEOUT=%d\n' "${SUITE_TIMEOUT:-600}" "${TEST_TIMEOUT:-3000}" \
    >"$R/root/bounds.sh"
cat >"$R/root/run.sh" <<'EOF'
#!/bin/bash
. /root/bounds.sh
export DEBIAN_FRONTEND=noninteractive HOME=/root LANG=C.UTF-8
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
apt-get update -qq >/dev/null && apt-get install -y -qq make git ca-certificates >/dev/null
update-ca-certificates >/dev/null 2>&1
cd /root/project
t0=$(date +%s); timeout "$TEST_TIMEOUT" make test >/root/test.log 2>&1; trc=$?; t1=$(date +%s)
timeout 600 make demo >/root/demo.log 2>&1; drc=$?; t2=$(date +%s)
echo "$trc $drc $((t1 - t0)) $((t2 - t1))" >/root/rc
EOF
chmod +x "$R/root/run.sh"
echo "fresh-check: make test, then make demo, in the chroot (logs in $OUT)" >&2
env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$R" /root/run.sh >"$OUT/chroot.log" 2>&1
cp "$R/root/test.log" "$R/root/demo.log" "$OUT/" 2>/dev/null
read -r trc drc ts ds <"$R/root/rc" 2>/dev/null || { trc=99; drc=99; ts=0; ds=0; }
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$OUT/test.log" 2>/dev/null | tail -1)
p=$(echo "$summary" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
f=$(echo "$summary" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
s=$(echo "$summary" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+')
grep -E '^failed suites:|^ +not ok ' "$OUT/test.log" 2>/dev/null | head -40
# each skip with its suite (tests/run.sh prints a suite's name, then its SKIP lines indented)
awk '/^(unit|integration)\// { suite = $1 } /^ +SKIP / { sub(/^ +SKIP /, ""); print "skipped " suite ": " $0 }' \
    "$OUT/test.log" 2>/dev/null
tail -2 "$OUT/demo.log" 2>/dev/null
echo "fresh-check test_rc=$trc passed=${p:-0} failed=${f:-0} skipped=${s:-0} demo_rc=$drc test_s=$ts demo_s=$ds (logs in $OUT)"
[ "$trc" = 0 ] && [ "$drc" = 0 ]
