#!/usr/bin/env bash
# CloudWatch under --state FILE: alarms (state, reason, tags, history) live in the snapshot,
# datapoints in the journal FILE.metrics; kill -9 at any moment loses no acknowledged put;
# a torn journal tail is dropped with a warning; a corrupt record in the middle of the
# journal and a corrupt snapshot alarm refuse to start, leaving the files; the series cap
# (--max-metric-series) answers LimitExceeded and keeps every stored series across restarts.
# boto3 (CloudWatch over JSON 1.0). Prints TAP lines.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
PID=

stop9() { [ -n "$PID" ] && { kill -KILL -- "-$PID" 2>/dev/null || kill -KILL "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; }; PID=; }

# start ARGS...: the emulator on the one state file, log emu<N>.log; sets PID and EP. The
# clock is manual (and saved with the state): a real clock's minute tick between two dumps
# would evaluate the alarms and change their states between "before" and "after".
n=0
start() {
    n=$((n + 1))
    PID=
    start_emu "emu$n" --quiet --clock manual --state "$TMP/state.json" "$@" || return 1
    PID=$LAST
}
py() { python3 "$TMP/cw.py" "$EP" "$@"; }
cat >"$TMP/cw.py" <<'PY'
import json, sys, time, datetime, boto3
ep, cmd = sys.argv[1], sys.argv[2]
cw = boto3.client("cloudwatch", endpoint_url=ep, region_name="us-east-1")
now = datetime.datetime.now(datetime.timezone.utc).replace(second=0, microsecond=0)
DIM = [{"Name": "Host", "Value": "a"}]
def stats():
    kw = dict(Namespace="App", MetricName="Load", Dimensions=DIM, Period=60,
              StartTime=now - datetime.timedelta(hours=3), EndTime=now + datetime.timedelta(minutes=2))
    r = cw.get_metric_statistics(Statistics=["Sum", "SampleCount", "Maximum"], **kw)
    p = cw.get_metric_statistics(ExtendedStatistics=["p50", "p90"], **kw)
    basic = sorted((int(x["Timestamp"].timestamp()), x["Sum"], x["SampleCount"], x["Maximum"]) for x in r["Datapoints"])
    pct = sorted((int(x["Timestamp"].timestamp()), x["ExtendedStatistics"]) for x in p["Datapoints"])
    assert len(basic) == 120, len(basic)
    return basic, pct
def alarms():
    a = cw.describe_alarms(AlarmNames=["high", "manual"])["MetricAlarms"]
    keep = ("AlarmName", "StateValue", "StateReason", "StateReasonData", "Threshold", "ActionsEnabled",
            "AlarmActions", "Dimensions", "EvaluationPeriods", "DatapointsToAlarm", "TreatMissingData")
    out = [{k: x.get(k) for k in keep} for x in a]
    tags = cw.list_tags_for_resource(ResourceARN=a[0]["AlarmArn"])["Tags"] if a else []
    hist = len(cw.describe_alarm_history(AlarmName="manual")["AlarmHistoryItems"])
    return {"alarms": out, "tags": tags, "history": hist}
if cmd == "setup":
    for m in range(120):
        ts = now - datetime.timedelta(minutes=120 - m)
        cw.put_metric_data(Namespace="App", MetricData=[
            {"MetricName": "Load", "Dimensions": DIM, "Timestamp": ts, "Values": [m, m + 1, 3 * m], "Counts": [1, 2, 1]},
            {"MetricName": "Load", "Dimensions": DIM, "Timestamp": ts,
             "StatisticValues": {"SampleCount": 2, "Sum": 10, "Minimum": 4, "Maximum": 6}}])
    cw.put_metric_alarm(AlarmName="high", Namespace="App", MetricName="Load", Dimensions=DIM,
                        Statistic="Average", Period=60, EvaluationPeriods=3, DatapointsToAlarm=2,
                        Threshold=50.5, ComparisonOperator="GreaterThanThreshold", TreatMissingData="breaching",
                        AlarmActions=["arn:aws:sns:us-east-1:123456789012:ops"], Tags=[{"Key": "team", "Value": "blue"}])
    cw.put_metric_alarm(AlarmName="manual", Namespace="App", MetricName="Other", Statistic="Sum",
                        Period=60, EvaluationPeriods=1, Threshold=1, ComparisonOperator="LessThanThreshold")
    cw.set_alarm_state(AlarmName="manual", StateValue="ALARM", StateReason="by hand", StateReasonData='{"x":1}')
    cw.disable_alarm_actions(AlarmNames=["high"])
elif cmd == "dump":
    print(json.dumps({"stats": stats(), **alarms()}, sort_keys=True, default=str))
elif cmd == "stream":
    # PutMetricData one datum at a time; print each acknowledged value's index at once
    i = 0
    while True:
        cw.put_metric_data(Namespace="Stream", MetricData=[{"MetricName": "Seq", "Value": 1.0}])
        i += 1
        print(i, flush=True)
elif cmd == "capput":
    # new series Cap/Load Host=h<i>, i from START, N of them: print how many were taken,
    # then the refusal (status, code, message) if one came
    import botocore
    start_i, n, took = int(sys.argv[3]), int(sys.argv[4]), 0
    for i in range(start_i, start_i + n):
        try:
            cw.put_metric_data(Namespace="Cap", MetricData=[
                {"MetricName": "Load", "Dimensions": [{"Name": "Host", "Value": "h%d" % i}], "Value": 1.0}])
        except botocore.exceptions.ClientError as e:
            print(took, "refused", e.response["ResponseMetadata"]["HTTPStatusCode"],
                  e.response["Error"]["Code"], e.response["Error"]["Message"])
            sys.exit(0)
        took += 1
    print(took)
elif cmd == "capcount":
    print(len(cw.list_metrics(Namespace="Cap")["Metrics"]))
elif cmd == "count":
    r = cw.get_metric_statistics(Namespace="Stream", MetricName="Seq", StartTime=now - datetime.timedelta(hours=1),
                                 EndTime=now + datetime.timedelta(minutes=2), Period=3600, Statistics=["SampleCount"])
    print(int(sum(p["SampleCount"] for p in r["Datapoints"])))
PY

start || { notok "emulator starts with a new --state file"; exit 1; }
if py setup >"$TMP/setup.out" 2>&1 && py dump >"$TMP/before.json" 2>&1; then ok "alarms, tags, history and 240 datums put"; else notok "setup"; cat "$TMP/setup.out" "$TMP/before.json" | sed 's/^/#   /' | tail; fi
[ -s "$TMP/state.json.metrics" ] && ok "the metric journal exists beside the state file" || notok "no $TMP/state.json.metrics"
stop9
start || notok "restart after kill -9"
py dump >"$TMP/after.json" 2>&1 || true
if cmp -s "$TMP/before.json" "$TMP/after.json"; then ok "after kill -9: statistics (incl. p50), alarms, state reasons, tags and history identical"
else notok "after kill -9: something differs"; diff <(tr ',' '\n' <"$TMP/before.json") <(tr ',' '\n' <"$TMP/after.json") | head -20 | sed 's/^/#   /'; fi

# kill -9 in the middle of a stream of acknowledged puts, three times
lost=0
for round in 1 2 3; do
    py stream >"$TMP/stream$round.out" 2>/dev/null &
    spid=$!
    for _ in $(seq 100); do [ "$(wc -l <"$TMP/stream$round.out")" -ge 20 ] && break; sleep 0.1; done
    sleep "0.$((RANDOM % 5 + 1))"
    stop9
    kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true
    acked=$(( $(cat "$TMP"/stream*.out | wc -l) ))
    start || { notok "restart $round"; break; }
    have=$(py count)
    echo "#   round $round: acknowledged $acked, stored $have"
    if [ "$have" -lt "$acked" ]; then lost=1; fi
done
[ "$lost" = 0 ] && [ "$acked" -gt 0 ] && ok "kill -9 during PutMetricData streams: every acknowledged datum survives ($acked acknowledged, $have stored)" || notok "acknowledged datums lost"

# a torn tail: the emulator starts, warns, keeps the good records
stop9
printf '\x30\x00\x00\x00\xde\xad' >>"$TMP/state.json.metrics"
stats_of() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["stats"]))' "$1"; }
if start && grep -q "metric journal: torn record" "$TMP/emu$n.log" && py dump >"$TMP/torn.json" 2>&1 &&
    [ "$(stats_of "$TMP/before.json")" = "$(stats_of "$TMP/torn.json")" ]; then
    ok "a torn journal tail is dropped with a warning, the rest kept"
