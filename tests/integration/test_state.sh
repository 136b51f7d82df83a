#!/usr/bin/env bash
# emulator --state FILE: objects made through the AWS API (boto3) survive kill -9 with the
# same ARNs, ids and attributes; a kill -9 at a random moment loses no acknowledged change;
# a corrupt state file stops the emulator (exit 1) and is left untouched; GET
# /_scalelab/state is the whole state as JSON. Prints TAP lines. KEEP_TMP=1 keeps the
# temp dir; STATE_ROUNDS sets the kill -9 rounds (default 5).
set -euo pipefail

. "$(dirname "$0")/lib.sh"
ROUNDS=${STATE_ROUNDS:-5}

# start NAME ARGS...: the emulator (start_emu); sets PID too
start() {
    start_emu "$@" || return 1
    PID=$LAST
}

# kill9: kill -9 the emulator (its instances die with it: PR_SET_PDEATHSIG) and reap it.
kill9() {
    kill -KILL "$PID" 2>/dev/null || true
    wait "$PID" 2>/dev/null || true
}

client() { python3 "$HERE/state_client.py" "$EP" "$@"; }

# --- corrupt or foreign files: exit 1, a message naming the file, the file untouched ---
corrupt_case() {
    local name=$1 text=$2 want=$3 f="$TMP/$1.json" before rc=0
    printf '%s' "$text" >"$f"
    before=$(sha256sum "$f")
    "$EMU" --port 0 --state "$f" 2>"$TMP/$name.err" || rc=$?
    [ "$rc" -eq 1 ] || { echo "exit $rc"; return 1; }
    grep -q "$f" "$TMP/$name.err" || { echo "message lacks the file name"; cat "$TMP/$name.err"; return 1; }
    grep -q "$want" "$TMP/$name.err" || { echo "message lacks '$want'"; cat "$TMP/$name.err"; return 1; }
    [ "$(sha256sum "$f")" = "$before" ] || { echo "file changed"; return 1; }
    [ ! -e "$f.tmp" ] || { echo "a temp file was written"; return 1; }
}
check "corrupt state file (truncated JSON): exit 1, named, untouched" \
    corrupt_case truncated '{"version": 1, "now_ms": 1, "worlds": [{"acc' "not JSON"
check "unknown state version: exit 1, named, untouched" \
    corrupt_case version '{"version": 9, "now_ms": 1, "worlds": []}' "unknown version 9"
check "state file of valid JSON but a broken world: exit 1, named, untouched" \
    corrupt_case world '{"version": 1, "now_ms": 1, "worlds": [{"account": "123456789012", "region": "us-east-1", "version": 1}]}' "state: world:"
check "empty state file: exit 1 (an empty file is not a state)" \
    corrupt_case empty '' "not JSON"

# --- objects survive kill -9 (manual clock: nothing moves between the two runs) ---
S="$TMP/objects.json"
start objects --clock manual --state "$S"
check "create LB, launch configuration, group, policies, alarms, template, VPC, 2 regions" \
    client create "$TMP/want.json"
check "GET /_scalelab/state: JSON naming the objects" bash -c "
    curl -sf $EP/_scalelab/state >'$TMP/dump.json'
    python3 - '$TMP/dump.json' <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['version'] == 2, d['version']
w = {(x['account'], x['region']): x for x in d['worlds']}
us = w[('123456789012', 'us-east-1')]
assert [g['name'] for g in us['asg']['groups']] == ['stateasg'], us['asg']['groups']
assert [p['policy_name'] for p in us['asg']['groups'][0]['policies']] == ['up', 'down', 'step']
assert [l['name'] for l in us['asg']['launch_configurations']] == ['statelc']
assert [b['name'] for b in us['elb']['load_balancers']] == ['statelb']
assert [t['name'] for t in us['ec2']['launch_templates']] == ['statelt']
assert ('123456789012', 'eu-west-1') in w
EOF"
kill9
check "the state file is JSON after kill -9" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$S"
start objects --clock manual --state "$S"
check "after kill -9 and restart: every object, ARN, id and attribute is back" \
    client verify-records "$TMP/want.json"
check "after kill -9 and restart: the alarms are back (names, ARNs, thresholds, actions)" \
    client alarms "$TMP/want.json"
# datapoints, alarm state and history after kill -9: tests/integration/test_state_cloudwatch.sh
kill9

# --- instances were processes of the old emulator: lost, and the group replaces them ---
start replace --time-scale 20 --state "$TMP/replace.json"
check "group of 2 InService before the crash" bash -c "
    python3 - '$EP' <<'EOF'
import sys, time, boto3
asg = boto3.client('autoscaling', endpoint_url=sys.argv[1], region_name='us-east-1')
asg.create_launch_configuration(LaunchConfigurationName='lc', ImageId='ami-12345678', InstanceType='t3.micro')
asg.create_auto_scaling_group(AutoScalingGroupName='stateasg', LaunchConfigurationName='lc', MinSize=2, MaxSize=4, AvailabilityZones=['us-east-1a'])
for _ in range(150):
    g = asg.describe_auto_scaling_groups()['AutoScalingGroups'][0]
    if sum(i['LifecycleState'] == 'InService' for i in g['Instances']) == 2: sys.exit(0)
    time.sleep(0.2)
