// The playground in headless Chromium against the built-in demo agent:
// every scenario, the event log, A2UI surfaces rendered by @a2ui/lit with
// zero renderer errors, MCP Apps cards inside the sandbox iframe, both
// columns in side-by-side mode, and an A2UI action round trip.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { startAdapter } from "../lib/adapter.js";
import { launch, artifacts, e2eDir } from "../lib/browser.js";
import { say } from "../lib/playground.js";

let adapter, browser, page;
const pageErrors = [];
const consoleProblems = [];

before(async () => {
  adapter = await startAdapter(`
agents:
  demo: {type: demo, delay: 1ms, mcpServers: [refunds, genui]}
`);
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  page.on("pageerror", (e) => pageErrors.push(String(e)));
  page.on("console", (m) => { if (m.type() === "warning" || m.type() === "error") consoleProblems.push(m.text()); });
  await page.goto(adapter.url + "/");
  await page.waitForFunction(() => window.__playground?.ready);
  assert.equal(await page.locator("#vendor-missing").isHidden(), true, "the A2UI bundle did not load");
});

after(async () => {
  await browser?.close();
  await adapter?.stop();
});

// say types a message, presses Enter and waits for the run to end.
async function deepText(selector) {
  return page.evaluate((sel) => {
    const parts = [];
    const walk = (n) => { if (n.nodeType === 3) parts.push(n.textContent); if (n.shadowRoot) walk(n.shadowRoot); for (const c of n.childNodes) walk(c); };
    for (const el of document.querySelectorAll(sel)) walk(el);
    return parts.join(" ").replace(/\s+/g, " ");
  }, selector);
}

test("keyboard only: the agent list and the chat box are labelled and reachable", async () => {
  assert.ok((await page.locator("#agent option").count()) >= 1);
  assert.equal(await page.locator("label[for=input]").textContent(), "Message");
  await page.locator("#input").focus();
  assert.equal(await page.evaluate(() => document.activeElement.id), "input");
});

