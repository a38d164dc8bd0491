// The generative UI toolkit (the built-in genui server) in the playground,
// in headless Chromium: every tool renders as an MCP Apps card (SVG
// charts, KPI tiles, a sortable paged table, sandboxed HTML, an
// allowlisted page) and as an A2UI surface rendered by @a2ui/lit;
// ask_user round-trips in both protocols within the same run; render_url
// off the allowlist is refused; render_html cannot reach the network.
// Then a server written the qwen-agent way (examples/qwen-apps): its app
// responses show as cards that get their data by mcp-app-data at their
// preferred size, and an mcp-app-response is its tool's result.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { goBinary } from "../lib/gobin.js";
import { launch, artifacts } from "../lib/browser.js";
import { sse } from "../agui/scenarios.js";
import { say, runsEnded } from "../lib/playground.js";

let adapter, up, site, browser, page;
const pageErrors = [];
const beacons = [];
const pageHits = [];

before(async () => {
  // A site on the allowlist: its page, and a beacon no card may reach.
  site = http.createServer((req, res) => {
    if (req.url.startsWith("/beacon")) { beacons.push(req.url); res.writeHead(200, { "Access-Control-Allow-Origin": "*" }).end("reached"); return; }
    pageHits.push(req.url);
    res.writeHead(200, { "Content-Type": "text/html" }).end(`<!doctype html><title>Allowed page</title><h1 id="allowed">An allowed page</h1>`);
  });
  await new Promise((r) => site.listen(0, "127.0.0.1", r));
  const siteURL = `http://127.0.0.1:${site.address().port}`;
  up = await startUpstream({
    "/agent": (i) => {
      const last = i.messages.at(-1);
      const frame = (evs) => sse([{ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId }, ...evs, { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId }]);
      const reply = (t) => [
        { type: "TEXT_MESSAGE_START", messageId: "m-" + i.runId, role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "m-" + i.runId, delta: t },
        { type: "TEXT_MESSAGE_END", messageId: "m-" + i.runId },
      ];
      if (last?.role === "tool") return frame(reply("tool said: " + last.content));
      const call = (name, args) => {
        const id = name + "-" + i.runId.slice(0, 8);
        return frame([{ type: "TOOL_CALL_START", toolCallId: id, toolCallName: name }, { type: "TOOL_CALL_ARGS", toolCallId: id, delta: JSON.stringify(args) }, { type: "TOOL_CALL_END", toolCallId: id }]);
      };
      switch (last?.content) {
        case "url-ok": return call("render_url", { url: siteURL + "/page", title: "Allowed" });
        case "url-bad": return call("render_url", { url: "https://evil.example.org/" });
        case "html-net": return call("render_html", { title: "Probe", html: `<p id="probe">waiting</p><script>document.getElementById("probe").textContent = "script ran"; fetch("${siteURL}/beacon?from=html").then(() => { document.getElementById("probe").textContent = "fetch succeeded"; }, () => { document.getElementById("probe").textContent = "fetch blocked"; });</script>` });
        case "qwen-dash": return call("show_dashboard", { title: "Sales by region" });
        case "qwen-ask": return call("ask_preference", { question: "Which colour?", options: ["Red", "Blue"] });
      }
      return frame(reply("ok"));
    },
  });
  adapter = await startAdapter(`
toolkit:
  urlAllowlist: ["${siteURL}"]
  htmlScripts: true
mcpServers:
  qwen: {command: [${JSON.stringify(goBinary("./examples/qwen-apps"))}, "-docs", "${siteURL}/docs"]}
agents:
  demo: {type: demo, delay: 1ms, mcpServers: [genui]}
  cards: {type: demo, delay: 1ms, mcpServers: [genui], render: [mcp-apps]}
  tk: {type: agui, url: "${up.url}/agent", mcpServers: [genui, qwen], render: [mcp-apps]}
`);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1440, height: 1000 } });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  await page.goto(adapter.url + "/#agent=demo");
  await page.waitForFunction(() => window.__playground?.ready);
});

