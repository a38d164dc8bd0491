// Python MCP App servers as real peers, behind the adapter over stdio,
// streamable HTTP (sessions, SSE replies) and stateless JSON HTTP: the
// official Python SDK's MCP Apps extension (mcp.server.apps) and FastMCP's
// apps (FastMCPApp, @app.ui(), its Prefab renderer), at the versions
// e2e/python/requirements.txt pins, from e2e/.venv. In headless Chromium,
// through our host bridge: each card renders, receives its tool result,
// calls its app-only tool, and the official server's _meta.ui.csp is what
// the View's fetches meet. Each server is also asked for the 2026-07-28
// wire (mcpServers.<id>.protocolVersion), where both declare
// io.modelcontextprotocol/ui and the official one sees the adapter's
// capability even when stateless.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, writeFileSync, readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { startAdapter } from "../lib/adapter.js";
import { startUpstream } from "../lib/upstream.js";
import { runClient } from "../lib/clients.js";
import { launch, bundle, serveFiles, e2eDir, artifacts } from "../lib/browser.js";
import { sse } from "../agui/scenarios.js";
import { freePort, waitPort } from "../lib/ports.js";

const python = join(e2eDir, ".venv", "bin", "python");
const scripts = join(e2eDir, "python", "mcpapps");
const transports = ["stdio", "http", "json"];
let adapter, up, files, browser, allowed, blocked;
const procs = [];
const seenTools = [];

