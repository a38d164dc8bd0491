// Surfaces the adapter produces for structured tool results are rendered by
// the official @a2ui/lit 0.11.0 renderer in headless Chromium: zero
// renderer errors, the expected text visible, and a generated button's
// action round-trips to the agent through forwardedProps.a2uiAction.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { runClient } from "../lib/clients.js";
import { launch, bundle, serveFiles, e2eDir, artifacts } from "../lib/browser.js";
import { sse } from "../agui/scenarios.js";

const rows200 = Array.from({ length: 200 }, (_, i) => ({ sku: `SKU-${i}`, qty: i, price: i + 0.5 }));
const datasets = {
  table: { tool: "list_orders", data: [{ id: "A-1", customer: "Ada", total: 12.5, paid: true }, { id: "A-2", customer: "Linus", total: 1999, paid: false }], expect: ["List orders", "2 rows", "Customer", "Ada", "Linus", "$12.50", "$1,999.00", "Select"] },
  record: { tool: "get_customer", data: { name: "Grace Hopper", tier: "gold", address: { city: "Arlington", country: "US" }, orders: [{ id: 1, item: "Compiler" }] }, expect: ["Get customer", "Name", "Grace Hopper", "Address", "Arlington", "Orders", "1 row", "Compiler"] },
  list: { tool: "list_tags", data: ["alpha", "beta", "gamma"], expect: ["3 items", "alpha", "gamma"] },
  empty: { tool: "search", data: [], expect: ["No results"] },
  unicode: { tool: "translate", data: [{ lang: "日本語", text: "こんにちは 🚀" }, { lang: "العربية", text: "مرحبا" }], expect: ["日本語", "こんにちは 🚀", "مرحبا"] },
  rows200: { tool: "inventory", data: rows200, expect: ["200 rows", "SKU-0", "SKU-199"] },
};

let up, adapter, browser, page, files;
const received = [];

before(async () => {
  const routes = {};
  for (const [name, d] of Object.entries(datasets)) {
    routes[`/${name}`] = (i) => {
      received.push(i);
      return sse([
        { type: "RUN_STARTED", threadId: i.threadId, runId: i.runId },
        { type: "TOOL_CALL_START", toolCallId: `call-${name}`, toolCallName: d.tool },
        { type: "TOOL_CALL_END", toolCallId: `call-${name}` },
        { type: "TOOL_CALL_RESULT", messageId: `res-${name}`, toolCallId: `call-${name}`, content: JSON.stringify(d.data) },
        { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId },
      ]);
    };
  }
  up = await startUpstream(routes);
  const agents = Object.keys(datasets).map((n) => `  ${n}: {type: agui, url: ${up.url}/${n}}`).join("\n");
  adapter = await startAdapter(`agents:\n${agents}\n`);
  const js = await bundle("a2ui/entry.js", "a2ui-bundle.js");
  files = await serveFiles({ "/": join(e2eDir, "a2ui", "page.html"), "/bundle.js": js });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await files?.close();
  await adapter?.stop();
  await up?.close();
});

async function surfaceOf(name) {
  const got = await runClient("1.0.0", `${adapter.url}/agents/${name}/run`, { threadId: `t-${name}`, runId: `r-${name}-${Date.now()}` });
  assert.deepEqual(got.failed, []);
  const act = got.messages.find((m) => m.role === "activity" && m.activityType === "a2ui-surface");
  assert.ok(act, `no a2ui-surface for ${name}`);
  return act.content.a2ui_operations;
}

async function render(ops) {
  page = await browser.newPage({ viewport: { width: 960, height: 900 } });
  const consoleErrors = [];
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  page.on("console", (m) => m.type() === "error" && consoleErrors.push(m.text()));
  await page.goto(files.url + "/");
  await page.waitForFunction(() => typeof window.renderA2UI === "function");
  await page.evaluate((o) => window.renderA2UI(o), ops);
  await page.waitForTimeout(300);
  // The surface renders partly inside shadow roots: collect text deeply.
  const state = await page.evaluate(() => {
    const parts = [];
    const walk = (n) => {
      if (n.nodeType === Node.TEXT_NODE) parts.push(n.textContent);
      if (n.shadowRoot) walk(n.shadowRoot);
      for (const c of n.childNodes) walk(c);
    };
    walk(document.getElementById("root"));
    return { errors: window.__a2ui.errors, text: parts.join(" ").replace(/\s+/g, " ") };
  });
  return { ...state, consoleErrors };
}

for (const [name, d] of Object.entries(datasets)) {
  test(`@a2ui/lit renders the ${name} surface`, async () => {
    const ops = await surfaceOf(name);
    const r = await render(ops);
    await page.screenshot({ path: join(artifacts, `a2ui-${name}.png`), fullPage: true });
    assert.deepEqual(r.errors, [], "renderer errors");
    assert.deepEqual(r.consoleErrors, [], "console errors");
    for (const want of d.expect) assert.ok(r.text.includes(want), `"${want}" not visible in:\n${r.text.slice(0, 600)}`);
    await page.close();
  });
}

test("clicking a generated row button round-trips to the agent as a2uiAction", async () => {
  const ops = await surfaceOf("table");
  const r = await render(ops);
  assert.deepEqual(r.errors, []);
  await page.getByText("Select").first().click();
  await page.waitForFunction(() => window.__a2ui.actions.length > 0);
  const action = await page.evaluate(() => window.__a2ui.actions[0]);
  await page.screenshot({ path: join(artifacts, "a2ui-table-clicked.png"), fullPage: true });
  await page.close();
  assert.equal(action.name, "select_row");
  assert.equal(action.surfaceId, "s-call-table");
  assert.deepEqual(action.context, { id: "A-1", source: "list_orders" });
  // CopilotKit sends the action back as forwardedProps.a2uiAction.userAction.
  const before = received.length;
  const got = await runClient("1.0.0", `${adapter.url}/agents/table/run`, { threadId: "t-table", runId: "r-action", forwardedProps: { a2uiAction: { userAction: action } } });
  assert.deepEqual(got.failed, []);
  const input = received[before];
  const call = input.messages.find((m) => m.toolCalls?.[0]?.function?.name === "log_a2ui_event");
  assert.ok(call, "the agent did not receive the log_a2ui_event call");
  assert.deepEqual(JSON.parse(call.toolCalls[0].function.arguments).context, { id: "A-1", source: "list_orders" });
  const tool = input.messages.find((m) => m.role === "tool" && m.toolCallId === call.toolCalls[0].id);
  assert.equal(tool.content, `User performed action "select_row" on surface "s-call-table" (component: ${action.sourceComponentId}). Context: {"id":"A-1","source":"list_orders"}`);
});
