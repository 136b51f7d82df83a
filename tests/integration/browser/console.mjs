// tests/integration/browser/console.mjs: drives the emulator's console page in Debian's
// headless Chromium (playwright-core, no browser download) through a lesson's steps and
// prints TAP lines: the page renders the group's name, its instance ids and InService; a
// scale-out shows the new instance through Pending to InService; a kill -9 clicked on the
// page (with its confirmation) shows in the feed as SIGKILL and the replacement takes its
// place; the fail-health-checks button takes an instance OutOfService on the load
// balancer; large type. Each step saves a screenshot and the page's text beside it
// (OUT/NN-step.png, .txt) for the shell test to check.
// With a dashboard made by boto3 PutDashboard (the shell test), the last step shows it
// rendered: its metric widget an SVG with the metric's label, its text widget as text.
// sigv4 mode: the emulator runs --auth sigv4; without the token the page is refused, the
// console URL with the token loads it (the token leaves the address bar) and the group and
// the live stream show.
//   node console.mjs EP OUT [manual|sigv4 TOKEN]   (manual: the emulator runs --clock manual)
import { chromium } from "playwright-core";
import { writeFileSync } from "node:fs";

const [ep, out, mode, token] = process.argv.slice(2);
// under --auth sigv4 the test's own reads carry the token as the admin API's header
const hdrs = token ? { "X-Scalelab-Token": token } : {};
let failed = 0;
const check = (desc, cond, detail) => {
  console.log(`${cond ? "ok" : "not ok"} - ${desc}${detail !== undefined && !cond ? ` (${detail})` : ""}`);
  if (!cond) failed = 1;
};