// origin serves 204 on loopback: the targets of the View's CSP probe.
async function origin() {
  const s = http.createServer((req, res) => res.writeHead(204).end());
  await new Promise((r) => s.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${s.address().port}`, close: () => new Promise((r) => { s.closeAllConnections(); s.close(r); }) };
}

before(async () => {
  assert.ok(existsSync(python), "e2e/.venv is missing: make e2e-venv");
  allowed = await origin();
  blocked = await origin();
  const js = readFileSync(await bundle("mcp/pyview-entry.js", "pyview.js"), "utf8");
  const viewHTML = join(e2eDir, ".build", "pyview.html");
  writeFileSync(viewHTML, `<!doctype html><html><head><meta charset="utf-8"></head><body><h3>Python card</h3><div id="greeting">waiting</div><button id="tick">tick</button><div id="ticks"></div><script type="module">${js.replaceAll("</script", "<\\/script")}</script></body></html>`);
  const env = { ...process.env, PY_VIEW_HTML: viewHTML, PY_CONNECT_ORIGIN: allowed.url, PREFAB_BUNDLED_RENDERER: "1", FASTMCP_LOG_LEVEL: "WARNING", PYTHONUNBUFFERED: "1" };
  const servers = {};
  for (const impl of ["official", "fastmcp"]) {
    const script = join(scripts, `${impl}_server.py`);
    servers[`${impl}-stdio`] = `{command: ["/usr/bin/env", ${JSON.stringify(`PY_VIEW_HTML=${viewHTML}`)}, ${JSON.stringify(`PY_CONNECT_ORIGIN=${allowed.url}`)}, "PREFAB_BUNDLED_RENDERER=1", "FASTMCP_LOG_LEVEL=WARNING", ${JSON.stringify(python)}, ${JSON.stringify(script)}, "stdio"]}`;
    for (const mode of ["http", "json"]) {
      const port = await freePort();
      const p = spawn(python, [script, mode, String(port)], { env, stdio: ["ignore", "ignore", "inherit"] });
      procs.push(p);
      await waitPort(port);
      servers[`${impl}-${mode}`] = `{url: "http://127.0.0.1:${port}/mcp"}`;
      // The same server asked for the 2026-07-28 wire.
      servers[`${impl}-${mode}-2026`] = `{url: "http://127.0.0.1:${port}/mcp", protocolVersion: "2026-07-28"}`;
    }
    servers[`${impl}-stdio-2026`] = servers[`${impl}-stdio`].replace(/}$/, `, protocolVersion: "2026-07-28"}`);
  }
  // The scripted agent: round 0 calls both UI tools, the follow-up (which
  // carries their results) answers in text.
  up = await startUpstream({
    "/agent": (i) => {
      const results = i.messages.filter((m) => m.role === "tool");
      if (results.length === 0) {
        const offered = i.tools.map((t) => t.name);
        seenTools.push(offered);
        const calls = [["call-py", "py_show", { name: "adapter" }], ["call-fm", "fm_counter", {}]].filter(([, name]) => offered.includes(name));
        return sse([
          { type: "RUN_STARTED", threadId: i.threadId, runId: i.runId },
          ...calls.flatMap(([id, name, args]) => [
            { type: "TOOL_CALL_START", toolCallId: id, toolCallName: name },
            { type: "TOOL_CALL_ARGS", toolCallId: id, delta: JSON.stringify(args) },
            { type: "TOOL_CALL_END", toolCallId: id },
          ]),
          { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId },
        ]);
      }
      return sse([
        { type: "RUN_STARTED", threadId: i.threadId, runId: i.runId },
        { type: "TEXT_MESSAGE_START", messageId: "answer", role: "assistant" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "answer", delta: `I called ${results.length} tools.` },
        { type: "TEXT_MESSAGE_END", messageId: "answer" },
        { type: "RUN_FINISHED", threadId: i.threadId, runId: i.runId },
      ]);
    },
  });
  files = await serveFiles({ "/": join(e2eDir, "mcp", "host.html") });
  adapter = await startAdapter(`cors: {origins: ["${files.url}"]}
mcpApps: {maxResourceBytes: 8388608}
mcpServers:
${Object.entries(servers).map(([id, s]) => `  ${id}: ${s}`).join("\n")}
agents:
${transports.map((t) => `  py-${t}: {type: agui, url: "${up.url}/agent", mcpServers: [official-${t}, fastmcp-${t}], a2ui: {disabled: true}}`).join("\n")}
${transports.map((t) => `  py-${t}-2026: {type: agui, url: "${up.url}/agent", mcpServers: [official-${t}-2026, fastmcp-${t}-2026], a2ui: {disabled: true}}`).join("\n")}
`, { logLevel: "info" });
  browser = await launch();
  // Every server connected (the stdio ones import their SDK first).
  const end = Date.now() + 60000;
  while (Object.keys(servers).some((id) => !connected(id)) && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
});

// connected is the adapter's "mcp: connected" log line of a server.
function connected(id) {
  return adapter.logs().split("\n").find((l) => l.includes("msg=\"mcp: connected\"") && l.includes(`server=${id} `));
}

after(async () => {
  await browser?.close();
  await adapter?.stop();
  await files?.close();
  await up?.close();
  await allowed?.close();
  await blocked?.close();
  for (const p of procs) p.kill();
});

// mount shows a card on a fresh page through our host bridge and returns
// the page and the View's frame.
async function mount(card, threadId, agent) {
  const page = await browser.newPage({ viewport: { width: 800, height: 900 } });
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(files.url + "/");
  await page.addScriptTag({ url: `${adapter.url}/static/mcp-apps-host.js` });
  await page.evaluate(async ({ adapterUrl, content, threadId, agent }) => {
    window.__proxied = [];
    const via = GenuiMcpApps.proxyVia(`${adapterUrl}/agents/${agent}/run`, { threadId });
    window.__card = await GenuiMcpApps.mount(document.getElementById("cards"), content, {
      adapter: adapterUrl,
      request: async (req) => { const r = await via(req); window.__proxied.push({ method: req.method, name: req.params?.name, isError: !!r?.isError, error: r?.error }); return r; },
    });
  }, { adapterUrl: adapter.url, content: card.content, threadId, agent });
  const view = page.frameLocator("#cards iframe").frameLocator("iframe");
  return { page, view, errors };
}

test("every Python server connects over every transport; what each declares under capabilities.extensions is read", () => {
  for (const t of transports) {
    for (const impl of ["official", "fastmcp"]) {
      const line = connected(`${impl}-${t}`);
      assert.ok(line, `${impl}-${t} did not connect:\n${adapter.logs().slice(-3000)}`);
      assert.match(line, /tools=2 /, line);
      // Neither puts capabilities.extensions into its initialize result
      // at protocol 2025-11-25 (both advertise io.modelcontextprotocol/ui
      // only on the 2026-07-28 wire, in server/discover): the adapter
      // reads none and renders anyway.
      assert.match(line, /mcp_apps=none$/, line);
    }
    // On the 2026-07-28 wire (mcpServers.<id>.protocolVersion) both
    // declare it, in server/discover, and the adapter reads it.
    for (const impl of ["official", "fastmcp"]) {
      const line = connected(`${impl}-${t}-2026`);
      assert.ok(line, `${impl}-${t}-2026 did not connect`);
      assert.match(line, /tools=2 mcp_apps=\{\}$/, line);
    }
  }
});

// run runs the scripted agent on a new thread and returns its cards.
async function run(agent, want) {
  const threadId = `${agent}-${Date.now()}`;
  const got = await runClient("1.0.0", `${adapter.url}/agents/${agent}/run`, { threadId });
  assert.equal(got.rejected, undefined);
  assert.deepEqual(got.failed, []);
  const tools = seenTools.at(-1);
  for (const name of want) assert.ok(tools.includes(name), `${name} not offered: ${tools}`);
  for (const name of ["py_tick", "fm_increment"]) assert.ok(!tools.includes(name), `app-only ${name} offered to the model`);
  const cards = got.messages.filter((m) => m.role === "activity" && m.activityType === "mcp-apps");
  assert.equal(cards.length, want.length, adapter.logs().split("\n").filter((l) => /level=(WARN|ERROR)|not renderable|more than/.test(l)).join("\n"));
  assert.ok(got.messages.some((m) => m.role === "assistant" && m.content === `I called ${want.length} tools.`), "follow-up text missing");
  return { cards, threadId };
}

// officialCard shows the official SDK server's card: the View gets its
// result, its button calls the app-only py_tick, and its fetches meet
// the resource's _meta.ui.csp.
async function officialCard(card, threadId, agent, appsNegotiated) {
  assert.equal(card.content.resourceUri, "ui://py/view.html");
  assert.deepEqual(card.content.result.structuredContent, { greeting: "hello adapter", appsNegotiated, sdk: "mcp" });
  const { page, view, errors } = await mount(card, threadId, agent);
  await view.getByText("hello adapter").waitFor({ timeout: 15000 });
  await view.locator("#tick").click();
  await view.locator("#ticks").getByText("ticks").waitFor({ timeout: 10000 });
  const frame = page.frames().find((f) => f.parentFrame() && f.parentFrame().parentFrame() === page.mainFrame());
  const state = await frame.evaluate(() => window.__state);
  assert.equal(state.result.structuredContent.greeting, "hello adapter");
  assert.ok(state.ticks?.ticks >= 2, JSON.stringify(state.ticks));
  const probe = await frame.evaluate((urls) => window.probeCSP(urls), [allowed.url + "/ok", blocked.url + "/no"]);
  assert.equal(probe[0], "ok", "the origin _meta.ui.csp allows was blocked");
  assert.match(probe[1], /^blocked/, "an origin outside _meta.ui.csp was reachable");
  const v = await frame.evaluate(() => window.__state.violations);
  assert.ok(v.some((x) => x.directive === "connect-src" && x.blocked.startsWith(blocked.url)), JSON.stringify(v));
  await page.screenshot({ path: join(artifacts, `mcp-apps-python-${agent}-official.png`), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
}

// fastmcpCard shows FastMCP's Prefab card: the renderer draws the tool
// result's component tree, its button calls the app-only fm_increment,
// and the renderer, which declares no csp, gets the default policy.
async function fastmcpCard(card, threadId, agent) {
  assert.match(card.content.resourceUri, /^ui:\/\/prefab\/renderer/);
  assert.equal(card.content.result.structuredContent.view.type, "Div");
  const { page, view, errors } = await mount(card, threadId, agent);
  await view.getByText("FastMCP counter: clicks").waitFor({ timeout: 30000 });
  const before = Number((await view.getByText(/^Count: \d+$/).textContent()).split(": ")[1]);
  await view.getByRole("button", { name: "Increment" }).click();
  await view.getByText(`Count: ${before + 1}`).waitFor({ timeout: 10000 });
  const calls = await page.evaluate(() => window.__proxied.filter((p) => p.method === "tools/call"));
  assert.ok(calls.length >= 1 && calls.every((p) => !p.isError && !p.error), JSON.stringify(calls));
  assert.equal(calls[0].name, "fm_increment");
  // The bundled renderer's _meta.ui declares no csp: the default policy,
  // no connections, holds inside it.
  const frame = page.frames().find((f) => f.parentFrame() && f.parentFrame().parentFrame() === page.mainFrame());
  const probe = await frame.evaluate((u) => fetch(u, { mode: "no-cors" }).then(() => "ok", (e) => "blocked: " + e.message), allowed.url + "/prefab");
  assert.match(probe, /^blocked/, "the Prefab card reached an origin no csp allows");
  await page.screenshot({ path: join(artifacts, `mcp-apps-python-${agent}-fastmcp.png`), fullPage: true });
  assert.deepEqual(errors, []);
  await page.close();
}

for (const t of transports) {
  test(`${t}: both Python servers' cards render, get their result and call their app-only tools`, async () => {
    const { cards, threadId } = await run(`py-${t}`, ["py_show", "fm_counter"]);
    // The adapter declares io.modelcontextprotocol/ui in initialize and
    // the SDK's client_supports_apps sees it; a stateless server answers
    // each request in a fresh session that never saw initialize, so there
    // the SDK reads no client capabilities (on 2025-11-25).
    await officialCard(cards.find((c) => c.content.serverId === `official-${t}`), threadId, `py-${t}`, t !== "json");
    await fastmcpCard(cards.find((c) => c.content.serverId === `fastmcp-${t}`), threadId, `py-${t}`);
  });

  test(`${t}, protocol 2026-07-28: both cards, the adapter's capability seen on every request`, async () => {
    const { cards, threadId } = await run(`py-${t}-2026`, ["py_show", "fm_counter"]);
    await officialCard(cards.find((c) => c.content.serverId === `official-${t}-2026`), threadId, `py-${t}-2026`, true);
    // FastMCP's card arrives the same; its 7 MB renderer is mounted in
    // the 2025-11-25 tests only.
    const fm = cards.find((c) => c.content.serverId === `fastmcp-${t}-2026`);
    assert.match(fm?.content.resourceUri, /^ui:\/\/prefab\/renderer/);
    assert.equal(fm.content.result.structuredContent.view.type, "Div");
  });
}
