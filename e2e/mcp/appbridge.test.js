// Our built-in data view (ui://genui/data-view) against the official host
// implementation, AppBridge from @modelcontextprotocol/ext-apps: it
// initializes, renders the tool result and calls the app-only refresh tool.
// (The playground test covers it against our own host bridge.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { writeFileSync, mkdirSync } from "node:fs";
import { startAdapter } from "../lib/adapter.js";
import { runClient } from "../lib/clients.js";
import { launch, bundle, serveFiles, e2eDir, artifacts } from "../lib/browser.js";

let adapter, files, browser;
before(async () => {
  adapter = await startAdapter("agents:\n  d: {type: demo, delay: 1ms}\n");
  const js = await bundle("mcp/appbridge-entry.js", "appbridge.js");
  mkdirSync(join(e2eDir, ".build"), { recursive: true });
  const page = join(e2eDir, ".build", "appbridge.html");
  writeFileSync(page, `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><script type="module" src="/bundle.js"></script></body></html>`);
  files = await serveFiles({ "/": page, "/bundle.js": js });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await files?.close();
  await adapter?.stop();
});

test("the data view works with the official AppBridge", async () => {
  // A data-view card (its capability), then the View's HTML as that card
  // reads it: a proxied resources/read on the card's thread.
  const threadId = `appbridge-${Date.now()}`;
  const shown = await runClient("1.0.0", `${adapter.url}/agents/d/run`, { threadId, messages: [{ id: "u1", role: "user", content: "table" }], forwardedProps: { genuiRender: ["mcp-apps"] } });
  const dv = shown.messages.find((m) => m.role === "activity" && m.activityType === "mcp-apps");
  assert.ok(dv, "no data-view card");
  const read = await runClient("1.0.0", `${adapter.url}/agents/d/run`, { threadId, forwardedProps: { __proxiedMCPRequest: { serverHash: dv.content.serverHash, serverId: "genui", method: "resources/read", params: { uri: "ui://genui/data-view" } } } });
  const html = read.events.find((e) => e.type === "RUN_FINISHED").result.contents[0].text;
  assert.ok(html.includes("ui/initialize"));
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(files.url + "/");
  await page.waitForFunction(() => typeof window.mountWithAppBridge === "function");
  const data = [{ region: "North", sales: 120 }, { region: "South", sales: 95 }];
  await page.evaluate(([h, d]) => window.mountWithAppBridge(h, { view: "table" }, { content: [{ type: "text", text: "2 rows" }], structuredContent: { title: "Sales", data: d } }), [html, data]);
  await page.waitForFunction(() => window.__bridge.initialized, null, { timeout: 10000 });
  const view = page.frameLocator("iframe");
  await view.getByText("North").waitFor({ timeout: 10000 });
  assert.equal(await view.locator("#root").getAttribute("data-view"), "table");
  assert.match(await view.locator("h2").innerText(), /Sales/);
  await view.locator("#refresh").click();
  await page.waitForFunction(() => window.__bridge.calls.length > 0);
  assert.equal(await page.evaluate(() => window.__bridge.calls[0].name), "refresh");
  await view.locator("#root[data-refreshed=yes]").waitFor();
  assert.ok((await page.evaluate(() => window.__bridge.sizes.length)) > 0, "no size-changed reached AppBridge");
  await page.screenshot({ path: join(artifacts, "dataview-appbridge.png") });
  assert.deepEqual(errors, []);
});
