#!/usr/bin/env bash
# Installs, with apt-get from Debian's packages, only what this machine lacks to build
# scalelab and to run everything `make test` runs (the JavaScript SDK test's own packages
# come from npm, at test time, into build/js). Idempotent: a second run finds everything
# and installs nothing.
#   scripts/deps.sh            build + test dependencies (make test)
#   scripts/deps.sh --build    what the build needs only (make demo)
#   scripts/deps.sh --bench    build + test, and the peers the benchmarks compare against
set -euo pipefail

want_test=1
want_bench=0
case "${1:-}" in
    --build) want_test=0 ;;
    --bench) want_bench=1 ;;
    "") ;;
    *) echo "usage: scripts/deps.sh [--build|--bench]" >&2; exit 2 ;;
esac

missing=()
need_pc() { pkg-config --exists "$1" 2>/dev/null || missing+=("$2"); }
need_cmd() { command -v "$1" >/dev/null 2>&1 || missing+=("$2"); }
need_file() { [ -e "$1" ] || missing+=("$2"); }

need_cmd gcc gcc
need_cmd make make
need_cmd pkg-config pkg-config
need_pc libmicrohttpd libmicrohttpd-dev
need_pc jansson libjansson-dev
need_pc libcurl libcurl4-openssl-dev
need_pc openssl libssl-dev
need_pc cmocka libcmocka-dev
need_pc libxml-2.0 libxml2-dev
need_pc libcbor libcbor-dev
need_pc zlib zlib1g-dev
# GetMetricWidgetImage rasterizes its SVG chart to PNG with librsvg (on cairo).
need_pc librsvg-2.0 librsvg2-dev
need_cmd python3 python3
# (The AWS service models the build needs are carried in emulator/models/: no botocore.)
if [ "$want_test" = 1 ]; then
    need_cmd git git
    need_cmd curl curl
    # The tests run Debian's clients whatever else is on PATH (tests/integration/lib.sh puts
    # /usr/bin first), so these are checked by file: python3 with boto3 and jsonschema
    # (emu_tutorial.py imports Debian's botocore too).
    need_file /usr/bin/python3 python3
    need_file /usr/lib/python3/dist-packages/boto3/__init__.py python3-boto3
    need_file /usr/lib/python3/dist-packages/jsonschema/__init__.py python3-jsonschema
    need_file /usr/lib/python3/dist-packages/botocore/__init__.py python3-botocore
    # aws CLI v2 (Debian's awscli installs it at /usr/bin/aws; `aws` on PATH may be pip's v1).
    need_file /usr/bin/aws awscli
    # The report's browser test renders pages in headless Chromium.
    need_cmd chromium chromium
    # The AWS SDK for JavaScript v3 test: node and npm (npm ci needs the CA certificates).
    need_cmd node nodejs
    need_cmd npm npm
    need_file /etc/ssl/certs/ca-certificates.crt ca-certificates
    # ab (test_dataplane, test_loadgen*), the openssl CLI (certificates), pgrep and ps, script(1).
    need_cmd ab apache2-utils
    need_cmd openssl openssl
    need_cmd pgrep procps
    need_cmd ps procps
    need_cmd script bsdutils
    # ss (test_lb_surge_idle counts a backend's established connections); not in minbase.
    need_cmd ss iproute2
    # Ansible with the amazon.aws collection (test_elb_classic's elb_classic_lb play).
    need_cmd ansible-playbook ansible
fi
if [ "$want_bench" = 1 ]; then
    need_cmd wrk wrk
    need_cmd nginx nginx-light
    need_cmd haproxy haproxy
    need_cmd hey hey
    need_file /usr/bin/time time
    need_cmd taskset util-linux
    need_cmd ss iproute2
fi

if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
echo "deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >&2
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
