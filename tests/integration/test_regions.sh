#!/usr/bin/env bash
# Worlds only for real regions (issue 19 finding 7: any region in a credential scope, even a
# read's, made a world saved to the state file; after 32 of them real regions were refused,
# also after a restart): boto3 against --state FILE. A made-up region answers AWS's text for
# a scope of an unknown region and is not saved; a read of a real region makes no world; a
# change does; every AWS region gets one; the command line's --region is served too.
# TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

start_emu emu --quiet --state "$TMP/state.json" --region local-lab-1 || { notok "emulator starts"; finish; }
EPID=$LAST
python3 - "$EP" <<'EOF' || failed=1
import sys, json, urllib.request
import boto3, botocore
import tap
from tap import check

ep = sys.argv[1]
def worlds():
    st = json.load(urllib.request.urlopen(ep + "/_scalelab/state", timeout=5))
    return sorted(w["region"] for w in st.get("worlds", []))
def asg(region):
    return boto3.client("autoscaling", endpoint_url=ep, region_name=region)

for fake in ("xx-fake-1", "us-east-7", "mars-north-1"):
    try:
        asg(fake).describe_auto_scaling_groups()
        check(f"a read in {fake} is refused", False, "it answered")
    except botocore.exceptions.ClientError as e:
        r = e.response
        check(f"a read in made-up {fake}: 403 SignatureDoesNotMatch naming the region",
              r["ResponseMetadata"]["HTTPStatusCode"] == 403 and r["Error"]["Code"] == "SignatureDoesNotMatch"
              and r["Error"]["Message"] == f"Credential should be scoped to a valid region, not '{fake}'. ",
              r["Error"])
try:
    asg("xx-fake-1").create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                                 InstanceType="m1.small")
    check("a change in a made-up region is refused", False)
except botocore.exceptions.ClientError as e:
    check("a change in a made-up region: 403 as well", e.response["Error"]["Code"] == "SignatureDoesNotMatch")
asg("eu-west-3").describe_auto_scaling_groups()
boto3.client("ec2", endpoint_url=ep, region_name="ap-south-2").describe_vpcs()
check("reads of real regions made no world", worlds() == [], worlds())

regions = boto3.session.Session().get_available_regions("autoscaling")
regions += ["local-lab-1"]
bad = []
for r in regions:
    try:
        asg(r).create_launch_configuration(LaunchConfigurationName="lc", ImageId="ami-12345678",
                                           InstanceType="m1.small")
    except botocore.exceptions.ClientError as e:
        bad.append((r, e.response["Error"]["Code"]))
check(f"a change in each of botocore's {len(regions) - 1} autoscaling regions and --region makes its world",
      not bad and len(worlds()) == len(regions), bad or len(worlds()))
EOF
saved=$(python3 -c 'import json,sys; print(" ".join(sorted(w["region"] for w in json.load(open(sys.argv[1]))["worlds"])))' "$TMP/state.json")
case " $saved " in
*" xx-fake-1 "* | *" us-east-7 "*) notok "a made-up region was saved: $saved" ;;
*" local-lab-1 "*" us-east-1 "*) ok "the state file holds the changed regions and no made-up one" ;;
*) notok "state file worlds: $saved" ;;
esac
kill -TERM -- "-$EPID"
start_emu emu2 --quiet --state "$TMP/state.json" --region local-lab-1 || notok "restart"
n=$(curl -s "$EP/_scalelab/state" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["worlds"]))')
[ "$n" = "$(wc -w <<<"$saved")" ] && ok "after a restart every world is back ($n)" || notok "after restart: $n worlds"
finish
