#!/usr/bin/env bash
# Exact echo, model-driven (issue 16 part 3; docs/autoscaling.md 3): echo_model.py sets
# every member of the create and update requests of Auto Scaling groups, launch
# configurations, scaling policies, launch templates, classic load balancers and metric
# alarms, as the carried models (emulator/models/) shape them, one at a time, reads each
# back with its Describe call through Debian's boto3, and fails on every member accepted
# and not returned as sent. Manual clock: no instance starts. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --clock manual
python3 "$HERE/echo_model.py" "$EP" "$ROOT/emulator/models" || failed=1
finish