sys.exit('never InService: %r' % g['Instances'])
EOF"
python3 - "$EP" "$TMP/before.json" <<'EOF' || true
import json, sys, boto3
ec2 = boto3.client('ec2', endpoint_url=sys.argv[1], region_name='us-east-1')
ids = [(i['InstanceId'], i['State']['Name']) for r in ec2.describe_instances()['Reservations'] for i in r['Instances']]
json.dump({'instances': ids}, open(sys.argv[2], 'w'))
EOF
kill9
start replace --time-scale 20 --state "$TMP/replace.json"
check "after kill -9: old instances terminated (Server.InternalError), group back at 2 new" \
    client replaced "$TMP/before.json"
# the writer thread must not take the SIGCHLD of an instance that exits (it was lost,
# the process left a zombie and the group stayed "Delete in progress")
check "with --state: a force-deleted group's instances exit, are reaped, and the group goes" \
    bash -c "
    python3 - '$EP' <<'EOF'
import sys, time, boto3
asg = boto3.client('autoscaling', endpoint_url=sys.argv[1], region_name='us-east-1')
asg.delete_auto_scaling_group(AutoScalingGroupName='stateasg', ForceDelete=True)
for _ in range(150):
    gs = asg.describe_auto_scaling_groups()['AutoScalingGroups']
    if not gs: sys.exit(0)
    time.sleep(0.2)
sys.exit('still there: %r' % gs)
EOF
    ! ps -o stat= --ppid $PID | grep -q Z"
kill9

# a pending instance (booting for 60 s under --clock manual) was a process of the old
# emulator too: after kill -9 it is lost, never booted again under its old id
start pending --clock manual --state "$TMP/pending.json"
check "an instance still pending when the emulator is killed" bash -c "
    python3 - '$EP' <<'EOF'
import sys, time, boto3
asg = boto3.client('autoscaling', endpoint_url=sys.argv[1], region_name='us-east-1')
ec2 = boto3.client('ec2', endpoint_url=sys.argv[1], region_name='us-east-1')
asg.create_launch_configuration(LaunchConfigurationName='lc', ImageId='ami-12345678', InstanceType='t3.micro')
asg.create_auto_scaling_group(AutoScalingGroupName='pend', LaunchConfigurationName='lc', MinSize=1, MaxSize=1, AvailabilityZones=['us-east-1a'])
for _ in range(50):
    st = [i['State']['Name'] for r in ec2.describe_instances()['Reservations'] for i in r['Instances']]
    if st == ['pending']: sys.exit(0)
    time.sleep(0.1)
sys.exit('not pending: %r' % st)
EOF"
sleep 1.2 # the clock-made changes are written at most once a second
kill9
start pending --clock manual --state "$TMP/pending.json"
check "after kill -9: the pending instance is terminated (Server.InternalError), not booting again" \
    python3 - "$EP" <<'EOF'
import sys, boto3
ec2 = boto3.client('ec2', endpoint_url=sys.argv[1], region_name='us-east-1')
got = [(i['State']['Name'], i.get('StateReason', {}).get('Code'))
       for r in ec2.describe_instances()['Reservations'] for i in r['Instances']]
if got != [('terminated', 'Server.InternalError')]:
    sys.exit('instances after restart: %r' % got)
EOF
kill9

# --- kill -9 at a random moment: every acknowledged change is there ---
L="$TMP/loop.json"
: >"$TMP/acked.txt"
for round in $(seq "$ROUNDS"); do
    # odd rounds: each write takes 200 ms more, so a reply sent before its write would be
    # lost by the kill (the window is wide); even rounds: as fast as the disk
    if [ $((round % 2)) = 1 ]; then export SCALELAB_STATE_DELAY_MS=200; else unset SCALELAB_STATE_DELAY_MS; fi
    start loop --state "$L"
    python3 "$HERE/state_client.py" "$EP" loop 20 "$TMP/acked.txt" "loop$round" >"$TMP/loop.out" 2>&1 &
    cpid=$!
    # kill at a random moment once the client is under way (its first change acknowledged)
    for _ in $(seq 100); do grep -q "^loop$round " "$TMP/acked.txt" && break; sleep 0.05; done
    sleep "0.$(printf '%03d' $((RANDOM % 150)))"
    kill9
    wait "$cpid" 2>/dev/null || true
    unset SCALELAB_STATE_DELAY_MS
    start loop --state "$L"
    check "kill -9 round $round: every acknowledged change survived" client present "$TMP/acked.txt"
    kill9
done
check "the kill loop acknowledged changes (the test saw 200s)" \
    bash -c "[ \$(grep -c . '$TMP/acked.txt') -gt $ROUNDS ]"

# --- a clean stop (SIGTERM) exits 0, and the file is loaded again ---
: >"$TMP/acked2.txt"
start term --state "$TMP/term.json"
check "changes before SIGTERM acknowledged" client loop 3 "$TMP/acked2.txt" termgroup
term_exit() {
    kill -TERM "$PID"
    local rc=0
    wait "$PID" || rc=$?
    [ "$rc" -eq 0 ] || { echo "exit $rc"; return 1; }
    ! grep -E 'AddressSanitizer|LeakSanitizer|runtime error:' "$TMP/term.log"
}
check "SIGTERM with --state: exit 0 (no sanitizer report under make asan)" term_exit
start term --state "$TMP/term.json"
check "after SIGTERM and restart: the changes are there" client present "$TMP/acked2.txt"
kill9

finish
