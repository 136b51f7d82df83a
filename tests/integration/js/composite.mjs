// Composite alarms and dashboards through the AWS SDK for JavaScript v3 (the clients pinned in
// package.json) over JSON 1.0 (the SDK's default) or Smithy RPC v2 CBOR (its own serializer
// and parser). Expects the alarms "cpu" and "mem" of test_cloudwatch_composite.sh.
//   node composite.mjs ENDPOINT json|cbor
// Prints "ok" or fails with a reason (exit 1).
import {
  CloudWatchClient, PutCompositeAlarmCommand, DescribeAlarmsCommand, DeleteAlarmsCommand,
  PutDashboardCommand, GetDashboardCommand, ListDashboardsCommand, DeleteDashboardsCommand,
} from "@aws-sdk/client-cloudwatch";
import { AwsSmithyRpcV2CborProtocol } from "@aws-sdk/core/protocols";

const [EP, PROTO] = process.argv.slice(2);
if (!EP || !["json", "cbor"].includes(PROTO)) {
  console.error("usage: composite.mjs ENDPOINT json|cbor");
  process.exit(2);
}
const cfg = {
  endpoint: EP, region: "us-east-1", maxAttempts: 1,
  credentials: {
    accessKeyId: process.env.AWS_ACCESS_KEY_ID || "testing",
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY || "testing",
  },
};
if (PROTO === "cbor") cfg.protocol = AwsSmithyRpcV2CborProtocol;
const cw = new CloudWatchClient(cfg);
let sawCbor = false;
cw.middlewareStack.add((next) => async (args) => {
  const h = args.request.headers || {};
  if (Object.entries(h).some(([k, v]) => k.toLowerCase() === "smithy-protocol" && v === "rpc-v2-cbor"))
    sawCbor = true;
  return next(args);
}, { step: "finalizeRequest", priority: "low", name: "scalelabWireProbe" });

function fail(msg) { console.error("FAIL: " + msg); process.exit(1); }
function assert(c, msg, v) { if (!c) fail(msg + (v === undefined ? "" : ": " + JSON.stringify(v))); }
async function errorOf(cmd) {
  try { await cw.send(cmd); } catch (e) { return { name: e.name, message: e.message, status: e.$metadata?.httpStatusCode }; }
  return null;
}

const name = "js-" + PROTO;
await cw.send(new PutCompositeAlarmCommand({
  AlarmName: name, AlarmRule: "ALARM(cpu) OR ALARM(mem)", ActionsSuppressor: "mem",
  ActionsSuppressorWaitPeriod: 30, ActionsSuppressorExtensionPeriod: 45,
}));
let r = await cw.send(new DescribeAlarmsCommand({ AlarmNames: [name], AlarmTypes: ["CompositeAlarm"] }));
const c = (r.CompositeAlarms || [])[0];
assert(c && c.AlarmRule === "ALARM(cpu) OR ALARM(mem)" && c.ActionsSuppressorExtensionPeriod === 45 &&
  c.StateTransitionedTimestamp instanceof Date && /was created and its alarm rule evaluates to /.test(c.StateReason),
  "the composite as put", c);
r = await cw.send(new DescribeAlarmsCommand({ ParentsOfAlarmName: "mem" }));
assert((r.CompositeAlarms || []).some((x) => x.AlarmName === name), "ParentsOfAlarmName lists it", r.CompositeAlarms);
let e = await errorOf(new PutCompositeAlarmCommand({ AlarmName: "x-" + PROTO, AlarmRule: "ALARM(nowhere)" }));
assert(e && e.message === "Could not save the composite alarm as alarms [nowhere] in the alarm rule do not exist" &&
  e.status === 400, "a missing child", e);
await cw.send(new DeleteAlarmsCommand({ AlarmNames: [name] }));

const body = JSON.stringify({ widgets: [{ type: "text", x: 0, y: 0, width: 6, height: 3, properties: { markdown: "# " + PROTO } }] });
r = await cw.send(new PutDashboardCommand({ DashboardName: name, DashboardBody: body }));
assert(Array.isArray(r.DashboardValidationMessages) && r.DashboardValidationMessages.length === 0, "no messages", r);
r = await cw.send(new GetDashboardCommand({ DashboardName: name }));
assert(r.DashboardBody === body && r.DashboardArn === "arn:aws:cloudwatch::123456789012:dashboard/" + name, "GetDashboard", r);
r = await cw.send(new ListDashboardsCommand({ DashboardNamePrefix: name }));
assert(r.DashboardEntries.length === 1 && r.DashboardEntries[0].Size === body.length &&
  r.DashboardEntries[0].LastModified instanceof Date, "ListDashboards", r.DashboardEntries);
e = await errorOf(new PutDashboardCommand({ DashboardName: name, DashboardBody: "nope" }));
assert(e && e.name === "DashboardInvalidInputError" && e.status === 400 &&
  e.message.includes("The field DashboardBody must be a valid JSON object"), "a bad body", e);
e = await errorOf(new GetDashboardCommand({ DashboardName: "nope-" + PROTO }));
assert(e && e.status === 404, "a missing dashboard", e);
await cw.send(new DeleteDashboardsCommand({ DashboardNames: [name] }));
assert(PROTO !== "cbor" || sawCbor, "requests went as RPC v2 CBOR");
console.log("ok " + PROTO);