async function aws(params) {
  const r = await fetch(ep + "/", { method: "POST", body: new URLSearchParams({ Version: "2011-01-01", ...params }),
                                    headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  const t = await r.text();
  if (!r.ok) throw new Error(`${params.Action}: ${r.status} ${t}`);
  return t;
}
const overview = async () => (await fetch(ep + "/_scalelab/overview", { headers: hdrs })).json();
const group = async () => (await overview()).worlds[0].groups.find((g) => g.name === "web");
const inService = (g) => g.instances.filter((i) => i.lifecycle_state === "InService").map((i) => i.id).sort();

async function until(desc, fn, ms) {
  const end = Date.now() + ms;
  let v;
  while (Date.now() < end) {
    try { v = await fn(); } catch (e) { v = undefined; }
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  return v;
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
                                        args: ["--no-sandbox", "--disable-gpu"], timeout: 30000 });
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
const errors = [];
page.on("pageerror", (e) => errors.push(String(e)));
page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
const external = [];
// the dashboards' images show as blob: URLs of the page's own origin
page.on("request", (r) => { if (!r.url().startsWith(ep) && !r.url().startsWith("blob:" + ep)) external.push(r.url()); });
let n = 0;
async function shot(step) {
  n++;
  const base = `${out}/${String(n).padStart(2, "0")}-${step}`;
  await page.screenshot({ path: base + ".png", fullPage: false });
  writeFileSync(base + ".txt", await page.evaluate(() => document.body.innerText));
}
const laneIds = (lane) => page.$$eval(`[data-group="web"] [data-lane="${lane}"] [data-instance]`,
                                      (els) => els.map((e) => e.dataset.instance).sort());

try {
  if (mode === "sigv4") {
    const r = await page.goto(ep + "/");
    const refused = await page.evaluate(() => document.body.innerText);
    check("sigv4: the page without the token is refused (403) saying how to get in",
          r.status() === 403 && refused.includes("a token is needed") && refused.includes("?token="), r.status());
    errors.length = 0; // Chromium logs the refused page's 403 as a console error: expected here
    await page.goto(ep + "/?token=" + token);
    check("sigv4: the console URL with the token lands on the page without the token in the address bar",
          page.url() === ep + "/", page.url());
    const cookies = await page.context().cookies();
    const c = cookies.find((k) => k.name.startsWith("scalelab_console_"));
    check("sigv4: the page holds an HttpOnly SameSite=Strict cookie", c && c.httpOnly && c.sameSite === "Strict",
          JSON.stringify(cookies));
    await page.waitForSelector('[data-group="web"] [data-lane="InService"] [data-instance]', { timeout: 20000 }).catch(() => {});
    const g = await group();
    const shown = await laneIds("InService");
    check("sigv4: the page shows the group and its instance InService", g && shown.length === 1 &&
          JSON.stringify(shown) === JSON.stringify(inService(g)), shown);
    check("sigv4: the event stream is live with the cookie (launch in the feed)", await until("feed", async () =>
      (await page.textContent("#conn")) === "live" && (await page.$$('#feed [data-type="launch"]')).length >= 1, 10000));
    // the ELBv2 target group's per-target request rate and latency, under a short load
    // through its listener (the proxy's own counters, as for the classic load balancer)
    const dp = await (await fetch(ep + "/_scalelab/dataplane", { headers: hdrs })).json();
    const albPort = (dp.alb_listeners || [])[0] && dp.alb_listeners[0].port;
    const healthy = await until("the target healthy", async () => {
      const tg = (await overview()).worlds[0].target_groups.find((t) => t.name === "tg");
      return tg && tg.targets.length === 1 && tg.targets[0].state === "healthy" ? tg.targets[0] : null;
    }, 30000);
    check("ELBv2: the target group's instance is healthy behind the listener", healthy && albPort, `port ${albPort}`);
    const t1 = Date.now();
    let sent = 0;
    while (Date.now() - t1 < 3000 && sent < 300) {
      const r = await fetch(`http://127.0.0.1:${albPort}/`).catch(() => null);
      if (r) { await r.text(); sent += r.ok ? 1 : 0; }
    }
    const tgRate = await until("the target group's rate on the page", async () => {
      const v = await page.$$eval('[data-tg="tg"] [data-tg-target] [data-rate]',
                                  (els) => els.map((e) => [Number(e.dataset.rate), e.textContent.trim()]));
      return v.length === 1 && v[0][0] > 0 ? v[0] : null;
    }, 12000);
    check("ELBv2: the target group's row shows the target's request rate (req/s)", tgRate && /\/s/.test(tgRate[1]),
          `${sent} requests sent, ${tgRate}`);
    const tgLat = await page.$$eval('[data-tg="tg"] [data-tg-target] [data-latency]',
                                    (els) => els.map((e) => [Number(e.dataset.latency), e.textContent.trim()]));
    check("ELBv2: and its mean latency in ms", tgLat.length === 1 && tgLat[0][0] > 0 && / ms$/.test(tgLat[0][1]), tgLat);
    await shot("sigv4");
  } else if (mode === "manual") {
    await page.goto(ep + "/_scalelab/ui");
    await page.waitForSelector("#adv60:not([hidden])", { state: "visible", timeout: 10000 }).catch(() => {});
    // boot follows the manual clock: Pending until the clock passes launch + boot_s (60 s)
    await page.waitForSelector('[data-group="web"] [data-lane="Pending"] [data-instance]', { timeout: 10000 });
    await page.waitForTimeout(1500);
    const pending = await laneIds("Pending");
    check("manual clock: the instance stays Pending while the clock stands (1.5 s real)",
          pending.length === 1 && (await laneIds("InService")).length === 0, pending);
    const c0 = await (await fetch(ep + "/_scalelab/clock")).json();
    const before = await page.textContent("#clock");
    check("manual clock: the advance and play buttons show", await page.isVisible("#adv60"));
    await page.click("#adv60");
    const after = await until("clock moved", async () => {
      const t = await page.textContent("#clock");
      return t !== before ? t : null;
    }, 5000);
    const c = await (await fetch(ep + "/_scalelab/clock")).json();
    const want = c.now.replace("T", " ").replace(/\.\d+Z$/, " UTC");
    check("manual clock: +1 min moves the emulator's clock a minute and the page shows it",
          c.now_ms - c0.now_ms === 60000 && after === want, `${before} -> ${after}, ${c.now}`);
    const up = await until("InService after +1 min", async () => {
      const s = await laneIds("InService");
      return s.length === 1 && s[0] === pending[0] ? s : null;
    }, 5000);
    check("manual clock: +1 min boots it: InService on the page", up, await laneIds("InService"));
    await page.keyboard.press("p");
    check("manual clock: p plays (the button says Pause)", (await page.textContent("#play")) === "Pause");
    await page.waitForTimeout(2200);
    await page.keyboard.press("p");
    const c2 = await (await fetch(ep + "/_scalelab/clock")).json();
    check("manual clock: playing advanced it 10 s a second, pause stops it",
          (await page.textContent("#play")) === "Play" && c2.now_ms - c.now_ms >= 10000, c2.now);
    await shot("manual-clock");
  } else {
    // step 1: the group as the class first sees it
    await page.goto(ep + "/");
    await page.waitForSelector('[data-group="web"] [data-lane="InService"] [data-instance]', { timeout: 15000 });
    const g = await group();
    const ids = inService(g);
    const shown = await laneIds("InService");
    const text = await page.evaluate(() => document.body.innerText);
    check("the page at / renders the group's name", text.includes("Auto Scaling group web") && text.includes("min 1 · desired 1 · max 4"));
    check("the page shows the instance id in the InService lane, with InService", ids.length === 1 &&
          JSON.stringify(shown) === JSON.stringify(ids) && text.includes("InService"), `${shown} vs ${ids}`);
    check("the load balancer and its per-instance health show", text.includes("Load balancer front") &&
          (await page.$$(`[data-lb="front"] [data-lb-instance="${ids[0]}"]`)).length === 1);
    check("the activity feed has the launch", await until("feed", async () =>
      (await page.$$('#feed [data-type="launch"]')).length >= 1, 5000));
    await shot("group");

    // step 1b: a short bounded load through the load balancer: the page shows each
    // instance's request rate and latency (the proxy's own per-target counters)
    const lbPort = (await overview()).worlds[0].load_balancers[0].listeners[0].port;
    const t0 = Date.now();
    let served = 0;
    while (Date.now() - t0 < 3000 && served < 300) {
      const r = await fetch(`http://127.0.0.1:${lbPort}/`).catch(() => null);
      if (r) { await r.text(); served += r.ok ? 1 : 0; }
    }
    const rated = await until("a request rate on the page", async () => {
      const v = await page.$$eval(`[data-lb="front"] [data-lb-instance="${ids[0]}"] [data-rate]`,
                                  (els) => els.map((e) => [Number(e.dataset.rate), e.textContent.trim()]));
      return v.length === 1 && v[0][0] > 0 ? v[0] : null;
    }, 12000);
    check("traffic: the load balancer's row shows the instance's request rate (req/s)",
          rated && /\/s/.test(rated[1]), `${served} requests sent, ${rated}`);
    const lat = await page.$$eval(`[data-lb="front"] [data-lb-instance="${ids[0]}"] [data-latency]`,
                                  (els) => els.map((e) => [Number(e.dataset.latency), e.textContent.trim()]));
    check("traffic: and its mean latency in ms", lat.length === 1 && lat[0][0] > 0 && / ms$/.test(lat[0][1]), lat);
    const ov1 = await overview();
    const row = ov1.worlds[0].load_balancers[0].instances.find((h) => h.instance_id === ids[0]);
    check("traffic: the overview counted the responses the load balancer served",
          row && row.responses >= served && served > 0, `${row && row.responses} vs ${served}`);
    await shot("traffic");

    // step 2: scale out
    await aws({ Action: "SetDesiredCapacity", AutoScalingGroupName: "web", DesiredCapacity: "2" });
    const two = await until("2 InService on the page", async () => {
      const s = await laneIds("InService");
      return s.length === 2 ? s : null;
    }, 20000);
    check("scale-out: the page shows two instances InService", two, await laneIds("InService"));
    const text2 = await page.evaluate(() => document.body.innerText);
    check("scale-out: desired 2 and the new instance's activity in the feed", text2.includes("desired 2") &&
          (await page.$$('#feed [data-type="activity_start"]')).length >= 2);
    await shot("scale-out");

    // step 3: kill -9 from the page, with its confirmation
    const victim = two ? two[0] : ids[0];
    await page.click(`[data-instance="${victim}"] button[data-fault="kill"]`);
    await page.waitForSelector("dialog#confirm[open]", { timeout: 5000 });
    check("kill -9 asks for confirmation first", (await page.textContent("#confirm-text")).includes(victim));
    await shot("confirm-kill");
    await page.click("#confirm-ok");
    const killed = await until("SIGKILL in the feed", async () =>
      (await page.textContent("#feed")).includes(`instance ${victim} killed by signal 9 (SIGKILL)`), 10000);
    check("kill -9: the feed says 'killed by signal 9 (SIGKILL)'", killed);
    const repl = await until("replacement InService", async () => {
      const s = await laneIds("InService");
      return s.length === 2 && !s.includes(victim) ? s : null;
    }, 25000);
    check("kill -9: the replacement is InService on the page and the victim is gone", repl, await laneIds("InService"));
    const feed = await page.textContent("#feed");
    check("kill -9: the feed has AWS's cause for the termination",
          feed.includes("taken out of service in response to a EC2 health check"));
    await shot("replaced");

    // step 4: fail health checks, through the button
    const sick = repl ? repl[0] : victim;
    await page.click(`[data-instance="${sick}"] button[data-fault="fail_health=1"]`);
    await page.waitForSelector("dialog#confirm[open]", { timeout: 5000 });
    await page.keyboard.press("Tab"); // from Cancel to the confirm button: the keyboard works
    await page.keyboard.press("Enter");
    const oos = await until("OutOfService on the load balancer", async () =>
      (await page.$$(`[data-lb="front"] [data-lb-instance="${sick}"] .badge.OutOfService`)).length === 1, 20000);
    check("fail health checks (keyboard-confirmed): the load balancer shows the instance OutOfService", oos);
    await shot("out-of-service");

    // step 5: large type for the projector
    await page.keyboard.press("l");
    const large = await page.evaluate(() => document.body.classList.contains("large") &&
                                           getComputedStyle(document.body).fontSize === "24px");
    check("large type: the l key makes the type 24 px", large);
    await shot("large-type");

    // step 6: a zone outage from the page, and the recovery
    const ov = await (await fetch(ep + "/_scalelab/overview")).json();
    const zones = ov.worlds[0].zones.map((z) => z.name);
    const zone = zones[zones.length - 1];
    await page.click(`button[data-zone="${zone}"][data-zone-fault="az_outage"]`);
    await page.waitForSelector("dialog#confirm[open]", { timeout: 5000 });
    check("zone outage asks for confirmation, naming the zone",
          (await page.textContent("#confirm-text")).includes(`availability zone ${zone} down`));
    await page.click("#confirm-ok");
    const impaired = await until("the zone impaired on the page", async () =>
      (await page.$$(`[data-zone-state="impaired"] button[data-zone="${zone}"][data-zone-fault="az_recover"]`)).length === 1, 10000);
    const ov2 = await (await fetch(ep + "/_scalelab/overview")).json();
    check("zone outage: the page shows the zone impaired, as the overview says",
          impaired && ov2.worlds[0].zones.find((z) => z.name === zone).state === "impaired", zones);
    check("zone outage: the feed has the fault, naming the zone", await until("fault in the feed", async () =>
      (await page.$$eval('#feed [data-type="fault"]', (els, z) => els.filter((e) => e.textContent.includes(z)).length, zone)) >= 1, 5000));
    await shot("zone-outage");
    await page.click(`button[data-zone="${zone}"][data-zone-fault="az_recover"]`);
    await page.waitForSelector("dialog#confirm[open]", { timeout: 5000 });
    await page.click("#confirm-ok");
    check("zone recover: the zone is available again", await until("available", async () =>
      (await page.$$(`[data-zone-state="available"] button[data-zone="${zone}"]`)).length === 1, 10000));

    // step 7: the CloudWatch dashboard (PutDashboard from boto3): its metric widget drawn
    // as SVG with the metric's label, its text widget as text, placed on the grid
    await page.keyboard.press("l"); // back to normal type
    // drawn with data: the image the page shows (a blob: URL) holds a series path of two
    // points or more; the page redraws every 10 s, so a first image drawn before the
    // metrics minute reported comes back with the line
    const dash = await until("the dashboard drawn with its line", async () => {
      const v = await page.$$eval('[data-dashboard="lab"] [data-svg] img', (els) =>
        els.map((e) => ({ w: e.naturalWidth, src: e.getAttribute("src"), hidden: e.hidden, url: e.closest("[data-svg]").dataset.svg })));
      if (!(v.length === 1 && v[0].w > 0 && !v[0].hidden)) return null;
      const shown = await page.evaluate(async (u) => (await fetch(u)).text(), v[0].src);
      return /<path class="series"[^>]*d="M[^"]*L/.test(shown) ? v[0] : null;
    }, 30000);
    check("dashboard: the metric widget is an image the page loaded, its series drawn", dash, JSON.stringify(dash));
    const svg = dash ? await page.evaluate(async (u) => (await fetch(u)).text(), dash.url) : "";
    check("dashboard: the widget's SVG carries the metric's label and the title",
          svg.startsWith("<?xml") && svg.includes("<svg") && svg.includes("Requests through front") &&
          svg.includes("Load balancer requests"), svg.slice(0, 200));
    const box = await page.$eval('[data-dashboard="lab"] [data-svg]', (e) => { const r = e.getBoundingClientRect(); const g = e.parentElement.getBoundingClientRect(); return [r.width / g.width, r.left - g.left]; });
    check("dashboard: the 16-column metric widget spans 2/3 of the 24-column grid at x 0",
          Math.abs(box[0] - 16 / 24) < 0.03 && Math.abs(box[1]) < 3, box);
    const txt = await page.$eval('[data-dashboard="lab"] .dw.text', (e) => e.innerHTML);
    check("dashboard: the text widget's markdown as text (heading, bold), its HTML escaped",
          txt.includes("<h3>Lab notes</h3>") && txt.includes("<strong>scale-out</strong>") &&
          txt.includes("&lt;script&gt;") && !(await page.$('[data-dashboard="lab"] .dw.text script')), txt);
    await page.$eval('[data-dashboard="lab"]', (e) => e.scrollIntoView());
    await page.waitForTimeout(300);
    await shot("dashboard");
  }
  check("no page errors", errors.length === 0, errors.slice(0, 3).join("; "));
  check("nothing fetched but the emulator's own URLs", external.length === 0, external.slice(0, 3).join(" "));
} catch (e) {
  check("the browser steps ran", false, e.stack || String(e));
} finally {
  await browser.close();
}
process.exit(failed);