else notok "torn journal tail"; fi

# a corrupt record in the middle of the journal (issue 19): refuse to start, naming the
# file and the offset, and leave the file untouched
stop9
cp "$TMP/state.json.metrics" "$TMP/metrics.good"
python3 - "$TMP/state.json.metrics" <<'PY'
import sys
p = sys.argv[1]; b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0x5a
open(p, "wb").write(b)
PY
sum1=$(md5sum <"$TMP/state.json.metrics")
# (the flipped byte lands in a record's body, its CRC or its length, as the kill -9 rounds left
# the file: either is named)
if ! start && grep -qE "state.json.metrics: corrupt record at byte [0-9]+ \((CRC mismatch|bad record length|torn record); intact records follow" "$TMP/emu$n.log" &&
    grep -q "the file is left as it is" "$TMP/emu$n.log" && [ "$(md5sum <"$TMP/state.json.metrics")" = "$sum1" ]; then
    ok "a corrupt record in the middle of the journal: the emulator refuses to start, names file and offset, leaves the file"
else notok "corrupt record in the middle of the journal"; fi
mv "$TMP/metrics.good" "$TMP/state.json.metrics"

# a snapshot whose alarm is corrupt: refuse to start, file untouched
stop9
cp "$TMP/state.json" "$TMP/state.json.good"
python3 - "$TMP/state.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
for w in d["worlds"]:
    w["cloudwatch"]["alarms"]["alarms"][0]["period"] = 7
