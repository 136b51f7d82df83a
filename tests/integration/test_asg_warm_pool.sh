#!/usr/bin/env bash
# Warm pools through boto3 at --time-scale 60 (docs/autoscaling.md section 7, the data plane in
# docs/dataplane.md): PutWarmPool fills the pool to its size in Warmed:Stopped (EC2 stopped, no
# process) and Warmed:Running (a process, out of the load balancer); a scale-out serves from
# the pool (the new InService instance is a pool instance, and it is faster than a cold launch
# of the same 180 s boot); the pool refills; ReuseOnScaleIn returns an instance to the pool;
# the pool and its instances survive a restart with --state, and a scale-out after it still
# draws from them; DeleteWarmPool (PendingDelete, ForceDelete); the refusal of a group with a
# mixed instances policy with AWS's text, and the other errors; DescribeAutoScalingGroups'
# WarmPoolConfiguration and WarmPoolSize; ReuseOnScaleIn with a terminate hook (the returning
# instance waits in Warmed:Pending:Wait, a warm instance terminated in Warmed:Terminating:Wait,
# CompleteLifecycleAction and heartbeats there); PoolState Hibernated keeps the process paused
# (SIGSTOP) and a scale-out resumes the same process. TAP lines; KEEP_TMP=1.
set -euo pipefail

. "$(dirname "$0")/lib.sh"

cat >"$TMP/wp.py" <<'EOF'
import json, sys, time, urllib.request
import boto3, botocore.config, botocore.exceptions
import tap
from tap import check, wait

ep, phase, scratch = sys.argv[1], sys.argv[2], sys.argv[3]
asg = boto3.client("autoscaling", endpoint_url=ep)
raw = boto3.client("autoscaling", endpoint_url=ep,
                   config=botocore.config.Config(parameter_validation=False))
ec2 = boto3.client("ec2", endpoint_url=ep)
elb = boto3.client("elb", endpoint_url=ep)

def group(name="g1"):
    return asg.describe_auto_scaling_groups(AutoScalingGroupNames=[name])["AutoScalingGroups"][0]

def in_service(name="g1"):
    return sorted(i["InstanceId"] for i in group(name)["Instances"] if i["LifecycleState"] == "InService")

def pool(name="g1"):
    return {i["InstanceId"]: i["LifecycleState"] for i in asg.describe_warm_pool(AutoScalingGroupName=name)["Instances"]}

def pool_in(state, n, name="g1"):
    p = pool(name)
    return p if len(p) == n and all(s == state for s in p.values()) else None

def ec2_state(iid):
    for r in ec2.describe_instances(InstanceIds=[iid])["Reservations"]:
        for i in r["Instances"]:
            return i["State"]["Name"]

def processes():
    with urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5) as r:
        return {p["id"]: p["state"] for p in json.load(r)["instances"]}

def lb_instances():
    return [i["InstanceId"] for i in elb.describe_instance_health(LoadBalancerName="lb1")["InstanceStates"]]

def error_of(fn, **kw):
    try:
        fn(**kw)
    except botocore.exceptions.ClientError as e:
        return e.response["Error"]["Code"], e.response["Error"]["Message"]
    return None

def timed_scale_out(name, desired, exclude):
    """Sets desired; returns (the new InService instance, real seconds until it was InService)."""
    t0 = time.time()
    asg.set_desired_capacity(AutoScalingGroupName=name, DesiredCapacity=desired)
    new = wait(lambda: [i for i in in_service(name) if i not in exclude], 20)
    return (new[0] if new else None), time.time() - t0

state = json.load(open(scratch)) if phase == "after-restart" else {}

