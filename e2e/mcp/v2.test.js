// The MCP Apps 2.x wire of our host bridge, in headless Chromium, with a
// View built on the published App class of @modelcontextprotocol/ext-apps
// (the pinned 2.x): ui/log and the App's sendLog reach the adapter's log
// with the card's identity and a flood is refused with a JSON-RPC error;
// ui/download-file saves an allowed file (embedded or linked) and refuses
// another type or size; the pip display mode is honoured and a mode the
// host does not offer is refused; ui/resource-teardown is awaited, and a
// View that never replies delays only its own removal; the View's own
// tools are listed (a hostile name dropped) and called.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { readFile } from "node:fs/promises";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { runClient } from "../lib/clients.js";
import { launch, serveFiles, e2eDir, artifacts } from "../lib/browser.js";
import { startV2App } from "../lib/v2app.js";
import { sse } from "../agui/scenarios.js";

let adapter, up, files, browser, v2;

before(async () => {
  v2 = await startV2App();
  up = await startUpstream({
    "/agent": (i) => {
      if (i.messages.some((m) => m.role === "tool")) return sse([{ type: "RUN_STARTED", threadId: i.threadId, runId: i.runId }, { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId }]);
      const hang = i.messages.some((m) => m.role === "user" && String(m.content).includes("hang"));
      return sse([
        { type: "RUN_STARTED", threadId: i.threadId, runId: i.runId },
        { type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "show_v2" },
        { type: "TOOL_CALL_ARGS", toolCallId: "t1", delta: JSON.stringify({ hangTeardown: hang }) },
        { type: "TOOL_CALL_END", toolCallId: "t1" },
        { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId },
      ]);
    },
  });
  files = await serveFiles({ "/": join(e2eDir, "mcp", "host.html") });
  adapter = await startAdapter(`cors: {origins: ["${files.url}"]}
mcpApps: {viewLogRate: 1, viewLogBurst: 3, maxViewLogBytes: 512, downloadMIMETypes: [text/csv], maxDownloadBytes: 200}
mcpServers:
  v2: {url: "${v2.url}"}
agents:
  apps: {type: agui, url: "${up.url}/agent", mcpServers: [v2], a2ui: {disabled: true}}
`, { logLevel: "info" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await adapter?.stop();
  await files?.close();
  await up?.close();
  await v2?.close();
});

// showCard runs the agent on a new thread and mounts its card on page
// (window.__cards[name]); it resolves with the View's frame.
async function showCard(page, name, text, opts = {}) {
  const threadId = `v2-${name}-${Date.now()}`;
  const run = await runClient("1.0.0", `${adapter.url}/agents/apps/run`, { threadId, messages: [{ id: "u1", role: "user", content: text }] });
  const card = run.messages.find((m) => m.role === "activity" && m.activityType === "mcp-apps");
  assert.ok(card, "no mcp-apps card");
  const before = new Set(page.frames());
  await page.evaluate(async ({ adapterUrl, content, threadId, name, opts }) => {
    window.__cards ??= {};
    window.__downloads ??= [];
    const via = GenuiMcpApps.proxyVia(adapterUrl + "/agents/apps/run", { threadId });
    const el = document.createElement("div");
    el.id = "card-" + name;
    document.getElementById("cards").appendChild(el);
    window.__cards[name] = await GenuiMcpApps.mount(el, content, {
      adapter: adapterUrl,
      request: via,
      displayModes: ["inline", "pip"],
      ...(opts.keepDownloads ? { onDownload: (files) => window.__downloads.push(...files) } : {}),
      ...(opts.teardownTimeoutMs ? { teardownTimeoutMs: opts.teardownTimeoutMs } : {}),
    });
  }, { adapterUrl: adapter.url, content: card.content, threadId, name, opts });
  let view;
  const end = Date.now() + 15000;
  while (Date.now() < end) {
    view = page.frames().find((f) => !before.has(f) && f.parentFrame() && f.parentFrame().parentFrame() === page.mainFrame());
    if (view && await view.evaluate(() => !!window.__state?.connected && !!window.__state?.result).catch(() => false)) return view;
    await page.waitForTimeout(100);
  }
  throw new Error("the View did not connect and get its result");
}

test("ui/log: logged with the card's identity, a flood refused with a JSON-RPC error", async () => {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  const view = await showCard(page, "log", "show");
  // The App's sendLog (a notification) and two ui/log requests: the burst of 3.
  await view.evaluate(() => window.__app.sendLog({ level: "info", logger: "fixture", data: "hello from the view" }));
  const ok1 = await view.evaluate(() => window.rawRequest("ui/log", { level: "warning", data: { step: 1 } }));
  assert.deepEqual(ok1, { result: {} });
  const ok2 = await view.evaluate(() => window.rawRequest("ui/log", { level: "info", data: "two" }));
  // The notification may still be on its way: 2 or 3 of the burst spent.
  const flood = [];
  for (let i = 0; i < 3; i++) flood.push(await view.evaluate(() => window.rawRequest("ui/log", { level: "info", data: "flood" })));
  const refused = [ok2, ...flood].filter((r) => r.error);
  assert.ok(refused.length >= 2, `no flood refused: ${JSON.stringify([ok2, ...flood])}`);
  assert.equal(refused[0].error.code, -32000);
  assert.match(refused[0].error.message, /rate limit/);
  const big = await view.evaluate(() => window.rawRequest("ui/log", { level: "info", data: "x".repeat(600) }));
  assert.equal(big.error?.code, -32602, JSON.stringify(big));
  const logs = adapter.logs();
  const line = logs.split("\n").find((l) => l.includes("card log") && l.includes("hello from the view"));
  assert.ok(line, "the View's sendLog was not logged:\n" + logs.slice(-3000));
  for (const want of ["server=v2", "tool=show_v2", "card=t1", "resource=ui://v2/view.html", "logger=fixture"]) assert.ok(line.includes(want), `${want} not in ${line}`);
  assert.ok(logs.includes("card log rate exceeded"), "the flood was not logged");
  assert.deepEqual(errors, []);
  await page.close();
});

test("ui/download-file: allowed files saved, other types and sizes refused", async () => {
  const page = await browser.newPage();
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  const view = await showCard(page, "dl", "show");
  assert.deepEqual(await view.evaluate(() => window.__app.getHostCapabilities().downloadFile), {});
  // The default save: a download of the embedded CSV.
  const [download, res] = await Promise.all([
    page.waitForEvent("download", { timeout: 10000 }),
    view.evaluate(() => window.__app.downloadFile({ contents: [{ type: "resource", resource: { uri: "file:///out/sales.csv", mimeType: "text/csv", text: "a,b\n1,2\n" } }] })),
  ]);
  assert.equal(res.isError ?? false, false);
  assert.equal(download.suggestedFilename(), "sales.csv");
  assert.equal(await readFile(await download.path(), "utf8"), "a,b\n1,2\n");
  // A resource link, read from the card's server.
  const [linked] = await Promise.all([
    page.waitForEvent("download", { timeout: 10000 }),
    view.evaluate(() => window.__app.downloadFile({ contents: [{ type: "resource_link", uri: "file:///v2/report.csv", name: "report.csv", mimeType: "text/csv" }] })),
  ]);
  assert.equal(await readFile(await linked.path(), "utf8"), "region,sales\nNorth,120\n");
  // Refused: the App's promise rejects with the adapter's error.
  const refuse = (contents) => view.evaluate((c) => window.__app.downloadFile({ contents: c }).then((r) => ({ ok: r }), (e) => ({ code: e.code, message: String(e.message) })), contents);
  const svg = await refuse([{ type: "resource_link", uri: "file:///v2/logo.svg", name: "logo.svg" }]);
  assert.equal(svg.code, -32602, JSON.stringify(svg));
  assert.match(svg.message, /image\/svg\+xml.*not allowed/);
  const html = await refuse([{ type: "resource", resource: { uri: "file:///x.html", mimeType: "text/html", text: "<script>1</script>" } }]);
  assert.equal(html.code, -32602, JSON.stringify(html));
  const large = await refuse([{ type: "resource", resource: { uri: "file:///big.csv", mimeType: "text/csv", text: "1,".repeat(200) } }]);
  assert.equal(large.code, -32602, JSON.stringify(large));
  assert.match(large.message, /larger than 200 bytes/);
  await page.close();
});

test("display modes: pip honoured, a mode the host does not offer refused", async () => {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  const view = await showCard(page, "pip", "show");
  assert.deepEqual(await view.evaluate(() => window.__app.getHostContext().availableDisplayModes), ["inline", "pip"]);
  assert.deepEqual(await view.evaluate(() => window.__app.requestDisplayMode({ mode: "pip" })), { mode: "pip" });
  const card = page.locator("#card-pip .genui-mcp-card");
  assert.equal(await card.evaluate((el) => el.classList.contains("genui-mcp-card-pip") && getComputedStyle(el).position), "fixed");
  await page.screenshot({ path: join(artifacts, "mcp-apps-v2-pip.png") });
  // fullscreen: neither offered by this host nor declared by the View.
  assert.deepEqual(await view.evaluate(() => window.__app.requestDisplayMode({ mode: "fullscreen" })), { mode: "pip" });
  await view.evaluate(() => new Promise((r) => setTimeout(r, 50)));
  assert.equal(await view.evaluate(() => window.__app.getHostContext().displayMode), "pip");
  assert.deepEqual(await view.evaluate(() => window.__app.requestDisplayMode({ mode: "inline" })), { mode: "inline" });
  assert.equal(await card.evaluate((el) => getComputedStyle(el).position), "static");
  await page.close();
});

test("ui/resource-teardown: the reply is awaited; a View that never replies blocks nothing", async () => {
  const page = await browser.newPage();
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  const good = await showCard(page, "good", "show");
  const hung = await showCard(page, "hung", "show and hang", { teardownTimeoutMs: 2000 });
  assert.equal(await hung.evaluate(() => window.__state.result.structuredContent.hangTeardown), true);
  // The hung card's teardown waits; meanwhile the other card still works.
  await page.evaluate(() => { window.__hung = window.__cards.hung.teardown(); });
  await hung.evaluate(() => new Promise((r) => { const t = () => window.__state.teardowns ? r() : setTimeout(t, 20); t(); }));
  const call = await good.evaluate(() => window.__app.callServerTool({ name: "show_v2", arguments: {} }));
  assert.deepEqual(call.structuredContent, { hangTeardown: false });
  assert.equal(await page.evaluate(() => window.__hung), null, "the hung View's teardown resolved with a reply");
  assert.equal(await page.locator("#card-hung iframe").count(), 0, "the hung card was not removed");
  // A View that replies: teardown resolves with its reply, then the card goes.
  assert.deepEqual(await page.evaluate(() => window.__cards.good.teardown()), { result: {} });
  assert.equal(await good.evaluate(() => window.__state.teardowns).catch(() => "detached"), "detached");
  assert.equal(await page.locator("#card-good iframe").count(), 0);
  await page.close();
});

test("the View's own tools: tools/list and tools/call from the host", async () => {
  const page = await browser.newPage();
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  const view = await showCard(page, "tools", "show");
  const tools = await page.evaluate(() => window.__cards.tools.listViewTools());
  assert.deepEqual(tools.map((t) => t.name), ["get_selection", "fail_always"]);
  assert.equal(tools[0].description, "The rows the user selected");
  assert.equal(tools[0].inputSchema.type, "object");
  const r = await page.evaluate(() => window.__cards.tools.callViewTool("get_selection", {}));
  assert.deepEqual(r.structuredContent, { rows: ["North", "South"] });
  assert.equal(await view.evaluate(() => window.__state.viewToolCalls), 1);
  const broke = await page.evaluate(() => window.__cards.tools.callViewTool("fail_always", {}).then(() => null, (e) => ({ message: e.message, code: e.code })));
  assert.ok(broke && /broke/.test(JSON.stringify(broke)), JSON.stringify(broke));
  const hostile = await page.evaluate(() => window.__cards.tools.callViewTool("bad name</script>", {}).then(() => null, (e) => e.message));
  assert.match(hostile, /no listed tool/);
  await page.evaluate(() => window.__cards.tools.teardown());
  await page.close();
});
