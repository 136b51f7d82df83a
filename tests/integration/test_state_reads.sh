#!/usr/bin/env bash
# Reads under --state show only durable changes (issue 19 finding 10, second half;
# docs/state.md "Reads and durability"): with each snapshot write slowed to 1.5 s
# (SCALELAB_STATE_DELAY_MS), a DescribeLaunchConfigurations sent while another client's
# CreateLaunchConfiguration waits for its write is held until that write is done and shows
# it; a kill -9 the moment the read answers loses nothing it showed (after restart the
# launch configuration is there); a read while nothing waits is not held. Before the rule
# the read answered at once and the kill -9 lost what it had shown. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"
need python3 python3-boto3 || finish
S="$TMP/state.json"

export SCALELAB_STATE_DELAY_MS=1500
start_emu emu --quiet --state "$S" || { notok "emulator starts with --state"; finish; }
PID=$LAST

python3 - "$EP" "$PID" >"$TMP/first.out" <<'PY' || failed=1
import os, signal, sys, threading, time
import boto3
from botocore.config import Config
import tap
from tap import check

ep, pid = sys.argv[1], int(sys.argv[2])
cfg = Config(retries={"total_max_attempts": 1}, read_timeout=30)
a = boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1", config=cfg)
b = boto3.client("autoscaling", endpoint_url=ep, region_name="us-east-1", config=cfg)
# a first change makes the world (and its snapshot) so the timed part is one write
a.create_launch_configuration(LaunchConfigurationName="lc-0", ImageId="ami-12c6146b",
                              InstanceType="t3.micro")
b.describe_launch_configurations()
t0 = time.time()
b.describe_launch_configurations()
idle = time.time() - t0
check("a read while no change waits is not held (%.2f s with 1.5 s writes)" % idle, idle < 0.8)

done = {}


def create():
    a.create_launch_configuration(LaunchConfigurationName="lc-a", ImageId="ami-12c6146b",
                                  InstanceType="t3.micro")
    done["t"] = time.time()


th = threading.Thread(target=create)
t0 = time.time()
th.start()
time.sleep(0.3)
names = [x["LaunchConfigurationName"] for x in
         b.describe_launch_configurations()["LaunchConfigurations"]]
t_read = time.time()
os.kill(pid, signal.SIGKILL)  # the moment the read answered
shown = "lc-a" in names
check("a read sent 0.3 s into the change's 1.5 s write is held until the write is done "
      "(answered after %.2f s) and shows the change (%r)" % (t_read - t0, names),
      t_read - t0 >= 1.0 and shown)
print("SHOWN=%d" % shown, file=sys.stderr)
sys.exit(tap.failed)
PY
cat "$TMP/first.out"
wait "$PID" 2>/dev/null || true

unset SCALELAB_STATE_DELAY_MS
start_emu emu2 --quiet --state "$S" || { notok "emulator restarts from the state file"; finish; }
python3 - "$EP" <<'PY' || failed=1
import sys
import boto3
import tap
from tap import check

c = boto3.client("autoscaling", endpoint_url=sys.argv[1], region_name="us-east-1")
names = [x["LaunchConfigurationName"] for x in
         c.describe_launch_configurations()["LaunchConfigurations"]]
check("after kill -9 the moment the read answered, and a restart: what it showed is there "
      "(%r)" % names, "lc-a" in names and "lc-0" in names)
sys.exit(tap.failed)
PY
finish