if phase == "before-restart":
    elb.create_load_balancer(LoadBalancerName="lb1", AvailabilityZones=["us-east-1a"], Listeners=[
        {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8080}])
    asg.create_launch_configuration(LaunchConfigurationName="lc1", ImageId="ami-12345678",
                                    InstanceType="m1.large",
                                    UserData=json.dumps({"boot_s": 180, "workers": 2, "service_ms": 1}))
    asg.create_auto_scaling_group(AutoScalingGroupName="g1", LaunchConfigurationName="lc1", MinSize=0,
                                  MaxSize=4, DesiredCapacity=1, AvailabilityZones=["us-east-1a"],
                                  LoadBalancerNames=["lb1"])
    first = wait(lambda: in_service(), 15)
    check("the group's first instance is InService (a cold launch)", first, group()["Instances"])

    # --- errors: nothing stored ------------------------------------------------------------
    ec2.create_launch_template(LaunchTemplateName="lt1", LaunchTemplateData={"ImageId": "ami-12345678",
                                                                             "InstanceType": "t3.micro"})
    asg.create_auto_scaling_group(
        AutoScalingGroupName="mixed", MinSize=0, MaxSize=2, AvailabilityZones=["us-east-1a"],
        MixedInstancesPolicy={"LaunchTemplate": {"LaunchTemplateSpecification": {"LaunchTemplateName": "lt1"},
                                                 "Overrides": [{"InstanceType": "t3.micro"}, {"InstanceType": "t3.small"}]}})
    e = error_of(asg.put_warm_pool, AutoScalingGroupName="mixed", MinSize=1)
    check("PutWarmPool on a group with a mixed instances policy: AWS's text",
          e == ("ValidationError", "You can\u2019t add a warm pool to an Auto Scaling group that has a mixed "
                "instances policy or a launch template or launch configuration that requests Spot Instances."), e)
    check("... and the group has no pool", "WarmPoolConfiguration" not in group("mixed") and
          asg.describe_warm_pool(AutoScalingGroupName="mixed")["Instances"] == [], group("mixed"))
    e = error_of(asg.put_warm_pool, AutoScalingGroupName="nope")
    check("PutWarmPool of an unknown group: AWS's text",
          e == ("ValidationError", "AutoScalingGroup name not found - AutoScalingGroup: nope not found"), e)
    e = error_of(raw.put_warm_pool, AutoScalingGroupName="g1", MinSize=-1)
    check("MinSize -1 (past the client's own check): the constraint text",
          e == ("ValidationError", "1 validation error detected: Value '-1' at 'minSize' failed to "
                "satisfy constraint: Member must have value greater than or equal to 0"), e)
    e = error_of(raw.put_warm_pool, AutoScalingGroupName="g1", PoolState="Frozen")
    check("PoolState Frozen: the enum text", e and e[0] == "ValidationError" and
          "Member must satisfy enum value set: [Stopped, Running, Hibernated]" in e[1], e)
    e = error_of(asg.delete_warm_pool, AutoScalingGroupName="g1")
    check("DeleteWarmPool without a pool: ValidationError", e and e[0] == "ValidationError", e)
    check("none of them made a pool", "WarmPoolConfiguration" not in group(), group())

    # --- the pool fills: Warmed:Stopped, EC2 stopped, no process ---------------------------
    asg.put_warm_pool(AutoScalingGroupName="g1", MinSize=2, MaxGroupPreparedCapacity=2)
    p = wait(lambda: pool_in("Warmed:Stopped", 2), 20)
    check("PutWarmPool (MinSize 2, MaxGroupPreparedCapacity 2): two instances in Warmed:Stopped", p, pool())
    ids = sorted(p or {})
    g = group()
    check("DescribeAutoScalingGroups echoes WarmPoolConfiguration and WarmPoolSize",
          g.get("WarmPoolConfiguration") == {"MaxGroupPreparedCapacity": 2, "MinSize": 2, "PoolState": "Stopped"}
          and g.get("WarmPoolSize") == 2, (g.get("WarmPoolConfiguration"), g.get("WarmPoolSize")))
    check("its Instances leave the pool out; desired and capacity unchanged",
          [i["InstanceId"] for i in g["Instances"]] == first and g["DesiredCapacity"] == 1, g["Instances"])
    check("DescribeWarmPool shows the configuration",
          asg.describe_warm_pool(AutoScalingGroupName="g1")["WarmPoolConfiguration"] ==
          {"MaxGroupPreparedCapacity": 2, "MinSize": 2, "PoolState": "Stopped"})
    check("the pool's EC2 instances are stopped", [ec2_state(i) for i in ids] == ["stopped", "stopped"],
          [ec2_state(i) for i in ids])
    check("... and have no process (the process exited; docs/dataplane.md)",
          not any(i in processes() for i in ids), processes())
    check("... and are not in the load balancer", lb_instances() == first, lb_instances())
    acts = [a["Description"] for a in asg.describe_scaling_activities(AutoScalingGroupName="g1")["Activities"]]
    check("their activities: Launching a new EC2 instance into warm pool",
          sum(a.startswith("Launching a new EC2 instance into warm pool: ") for a in acts) == 2, acts)
    r = asg.describe_warm_pool(AutoScalingGroupName="g1", MaxRecords=1)
    check("DescribeWarmPool pages (MaxRecords 1 and a NextToken)", len(r["Instances"]) == 1 and r.get("NextToken"), r)

    # --- a scale-out serves from the pool, faster than a cold launch -----------------------
    new, warm_s = timed_scale_out("g1", 2, first)
    check("scale-out to 2: the new InService instance is one of the pool's", new in ids, (new, ids))
    check("... and it is in the load balancer", wait(lambda: new in lb_instances(), 5), lb_instances())
    acts = [a["Description"] for a in asg.describe_scaling_activities(AutoScalingGroupName="g1")["Activities"]]
    check("its activity: Launching a new EC2 instance from warm pool",
          f"Launching a new EC2 instance from warm pool: {new}" in acts, acts[:3])
    refill = wait(lambda: (lambda q: q if len(q) == 2 and new not in q and all(s == "Warmed:Stopped" for s in q.values()) else None)(pool()), 20)
    check("the pool refills to 2 (one new instance)", refill, pool())
    asg.create_auto_scaling_group(AutoScalingGroupName="cold", LaunchConfigurationName="lc1", MinSize=0,
                                  MaxSize=2, DesiredCapacity=0, AvailabilityZones=["us-east-1a"])
    cold, cold_s = timed_scale_out("cold", 1, [])
    print(f"# warm start {warm_s:.2f} s, cold launch {cold_s:.2f} s (boot_s 180 at --time-scale 60)")
    check("the warm start was faster than a cold launch of the same profile (by over 1.5 s of the 3 s boot)",
          new and cold and warm_s + 1.5 < cold_s, f"warm {warm_s:.2f} s, cold {cold_s:.2f} s")

    # --- ReuseOnScaleIn returns an instance to the pool ------------------------------------
    asg.put_warm_pool(AutoScalingGroupName="g1", MaxGroupPreparedCapacity=-1,
                      InstanceReusePolicy={"ReuseOnScaleIn": True})
    g = group()
    check("the update: -1 removes MaxGroupPreparedCapacity, the reuse policy is echoed, MinSize kept",
          g.get("WarmPoolConfiguration") == {"MinSize": 2, "PoolState": "Stopped",
                                             "InstanceReusePolicy": {"ReuseOnScaleIn": True}},
          g.get("WarmPoolConfiguration"))
    before = in_service()
    asg.set_desired_capacity(AutoScalingGroupName="g1", DesiredCapacity=1)
    back = wait(lambda: (lambda gone: gone if gone and pool().get(gone[0]) == "Warmed:Stopped" else None)(
        [i for i in before if i not in in_service()]), 20)
    victim = back[0] if back else None
    check("scale-in with ReuseOnScaleIn: the instance goes back to the pool (Warmed:Stopped)", victim,
          (before, in_service(), pool()))
    check("... stopped in EC2, not terminated, out of the load balancer",
          victim and ec2_state(victim) == "stopped" and victim not in lb_instances(),
          victim and (ec2_state(victim), lb_instances()))
    check("WarmPoolSize 3 (MaxSize 4 - desired 1)", wait(lambda: group().get("WarmPoolSize") == 3, 10),
          group().get("WarmPoolSize"))

    # --- the warm pool group metrics (docs/autoscaling.md 7.3) ------------------------------
    cw = boto3.client("cloudwatch", endpoint_url=ep)
    asg.enable_metrics_collection(AutoScalingGroupName="g1", Granularity="1Minute")
    em = sorted(m["Metric"] for m in group()["EnabledMetrics"])
    check("EnableMetricsCollection without Metrics enables the warm pool metrics too",
          "WarmPoolWarmedCapacity" in em and "GroupAndWarmPoolTotalCapacity" in em and len(em) == 21, em)
    types = [m["Metric"] for m in asg.describe_metric_collection_types()["Metrics"]]
    check("DescribeMetricCollectionTypes lists them after the Group* ones",
          types[8:16] == ["WarmPoolMinSize", "WarmPoolDesiredCapacity", "WarmPoolPendingCapacity",
                        "WarmPoolTerminatingCapacity", "WarmPoolWarmedCapacity", "WarmPoolTotalCapacity",
                        "GroupAndWarmPoolDesiredCapacity", "GroupAndWarmPoolTotalCapacity"], types)
    check("... then the five Group*Capacity ones (docs/autoscaling.md 14)",
          types[16:] == ["GroupInServiceCapacity", "GroupPendingCapacity", "GroupStandbyCapacity",
                         "GroupTerminatingCapacity", "GroupTotalCapacity"], types)

    def latest(name, group_name="g1"):
        now = time.time()  # the emulated clock runs ahead of it: a window into the future
        pts = cw.get_metric_statistics(
            Namespace="AWS/AutoScaling", MetricName=name, Period=60, Statistics=["Maximum"],
            Dimensions=[{"Name": "AutoScalingGroupName", "Value": group_name}],
            StartTime=now - 3600, EndTime=now + 20 * 3600)["Datapoints"]  # 1,440 points at most
        return max(pts, key=lambda d: d["Timestamp"])["Maximum"] if pts else None

    asg.enable_metrics_collection(AutoScalingGroupName="cold", Granularity="1Minute")
    # MaxSize 4, desired 1, MinSize 2: the pool keeps 3, all Warmed:Stopped
    got = wait(lambda: (lambda v: v if v[0] == 3 else None)(
        [latest(n) for n in ("WarmPoolWarmedCapacity", "WarmPoolDesiredCapacity", "WarmPoolMinSize",
                             "WarmPoolPendingCapacity", "WarmPoolTotalCapacity",
                             "GroupAndWarmPoolDesiredCapacity", "GroupAndWarmPoolTotalCapacity")]), 10)
    check("AWS/AutoScaling publishes them each minute: warmed 3, desired 3, MinSize 2, pending 0, "
          "total 3, group+pool desired 4 and total 4", got == [3, 3, 2, 0, 3, 4, 4], got)
    check("... and none for a group without a pool (its GroupDesiredCapacity is there)",
          wait(lambda: latest("GroupDesiredCapacity", "cold") is not None, 5) and
          latest("WarmPoolTotalCapacity", "cold") is None, latest("WarmPoolTotalCapacity", "cold"))
    # without weights every instance is one capacity unit: the Group*Capacity metrics equal
    # the Group*Instances ones, and the group's InService instance counts 1
    caps = wait(lambda: (lambda v: v if None not in v and v[0] == 1 else None)(
        [latest(n, "g1") for n in ("GroupInServiceCapacity", "GroupInServiceInstances",
                                   "GroupTotalCapacity", "GroupTotalInstances",
                                   "GroupPendingCapacity", "GroupStandbyCapacity",
                                   "GroupTerminatingCapacity")]), 10)
    check("Group*Capacity in units: InService 1 (as GroupInServiceInstances), Total as "
          "GroupTotalInstances, Pending / Standby / Terminating 0",
          caps and caps[0] == caps[1] and caps[2] == caps[3] and caps[4:] == [0, 0, 0], caps)
    json.dump({"pool": sorted(pool()), "in_service": in_service()}, open(scratch, "w"))