after(async () => {
  await browser?.close();
  await adapter?.stop();
  await up?.close();
  await new Promise((r) => site ? site.close(r) : r());
});

async function type(msg) {
  await page.locator("#input").fill(msg);
  await page.locator("#input").press("Enter");
}
async function useAgent(id) {
  await page.goto(adapter.url + "/#agent=" + id);
  await page.reload();
  await page.waitForFunction(() => window.__playground?.ready);
}
async function deepText(selector) {
  return page.evaluate((sel) => {
    const parts = [];
    const walk = (n) => { if (n.nodeType === 3) parts.push(n.textContent); if (n.shadowRoot) walk(n.shadowRoot); for (const c of n.childNodes) walk(c); };
    for (const el of document.querySelectorAll(sel)) walk(el);
    return parts.join(" ").replace(/\s+/g, " ");
  }, selector);
}
const messages = () => page.locator("#messages").innerText();
const lastView = () => page.frameLocator(".pair .mcp iframe").last().frameLocator("iframe");

test("side by side: a dashboard of charts as SVG in the card, as tables in A2UI, saying so", async () => {
  await page.check("#side");
  await say(page, "dashboard", 30000);
  const view = lastView();
  for (const kind of ["bar", "line", "donut", "gauge"]) await view.locator(`svg[data-chart=${kind}]`).waitFor({ timeout: 15000 });
  assert.equal(await view.locator("svg[data-chart=bar] rect.bar").count(), 8, "4 labels × 2 series");
  assert.equal(await view.locator("svg[data-chart=donut] path.slice").count(), 3);
  assert.equal(await view.locator("script[src]").count(), 0, "the card loads no external script");
  const a2 = await deepText(".pair .a2ui .body");
  assert.match(a2, /A bar chart, shown as a table: the A2UI basic catalog has no chart component/);
  assert.match(a2, /82%, on a scale of 0 to 100/);
  assert.match(await page.locator(".pair .a2ui .meta").last().innerText(), /source:/);
  assert.match(await messages(), /Done: it is shown above \(render_chart\)/);
  await page.screenshot({ path: join(artifacts, "toolkit-dashboard.png"), fullPage: true });
});

test("KPI tiles and a table that sorts and pages, both ways", async () => {
  await say(page, "kpis", 30000);
  const view = lastView();
  await view.locator(".tile").first().waitFor({ timeout: 15000 });
  assert.equal(await view.locator(".tile").count(), 3);
  assert.equal(await view.locator(".tile[data-tone=good]").count(), 3, "revenue and orders up, churn down: all good");
  assert.match(await deepText(".pair .a2ui .body"), /▼ −0.3% \(better\)/);
  await say(page, "orders", 30000);
  const t = lastView();
  await t.locator("table tbody tr").first().waitFor({ timeout: 15000 });
  assert.equal(await t.locator("tbody tr").count(), 5, "pageSize 5");
  assert.match(await t.locator("tbody tr").first().innerText(), /SO-9020/, "sorted by total, descending");
  await t.locator("#next").click();
  assert.equal(await t.locator("tbody tr").count(), 1);
  assert.match(await t.locator("#page").innerText(), /Page 2 of 2/);
  await t.locator("th", { hasText: "Customer" }).click();
  assert.match(await t.locator("tbody tr").first().innerText(), /Ada Lovelace/);
  assert.equal(await t.locator("th[aria-sort=ascending]").innerText(), "Customer");
  assert.match(await deepText(".pair .a2ui .body"), /EUR 1,890.50/);
  await page.uncheck("#side");
});

test("ask_user in A2UI: the form's answer is the tool's result, in the same run", async () => {
  await page.locator("#reset").click();
  const n = await runsEnded(page);
  await type("ask");
  await page.locator(".pair .a2ui").getByText("Pro", { exact: true }).first().waitFor({ timeout: 15000 });
  assert.equal(await runsEnded(page), n, "the run ended before the answer");
  await page.locator(".pair .a2ui").getByText("Pro", { exact: true }).first().click();
  await page.locator(".pair .a2ui").getByText("Send", { exact: true }).first().click();
  await page.waitForFunction(() => [...document.querySelectorAll("#messages li")].some((li) => li.textContent.includes('you answered "Pro"')), null, { timeout: 15000 });
  await page.waitForFunction(() => !window.__playground.state.running);
  assert.match(await deepText(".pair .a2ui .body"), /Answered: Pro/);
  const action = await page.evaluate(() => window.__playground.actions.at(-1));
  assert.equal(action.name, "answer_user");
  assert.match(action.surfaceId, /^mcp~genui~/);
});

