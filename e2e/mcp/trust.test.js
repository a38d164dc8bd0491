// The MCP Apps trust boundary in headless Chromium: a card shown to alice
// holds a capability; through our host bridge its Approve button decides
// the refund and the refund server records alice; a request without a
// capability, with another card's capability or with an expired one is
// refused.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { launch, serveFiles, e2eDir, artifacts } from "../lib/browser.js";

const alice = { Authorization: "Bearer alice-token-123" };
const bob = { Authorization: "Bearer bob-token-12345" };
let adapter, files, browser;

before(async () => {
  files = await serveFiles({ "/": join(e2eDir, "mcp", "host.html") });
  adapter = await startAdapter(`cors: {origins: ["${files.url}"]}
auth: {bearerTokens: {alice: alice-token-123, bob: bob-token-12345}}
mcpApps: {capabilityTTL: 6s}
agents:
  demo: {type: demo, mcpServers: [refunds]}
`);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await adapter?.stop();
  await files?.close();
});

// run posts a run and returns its events.
async function run(thread, body, headers) {
  const res = await fetch(`${adapter.url}/agents/demo/run`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body: JSON.stringify({ threadId: thread, runId: crypto.randomUUID(), messages: [], ...body }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  const text = await res.text();
  return text.split("\n\n").map((b) => b.split("\n").find((l) => l.startsWith("data: "))).filter(Boolean).map((l) => JSON.parse(l.slice(6)));
}

async function showCard(thread, headers) {
  const evs = await run(thread, { messages: [{ id: "u", role: "user", content: "app" }] }, headers);
  const card = evs.find((e) => e.type === "ACTIVITY_SNAPSHOT" && e.activityType === "mcp-apps");
  assert.ok(card, "no refund card");
  return card.content;
}

async function proxied(thread, req, headers) {
  const evs = await run(thread, { forwardedProps: { __proxiedMCPRequest: req } }, headers);
  return evs.find((e) => e.type === "RUN_FINISHED").result;
}

const decide = (decision) => ({ method: "tools/call", params: { name: "decide_refund", arguments: { refundId: "RF-1001", decision } } });

test("cards hold capabilities: refused without, with another card's or an expired one; the server records who approved", async () => {
  const started = Date.now();
  const aliceCard = await showCard("alice-thread", alice);
  const bobCard = await showCard("bob-thread", bob);
  assert.match(aliceCard.serverHash, /^gcap1\./);

  // No capability: naming the server is not enough.
  let r = await proxied("alice-thread", { serverId: "refunds", ...decide("approve") }, alice);
  assert.equal(r.code, -32600, JSON.stringify(r));
  assert.match(r.error, /capability/);
  // Another card's capability (bob's, for his thread).
  r = await proxied("alice-thread", { serverHash: bobCard.serverHash, serverId: "refunds", ...decide("approve") }, alice);
  assert.equal(r.code, -32600, JSON.stringify(r));
  assert.match(r.error, /another conversation/);
  // Bob holding alice's card.
  r = await proxied("alice-thread", { serverHash: aliceCard.serverHash, ...decide("approve") }, bob);
  assert.match(r.error, /another conversation/);

  // Alice's card in the browser: Approve decides, the server records her.
  const page = await browser.newPage({ viewport: { width: 800, height: 700 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  await page.evaluate(async ({ adapterUrl, content, headers }) => {
    const via = GenuiMcpApps.proxyVia(adapterUrl + "/agents/demo/run", { threadId: "alice-thread", headers });
    window.__context = [];
    window.__card = await GenuiMcpApps.mount(document.getElementById("cards"), content, {
      adapter: adapterUrl, headers, request: via, onModelContext: (c) => window.__context.push(c),
    });
  }, { adapterUrl: adapter.url, content: aliceCard, headers: alice });
  const view = page.frameLocator("#cards iframe").frameLocator("iframe");
  await view.getByText("RF-1001").first().waitFor({ timeout: 15000 });
  await view.locator("#approve").click();
  await view.getByText("approved by alice").waitFor({ timeout: 10000 });
  // The card tells the model the outcome (ui/update-model-context).
  await page.waitForFunction(() => window.__context.some((c) => JSON.stringify(c).includes("approved by alice")), null, { timeout: 5000 });
  await page.screenshot({ path: join(artifacts, "mcp-apps-refund-approved.png"), fullPage: true });

  // The same card once its capability has expired (mcpApps.capabilityTTL 6s).
  await new Promise((res) => setTimeout(res, Math.max(0, 7500 - (Date.now() - started))));
  r = await proxied("alice-thread", { serverHash: aliceCard.serverHash, ...decide("reject") }, alice);
  assert.equal(r.code, -32600, JSON.stringify(r));
  assert.match(r.error, /expired/);
  await view.locator("#reject").evaluate((b) => { b.disabled = false; b.click(); });
  await view.getByText(/expired/).waitFor({ timeout: 10000 });
  assert.deepEqual(errors, []);
  await page.close();
});
