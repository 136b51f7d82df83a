#!/usr/bin/env bash
# HealthyHostCount while an instance drains, in both worlds. draining_parity.json (three
# instances behind a load balancer with 5-minute connection draining; a CPU-low alarm
# scales the group in by one at about minute 2, which deregisters an instance: it drains)
# runs in the simulator (`scaler simulate --json`) and against an emulator this test starts
# (`loadgen scenario --endpoint`, --time-scale 60). Four alarms on AWS/ELB HealthyHostCount
# (Maximum < 0.5, 1.5, 2.5, 3.5) read each world's metric every minute, so the number of
# them not in ALARM in a --json sample is that minute's HealthyHostCount, as each world's
# CloudWatch holds it. AWS does not count a deregistering instance (docs/elb-metrics.md):
# both series must go 3 -> 2 within two minutes of the scale-in (not when the drain ends)
# and agree minute by minute counted from each world's scale-in, within one minute either
# way (the emulator reports its minute, evaluates alarms and is sampled on a real-time
# clock whose phase the run does not control). TAP lines; KEEP_TMP=1 keeps the temp dir.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
SCALER=${SCALER:-$ROOT/$BUILD/bin/scaler}
SCN="$ROOT/tests/integration/draining_parity.json"
export TMPDIR=$TMP

if "$SCALER" simulate "$SCN" --json >"$TMP/sim.json" 2>"$TMP/sim.log"; then
    ok "the simulator runs the draining scenario"
else
    notok "the simulator runs the draining scenario"
fi

start_emu emu --quiet --time-scale 60
if timeout 120 "$LG" scenario "$SCN" --endpoint "$EP" --prefix pd --json "$TMP/emu.json" \
    >"$TMP/loadgen.log" 2>&1; then
    ok "loadgen plays the draining scenario on the emulator"
else
    notok "loadgen plays the draining scenario on the emulator (exit $?)"
fi

python3 - "$TMP/sim.json" "$TMP/emu.json" <<'EOF' || failed=1
import json, sys
import tap
from tap import check

def world(path):
    """HealthyHostCount per sample minute (None: no datapoint), read off the ladder of
    alarms, and the minute the scale-in started."""
    d = json.load(open(path))
    ladder = [i for i, a in enumerate(d["alarms"]) if a["metric"] == "HealthyHostCount"]
    hhc, scale_in = {}, None
    for e in d["timeline"]:
        if e["type"] == "sample":
            st = [e["alarms"][i] for i in ladder]
            hhc[e["t_s"] // 60] = None if "INSUFFICIENT_DATA" in st else st.count("OK")
        elif e["type"] == "activity" and e["description"].startswith("Terminating") and \
                scale_in is None:
            scale_in = e["t_s"] // 60
    return hhc, scale_in

try:
    (sim, sim_in), (emu, emu_in) = world(sys.argv[1]), world(sys.argv[2])
except (OSError, ValueError, KeyError) as e:
    check("both worlds wrote their --json document", False, e)
    sys.exit(tap.failed)
show = lambda s: " ".join("-" if s.get(m) is None else str(s[m]) for m in range(1, 13))
print(f"# HealthyHostCount by minute, simulator: {show(sim)} (scale-in at minute {sim_in})")
print(f"# HealthyHostCount by minute, emulator:  {show(emu)} (scale-in at minute {emu_in})")
for name, s, t in (("simulator", sim, sim_in), ("emulator", emu, emu_in)):
    vals = [v for v in s.values() if v is not None]
    check(f"{name}: 3 healthy hosts before the scale-in, 2 after", vals and vals[0] == 3 and
          vals[-1] == 2 and vals == sorted(vals, reverse=True), show(s))
    first2 = min((m for m, v in s.items() if v == 2), default=None)
    check(f"{name}: the drop shows within 2 minutes of the scale-in, not when the 5-minute "
          "drain ends", t is not None and first2 is not None and 1 <= first2 - t <= 2,
          f"scale-in at minute {t}, first 2 at minute {first2}")
# minute by minute counted from each world's scale-in (the emulator's alarms, which scale
# it in, run on its real clock); the emulator's figure may show one minute either way
if sim_in is not None and emu_in is not None:
    rel = lambda s, t, k: s.get(t + k)
    ks = [k for k in range(-sim_in, 13) if rel(sim, sim_in, k) is not None and
          rel(emu, emu_in, k) is not None]
    off = [k for k in ks if rel(sim, sim_in, k) not in
           {rel(emu, emu_in, j) for j in (k - 1, k, k + 1)}]
    check(f"the worlds agree minute by minute from the scale-in, within one minute "
          f"({len(ks)} minutes compared)", len(ks) >= 8 and not off,
          f"differ at minutes {off} after the scale-in")
    late = [k for k in ks if rel(sim, sim_in, k) != rel(emu, emu_in, k)]
    check("they differ at most at the change itself (one minute)", len(late) <= 1,
          f"differ at minutes {late} after the scale-in")
else:
    check("both worlds scaled in", False, f"simulator {sim_in}, emulator {emu_in}")
sys.exit(tap.failed)
EOF
finish
