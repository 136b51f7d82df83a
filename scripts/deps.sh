#!/usr/bin/env bash
# Installs, with apt-get, only what this machine lacks to build and test scalelab.
# Idempotent: a second run finds everything and installs nothing.
#   scripts/deps.sh            build + test dependencies
#   scripts/deps.sh --bench    also the peers the benchmarks compare against
set -euo pipefail

want_bench=0
[ "${1:-}" = "--bench" ] && want_bench=1

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
need_cmd curl curl
need_cmd python3 python3
# aws CLI v2 (Debian's awscli installs it at /usr/bin/aws; `aws` on PATH may be pip's v1).
need_file /usr/bin/aws awscli
# The report's browser test renders pages in headless Chromium.
need_cmd chromium chromium
# The AWS service models the emulator's tables are generated from.
need_file /usr/lib/python3/dist-packages/botocore/data/autoscaling/2011-01-01/service-2.json python3-botocore
if [ "$want_bench" = 1 ]; then
    need_cmd wrk wrk
    need_cmd nginx nginx-light
    need_cmd hey hey
    need_cmd ab apache2-utils
    need_file /usr/bin/time time
    need_cmd taskset util-linux
    need_cmd ss iproute2
fi

if [ "${#missing[@]}" -eq 0 ]; then
    exit 0
fi
echo "deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >&2
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