json.dump(d, open(p, "w"))
PY
sum1=$(md5sum <"$TMP/state.json")
if ! start && grep -qi "period" "$TMP/emu$n.log" && [ "$(md5sum <"$TMP/state.json")" = "$sum1" ]; then
    ok "a corrupt alarm in the snapshot: the emulator refuses to start and leaves the file"
else notok "corrupt alarm in the snapshot"; fi

mv "$TMP/state.json.good" "$TMP/state.json"
# the admin reset empties the journal too; what is put after it survives a kill -9
start || notok "restart before reset"
before_reset=$(py count)
curl -s -o /dev/null -X POST "$EP/moto-api/reset"
py stream >"$TMP/after-reset.out" 2>/dev/null &
spid=$!
for _ in $(seq 100); do [ "$(wc -l <"$TMP/after-reset.out")" -ge 5 ] && break; sleep 0.1; done
kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true
acked=$(wc -l <"$TMP/after-reset.out")
stop9
if start && have=$(py count) && [ "$have" -ge "$acked" ] && [ "$have" -lt "$before_reset" ] &&
    [ "$(python3 "$TMP/cw.py" "$EP" dump 2>/dev/null | head -c 1)" = "" ]; then
    ok "admin reset empties the journal ($before_reset datums before); later puts survive kill -9 ($acked acknowledged, $have stored)"
else notok "admin reset and the journal (acknowledged $acked, stored ${have:-?})"; fi

# the series cap (--max-metric-series, issue 19): PutMetricData past it answers 400
# LimitExceeded; a restart with a lower cap keeps every series stored
stop9
start --max-metric-series 4 || notok "start with --max-metric-series 4"
stored=$(python3 -c 'import boto3,sys; print(len(boto3.client("cloudwatch", endpoint_url=sys.argv[1], region_name="us-east-1").list_metrics()["Metrics"]))' "$EP")
out=$(py capput 0 10)
took=$((4 - stored))
if [[ "$out" == "$took refused 400 LimitExceeded "*"at most 4 metric series"*"--max-metric-series"* ]] && [ "$(py capcount)" = "$took" ]; then
    ok "past --max-metric-series 4 ($stored series stored before): PutMetricData answers 400 LimitExceeded naming the cap and the option"
else notok "series cap: $out"; fi
before_cap=$(py count)
stop9
start --max-metric-series 1 || notok "start with --max-metric-series 1"
c1=$(py capcount) c2=$(py count) c3=$(py capput 100 1) c4=$(py capput 0 1)
if [ "$c1" = "$took" ] && [ "$c2" = "$before_cap" ] && [[ "$c3" == "0 refused 400 LimitExceeded"* ]] && [ "$c4" = 1 ]; then
    ok "restart under a lower cap: every stored series kept, new ones refused, stored ones still take data"
else notok "restart under a lower series cap: Cap series $c1 (want $took), Stream $c2 (want $before_cap), new: $c3, stored: $c4"; fi

finish
