// CloudWatch through the AWS SDK for JavaScript v3 (the clients pinned in package.json) over
// the protocols current clients speak: JSON 1.0 (the SDK's default) and Smithy RPC v2 CBOR
// (the SDK's own CBOR serializer and parser, an implementation independent of ours).
//   node cloudwatch.mjs ENDPOINT CHECK PROTOCOL
//     CHECK     errors     AWS's validation errors: code (x-amzn-query-error), text, 400, RequestId
//               gzip       a PutMetricData body over 10 KiB goes gzip-compressed and is stored
//               roundtrip  PutMetricData, GetMetricStatistics (timestamps), ListMetrics
//     PROTOCOL  json | cbor
// Credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (default "testing").
// Prints "ok <protocol seen on the wire>" or fails with a reason (exit 1).
import {
  CloudWatchClient, SetAlarmStateCommand, DescribeAlarmsCommand, PutMetricDataCommand,
  GetMetricStatisticsCommand, ListMetricsCommand,
} from "@aws-sdk/client-cloudwatch";
import { AwsSmithyRpcV2CborProtocol } from "@aws-sdk/core/protocols";

const [EP, CHECK, PROTO] = process.argv.slice(2);
if (!EP || !CHECK || !["json", "cbor"].includes(PROTO)) {
  console.error("usage: cloudwatch.mjs ENDPOINT errors|gzip|roundtrip json|cbor");
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

function fail(msg) { console.error("FAIL: " + msg); process.exit(1); }
function assert(c, msg, v) { if (!c) fail(msg + (v === undefined ? "" : ": " + JSON.stringify(v))); }

// What went over the wire: each request's protocol and Content-Encoding, each reply's headers.
const sent = [];
let replyHeaders = {};
cw.middlewareStack.add((next) => async (args) => {
  const h = args.request.headers || {};
  const get = (k) => Object.entries(h).find(([n]) => n.toLowerCase() === k)?.[1];
  const ct = get("content-type") || "";
  let proto = "unknown:" + ct;
  if (get("smithy-protocol") === "rpc-v2-cbor" || ct.includes("cbor")) proto = "smithy-rpc-v2-cbor";
  else if (ct.includes("x-amz-json")) proto = "json";
  else if (ct.includes("x-www-form-urlencoded")) proto = "query";
  sent.push({ proto, encoding: get("content-encoding") || "" });
  return next(args);
}, { step: "finalizeRequest", priority: "low", name: "scalelabWireProbe" });
// low priority in the deserialize step: inside the deserializer, so it sees the raw reply
cw.middlewareStack.add((next) => async (args) => {
  const r = await next(args);
  replyHeaders = Object.fromEntries(Object.entries(r.response.headers || {})
    .map(([k, v]) => [k.toLowerCase(), v]));
  return r;
}, { step: "deserialize", priority: "low", name: "scalelabReplyProbe" });

function wantProto() { return PROTO === "cbor" ? "smithy-rpc-v2-cbor" : "json"; }
function checkWire() {
  assert(sent.length > 0 && sent.every((s) => s.proto === wantProto()), "requests in " + wantProto(), sent);
  if (PROTO === "cbor")
    assert(replyHeaders["smithy-protocol"] === "rpc-v2-cbor", "reply has smithy-protocol: rpc-v2-cbor", replyHeaders);
}

async function expectErr(cmd, code, text) {
  try { await cw.send(cmd); } catch (e) {
    const got = e.Code || e.name;
    if (got !== code) fail(`want ${code} got ${got}: ${e.message}`);
    if (text && !(e.message || "").includes(text)) fail(`message ${JSON.stringify(e.message)} lacks ${JSON.stringify(text)}`);
    return e;
  }
  fail("no error, want " + code);
}

if (CHECK === "errors") {
  await expectErr(new SetAlarmStateCommand({ AlarmName: "a", StateValue: "INVALID", StateReason: "r" }),
    "ValidationError", "1 validation error detected: Value 'INVALID' at 'stateValue' failed to " +
    "satisfy constraint: Member must satisfy enum value set: [");
  assert(replyHeaders["x-amzn-query-error"] === "ValidationError;Sender", "x-amzn-query-error", replyHeaders);
  const e = await expectErr(new DescribeAlarmsCommand({ AlarmNames: ["x".repeat(300)] }), "ValidationError",
    "Member must have length less than or equal to 255");
  assert(e.$metadata.httpStatusCode === 400, "status 400", e.$metadata);
  assert(e.$metadata.requestId, "a RequestId", e.$metadata);
  checkWire();
} else if (CHECK === "gzip") {
  // the SDK gzips PutMetricData bodies from 10 KiB on (requestcompression in the model)
  const now = new Date();
  await cw.send(new PutMetricDataCommand({ Namespace: "Gz" + PROTO, MetricData: Array.from({ length: 40 }, (_, k) => ({
    MetricName: "m" + k, Values: Array.from({ length: 150 }, (_, v) => v), Unit: "Count", Timestamp: now })) }));
  assert(sent[0].encoding === "gzip", "the PutMetricData body went gzip-compressed", sent);
  const st = await cw.send(new GetMetricStatisticsCommand({
    Namespace: "Gz" + PROTO, MetricName: "m3", StartTime: new Date(now - 600e3), EndTime: new Date(+now + 600e3),
    Period: 60, Statistics: ["SampleCount"] }));
  assert(st.Datapoints.length === 1 && st.Datapoints[0].SampleCount === 150, "150 samples stored", st.Datapoints);
  checkWire();
} else if (CHECK === "roundtrip") {
  const ns = "Rt" + PROTO;
  const now = new Date();
  await cw.send(new PutMetricDataCommand({ Namespace: ns, MetricData: [1, 3].map((v) => ({
    MetricName: "m", Value: v, Unit: "Count", Timestamp: now })) }));
  const st = await cw.send(new GetMetricStatisticsCommand({
    Namespace: ns, MetricName: "m", StartTime: new Date(now - 600e3), EndTime: new Date(+now + 600e3),
    Period: 60, Statistics: ["Sum", "SampleCount"] }));
  const dp = st.Datapoints;
  assert(dp.length === 1 && dp[0].Sum === 4 && dp[0].SampleCount === 2, "Sum 4 of 2 samples", dp);
  const minute = Math.floor(now.getTime() / 60000) * 60000;
  assert(dp[0].Timestamp instanceof Date && dp[0].Timestamp.getTime() === minute, "the period's timestamp", dp);
  const lm = await cw.send(new ListMetricsCommand({ Namespace: ns }));
  assert(lm.Metrics.length === 1 && lm.Metrics[0].MetricName === "m", "ListMetrics", lm.Metrics);
  checkWire();
} else {
  fail("unknown check " + CHECK);
}
console.log(`ok cloudwatch=${[...new Set(sent.map((s) => s.proto))].join(",")}`);