test("table: conversation, event log and an A2UI surface", async () => {
  await say(page, "table");
  assert.match(await page.locator("#messages").innerText(), /Here are this week's shipments/);
  assert.match(await page.locator("#messages").innerText(), /list_shipments/);
  for (const type of ["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_RESULT", "ACTIVITY_SNAPSHOT", "RUN_FINISHED"]) {
    assert.ok(await page.locator(`#events li[data-type=${type}]`).count() > 0, `no ${type} in the log`);
  }
  assert.match(await page.locator("#events li").first().innerText(), /^\+\d+ms\s*RUN_STARTED/);
  // Consecutive deltas of one message are one row that counts them.
  const deltas = await page.evaluate(() => {
    const evs = window.__playground.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT");
    return { events: evs.length, messages: new Set(evs.map((e) => e.messageId)).size };
  });
  assert.ok(deltas.events > deltas.messages);
  assert.equal(await page.locator("#events li[data-type=TEXT_MESSAGE_CONTENT]").count(), deltas.messages);
  assert.match(await page.locator("#events li[data-type=TEXT_MESSAGE_CONTENT]").first().innerText(), /×\d+\s*messageId \S+: "Here are this week's shipments\."/);
  const text = await deepText(".pair .a2ui .body");
  for (const w of ["List shipments", "3 rows", "Lyon, FR", "FedEx"]) assert.ok(text.includes(w), `A2UI surface lacks ${w}: ${text.slice(0, 300)}`);
  // The surface says where it came from.
  assert.match(await page.locator(".pair .a2ui .meta").first().innerText(), /source: generated from list_shipments's result/);
  // The log filter shows one type.
  await page.selectOption("#filter", "TOOL_CALL_RESULT");
  assert.equal(await page.locator("#events li:not([hidden])").count(), await page.locator("#events li[data-type=TOOL_CALL_RESULT]").count());
  await page.selectOption("#filter", "");
  await page.screenshot({ path: join(artifacts, "playground-table.png"), fullPage: true });
});

test("record, metrics and chart render; error ends the run with RUN_ERROR", async () => {
  await say(page, "record");
  assert.ok((await deepText(".pair .a2ui .body")).includes("Grace Hopper"));
  await say(page, "metrics");
  assert.ok((await deepText(".pair .a2ui .body")).includes("Conversion rate"));
  await say(page, "chart");
  assert.ok((await deepText(".pair .a2ui .body")).includes("Central"));
  await say(page, "error");
  assert.match(await page.locator("#messages").innerText(), /RUN_ERROR demo_error/);
  await page.screenshot({ path: join(artifacts, "playground-scenarios.png"), fullPage: true });
});

test("app: the refund review MCP App card renders inside the sandbox iframe", async () => {
  await say(page, "app");
  const view = page.frameLocator(".pair .mcp iframe").last().frameLocator("iframe");
  await view.getByText("Ada Lovelace").waitFor({ timeout: 15000 });
  await view.locator("#approve").click();
  await view.getByText("Decision: approved").waitFor({ timeout: 15000 });
  assert.match(await page.locator("#messages").innerText(), /The refund review card is above/);
  // The adapter's own follow-up round is not a repair.
  assert.equal(await page.locator("#events li.repair").count(), 0);
  // After the decision the frame still holds the whole card (its
  // "Decision:" line included).
  await page.waitForTimeout(500);
  const frame = await page.locator(".pair .mcp iframe").last().elementHandle();
  const doc = await (await frame.contentFrame()).childFrames()[0].evaluate(() => document.documentElement.scrollHeight);
  assert.ok((await frame.evaluate((f) => f.getBoundingClientRect().height)) + 1 >= doc, "the decided card is cut off");
  // A new thread's card is undecided: decisions are per thread.
  await page.locator("#reset").click();
  await say(page, "app");
  const fresh = page.frameLocator(".pair:not([hidden]) .mcp iframe").last().frameLocator("iframe");
  await fresh.getByText("pending").waitFor({ timeout: 15000 });
  assert.equal(await fresh.locator("#approve").isEnabled(), true);
  await page.screenshot({ path: join(artifacts, "playground-app.png"), fullPage: true });
});

test("side-by-side: the same tool call as an A2UI surface and an MCP Apps data view", async () => {
  await page.locator("#reset").click();
  await page.check("#side");
  await say(page, "chart");
  const pair = page.locator(".pair").first();
  await pair.locator(".cols.both").waitFor();
  assert.equal(await pair.locator(".col.a2ui").count(), 1);
  assert.equal(await pair.locator(".col.mcp").count(), 1);
  assert.match(await pair.locator(".col.a2ui .meta").innerText(), /\d+ A2UI messages, \d+ bytes/);
  const view = pair.locator(".col.mcp iframe").first();
  const inner = page.frameLocator(".pair .col.mcp iframe").first().frameLocator("iframe");
  await inner.locator("svg[aria-label='bar chart']").waitFor({ timeout: 15000 });
  assert.ok(await view.count());
  assert.match(await pair.locator(".col.mcp .meta").innerText(), /resource \d+ bytes/);
  // "show raw" reveals the payloads.
  await pair.locator(".col.a2ui button").click();
  assert.match(await pair.locator(".col.a2ui pre.raw").innerText(), /a2ui_operations/);
  await page.screenshot({ path: join(artifacts, "playground-side-by-side.png"), fullPage: true });
  await page.uncheck("#side");
});

test("html in the default mode: the page turns on MCP Apps, says so and shows the HTML", async () => {
  await page.locator("#reset").click();
  await page.uncheck("#side");
  await say(page, "html");
  // The refused A2UI-only run is followed by the same message, sent again.
  await page.waitForFunction(() => window.__playground.events.filter((e) => e.type === "RUN_FINISHED").length >= 2 && !window.__playground.state.running, null, { timeout: 20000 }).catch(() => {});
  assert.equal(await page.isChecked("#side"), true);
  assert.match(await page.locator("#pairs .notice").innerText(), /render_html shows HTML, which A2UI has no component for: Side-by-side \(MCP Apps cards\) is now on/);
  const html = page.frameLocator(".pair .mcp iframe").last().frameLocator("iframe").frameLocator("iframe#content");
  await html.locator("#probe").waitFor({ timeout: 15000 });
  assert.match(await page.locator("#input").getAttribute("placeholder"), /table, record, metrics, chart, dashboard, kpis, orders, form, ask, app, html, url, error/);
  await page.uncheck("#side");
});

test("form: the A2UI button's action round-trips to the agent", async () => {
  await page.locator("#reset").click();
  await say(page, "form");
  const field = page.locator(".pair .a2ui input").first();
  await field.fill("Lovely service");
  await page.locator(".pair .a2ui").getByText("Submit", { exact: true }).first().click();
  await page.waitForFunction(() => window.__playground.actions.length > 0);
  await page.waitForFunction(() => [...document.querySelectorAll("#messages li")].some((li) => li.textContent.includes("Thanks! I received your action")), null, { timeout: 15000 });
  const action = await page.evaluate(() => window.__playground.actions.at(-1));
  assert.equal(action.name, "submit_feedback");
  assert.equal(action.context.comment, "Lovely service");
  await page.screenshot({ path: join(artifacts, "playground-form-action.png"), fullPage: true });
});

test("no renderer or page errors", async () => {
  assert.deepEqual(await page.evaluate(() => window.__playground.errors), []);
  assert.deepEqual(pageErrors, []);
  // Text with markdown renders (the renderer warns when it has no
  // markdown renderer).
  assert.deepEqual(consoleProblems.filter((t) => /markdown/i.test(t)), []);
  // The Icon's font is the embedded Material Icons (a boolean's check is a
  // glyph, not the word "check").
  assert.equal(await page.evaluate(async () => { await document.fonts.ready; return [...document.fonts].some((f) => f.family.replace(/"/g, "") === "Material Icons" && f.status === "loaded"); }), true);
});