test("ask_user as a card: the answer through the app-only tool, in the same run", async () => {
  await useAgent("cards");
  await type("ask");
  const view = lastView();
  await view.locator("form.ask").waitFor({ timeout: 15000 });
  await view.getByLabel("Enterprise").check();
  await view.getByText("Send", { exact: true }).click();
  await view.locator("#ask-status", { hasText: "Sent: Enterprise" }).waitFor({ timeout: 10000 });
  await page.waitForFunction(() => [...document.querySelectorAll("#messages li")].some((li) => li.textContent.includes('you answered "Enterprise"')), null, { timeout: 15000 });
  assert.equal(await page.locator(".pair .a2ui").count(), 0, "render [mcp-apps]: no surface");
});

test("render_url: an allowlisted page in a card; another site refused with what to do", async () => {
  await useAgent("tk");
  await say(page, "url-ok", 30000);
  const page2 = lastView().frameLocator("iframe#page");
  await page2.locator("#allowed").waitFor({ timeout: 15000 });
  assert.ok(pageHits.includes("/page"));
  await say(page, "url-bad", 30000);
  assert.match(await messages(), /not on this deployment's allowlist of embeddable sites \(http:\/\/127\.0\.0\.1:\d+\); give the user the link as text instead/);
  await lastView().locator("[role=alert]").waitFor({ timeout: 10000 });
  assert.match(await lastView().locator("[role=alert]").innerText(), /evil\.example\.org is not on this deployment's allowlist/);
});

test("render_html: its script runs (scripts enabled) but cannot reach the network", async () => {
  await say(page, "html-net", 30000);
  const inner = lastView().frameLocator("iframe#content");
  await inner.locator("#probe", { hasText: "fetch blocked" }).waitFor({ timeout: 15000 });
  assert.deepEqual(beacons, [], "the card's fetch reached the network");
  const sandbox = await lastView().locator("iframe#content").getAttribute("sandbox");
  assert.equal(sandbox, "allow-scripts", "scripts on (toolkit.htmlScripts), never allow-same-origin");
  await page.screenshot({ path: join(artifacts, "toolkit-html.png"), fullPage: true });
});

test("qwen-agent style: an app response shows its View with its data at its preferred size", async () => {
  await say(page, "qwen-dash", 30000);
  const outer = page.locator(".pair .mcp iframe").last();
  const view = lastView();
  await view.locator("body[data-rendered=yes]").waitFor({ timeout: 15000 });
  assert.equal(await view.locator("#title").innerText(), "Sales by region");
  assert.equal(await view.locator(".bar").count(), 3);
  const box = await outer.evaluate((f) => ({ w: f.style.width, h: f.style.height }));
  assert.deepEqual(box, { w: "640px", h: "360px" });
  assert.match(await messages(), /tool said: \{"type":"app","resourceUri":"ui:\/\/qwen\/data-dashboard"/);
});

test("qwen-agent style: the View's mcp-app-response is the tool's result, in the same run", async () => {
  const n = await runsEnded(page);
  await type("qwen-ask");
  const view = lastView();
  await view.getByText("Blue", { exact: true }).waitFor({ timeout: 15000 });
  assert.equal(await runsEnded(page), n, "the run ended before the response");
  await view.getByText("Blue", { exact: true }).click();
  await page.waitForFunction(() => [...document.querySelectorAll("#messages li")].some((li) => li.textContent.includes('tool said: {"answer":{"choice":"Blue"}}')), null, { timeout: 15000 });
});

test("no page errors", async () => {
  assert.deepEqual(pageErrors, []);
  assert.deepEqual(await page.evaluate(() => window.__playground.errors), []);
});