elif phase == "after-restart":
    check("after a restart with --state: the pool's configuration is back",
          group().get("WarmPoolConfiguration") == {"MinSize": 2, "PoolState": "Stopped",
                                                   "InstanceReusePolicy": {"ReuseOnScaleIn": True}},
          group().get("WarmPoolConfiguration"))
    # the InService instance was a process of the old emulator: lost, and the group replaces
    # it from the restored pool (a warm start), which refills with one new instance
    old = wait(lambda: (lambda s: s if s and s[0] != state["in_service"][0] else None)(in_service()), 15)
    check("the InService instance lost with the old emulator is replaced from the restored pool",
          old and old[0] in state["pool"], (old, state))
    check("... and the rest of the restored pool is still Warmed:Stopped, with one new instance",
          wait(lambda: len(set(pool()) & set(state["pool"])) == 2 and len(pool()) == 3 and
               all(s == "Warmed:Stopped" for s in pool().values()), 15), (pool(), state["pool"]))
    new, warm_s = timed_scale_out("g1", 2, old or [])
    check("a scale-out after the restart serves from the restored pool", new in state["pool"],
          (new, state["pool"]))
    print(f"# warm start after the restart {warm_s:.2f} s")

    # --- PoolState Running: a process, out of the load balancer ----------------------------
    asg.create_auto_scaling_group(AutoScalingGroupName="g2", LaunchConfigurationName="lc1", MinSize=0,
                                  MaxSize=2, DesiredCapacity=0, AvailabilityZones=["us-east-1a"],
                                  LoadBalancerNames=["lb1"])
    asg.put_warm_pool(AutoScalingGroupName="g2", PoolState="Running", MinSize=1)
    p = wait(lambda: pool_in("Warmed:Running", 2, "g2"), 20)
    check("PoolState Running: Warmed:Running (MaxSize 2 - desired 0)", p, pool("g2"))
    rids = sorted(p or {})
    check("... running in EC2 with a listening process, not in the load balancer",
          [ec2_state(i) for i in rids] == ["running", "running"] and
          all(processes().get(i) == "listening" for i in rids) and not set(rids) & set(lb_instances()),
          ([ec2_state(i) for i in rids], processes(), lb_instances()))
    asg.delete_warm_pool(AutoScalingGroupName="g2", ForceDelete=True)
    check("DeleteWarmPool ForceDelete: gone at once, its instances with it",
          "WarmPoolConfiguration" not in group("g2") and pool("g2") == {}, (group("g2"), pool("g2")))
    check("... their EC2 instances terminate",
          wait(lambda: all(ec2_state(i) in ("shutting-down", "terminated", None) for i in rids), 10),
          [ec2_state(i) for i in rids])

    # --- DeleteWarmPool: PendingDelete, then no pool ---------------------------------------
    gone = sorted(pool())
    asg.delete_warm_pool(AutoScalingGroupName="g1")
    st = asg.describe_warm_pool(AutoScalingGroupName="g1").get("WarmPoolConfiguration", {"Status": "gone"}).get("Status")
    # stopped instances terminate within the call here (no process to stop), so the pool may
    # already be gone; tests/unit/scaler/test_asg_warm.c holds it in PendingDelete
    check("DeleteWarmPool: Status PendingDelete, or already gone", st in ("PendingDelete", "gone"), st)
    check("... its instances terminate",
          wait(lambda: all(ec2_state(i) in ("shutting-down", "terminated", None) for i in gone), 10),
          [ec2_state(i) for i in gone])
    check("then the pool is gone (DescribeWarmPool and DescribeAutoScalingGroups)",
          wait(lambda: "WarmPoolConfiguration" not in asg.describe_warm_pool(AutoScalingGroupName="g1")
               and pool() == {} and "WarmPoolConfiguration" not in group() and "WarmPoolSize" not in group(), 15),
          (asg.describe_warm_pool(AutoScalingGroupName="g1"), group().get("WarmPoolConfiguration")))
    check("the group keeps its InService instances", len(in_service()) == 2, in_service())

    # --- ReuseOnScaleIn with a terminate hook (docs/autoscaling.md 7.2) ---------------------
    def acts_of(name, iid):
        return [a for a in asg.describe_scaling_activities(AutoScalingGroupName=name)["Activities"]
                if iid in a["Description"]]

    def instance_state(iid):
        r = asg.describe_auto_scaling_instances(InstanceIds=[iid])["AutoScalingInstances"]
        return r[0]["LifecycleState"] if r else None

    elb.create_load_balancer(LoadBalancerName="lb3", AvailabilityZones=["us-east-1a"], Listeners=[
        {"Protocol": "HTTP", "LoadBalancerPort": 80, "InstanceProtocol": "HTTP", "InstancePort": 8080}])
    asg.create_launch_configuration(LaunchConfigurationName="lc3", ImageId="ami-12345678",
                                    InstanceType="m1.small",
                                    UserData=json.dumps({"boot_s": 30, "workers": 2, "service_ms": 1}))
    asg.create_auto_scaling_group(AutoScalingGroupName="g3", LaunchConfigurationName="lc3", MinSize=0,
                                  MaxSize=2, DesiredCapacity=2, AvailabilityZones=["us-east-1a"],
                                  LoadBalancerNames=["lb3"])
    two = wait(lambda: (lambda s: s if len(s) == 2 else None)(in_service("g3")), 20)
    check("g3: two InService", two, group("g3")["Instances"])
    # 600 s: 10 real seconds at --time-scale 60, long enough to look at the wait
    asg.put_lifecycle_hook(AutoScalingGroupName="g3", LifecycleHookName="drain",
                           LifecycleTransition="autoscaling:EC2_INSTANCE_TERMINATING",
                           HeartbeatTimeout=600, DefaultResult="ABANDON")
    asg.put_warm_pool(AutoScalingGroupName="g3", InstanceReusePolicy={"ReuseOnScaleIn": True})
    asg.set_desired_capacity(AutoScalingGroupName="g3", DesiredCapacity=1)
    back = wait(lambda: [i for i, s in pool("g3").items() if s == "Warmed:Pending:Wait"], 10)
    victim = back[0] if back else None
    check("scale-in with ReuseOnScaleIn and a terminate hook: the instance waits in "
          "Warmed:Pending:Wait (DescribeWarmPool)", victim and victim in (two or []), pool("g3"))
    check("... not Terminating:Wait: DescribeAutoScalingInstances says Warmed:Pending:Wait",
          victim and instance_state(victim) == "Warmed:Pending:Wait", victim and instance_state(victim))
    check("... out of the load balancer, still running with its process",
          victim and victim not in [i["InstanceId"] for i in
                                    elb.describe_instance_health(LoadBalancerName="lb3")["InstanceStates"]]
          and ec2_state(victim) == "running" and processes().get(victim) == "listening",
          victim and (ec2_state(victim), processes().get(victim)))
    a = acts_of("g3", victim)[0] if victim else {}
    check("... its activity: Moving EC2 instance to warm pool, MidLifecycleAction",
          a.get("Description") == f"Moving EC2 instance to warm pool: {victim}" and
          a.get("StatusCode") == "MidLifecycleAction", a)
    e = error_of(asg.complete_lifecycle_action, AutoScalingGroupName="g3", LifecycleHookName="drain",
                 LifecycleActionToken="00000000-0000-4000-8000-000000000000", LifecycleActionResult="CONTINUE")
    check("CompleteLifecycleAction with an unknown token: ValidationError",
          e == ("ValidationError", "No active Lifecycle Action found with token "
                "00000000-0000-4000-8000-000000000000"), e)
    asg.record_lifecycle_action_heartbeat(AutoScalingGroupName="g3", LifecycleHookName="drain",
                                          InstanceId=victim)
    check("RecordLifecycleActionHeartbeat by instance id is accepted; it still waits",
          pool("g3").get(victim) == "Warmed:Pending:Wait", pool("g3"))
    asg.complete_lifecycle_action(AutoScalingGroupName="g3", LifecycleHookName="drain",
                                  InstanceId=victim, LifecycleActionResult="CONTINUE")
    check("CompleteLifecycleAction CONTINUE: Warmed:Stopped",
          wait(lambda: pool("g3").get(victim) == "Warmed:Stopped", 10), pool("g3"))
    check("... stopped in EC2 without a process, never terminated",
          ec2_state(victim) == "stopped" and victim not in processes(), (ec2_state(victim), processes()))
    a = acts_of("g3", victim)[0]
    check("... the activity Successful", a["StatusCode"] == "Successful", a)

    # a warm instance terminated: Warmed:Terminating:Wait, then Proceed and Terminated
    asg.terminate_instance_in_auto_scaling_group(InstanceId=victim, ShouldDecrementDesiredCapacity=False)
    check("TerminateInstanceInAutoScalingGroup of the warm instance: Warmed:Terminating:Wait",
          wait(lambda: pool("g3").get(victim) == "Warmed:Terminating:Wait", 10), pool("g3"))
    check("... EC2 not told yet (still stopped)", ec2_state(victim) == "stopped", ec2_state(victim))
    a = acts_of("g3", victim)[0]
    check("... its activity: Terminating EC2 instance, MidLifecycleAction",
          a["Description"] == f"Terminating EC2 instance: {victim}" and a["StatusCode"] == "MidLifecycleAction", a)
    asg.complete_lifecycle_action(AutoScalingGroupName="g3", LifecycleHookName="drain",
                                  InstanceId=victim, LifecycleActionResult="CONTINUE")
    check("CompleteLifecycleAction CONTINUE: EC2 terminates it and it leaves the pool",
          wait(lambda: victim not in pool("g3") and ec2_state(victim) in ("terminated", None), 10),
          (pool("g3"), ec2_state(victim)))
    check("... the activity Successful", acts_of("g3", victim)[0]["StatusCode"] == "Successful",
          acts_of("g3", victim)[0])
    check("desired unchanged (1)", group("g3")["DesiredCapacity"] == 1, group("g3")["DesiredCapacity"])

    # --- PoolState Hibernated: the process paused (SIGSTOP), resumed as it was ---------------
    def procs_full():
        with urllib.request.urlopen(ep + "/_scalelab/dataplane", timeout=5) as r:
            return {p["id"]: p for p in json.load(r)["instances"]}

    def proc_stat(pid):
        try:
            return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except OSError:
            return None

    asg.create_auto_scaling_group(AutoScalingGroupName="g4", LaunchConfigurationName="lc3", MinSize=0,
                                  MaxSize=1, DesiredCapacity=0, AvailabilityZones=["us-east-1a"],
                                  LoadBalancerNames=["lb3"])
    asg.put_warm_pool(AutoScalingGroupName="g4", PoolState="Hibernated")
    p = wait(lambda: pool_in("Warmed:Hibernated", 1, "g4"), 20)
    check("PoolState Hibernated: Warmed:Hibernated", p, pool("g4"))
    hid = next(iter(p)) if p else None
    pr = procs_full().get(hid, {})
    check("... stopped in EC2, its process kept but paused (state hibernated, SIGSTOPped: T)",
          hid and ec2_state(hid) == "stopped" and pr.get("state") == "hibernated" and
          proc_stat(pr.get("pid")) == "T", (hid and ec2_state(hid), pr, proc_stat(pr.get("pid"))))
    t0 = time.time()
    asg.set_desired_capacity(AutoScalingGroupName="g4", DesiredCapacity=1)
    up = wait(lambda: in_service("g4") == [hid], 10)
    took = time.time() - t0
    pr2 = procs_full().get(hid, {})
    print(f"# resume from hibernation {took:.2f} s")
    check("scale-out: the hibernated instance resumes InService, the same process running again "
          "(no boot, no start-up)", up and pr2.get("pid") == pr.get("pid") and pr2.get("state") == "listening"
          and proc_stat(pr2.get("pid")) in ("S", "R"), (pr, pr2, proc_stat(pr2.get("pid"))))

sys.exit(tap.failed)
EOF

S="$TMP/state.json"
start_emu emu --quiet --time-scale 60 --state "$S"
python3 "$TMP/wp.py" "$EP" before-restart "$TMP/scratch.json" || failed=1

# restart: TERM the emulator's process group, then the same --state
pid=$LAST
kill -TERM -- "-$pid" 2>/dev/null || true
for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
check "the emulator stopped on TERM" bash -c "! kill -0 $pid 2>/dev/null"
start_emu emu2 --quiet --time-scale 60 --state "$S"
python3 "$TMP/wp.py" "$EP" after-restart "$TMP/scratch.json" || failed=1

finish
