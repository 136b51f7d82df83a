#!/usr/bin/env bash
# The architecture's bars (issue 18), checked on the tree so they stay true: no product C
# file over 1,500 lines; no handler or admin code includes emulator/server.h (they work on
# emu.h and the world dispatch resolves); the data plane does not include emu.h; the AWS/ELB host counts computed only in libscaler
# (scaler/elb_metrics.c), never in a world; every product .c file named in
# docs/architecture.md; no reference to documents that do not exist. Prints TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
cd "$ROOT"

product=$(git ls-files --cached --others --exclude-standard 'common/*.c' 'scaler/*.c' \
    'emulator/*.c' 'loadgen/*.c' | sort)

big=$(for f in $product; do
    n=$(wc -l <"$f")
    [ "$n" -le 1500 ] || echo "$f:$n"
done)
if [ -z "$big" ]; then ok "no product C file over 1,500 lines"; else notok "product C files over 1,500 lines: $big"; fi

inc=$(grep -l '#include "emulator/server.h"' emulator/api*.c emulator/admin.c 2>/dev/null || true)
if [ -z "$inc" ]; then ok "no handler or admin file includes emulator/server.h"; else notok "include emulator/server.h: $inc"; fi

# the data plane is owned by emu.c and gets its clock and step as hooks (autoscale.h)
back=$(grep -l '#include "emulator/emu.h"' emulator/autoscale.c emulator/lb*.c emulator/health.c \
    emulator/instance*.c 2>/dev/null || true)
if [ -z "$back" ]; then ok "the data plane never calls back into emu (no emu.h in autoscale, lb, health)"; else notok "emulator/emu.h included by the data plane: $back"; fi

# loadgen shares the scenario toolkit with scaler simulate and reaches the engine only
# through sim_predict (docs/architecture.md)
eng=$(grep -lE '#include "scaler/sim/(run|run_internal|model|model_internal|queue|scenario_internal)\.h"' \
    loadgen/*.c loadgen/*.h 2>/dev/null || true)
if [ -z "$eng" ]; then ok "loadgen reaches the simulator's engine only through sim_predict"; else notok "loadgen includes the simulator's engine: $eng"; fi

hhc=$(grep -ln 'HealthyHostCount' emulator/*.c scaler/sim/*.c 2>/dev/null || true)
if [ -z "$hhc" ]; then
    ok "the AWS/ELB host counts are computed only in libscaler"
else
    notok "HealthyHostCount outside libscaler: $hhc"
fi

missing=$(for f in $product; do
    m=$(basename "$f" .c)
    if [ "$m" = main ]; then
        grep -qF "\`$f\`" docs/architecture.md || echo "$f" # main.c by its path
    else
        grep -qE "\`$m\`" docs/architecture.md || echo "$f"
    fi
done)
if [ -z "$missing" ]; then
    ok "docs/architecture.md names every product .c file"
else
    notok "docs/architecture.md does not name: $(echo $missing)"
fi

dead=$(grep -rln 'SCALER-API\.md' common scaler emulator loadgen docs README.md 2>/dev/null || true)
if [ -z "$dead" ]; then ok "no reference to the SCALER-API.md that does not exist"; else notok "SCALER-API.md named in: $dead"; fi

finish
