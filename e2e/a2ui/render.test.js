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
import { artifacts } from "../lib/browser.js";
import { startRenderers, assertRendered, surfaceOf } from "../lib/a2uipage.js";
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

let up, adapter, renderers;
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
  renderers = await startRenderers();
});

after(async () => {
  await renderers?.close();
  await adapter?.stop();
  await up?.close();
});

async function opsOf(name) {
  const got = await runClient("1.0.0", `${adapter.url}/agents/${name}/run`, { threadId: `t-${name}`, runId: `r-${name}-${Date.now()}` });
  return surfaceOf(got, name).a2ui_operations;
}

for (const [name, d] of Object.entries(datasets)) {
  test(`@a2ui/lit renders the ${name} surface`, async () => {
    const r = await renderers.render("v0.9", await opsOf(name), { shot: `a2ui-${name}` });
    assertRendered(r, d.expect);
  });
}

test("clicking a generated row button round-trips to the agent as a2uiAction", async () => {
  const r = await renderers.render("v0.9", await opsOf("table"), { keep: true });
  assert.deepEqual(r.errors, []);
  const page = r.page;
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
