// The seed tutorial flow (shared/seeds/ab-nohup-and-ec2-autoscaling-tutorial.txt) against the
// emulator with the AWS SDK for JavaScript v3 (the three clients pinned in package.json).
//   node tutorial.mjs ENDPOINT PREFIX [cbor]
// CloudWatch speaks the SDK's default protocol, JSON 1.0, or with cbor Smithy RPC v2 CBOR
// (the SDK's own CBOR protocol); the wire must show the one asked for.
// Prints "ok aws-sdk-js-v3 <version> cloudwatch=<protocol seen on the wire>" or fails (exit 1).
import {
  AutoScalingClient, CreateLaunchConfigurationCommand, CreateAutoScalingGroupCommand,
  PutScalingPolicyCommand, DescribePoliciesCommand, DeleteAutoScalingGroupCommand,
  UpdateAutoScalingGroupCommand, DescribeAutoScalingGroupsCommand,
  DeleteLaunchConfigurationCommand,
} from "@aws-sdk/client-auto-scaling";
import {
  ElasticLoadBalancingClient, CreateLoadBalancerCommand, DeleteLoadBalancerListenersCommand,
  CreateLoadBalancerListenersCommand, ConfigureHealthCheckCommand, DescribeLoadBalancersCommand,
  DescribeInstanceHealthCommand, DeleteLoadBalancerCommand,
} from "@aws-sdk/client-elastic-load-balancing";
import {
  CloudWatchClient, PutMetricAlarmCommand, DescribeAlarmsCommand, DeleteAlarmsCommand,
  PutMetricDataCommand, GetMetricStatisticsCommand,
} from "@aws-sdk/client-cloudwatch";
import { AwsSmithyRpcV2CborProtocol } from "@aws-sdk/core/protocols";
import { createRequire } from "node:module";

const [EP, P, PROTO] = process.argv.slice(2);
if (!EP || !P || (PROTO !== undefined && PROTO !== "cbor")) {
  console.error("usage: tutorial.mjs ENDPOINT PREFIX [cbor]");
  process.exit(2);
}
const cfg = {
  endpoint: EP, region: "us-east-1", maxAttempts: 1,
  credentials: { accessKeyId: "testing", secretAccessKey: "testing" },
};
const elb = new ElasticLoadBalancingClient(cfg);
const asg = new AutoScalingClient(cfg);
const cw = new CloudWatchClient(PROTO === "cbor" ? { ...cfg, protocol: AwsSmithyRpcV2CborProtocol } : cfg);

// Which protocol CloudWatch's client chose, read from the requests it sends.
const cwWire = new Set();
cw.middlewareStack.add((next) => async (args) => {
  const h = args.request.headers || {};
  const get = (k) => Object.entries(h).find(([n]) => n.toLowerCase() === k)?.[1];
  const ct = get("content-type") || "";
  if (get("smithy-protocol") === "rpc-v2-cbor" || ct.includes("cbor")) cwWire.add("smithy-rpc-v2-cbor");
  else if (ct.includes("x-amz-json")) cwWire.add("json");
  else if (ct.includes("x-www-form-urlencoded")) cwWire.add("query");
  else cwWire.add("unknown:" + ct);
  return next(args);
}, { step: "finalizeRequest", name: "scalelabProtocolProbe" });

function fail(msg) { console.error("FAIL: " + msg); process.exit(1); }
function assert(c, msg, v) { if (!c) fail(msg + (v === undefined ? "" : ": " + JSON.stringify(v))); }
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function wait(cond, what, secs = 15) {
  const end = Date.now() + secs * 1000;
  while (Date.now() < end) { if (await cond()) return; await sleep(200); }
  fail("timed out waiting for " + what);
}
async function expectErr(p, code) {
  try { await p; } catch (e) {
    if (e.name !== code && e.Code !== code) fail(`want ${code} got ${e.name}: ${e.message}`);
    return e.message || "";
  }
  fail("no error, want " + code);
}

const lb = P + "lb", lc = P + "lc", grp = P + "asg";
await elb.send(new CreateLoadBalancerCommand({
  LoadBalancerName: lb, AvailabilityZones: ["us-east-1c"], Listeners: [
    { Protocol: "HTTP", LoadBalancerPort: 80, InstanceProtocol: "HTTP", InstancePort: 9763 },
    { Protocol: "TCP", LoadBalancerPort: 443, InstanceProtocol: "TCP", InstancePort: 9443 }],
}));
await elb.send(new DeleteLoadBalancerListenersCommand({ LoadBalancerName: lb, LoadBalancerPorts: [80, 443] }));
await elb.send(new CreateLoadBalancerListenersCommand({
  LoadBalancerName: lb, Listeners: [
    { Protocol: "HTTP", LoadBalancerPort: 80, InstanceProtocol: "HTTP", InstancePort: 8280 },
    { Protocol: "TCP", LoadBalancerPort: 443, InstanceProtocol: "TCP", InstancePort: 8243 }],
}));
const hc = (await elb.send(new ConfigureHealthCheckCommand({
  LoadBalancerName: lb, HealthCheck: {
    Target: "TCP:9763", Interval: 5, Timeout: 3, UnhealthyThreshold: 2, HealthyThreshold: 2 },
}))).HealthCheck;
assert(hc.Target === "TCP:9763" && hc.Interval === 5 && hc.Timeout === 3, "health check", hc);
const d = (await elb.send(new DescribeLoadBalancersCommand({ LoadBalancerNames: [lb] })))
  .LoadBalancerDescriptions[0];
const ports = d.ListenerDescriptions.map((l) => [l.Listener.LoadBalancerPort, l.Listener.InstancePort])
  .sort((a, b) => a[0] - b[0]);
assert(JSON.stringify(ports) === "[[80,8280],[443,8243]]", "listeners", ports);

