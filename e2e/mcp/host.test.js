// Our host bridge and sandbox origin in headless Chromium with the
// unmodified official App of server-basic-vanillajs: it renders "Server
// Time", its button's tools/call round-trips through the adapter,
// open-link of javascript: is refused, and the inner frame cannot read the
// host page.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { startBasicAppUpstream, basicAppConfig } from "../lib/basicapp.js";
import { runClient } from "../lib/clients.js";
import { launch, serveFiles, e2eDir, artifacts } from "../lib/browser.js";

let adapter, up, files, browser;

before(async () => {
  up = await startBasicAppUpstream();
  files = await serveFiles({ "/": join(e2eDir, "mcp", "host.html") });
  adapter = await startAdapter(basicAppConfig(up.url, files.url));
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await adapter?.stop();
  await files?.close();
  await up?.close();
});

test("the official basic-vanillajs App runs in our host bridge and sandbox", async () => {
  assert.ok(adapter.sandbox && new URL(adapter.sandbox).origin !== new URL(adapter.url).origin, "the sandbox needs its own origin");
  const threadId = `host-${Date.now()}`;
  const run = await runClient("1.0.0", `${adapter.url}/agents/apps/run`, { threadId });
  const card = run.messages.find((m) => m.role === "activity" && m.activityType === "mcp-apps");
  assert.ok(card, "no mcp-apps card");

  const page = await browser.newPage({ viewport: { width: 800, height: 700 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  await page.evaluate(async ({ adapterUrl, content, threadId }) => {
    window.__proxied = [];
    const via = GenuiMcpApps.proxyVia(adapterUrl + "/agents/apps/run", { threadId });
    window.__messages = [];
    window.__opened = [];
    window.__card = await GenuiMcpApps.mount(document.getElementById("cards"), content, {
      adapter: adapterUrl,
      request: async (req) => { const r = await via(req); window.__proxied.push({ method: req.method, name: req.params?.name, isError: !!r?.isError }); return r; },
      onMessage: (msgs) => window.__messages.push(...msgs),
      openLink: (u) => window.__opened.push(u),
    });
  }, { adapterUrl: adapter.url, content: card.content, threadId });

  const view = page.frameLocator("#cards iframe").frameLocator("iframe");
  await view.getByText("Server Time", { exact: false }).first().waitFor({ timeout: 15000 });
  await page.screenshot({ path: join(artifacts, "mcp-apps-basic-card.png"), fullPage: true });

  // The View's button calls get-time through the adapter.
  await view.locator("#get-time-btn").click();
  await page.waitForFunction(() => window.__proxied.some((p) => p.method === "tools/call" && p.name === "get-time"), null, { timeout: 10000 });
  const call = await page.evaluate(() => window.__proxied.find((p) => p.method === "tools/call"));
  assert.equal(call.isError, false);
  await page.screenshot({ path: join(artifacts, "mcp-apps-basic-card-clicked.png"), fullPage: true });

  // Inside the View: open-link of javascript: is refused, and the host
  // page is out of reach (another origin).
  const inner = page.frames().find((f) => f.parentFrame() && f.parentFrame().parentFrame() === page.mainFrame());
  assert.ok(inner, "no inner View frame");
  const probe = await inner.evaluate(() => new Promise((resolve) => {
    let readable;
    try { readable = String(window.top.document.title); } catch (e) { readable = "blocked"; }
    window.addEventListener("message", (e) => {
      if (e.data?.id === 4242) resolve({ readable, reply: e.data });
    });
    window.parent.postMessage({ jsonrpc: "2.0", id: 4242, method: "ui/open-link", params: { url: "javascript:alert(document.cookie)" } }, "*");
    setTimeout(() => resolve({ readable, reply: null }), 3000);
  }));
  assert.equal(probe.readable, "blocked", "the View could read the host page");
  assert.ok(probe.reply?.error, `open-link of javascript: was not refused: ${JSON.stringify(probe.reply)}`);
  assert.deepEqual(await page.evaluate(() => window.__opened), []);
  // An unknown method gets -32601.
  const unknown = await inner.evaluate(() => new Promise((resolve) => {
    window.addEventListener("message", (e) => { if (e.data?.id === 4343) resolve(e.data); });
    window.parent.postMessage({ jsonrpc: "2.0", id: 4343, method: "sampling/createMessage", params: {} }, "*");
    setTimeout(() => resolve(null), 3000);
  }));
  assert.equal(unknown?.error?.code, -32601);
  assert.deepEqual(errors, []);
  await page.evaluate(() => window.__card.teardown());
  assert.equal(await page.locator("#cards iframe").count(), 0);
  await page.close();
});
