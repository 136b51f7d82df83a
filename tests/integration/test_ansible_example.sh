#!/usr/bin/env bash
# examples/ansible/ as a user runs it (docs/ansible.md), with Debian's ansible (amazon.aws
# and community.aws; scripts/deps.sh installs it) against `emulator --time-scale 60`:
# site.yml builds the stack (changed on the first run), the same again reports changed=0
# for every task, the stack checked with boto3 (instances InService behind the ELB, the
# policies' Alarms), info.yml reads it back with the *_info modules, destroy.yml removes
# it and leaves no resource and no instance process. The calls the emulator answered
# with an error are listed as comments (the first run's lookups of what does not exist
# yet). TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

need ansible-playbook ansible || finish

start_emu emu --time-scale 60
EMU_PID=$LAST
export EP ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_LOCALHOST_WARNING=False
export ANSIBLE_INVENTORY_UNPARSED_WARNING=False ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_LOCAL_TEMP="$TMP/ansible-local" ANSIBLE_REMOTE_TEMP="$TMP/ansible-remote"
X="$ROOT/examples/ansible"
# play NAME FILE: runs the playbook; its output in $TMP/NAME.out
play() { timeout 600 ansible-playbook -i localhost, "$2" >"$TMP/$1.out" 2>&1; }
recap() { grep -E '^localhost +:' "$TMP/$1.out" | sed -E 's/ +/ /g'; }
show_play() { grep -E '^(TASK|changed|fatal|failed)|msg' "$TMP/$1.out" | tail -n 20 | sed 's/^/#   /'; }

if play site1 "$X/site.yml"; then
    ok "site.yml, first run: $(recap site1)"
else
    notok "site.yml, first run"; show_play site1; exit 1
fi
check "the first run changed every task" grep -qE 'ok=([0-9]+) +changed=\1 ' "$TMP/site1.out"

if play site2 "$X/site.yml"; then
    if grep -qE 'changed=0 ' "$TMP/site2.out"; then
        ok "site.yml again: every module reports changed=false ($(recap site2))"
    else
        notok "site.yml again: changed=0 ($(recap site2); changed: $(grep -A1 '^TASK' "$TMP/site2.out" | grep -B1 '^changed' | grep '^TASK' | tr -d '*' | tr '\n' ' '))"
    fi
else
    notok "site.yml, second run"; show_play site2
fi

python3 - "$EP" <<'EOF' || failed=1
import sys, boto3
import tap
from tap import check
ep = sys.argv[1]
asg = boto3.client("autoscaling", endpoint_url=ep)
groups = {g["AutoScalingGroupName"]: g for g in asg.describe_auto_scaling_groups()["AutoScalingGroups"]}
check("two groups: mixed and web", sorted(groups) == ["mixed", "web"], sorted(groups))
health = boto3.client("elb", endpoint_url=ep).describe_instance_health(LoadBalancerName="web-elb")["InstanceStates"]
check("web-elb has the web group's instances InService",
      health and all(h["State"] == "InService" for h in health), health)
mip = groups["mixed"]["MixedInstancesPolicy"]["LaunchTemplate"]
check("mixed: the template by name and id, both instance types as overrides",
      mip["LaunchTemplateSpecification"].get("LaunchTemplateName") == "app-lt"
      and [o["InstanceType"] for o in mip["Overrides"]] == ["t3.small", "t3.micro"], mip)
pol = {p["PolicyName"]: p for p in asg.describe_policies()["ScalingPolicies"]}
check("the policies' Alarms name the alarms that act on them",
      [a["AlarmName"] for a in pol["web-step-out"]["Alarms"]] == ["web-high-cpu"]
      and [a["AlarmName"] for a in pol["web-simple-in"]["Alarms"]] == ["web-low-cpu"]
      and len(pol["mixed-cpu-50"]["Alarms"]) == 2,
      {k: [a["AlarmName"] for a in p["Alarms"]] for k, p in pol.items()})
sys.exit(tap.failed)
EOF

if play info "$X/info.yml"; then
    ok "info.yml: the *_info modules read the stack back ($(recap info))"
else
    notok "info.yml"; show_play info
fi

if play destroy "$X/destroy.yml"; then
    ok "destroy.yml: $(recap destroy)"
else
    notok "destroy.yml"; show_play destroy
fi
python3 -c 'import sys, tap; tap.check_nothing_left(sys.argv[1], sys.argv[2]); sys.exit(tap.failed)' "$EP" "destroy.yml" ||
    failed=1
check "no instance process left under the emulator" wait_for 15 bash -c "! pgrep -P $EMU_PID >/dev/null"

grep ' req ' "$TMP/emu.log" | grep -v 'status=200' | grep -oE 'service=[^ ]+ action=[^ ]+ status=[0-9]+( code=[^ ]+)?' |
    sort | uniq -c | sed 's/^/# error answered: /' || true
finish