// UserData: the instance profile boots at once (the default boot_s is 60 emulated seconds)
await asg.send(new CreateLaunchConfigurationCommand({
  LaunchConfigurationName: lc, ImageId: "ami-12345678", InstanceType: "m1.large",
  UserData: '{"boot_s": 0}' }));
await asg.send(new CreateAutoScalingGroupCommand({
  AutoScalingGroupName: grp, LaunchConfigurationName: lc, AvailabilityZones: ["us-east-1c"],
  MinSize: 1, MaxSize: 10, LoadBalancerNames: [lb] }));
const policy = async (name, adj) => (await asg.send(new PutScalingPolicyCommand({
  AutoScalingGroupName: grp, PolicyName: name, ScalingAdjustment: adj,
  AdjustmentType: "ChangeInCapacity", Cooldown: 300 }))).PolicyARN;
const up = await policy("scale-up", 1), down = await policy("scale-down", -1);
assert(up && up.startsWith("arn:aws:autoscaling:us-east-1:") && up !== down, "policy ARNs", [up, down]);
for (const [name, op, thr, arn] of [["HighCPU", "GreaterThanThreshold", 80, up],
                                    ["LowCPU", "LessThanThreshold", 40, down]]) {
  await cw.send(new PutMetricAlarmCommand({
    AlarmName: P + name, MetricName: "CPUUtilization", Namespace: "AWS/EC2", Statistic: "Average",
    Period: 600, Threshold: thr, ComparisonOperator: op,
    Dimensions: [{ Name: "AutoScalingGroupName", Value: grp }], EvaluationPeriods: 1,
    AlarmActions: [arn], Unit: "Percent" }));
}
const alarms = (await cw.send(new DescribeAlarmsCommand({ AlarmNamePrefix: P }))).MetricAlarms;
assert(JSON.stringify(alarms.map((a) => a.AlarmName).sort()) ===
       JSON.stringify([P + "HighCPU", P + "LowCPU"]), "alarms", alarms);
assert(alarms.every((a) => a.StateValue === "INSUFFICIENT_DATA"), "alarm states", alarms);
assert(new Set(alarms.map((a) => a.AlarmActions[0])).size === 2 &&
       alarms.every((a) => [up, down].includes(a.AlarmActions[0])), "alarm actions", alarms);
assert(alarms.every((a) => a.Threshold === (a.AlarmName.endsWith("HighCPU") ? 80 : 40) &&
                           a.Dimensions[0].Value === grp), "alarm fields", alarms);
const pol = (await asg.send(new DescribePoliciesCommand({ AutoScalingGroupName: grp }))).ScalingPolicies;
assert(JSON.stringify(pol.map((p) => p.PolicyName).sort()) === '["scale-down","scale-up"]', "policies", pol);

await wait(async () => {
  const st = (await elb.send(new DescribeInstanceHealthCommand({ LoadBalancerName: lb }))).InstanceStates;
  return st.length === 1 && st[0].State === "InService";
}, "one instance InService at the load balancer");
const msg = await expectErr(asg.send(new DeleteAutoScalingGroupCommand({ AutoScalingGroupName: grp })),
                            "ResourceInUse");
assert(msg.includes("while there are instances"), "ResourceInUse message", msg);
await asg.send(new UpdateAutoScalingGroupCommand({ AutoScalingGroupName: grp, MinSize: 0, MaxSize: 0 }));
await wait(async () => {
  try { await asg.send(new DeleteAutoScalingGroupCommand({ AutoScalingGroupName: grp })); return true; }
  catch (e) {
    // The SDK names modelled errors by shape (ScalingActivityInProgressFault); Code is AWS's.
    const code = e.Code || e.name;
    if (code !== "ResourceInUse" && code !== "ScalingActivityInProgress") throw e;
    return false;
  }
}, "the group to empty and delete");
await wait(async () => (await asg.send(new DescribeAutoScalingGroupsCommand({
  AutoScalingGroupNames: [grp] }))).AutoScalingGroups.length === 0, "an empty describe");

await cw.send(new DeleteAlarmsCommand({ AlarmNames: [P + "HighCPU", P + "LowCPU"] }));
await asg.send(new DeleteLaunchConfigurationCommand({ LaunchConfigurationName: lc }));
await elb.send(new DeleteLoadBalancerCommand({ LoadBalancerName: lb }));
assert((await cw.send(new DescribeAlarmsCommand({ AlarmNamePrefix: P }))).MetricAlarms.length === 0,
       "alarms deleted");

// metrics round trip in this client's CloudWatch protocol
const now = new Date();
await cw.send(new PutMetricDataCommand({ Namespace: P + "App", MetricData: [10, 20, 30].map((v) => ({
  MetricName: "Latency", Value: v, Unit: "Milliseconds", Timestamp: now })) }));
const st = await cw.send(new GetMetricStatisticsCommand({
  Namespace: P + "App", MetricName: "Latency", StartTime: new Date(now - 600e3),
  EndTime: new Date(+now + 600e3), Period: 60, Statistics: ["Average", "Maximum"] }));
const pts = st.Datapoints;
assert(pts.length === 1 && pts[0].Average === 20 && pts[0].Maximum === 30 &&
       pts[0].Timestamp instanceof Date, "statistics", st);

const wantWire = PROTO === "cbor" ? "smithy-rpc-v2-cbor" : "json";
assert(cwWire.size === 1 && cwWire.has(wantWire), "CloudWatch over " + wantWire, [...cwWire]);
const req = createRequire(import.meta.url);
const ver = req("@aws-sdk/client-cloudwatch/package.json").version;
console.log(`ok aws-sdk-js-v3 ${ver} cloudwatch=${[...cwWire].join(",")}`);
