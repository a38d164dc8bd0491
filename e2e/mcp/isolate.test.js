// Two cards of the official basic-vanillajs App on one page, in headless
// Chromium, with our host bridge and sandbox. Cards share sandboxOrigin,
// so by default one card's View can reach the other card's frame
// (docs/security.md); with mcpApps.isolateCards each View has an opaque
// origin: it cannot, and the card still renders and calls its tool.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { startBasicAppUpstream, basicAppConfig } from "../lib/basicapp.js";
import { runClient } from "../lib/clients.js";
import { launch, serveFiles, e2eDir, artifacts } from "../lib/browser.js";

let up, files, browser;

before(async () => {
  up = await startBasicAppUpstream();
  files = await serveFiles({ "/": join(e2eDir, "mcp", "host.html") });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await files?.close();
  await up?.close();
});

// twoCards mounts the card of one run twice on the host page and, from
// the first card's View, tries to read the second card's View; it returns
// what the first View read ("blocked" if it could not), the first View's
// frame, and the page.
async function twoCards(isolate) {
  const adapter = await startAdapter(basicAppConfig(up.url, files.url, `mcpApps: {isolateCards: ${isolate}}\n`));
  const threadId = `isolate-${isolate}-${Date.now()}`;
  const run = await runClient("1.0.0", `${adapter.url}/agents/apps/run`, { threadId });
  const card = run.messages.find((m) => m.role === "activity" && m.activityType === "mcp-apps");
  assert.ok(card, "no mcp-apps card");
  const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  await page.evaluate(async ({ adapterUrl, content, threadId }) => {
    window.__proxied = [];
    const via = GenuiMcpApps.proxyVia(adapterUrl + "/agents/apps/run", { threadId });
    const cards = document.getElementById("cards");
    for (const id of ["a", "b"]) {
      const box = document.createElement("div");
      box.id = "card-" + id;
      cards.appendChild(box);
      await GenuiMcpApps.mount(box, content, {
        adapter: adapterUrl,
        request: async (req) => { const r = await via(req); window.__proxied.push({ method: req.method, name: req.params?.name, isError: !!r?.isError }); return r; },
      });
    }
  }, { adapterUrl: adapter.url, content: card.content, threadId });
  for (const id of ["a", "b"]) {
    await page.frameLocator(`#card-${id} iframe`).frameLocator("iframe").getByText("Server Time", { exact: false }).first().waitFor({ timeout: 15000 });
  }
  const views = page.frames().filter((f) => f.parentFrame() && f.parentFrame().parentFrame() === page.mainFrame());
  assert.equal(views.length, 2, "two Views");
  const read = await views[0].evaluate(() => {
    try {
      return String(window.top.frames[1].frames[0].document.body.innerText).slice(0, 200);
    } catch {
      return "blocked";
    }
  });
  return { adapter, page, view: page.frameLocator("#card-a iframe").frameLocator("iframe"), read, errors };
}

test("cards share the sandbox origin: one card's View can read another's", async () => {
  const { adapter, page, read } = await twoCards(false);
  try {
    assert.match(read, /Server Time/, `the first View could not read the second: ${read}`);
  } finally {
    await page.close();
    await adapter.stop();
  }
});

test("mcpApps.isolateCards: no View reaches another card's frame, and the card still works", async () => {
  const { adapter, page, view, read, errors } = await twoCards(true);
  try {
    assert.equal(read, "blocked", "an isolated View read another card");
    await view.locator("#get-time-btn").click();
    await page.waitForFunction(() => window.__proxied.some((p) => p.method === "tools/call" && p.name === "get-time"), null, { timeout: 10000 });
    assert.equal((await page.evaluate(() => window.__proxied.find((p) => p.method === "tools/call"))).isError, false);
    await page.screenshot({ path: join(artifacts, "mcp-apps-isolated-cards.png"), fullPage: true });
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
    await adapter.stop();
  }
});
