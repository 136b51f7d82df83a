#!/usr/bin/env bash
# Renders a report and opens it in headless Chromium: the page must load without errors,
# its DOM must hold the plots as inline SVG, and a screenshot must show them painted.
#   KEEP_TMP=1 keeps the page, the DOM dump and the screenshot (the path is printed).
# The page comes from `scaler simulate --report` when the simulator can write one, else
# from the report unit test's hand-built timeline (SIM_REPORT_OUT).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
cd "$ROOT"

need chromium chromium || finish

page="$TMP/report.html"
source="unit test timeline"
if [ -x "$BUILD/bin/scaler" ] && [ -f scenarios/seed-tutorial.json ] &&
    "$BUILD/bin/scaler" simulate --help 2>/dev/null | grep -q -- '--report'; then
    set +e
    "$BUILD/bin/scaler" simulate scenarios/seed-tutorial.json --report "$page" >"$TMP/sim.out" 2>&1
    rc=$?
    set -e
    if [ -s "$page" ]; then
        source="scaler simulate scenarios/seed-tutorial.json (exit $rc)"
    fi
fi
if [ ! -s "$page" ]; then
    SIM_REPORT_OUT="$page" CMOCKA_MESSAGE_OUTPUT=TAP "$BUILD/tests/sim/test_report" >"$TMP/unit.out" 2>&1 || true
fi
if [ -s "$page" ]; then
    ok "report rendered from $source"
else
    notok "report rendered"
    exit 1
fi

# Runs chromium headless on the page in its own process group (setsid), bounded in time.
chrome() {
    local out=$1 err=$2
    shift 2
    setsid timeout -k 5 90 chromium --headless --no-sandbox --disable-gpu --disable-quic \
        --no-first-run --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$(mktemp -d "$TMP/profile.XXXXXX")" --enable-logging=stderr --v=0 \
        "$@" "file://$page" >"$out" 2>"$err" </dev/null &
    wait $!
}

if chrome "$TMP/dom.html" "$TMP/dom.err" --dump-dom; then
    ok "chromium loaded the page (dump-dom exit 0)"
else
    notok "chromium loaded the page"
    tail -n 20 "$TMP/dom.err" | sed 's/^/# /'
fi

# An error page, a refused resource or a console error would show here.
if grep -qE 'chrome-error://|ERR_[A-Z_]+' "$TMP/dom.html" ||
    grep -E 'CONSOLE' "$TMP/dom.err" | grep -qiE 'error|uncaught|failed to load|refused'; then
    notok "no load or console errors"
    grep -E 'CONSOLE|ERR_' "$TMP/dom.err" "$TMP/dom.html" | head -n 10 | sed 's/^/# /'
else
    ok "no load or console errors"
fi

svgs=$(grep -o '<svg ' "$TMP/dom.html" | wc -l)
if [ "$svgs" -ge 3 ]; then
    ok "the DOM holds $svgs inline SVG plots"
else
    notok "the DOM holds at least 3 inline SVG plots (found $svgs)"
fi
missing=""
for want in 'id="capacity-0"' 'id="cpu-0"' 'id="latency"' 'Elasticity and cost' 'Expectations' \
    'under-provisioning accuracy'; do
    grep -qF "$want" "$TMP/dom.html" || missing+=" [$want]"
done
if [ -z "$missing" ]; then
    ok "capacity, CPU and latency plots, expectations and elasticity table are in the DOM"
else
    notok "parts missing from the DOM:$missing"
fi

shot="$TMP/report.png"
if chrome "$TMP/shot.out" "$TMP/shot.err" --hide-scrollbars --window-size=1000,2600 \
    --screenshot="$shot" && [ -s "$shot" ]; then
    ok "screenshot taken"
else
    notok "screenshot taken"
    tail -n 20 "$TMP/shot.err" | sed 's/^/# /'
    exit 1
fi

# The screenshot must show the plots painted: count pixels of the InService/CPU blue
# (#0072b2) and of any non-white, non-grey colour, decoding the PNG with the stdlib.
if python3 - "$shot" <<'PY'
import struct, sys, zlib

data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, w = 8, b"", 0
while pos < len(data):
    ln, typ = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + ln]
    if typ == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and ctype in (2, 6), "unexpected PNG format"
        bpp = 3 if ctype == 2 else 4
    elif typ == b"IDAT":
        idat += body
    pos += 12 + ln
raw = zlib.decompress(idat)
stride = w * bpp
prev = bytearray(stride)
blue = colour = 0
i = 0
for _ in range(h):
    f = raw[i]
    line = bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            line[x] = (line[x] + pr) & 255
    for x in range(0, stride, bpp):
        r, g, bl = line[x], line[x + 1], line[x + 2]
        if abs(r - 0x00) < 8 and abs(g - 0x72) < 8 and abs(bl - 0xb2) < 8:
            blue += 1
        if max(r, g, bl) - min(r, g, bl) > 40:
            colour += 1
    prev = line
print("# %dx%d screenshot: %d #0072b2 pixels, %d coloured pixels" % (w, h, blue, colour))
sys.exit(0 if blue > 500 and colour > 5000 else 1)
PY
then
    ok "the screenshot shows the plots painted"
else
    notok "the screenshot shows the plots painted"
fi
finish
